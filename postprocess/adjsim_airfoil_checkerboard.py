#!/usr/bin/env python3
"""Diagnose a body-fitted airfoil run that does not settle (docs/airfoil.md, "Why the march does not settle").

usage: airfoil_checkerboard.py RUN.h5 [t1 t2 ...]
Prints C_L, C_D at the given times (from /history/forces), the odd-even (checkerboard) amplitude of p and u per
grid row (the 2 x 2 second difference |q(i,j) - q(i+1,j) - q(i,j+1) + q(i+1,j+1)| / 4, largest over i: near the
wall it also sees real curvature, in the outer rows a smooth field gives ~0), and where |dq/dt| between the last
two field outputs is largest.  Needs h5py and numpy (/usr/bin/python3 on Debian)."""
import sys

import h5py
import numpy as np


def main():
    f = h5py.File(sys.argv[1], "r")
    F = f["history/forces"][...]
    t, cd, cl = F[:, 1], F[:, 2], F[:, 3]
    for T in [float(a) for a in sys.argv[2:]] or [t[-1]]:
        k = min(np.searchsorted(t, T), len(t) - 1)
        print("t %7.2f  C_L %.5f  C_D %.5f" % (t[k], cl[k], cd[k]))
    fl = f["fields"]
    ts = fl["time"][...]
    x, y = fl["x"][...], fl["y"][...]
    if x.ndim == 3:
        x, y = x[-1], y[-1]
    for nm in ["p", "u"]:
        a = fl[nm][-1]
        cb = np.abs(a[:-1, :-1] - a[1:, :-1] - a[:-1, 1:] + a[1:, 1:]) / 4
        print("%s checkerboard per row j = 0..%d:" % (nm, cb.shape[0] - 1), " ".join("%.0e" % r.max() for r in cb))
    if len(ts) >= 2:
        for nm in ["u", "v", "p"]:
            d = np.abs(fl[nm][-1] - fl[nm][-2]) / (ts[-1] - ts[-2])
            j, i = np.unravel_index(d.argmax(), d.shape)
            print("max |d%s/dt| %.2e over t in [%.2f, %.2f] at cell (i %d, j %d), (x, y) = (%.2f, %.2f)"
                  % (nm, d.max(), ts[-2], ts[-1], i, j, x[j, i], y[j, i]))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    main()
