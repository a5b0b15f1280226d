#!/usr/bin/env python3
"""Checks the run file of a constrained optimization (tests/optim): the final design against a known answer, the
final violations, and the datasets of the per-iteration history /history/constraints.

usage: check_constrained.py RUN.h5 --design i=value[,i=value...] --tol T --violation V --constraints a,b,... [--kkt K]"""
import argparse
import sys

import h5py
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("run")
ap.add_argument("--design", required=True)
ap.add_argument("--tol", type=float, required=True)
ap.add_argument("--violation", type=float, required=True)
ap.add_argument("--constraints", required=True)
ap.add_argument("--kkt", type=float, default=None, help="largest accepted final KKT residual (multipliers read right)")
a = ap.parse_args()
fail = []
with h5py.File(a.run, "r") as f:
    design = f["/optimization/design"][-1]
    hist = f["/history/constraints"]
    cols = hist.attrs["columns"]
    cols = (cols.decode() if isinstance(cols, bytes) else str(cols)).split(",")
    rows = hist[()]
its = f"{rows.shape[0]} iterations"
for item in a.design.split(","):
    i, v = item.split("=")
    err = abs(design[int(i)] - float(v))
    print(f"design[{i}] = {design[int(i)]:.12g}, expected {v}: error {err:.3e}")
    if not err <= a.tol:
        fail.append(f"design[{i}] error {err:.3e} > {a.tol}")
head = ["iteration", "objective", "lagrangian_gradient_norm", "kkt_residual", "max_violation"]
want = head + [c + s for c in a.constraints.split(",") for s in ("", "_violation", "_multiplier")]
if cols != want:
    fail.append(f"/history/constraints columns {cols}, expected {want}")
if rows.shape[1] != len(want) or rows.shape[0] < 2:
    fail.append(f"/history/constraints has shape {rows.shape}")
else:
    last = rows[-1]
    print(f"{its}; final max violation {last[4]:.3e}, KKT residual {last[3]:.3e}")
    if not last[4] <= a.violation:
        fail.append(f"final max violation {last[4]:.3e} > {a.violation}")
    if a.kkt is not None and not last[3] <= a.kkt:
        fail.append(f"final KKT residual {last[3]:.3e} > {a.kkt}")
    if not np.all(np.isfinite(rows[:, [0, 1, 2, 4]])):
        fail.append("non-finite history entries")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("PASS")
