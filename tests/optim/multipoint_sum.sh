#!/usr/bin/env bash
# A 2-point design equals the weighted sum of its two single-point runs (tests/optim/CMakeLists.txt):
#   J = 0.3 J(alpha 2) + 0.7 J(alpha 8),  dJ/dp = 0.3 dJ/dp(alpha 2) + 0.7 dJ/dp(alpha 8)
# each point on its own rank (2 ranks) against the single points run alone on 1 rank each; J_k and dJ_k/dp must
# agree to 1e-12 relative (the same arithmetic on a 1-rank sub-communicator: in practice bit for bit), and the sums.
# usage: multipoint_sum.sh MPIEXEC ADJSIM PYTHON DECK NP
set -eu
mpiexec=$1 adjsim=$2 python=$3 deck=$4 np=$5
tag=mpsum_np$np
"$mpiexec" -n 1 "$adjsim" -options_file "$deck" -output ${tag}_a2.h5 -fluid_body_alpha 2
"$mpiexec" -n 1 "$adjsim" -options_file "$deck" -output ${tag}_a8.h5 -fluid_body_alpha 8
"$mpiexec" -n "$np" "$adjsim" -options_file "$deck" -output ${tag}_mp.h5 -design_points 2 \
  -design_point_weights 0.3,0.7 -design_point1_fluid_body_alpha 8
"$python" - ${tag}_a2.h5 ${tag}_a8.h5 ${tag}_mp.h5 <<'PY'
import sys
import h5py
import numpy as np
a, b, m = sys.argv[1:4]
def single(path, scales):
    with h5py.File(path, "r") as f:
        J = float(f["/gradients"].attrs["objective"])
        g = np.asarray(f["/gradients/body_shape"][()], dtype=float).ravel()
    return J, g * scales[0]  # design = value / scale: dJ/d(design) = scale dJ/dvalue
with h5py.File(m, "r") as f:
    scales = np.asarray(f["/optimization"].attrs["multipoint_design_scales"], dtype=float)
    w = f["/optimization/multipoint_weights"][()]
    Jk = f["/optimization/multipoint_objectives"][()]
    Gk = f["/optimization/multipoint_gradients"][()].reshape(len(w), -1)
    J = float(f["/optimization/multipoint_objective"][()][0])
    g = f["/optimization/multipoint_gradient"][()]
fail = []
refs = [single(a, scales), single(b, scales)]
for k, (Jr, gr) in enumerate(refs):
    eJ = abs(Jk[k] - Jr) / abs(Jr)
    eg = np.max(np.abs(Gk[k] - gr)) / np.max(np.abs(gr))
    print(f"point {k}: J_k {Jk[k]:.17g} vs single run {Jr:.17g} (rel {eJ:.2e}); gradient rel {eg:.2e}")
    if not (eJ <= 1e-12 and eg <= 1e-12):
        fail.append(f"point {k} differs from its single-point run")
Js = w[0] * refs[0][0] + w[1] * refs[1][0]
gs = w[0] * refs[0][1] + w[1] * refs[1][1]
eJ = abs(J - Js) / abs(Js)
eg = np.max(np.abs(g - gs)) / np.max(np.abs(gs))
print(f"sum: J {J:.17g} vs 0.3 J_a + 0.7 J_b = {Js:.17g} (rel {eJ:.2e}); gradient rel {eg:.2e}")
if not (eJ <= 1e-12 and eg <= 1e-12):
    fail.append("the weighted sums differ")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("PASS")
PY
