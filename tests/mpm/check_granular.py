#!/usr/bin/python3
"""Checks the internal state of the drucker-prager (granular) particles of an MPM run (src/mpm/models/druckerprager.c;
z = Fp^-1 (4, row major), e_zz, alpha):
  - /particles/internal_state is (T, N, 6); at step 0 the particles of LABEL are virgin: z = (1, 0, 0, 1, 0, 0);
  - alpha (accumulated plastic log strain) never decreases between output steps;
  - at the last step at least MINFRAC of the particles of LABEL have yielded (alpha > 0);
  - at least MINCROSS yielded particles of LABEL crossed the line x = XCROSS (a rank boundary of the run) between the
    first and the last output step, so that the internal state of yielded particles changed rank.
usage: check_granular.py RUN.h5 LABEL MINFRAC XCROSS MINCROSS   (exit status 0 only if every check holds)"""
import sys
import h5py
import numpy as np

path, label, minfrac = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
xcross, mincross = float(sys.argv[4]), int(sys.argv[5])
fail = []
with h5py.File(path, "r") as f:
    z = f["/particles/internal_state"][...]
    x = f["/particles/position"][...]
    mine = f["/particles/label"][0] == label
if z.ndim != 3 or z.shape[2] != 6:
    fail.append(f"/particles/internal_state has shape {z.shape}, expected (T, N, 6)")
elif not mine.any():
    fail.append(f"no particle of label {label}")
else:
    zl, xl = z[:, mine, :], x[:, mine, 0]
    if not np.array_equal(zl[0], np.tile([1.0, 0, 0, 1.0, 0, 0], (zl.shape[1], 1))):
        fail.append("step 0: the internal state is not (1, 0, 0, 1, 0, 0)")
    if np.any(np.diff(zl[:, :, 5], axis=0) < 0):
        fail.append("alpha decreases between output steps")
    yielded = zl[-1, :, 5] > 0
    frac = np.mean(yielded)
    if not frac >= minfrac:
        fail.append(f"only {frac:.3f} of the particles of label {label} yielded (at least {minfrac} required)")
    crossed = int(np.sum(yielded & ((xl[0] < xcross) != (xl[-1] < xcross))))
    if not crossed >= mincross:
        fail.append(f"only {crossed} yielded particles crossed x = {xcross} (at least {mincross} required)")
    print(f"label {label}: {zl.shape[1]} particles, {frac:.3f} yielded, max alpha {zl[-1, :, 5].max():.4g}, "
          f"{crossed} yielded particles crossed x = {xcross}")
for msg in fail:
    print("FAIL:", msg)
print("check_granular:", "FAIL" if fail else "PASS")
sys.exit(1 if fail else 0)
