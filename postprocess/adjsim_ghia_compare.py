#!/usr/bin/python3
"""Lid-driven cavity: compare a fluid run's final state with Ghia, Ghia & Shin, J. Comput. Phys. 48
(1982) 387-411, Tables I (u along the vertical centreline) and II (v along the horizontal one).

The run file's /restart group holds the staggered velocities exactly as the solver stores them:
u on the left x-face of each cell, v on the bottom y-face.  With an even number of cells the faces
i = Mx/2 (x = Lx/2) and j = My/2 (y = Ly/2) lie on the centrelines, so the comparison needs no
interpolation across the line: u(Lx/2, y) and v(x, Ly/2) are interpolated linearly along it
between the face values and the walls (u = lid speed at the top, 0 elsewhere).  Printed: the
largest |computed - Ghia| for u and for v (in lid-speed units); exit 1 if either exceeds --tol or is
NaN (a NaN anywhere in the velocities makes the error NaN).

Example:
  /usr/bin/python3 postprocess/adjsim_ghia_compare.py cavity.h5 --table tests/fluid/ghia1982_cavity.csv --re 100 --tol 0.01
"""
import argparse
import csv
import sys

import h5py
import numpy as np


def read_table(path, re):
    rows = [r for r in csv.reader(line for line in open(path) if not line.lstrip().startswith("#"))]
    header, body = rows[0], rows[1:]
    col = f"Re{re}"
    if col not in header:
        sys.exit(f"{path}: no column {col} (columns {header})")
    t, c, v = header.index("table"), header.index("coord"), header.index(col)
    table = {"u": [], "v": []}
    for r in body:
        if r and r[t] in table and r[v].strip():
            table[r[t]].append((float(r[c]), float(r[v])))
    if not table["u"] or not table["v"]:
        sys.exit(f"{path}: no u or v rows for {col}")
    return table


def nan_max(values):
    """The largest of values, NaN when any is NaN (Python's max keeps its first argument against a NaN and so
    drops a NaN that comes later; np.max keeps it)."""
    return float(np.max(np.asarray(list(values), dtype=float)))


def within(err, tol):
    """err <= tol, False when err is NaN (err > tol is False for a NaN: that check would pass it)."""
    return bool(err <= tol)


def centreline_errors(table, ys, us, xs, vs, Lx, Ly):
    """Largest differences from Ghia's u(y) on x = Lx/2 and v(x) on y = Ly/2, the computed profiles
    (ys, us), (xs, vs) interpolated linearly to Ghia's points; NaN when a velocity is NaN (anywhere on the
    line, not only next to a Ghia point)."""
    err_u = nan_max(abs(np.interp(c * Ly, ys, us) - ref) for c, ref in table["u"])
    err_v = nan_max(abs(np.interp(c * Lx, xs, vs) - ref) for c, ref in table["v"])
    nan = float("nan")
    return (err_u if np.all(np.isfinite(us)) else nan), (err_v if np.all(np.isfinite(vs)) else nan)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="run file of a fluid cavity run (its /restart group is compared)")
    ap.add_argument("--table", required=True, help="Ghia et al. centreline table (CSV: table,coord,Re100,...)")
    ap.add_argument("--re", type=int, default=100, help="Reynolds-number column of the table (default 100)")
    ap.add_argument("--lid", type=float, default=1.0, help="lid speed [m/s] (default 1)")
    ap.add_argument("--tol", type=float, help="largest accepted centreline error; exit 1 above it")
    args = ap.parse_args()
    table = read_table(args.table, args.re)
    with h5py.File(args.run, "r") as f:
        if "restart" not in f or "u" not in f["restart"] or "v" not in f["restart"]:
            sys.exit(f"{args.run}: no /restart/u and /restart/v (not a fluid run file?)")
        u, v = f["restart/u"][()], f["restart/v"][()]
        Mx, My = (int(n) for n in f["grid"].attrs["cells"])
        Lx, Ly = (float(x) for x in f["grid"].attrs["upper"] - f["grid"].attrs["lower"])
        step, time = f["restart"].attrs["step"], f["restart"].attrs["time"]
    if Mx % 2 or My % 2:
        sys.exit("the Ghia comparison needs an even number of cells per direction (a face on each centreline)")
    hx, hy = Lx / Mx, Ly / My
    ys = np.concatenate(([0.0], (np.arange(My) + 0.5) * hy, [Ly]))
    us = np.concatenate(([0.0], u[:, Mx // 2], [args.lid]))
    xs = np.concatenate(([0.0], (np.arange(Mx) + 0.5) * hx, [Lx]))
    vs = np.concatenate(([0.0], v[My // 2, :], [0.0]))
    err_u, err_v = centreline_errors(table, ys, us, xs, vs, Lx, Ly)
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(v))):
        err_u = err_v = float("nan")  # a NaN or infinity anywhere in the state: no agreement to speak of
    err = nan_max([err_u, err_v])
    print(f"Ghia Re {args.re}, {Mx}x{My} cells, step {step} (t = {time:g} s): max centreline error "
          f"u {err_u:.4e}, v {err_v:.4e}, max {err:.4e}"
          + ("" if args.tol is None else f" (accepted <= {args.tol:g}): {'ok' if within(err, args.tol) else 'FAIL'}"))
    return 1 if args.tol is not None and not within(err, args.tol) else 0


if __name__ == "__main__":
    sys.exit(main())
