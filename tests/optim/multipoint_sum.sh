#!/usr/bin/env bash
# A 2-point design equals the weighted sum of its two single-point runs (tests/optim/CMakeLists.txt):
#   J = 0.3 J(alpha 2) + 0.7 J(alpha 8),  dJ/dp = 0.3 dJ/dp(alpha 2) + 0.7 dJ/dp(alpha 8)
# each point on its own rank (2 ranks) against the single points run alone on 1 rank each; J_k and dJ_k/dp must
# agree to 1e-12 relative (the same arithmetic on a 1-rank sub-communicator: in practice bit for bit), and the sums
# (multipoint_check.py).
# usage: multipoint_sum.sh MPIEXEC ADJSIM PYTHON DECK NP
set -eu
mpiexec=$1 adjsim=$2 python=$3 deck=$4 np=$5
tag=mpsum_np$np
"$mpiexec" -n 1 "$adjsim" -options_file "$deck" -output ${tag}_a2.h5 -fluid_body_alpha 2
"$mpiexec" -n 1 "$adjsim" -options_file "$deck" -output ${tag}_a8.h5 -fluid_body_alpha 8
"$mpiexec" -n "$np" "$adjsim" -options_file "$deck" -output ${tag}_mp.h5 -design_points 2 \
  -design_point_weights 0.3,0.7 -design_point1_fluid_body_alpha 8
"$python" "$(dirname "$0")/multipoint_check.py" ${tag}_mp.h5 0 ${tag}_a2.h5 ${tag}_a8.h5
