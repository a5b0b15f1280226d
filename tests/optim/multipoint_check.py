"""A multipoint or robust run file against single-point runs of its points (multipoint_sum.sh, robust_sum.sh).

usage: multipoint_check.py RUN.h5 K SINGLE_0.h5 SINGLE_1.h5 ...   (one single-point run per point, in point order)

Each point's J_k and dJ_k/dp (/optimization/multipoint_*) must equal its single-point run's to 1e-12 relative, and
J and dJ/dp the combination of the single runs
    m = sum_k w_k J_k,  s^2 = sum_k w_k (J_k - m)^2,  s_eps = sqrt(s^2 + eps^2),  J = m + K s_eps
    dJ/dp = sum_k c_k dJ_k/dp,  c_k = w_k + (K / s_eps) w_k ((J_k - m) - S1),  S1 = sum_j w_j (J_j - m)
with the file's weights w_k; K = 0 is multipoint design's weighted sum (J = sum_k w_k J_k, c_k = w_k). A robust run
file (/optimization/robust_mean_std_k_eps, eps from there) must have the weights 1/N. Exit status 1 on a failure."""
import sys

import h5py
import numpy as np

run, k, singles = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
n = len(singles)
with h5py.File(run, "r") as f:
    opt = f["/optimization"]
    scales = np.asarray(opt.attrs["multipoint_design_scales"], dtype=float)
    w = opt["multipoint_weights"][()]
    Jk = opt["multipoint_objectives"][()]
    Gk = opt["multipoint_gradients"][()].reshape(n, -1)
    J = float(opt["multipoint_objective"][()][0])
    g = opt["multipoint_gradient"][()]
    robust = "robust_mean_std_k_eps" in opt
    eps = float(opt["robust_mean_std_k_eps"][()][3]) if robust else 0.0
if len(w) != n:
    print(f"FAIL: {len(w)} points in {run}, {n} single-point runs given")
    sys.exit(1)
fail = []
Jr, Gr = np.zeros(n), np.zeros_like(Gk)
for i, path in enumerate(singles):
    with h5py.File(path, "r") as f:
        Jr[i] = float(f["/gradients"].attrs["objective"])
        # design = value / scale: dJ/d(design) = scale dJ/dvalue
        Gr[i] = np.asarray(f["/gradients/body_shape"][()], dtype=float).ravel() * scales[0]
    eJ = abs(Jk[i] - Jr[i]) / abs(Jr[i])
    eg = np.max(np.abs(Gk[i] - Gr[i])) / np.max(np.abs(Gr[i]))
    print(f"point {i}: J_k {Jk[i]:.17g} vs single run {Jr[i]:.17g} (rel {eJ:.2e}); gradient rel {eg:.2e}")
    if not (eJ <= 1e-12 and eg <= 1e-12):
        fail.append(f"point {i} differs from its single-point run")
if robust and np.max(np.abs(w - 1.0 / n)) > 0:
    fail.append("weights are not 1/N")
m = np.sum(w * Jr)
s2 = np.sum(w * (Jr - m) ** 2)
seps = np.sqrt(s2 + eps**2)
c = w + k / seps * w * ((Jr - m) - np.sum(w * (Jr - m))) if k else w
Jf, gf = (m + k * seps if k else m), c @ Gr
eJ = abs(J - Jf) / abs(Jf)
eg = np.max(np.abs(g - gf)) / np.max(np.abs(gf))
print(f"combined: J {J:.17g} vs m + {k} s_eps of the single runs {Jf:.17g} (rel {eJ:.2e}; m {m:.6g}, "
      f"s {np.sqrt(s2):.6g}); gradient rel {eg:.2e}")
if not (eJ <= 1e-12 and eg <= 1e-12):
    fail.append("the combined objective or its gradient differs")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("PASS")
