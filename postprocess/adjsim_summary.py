#!/usr/bin/python3
"""Text summary of an adjsim run file: layout, provenance, fields, parameters, gradients and
optimization history.  With --truth, compares the parameters with those of another run (for
example the forward run that produced the observations of an inverse run).

Example:
  /usr/bin/python3 postprocess/adjsim_summary.py demo-inverse.h5 --truth demo-observations.h5
"""
import argparse
import sys

import h5py
import numpy as np


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def describe(name, d):
    a = np.asarray(d[()], dtype=float)
    units = text(d.attrs.get("units", ""))
    if a.size <= 4:
        vals = ", ".join(f"{x:.10g}" for x in a.ravel())
        return f"  {name:<28} [{vals}] {units}"
    return (f"  {name:<28} shape {a.shape} min {a.min():.6g} max {a.max():.6g} "
            f"L2 {np.linalg.norm(a):.6g} {units}")


def summary(f):
    print(f"format {text(f.attrs.get('format', '?'))} version {f.attrs.get('format_version', '?')}")
    if "provenance" in f:
        p = f["provenance"].attrs
        for key in ("adjsim_version", "git_commit", "petsc_version", "hdf5_version", "mpi_version",
                    "nranks", "start_time", "end_time", "command_line"):
            if key in p:
                print(f"  {key:<16} {text(p[key])}")
    if "grid" in f:
        g = f["grid"].attrs
        print(f"grid: cells {list(g.get('cells', []))} lower {list(g.get('lower', []))} upper {list(g.get('upper', []))}")
    if "fields" in f and "step" in f["fields"]:
        steps, times = f["fields/step"][()], f["fields/time"][()]
        names = [k for k in f["fields"] if k not in ("step", "time")]
        if len(steps) == 0:  # e.g. a multipoint design: the points' states are not written
            print(f"fields {names}: no snapshots")
        else:
            print(f"fields {names}: {len(steps)} snapshots, steps {steps[0]}..{steps[-1]}, "
                  f"t {times[0]:.6g}..{times[-1]:.6g} s")
    for group in ("parameters", "gradients"):
        if group in f and len(f[group]):
            print(f"{group}:")
            for k in sorted(f[group]):
                print(describe(k, f[group][k]))
            if "objective" in f[group].attrs:
                print(f"  objective at these gradients: {float(f[group].attrs['objective']):.10e}")
    if "optimization" in f and "objective" in f["optimization"] and len(f["optimization/objective"]):
        o = f["optimization"]
        J, g = o["objective"][()], o["gradient_norm"][()]
        print(f"optimization: {len(J)} iterations, objective {J[0]:.6e} -> {J[-1]:.6e}, "
              f"|g| {g[0]:.3e} -> {g[-1]:.3e}")
    if "restart" in f:
        r = f["restart"].attrs
        print(f"restart state: solver {text(r.get('solver', '?'))} step {r.get('step', '?')} time {r.get('time', '?')}")


def compare(f, t):
    """The largest parameter error: NaN when one is NaN (Python's max(worst, nan) keeps worst: a NaN error would
    pass), infinite when shapes differ or no parameter is in both files (then nothing was compared)."""
    print("parameters against the truth file:")
    errors = []
    for k in sorted(f.get("parameters", {})):
        if k not in t.get("parameters", {}):
            continue
        a, b = np.asarray(f["parameters"][k][()], float), np.asarray(t["parameters"][k][()], float)
        if a.shape != b.shape:
            print(f"  {k}: shapes differ {a.shape} vs {b.shape}")
            errors.append(float("inf"))
            continue
        nb = np.linalg.norm(b)
        err = np.linalg.norm(a - b) / nb if nb > 0 else np.linalg.norm(a - b)
        kind = "relative error" if nb > 0 else "absolute error"
        print(f"  {k:<28} {kind} {err:.3e}")
        errors.append(float(err))
    if not errors:
        print("  no parameter in both files: nothing compared")
        return float("inf")
    return float(np.max(errors))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="adjsim run file (HDF5)")
    ap.add_argument("--truth", help="run file whose /parameters are the truth to compare with")
    ap.add_argument("--truth-rtol", type=float, metavar="R",
                    help="with --truth: exit 1 unless every parameter's (relative, or absolute where the truth is 0) error is at most R")
    ap.add_argument("--expect-decrease", type=float, metavar="F",
                    help="exit 1 unless the optimization history exists, its iterations are 0, 1, 2, ... and its last objective is at most F times the first")
    args = ap.parse_args()
    status = 0
    with h5py.File(args.run, "r") as f:
        summary(f)
        if args.truth:
            with h5py.File(args.truth, "r") as t:
                worst = compare(f, t)
            if args.truth_rtol is not None:
                ok = bool(worst <= args.truth_rtol)  # False for a NaN
                print(f"largest parameter error {worst:.3e} (required <= {args.truth_rtol:g}): {'ok' if ok else 'FAILED'}")
                status = max(status, 0 if ok else 1)
        if args.expect_decrease is not None:
            J = f["optimization/objective"][()] if "optimization/objective" in f else np.zeros(0)
            it = f["optimization/iteration"][()] if "optimization/iteration" in f else np.zeros(0)
            contiguous = np.array_equal(it, np.arange(len(it)))
            if not contiguous:
                print(f"optimization history is not contiguous: iterations {list(it)}")
            # J[0] = 0: J[-1] <= F J[0] then holds for J[-1] = 0 whatever the optimizer did; a NaN fails (<= is False)
            ok = bool(len(J) >= 2 and J[0] != 0 and J[-1] <= args.expect_decrease * J[0] and contiguous)
            print(f"objective decrease {J[-1] / J[0] if len(J) >= 2 else float('nan'):.3e} "
                  f"(required <= {args.expect_decrease:g}): {'ok' if ok else 'FAILED'}")
            status = max(status, 0 if ok else 1)
    return status


if __name__ == "__main__":
    sys.exit(main())
