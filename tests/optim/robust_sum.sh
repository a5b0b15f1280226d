#!/usr/bin/env bash
# A robust design equals its single-point runs at the sample values (tests/optim/CMakeLists.txt):
#   J = m + k sqrt(s^2 + eps^2),  m = (1/N) sum_i J_i,  s^2 = (1/N) sum_i (J_i - m)^2,
#   dJ/dp = sum_i c_i dJ_i/dp,  c_i = 1/N + (k / s_eps) (1/N) ((J_i - m) - S1),  S1 = (1/N) sum_j (J_j - m)
# N samples of fluid_body_alpha on NP ranks against N single-point runs on 1 rank at the sample values read from
# /optimization/robust_samples (17 digits); J_i and dJ_i/dp must agree to 1e-12 relative, and J and dJ/dp (computed
# here from the single runs by the formula above) too.
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
"$python" - "$tag" "$n" "$k" <<'PY'
import sys
import h5py
import numpy as np
tag, n, k = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with h5py.File(f"{tag}_rb.h5", "r") as f:
    scales = np.asarray(f["/optimization"].attrs["multipoint_design_scales"], dtype=float)
    w = f["/optimization/multipoint_weights"][()]
    Jk = f["/optimization/multipoint_objectives"][()]
    Gk = f["/optimization/multipoint_gradients"][()].reshape(n, -1)
    J = float(f["/optimization/multipoint_objective"][()][0])
    g = f["/optimization/multipoint_gradient"][()]
    eps = float(f["/optimization/robust_mean_std_k_eps"][()][3])
fail = []
Jr, Gr = np.zeros(n), np.zeros_like(Gk)
for i in range(n):
    with h5py.File(f"{tag}_s{i}.h5", "r") as f:
        Jr[i] = float(f["/gradients"].attrs["objective"])
        Gr[i] = np.asarray(f["/gradients/body_shape"][()], dtype=float).ravel() * scales[0]
    eJ = abs(Jk[i] - Jr[i]) / abs(Jr[i])
    eg = np.max(np.abs(Gk[i] - Gr[i])) / np.max(np.abs(Gr[i]))
    print(f"sample {i}: J_i {Jk[i]:.17g} vs single run {Jr[i]:.17g} (rel {eJ:.2e}); gradient rel {eg:.2e}")
    if not (eJ <= 1e-12 and eg <= 1e-12):
        fail.append(f"sample {i} differs from its single-point run")
if np.max(np.abs(w - 1.0 / n)) > 0:
    fail.append("weights are not 1/N")
m = np.sum(w * Jr)
s2 = np.sum(w * (Jr - m) ** 2)
seps = np.sqrt(s2 + eps**2)
c = w + k / seps * w * ((Jr - m) - np.sum(w * (Jr - m)))
Jf, gf = m + k * seps, c @ Gr
eJ = abs(J - Jf) / abs(Jf)
eg = np.max(np.abs(g - gf)) / np.max(np.abs(gf))
print(f"robust: J {J:.17g} vs m + {k} s_eps of the single runs {Jf:.17g} (rel {eJ:.2e}; m {m:.6g}, s {np.sqrt(s2):.6g}); "
      f"gradient rel {eg:.2e}")
if not (eJ <= 1e-12 and eg <= 1e-12):
    fail.append("the robust objective or its gradient differs")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("PASS")
PY
