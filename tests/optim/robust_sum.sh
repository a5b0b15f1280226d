#!/usr/bin/env bash
# A robust design equals its single-point runs at the sample values (tests/optim/CMakeLists.txt):
#   J = m + k sqrt(s^2 + eps^2),  m = (1/N) sum_i J_i,  s^2 = (1/N) sum_i (J_i - m)^2,
#   dJ/dp = sum_i c_i dJ_i/dp,  c_i = 1/N + (k / s_eps) (1/N) ((J_i - m) - S1),  S1 = (1/N) sum_j (J_j - m)
# N samples of fluid_body_alpha on NP ranks against N single-point runs on 1 rank at the sample values read from
# /optimization/robust_samples (17 digits); J_i and dJ_i/dp must agree to 1e-12 relative, and J and dJ/dp (computed
# from the single runs by the formula above, multipoint_check.py) too; the weights must be 1/N.
# usage: robust_sum.sh MPIEXEC ADJSIM PYTHON DECK NP N K [more adjsim options for the robust run]
set -eu
mpiexec=$1 adjsim=$2 python=$3 deck=$4 np=$5 n=$6 k=$7
shift 7
tag=rbsum_np${np}_n$n
"$mpiexec" -n "$np" "$adjsim" -options_file "$deck" -output ${tag}_rb.h5 -design_robust_samples "$n" \
  -design_robust_seed 5 -design_robust_vary fluid_body_alpha:normal:4,2 -design_robust_std_weight "$k" "$@"
mapfile -t alphas < <("$python" -c "
import h5py
with h5py.File('${tag}_rb.h5', 'r') as f:
    for a in f['/optimization/robust_samples'][()]: print(repr(float(a)))")
[ ${#alphas[@]} -eq "$n" ] || { echo "FAIL: ${#alphas[@]} samples in the run file, expected $n"; exit 1; }
for i in "${!alphas[@]}"; do
  "$mpiexec" -n 1 "$adjsim" -options_file "$deck" -output ${tag}_s$i.h5 -fluid_body_alpha "${alphas[$i]}"
done
singles=()
for i in "${!alphas[@]}"; do singles+=(${tag}_s$i.h5); done
"$python" "$(dirname "$0")/multipoint_check.py" ${tag}_rb.h5 "$k" "${singles[@]}"
