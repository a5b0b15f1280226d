#!/usr/bin/python3
"""Checks the internal state of the j2 (von Mises) particles of an MPM run (src/mpm/models/j2.c; z = Fp^-1 (4, row
major), e_zz, alpha):
  - /particles/internal_state is (T, N, 6); at step 0 the particles of LABEL are virgin: z = (1, 0, 0, 1, 0, 0);
  - alpha (equivalent plastic strain) never decreases between output steps (dp >= 0);
  - plastic flow is isochoric: det(Fp^-1) = exp(-e_zz) (det Fp = 1 in 3-D with Fp_zz = exp(-e_zz)), to 1e-10;
  - at the last step at least MINFRAC of the particles of LABEL have yielded (alpha > 0).
usage: check_plastic.py RUN.h5 LABEL MINFRAC   (exit status 0 only if every check holds)"""
import sys
import h5py
import numpy as np

path, label, minfrac = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fail = []
with h5py.File(path, "r") as f:
    z = f["/particles/internal_state"][...]
    mine = f["/particles/label"][0] == label
if z.ndim != 3 or z.shape[2] != 6:
    fail.append(f"/particles/internal_state has shape {z.shape}, expected (T, N, 6)")
elif not mine.any():
    fail.append(f"no particle of label {label}")
else:
    zl = z[:, mine, :]
    if not np.array_equal(zl[0], np.tile([1.0, 0, 0, 1.0, 0, 0], (zl.shape[1], 1))):
        fail.append("step 0: the internal state is not (1, 0, 0, 1, 0, 0)")
    if np.any(np.diff(zl[:, :, 5], axis=0) < 0):
        fail.append("alpha decreases between output steps")
    det = zl[:, :, 0] * zl[:, :, 3] - zl[:, :, 1] * zl[:, :, 2]
    iso = np.max(np.abs(det - np.exp(-zl[:, :, 4])))
    if not iso < 1e-10:
        fail.append(f"plastic flow not isochoric: max |det(Fp^-1) - exp(-e_zz)| = {iso:.3g}")
    frac = np.mean(zl[-1, :, 5] > 0)
    if not frac >= minfrac:
        fail.append(f"only {frac:.3f} of the particles of label {label} yielded (at least {minfrac} required)")
    print(f"label {label}: {zl.shape[1]} particles, {frac:.3f} yielded, max alpha {zl[-1, :, 5].max():.4g}, "
          f"max |det(Fp^-1) - exp(-e_zz)| {iso:.3g}")
for msg in fail:
    print("FAIL:", msg)
print("check_plastic:", "FAIL" if fail else "PASS")
sys.exit(1 if fail else 0)
