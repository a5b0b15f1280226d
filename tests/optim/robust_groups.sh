#!/usr/bin/env bash
# More samples than rank groups (tests/optim/CMakeLists.txt): 8 samples on 2 ranks (2 groups of 1 rank, 4 samples
# each, one after the other) must equal the same 8 samples on 1 rank (1 group) bit for bit: J, dJ/dp, every J_i and
# dJ_i/dp (each sample on a 1-rank communicator either way, the same arithmetic); and, samples being counter based,
# the first 4 of them must equal a 4-sample run's bit for bit.
# usage: robust_groups.sh MPIEXEC ADJSIM PYTHON DECK
set -eu
mpiexec=$1 adjsim=$2 python=$3 deck=$4
common=(-options_file "$deck" -design_robust_seed 3 -design_robust_vary fluid_body_alpha:uniform:0,8
  -design_robust_std_weight 1)
"$mpiexec" -n 2 "$adjsim" "${common[@]}" -design_robust_samples 8 -output rbgroups_8np2.h5
"$mpiexec" -n 1 "$adjsim" "${common[@]}" -design_robust_samples 8 -output rbgroups_8np1.h5
"$mpiexec" -n 2 "$adjsim" "${common[@]}" -design_robust_samples 4 -output rbgroups_4np2.h5
"$python" - <<'PY'
import sys
import h5py
import numpy as np
names = ["robust_samples", "multipoint_objectives", "multipoint_gradients", "multipoint_objective",
         "multipoint_gradient", "robust_coefficients", "robust_mean_std_k_eps"]
def load(path):
    with h5py.File(path, "r") as f:
        return {n: np.asarray(f["/optimization/" + n][()], dtype=float) for n in names}
a, b, c = load("rbgroups_8np2.h5"), load("rbgroups_8np1.h5"), load("rbgroups_4np2.h5")
fail = [n for n in names if not np.array_equal(a[n], b[n])]
print("8 samples, 2 ranks vs 1 rank: " + ("equal bit for bit" if not fail else "differ in " + ", ".join(fail)))
print(f"  J = {a['multipoint_objective'][0]:.17g} (1 rank: {b['multipoint_objective'][0]:.17g})")
nd = a["multipoint_gradients"].size // 8
same4 = (np.array_equal(a["robust_samples"][:4], c["robust_samples"])
         and np.array_equal(a["multipoint_objectives"][:4], c["multipoint_objectives"])
         and np.array_equal(a["multipoint_gradients"][:4 * nd], c["multipoint_gradients"]))
print("first 4 of 8 samples vs a 4-sample run: " + ("equal bit for bit" if same4 else "DIFFER"))
if fail or not same4:
    print("FAIL")
    sys.exit(1)
print("PASS")
PY
