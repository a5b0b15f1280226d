#!/usr/bin/python3
"""Checks of postprocess/adjsim_airfoil_design.py's output against the run files, computed independently here
(own NACA/CST formulas, own reading of the HDF5 datasets). Exit 1 with a message on the first difference.

  table RUN TXT          the convergence table printed to TXT: as many rows as the history and every number
                         (the last row included) equal to /history/constraints (or /optimization's iteration,
                         objective, gradient_norm for a bounds-only run) to 1e-10 relative
  dat DAT RUN            the Selig file against the final /parameters/body_shape of RUN (-fluid_body naca4 or cst
                         from /provenance/options): Selig order (trailing edge (1, 0), upper surface, leading edge
                         (0, 0), lower surface, trailing edge), 2 N - 1 points at cosine stations, each within 1e-12
                         of the formula
  cp TXT RUN...          each run's printed suction peak and stagnation C_p equal the last step of /history/surface
  help SCRIPT            every subcommand's --help of SCRIPT exits 0 and shows its examples
  polar TXT RUN...       each run's printed C_D and C_L equal the mean of /history/forces over the second half
                         (t >= (t_0 + t_end)/2) to 1e-9 relative (unsteady runs, the script's auto choice)
"""
import math
import re
import sys

import h5py
import numpy as np


def fail(msg):
    print(f"check_airfoil_design.py: FAIL: {msg}")
    sys.exit(1)


def close(a, b, rtol, what):
    if not abs(a - b) <= rtol * max(abs(a), abs(b), 1e-300) + 1e-300:
        fail(f"{what}: printed {a!r}, the file gives {b!r}")


def options(f):
    tok = f["provenance/options"][()].decode().split()
    return {tok[i]: tok[i + 1] for i in range(len(tok) - 1) if tok[i].startswith("-")}


def check_table(run, txt):
    with h5py.File(run, "r") as f:
        if "history/constraints" in f:
            ref = np.atleast_2d(f["history/constraints"][()])
        else:
            o = f["optimization"]
            ref = np.column_stack([o["iteration"][()], o["objective"][()], o["gradient_norm"][()]])
    lines = open(txt).read().splitlines()
    head = [k for k, line in enumerate(lines) if line.split()[:2] == ["iteration", "objective"]]
    if len(head) != 1:
        fail(f"{txt}: no table header 'iteration objective ...'")
    rows = []
    for line in lines[head[0] + 1:]:
        parts = line.split()
        try:
            if len(parts) != ref.shape[1]:
                break
            rows.append([float(p) for p in parts])
        except ValueError:
            break
    if len(rows) != len(ref):
        fail(f"{txt}: {len(rows)} table rows, the file has {len(ref)}")
    for i, (r, e) in enumerate(zip(rows, ref)):
        for j, (a, b) in enumerate(zip(r, e)):
            close(a, b, 1e-10, f"row {i} column {j}")
    print(f"ok: {len(rows)} rows x {ref.shape[1]} columns equal the file (last row {rows[-1][:3]}...)")


def naca(shape, s, side):
    """Textbook NACA 4-digit (closed trailing edge) at x = s: theta from atan of the camber slope."""
    _, m, p, t = shape
    yt = 5 * t * (0.2969 * math.sqrt(s) - 0.1260 * s - 0.3516 * s**2 + 0.2843 * s**3 - 0.1036 * s**4)
    if m == 0:
        yc, dyc = 0.0, 0.0
    elif s < p:
        yc, dyc = m / p**2 * (2 * p * s - s * s), 2 * m / p**2 * (p - s)
    else:
        yc, dyc = m / (1 - p)**2 * ((1 - 2 * p) + 2 * p * s - s * s), 2 * m / (1 - p)**2 * (p - s)
    th = math.atan(dyc)
    return s - side * yt * math.sin(th), yc + side * yt * math.cos(th)


def cst(coef, s):
    n = len(coef) - 1
    return math.sqrt(s) * (1 - s) * sum(a * math.comb(n, i) * s**i * (1 - s)**(n - i) for i, a in enumerate(coef))


def check_dat(dat, run):
    with h5py.File(run, "r") as f:
        kind = options(f)["-fluid_body"]
        shape = [float(v) for v in f["parameters/body_shape"][()]]
    lines = open(dat).read().splitlines()
    pts = np.array([[float(v) for v in line.split()] for line in lines[1:] if line.strip()])
    if len(pts) % 2 != 1:
        fail(f"{dat}: {len(pts)} points: expected 2 N - 1")
    n = (len(pts) + 1) // 2
    worst = 0.0
    for k, (x, y) in enumerate(pts):
        j = n - 1 - k if k < n else k - n + 1  # station index from the leading edge
        side = 1 if k < n else -1
        s = math.sin(0.5 * math.pi * j / (n - 1)) ** 2
        if kind == "naca4":
            ex, ey = naca([1.0] + shape[1:], s, side)
        else:
            nc = (len(shape) - 1) // 2
            ex, ey = s, cst(shape[1:1 + nc] if side > 0 else shape[1 + nc:], s)
        err = max(abs(x - ex), abs(y - ey))
        worst = max(worst, err)
        if err > 1e-12:
            fail(f"{dat}: point {k} ({x!r}, {y!r}) differs from the {kind} formula ({ex!r}, {ey!r}) by {err:.3g}")
    for k, want in ((0, (1, 0)), (n - 1, (0, 0)), (len(pts) - 1, (1, 0))):
        if max(abs(pts[k][0] - want[0]), abs(pts[k][1] - want[1])) > 1e-12:
            fail(f"{dat}: point {k} is {tuple(pts[k])}, expected {want} (Selig order)")
    print(f"ok: {len(pts)} points ({n} per surface) of {kind} {shape} within {worst:.2g} of the formula")


def runs_lines(txt, runs):
    out = {}
    lines = open(txt).read().splitlines()
    for run in runs:
        hits = [line for line in lines if line.rstrip().endswith(", " + run)]
        if len(hits) != 1:
            fail(f"{txt}: {len(hits)} lines for {run}, expected 1")
        out[run] = hits[0]
    return out


def check_cp(txt, runs):
    found = [line for line in open(txt).read().splitlines() if "suction peak" in line]  # one per run, in order
    if len(found) != len(runs):
        fail(f"{txt}: {len(found)} lines with a suction peak for {len(runs)} runs")
    lines = dict(zip(runs, found))
    for run in runs:
        with h5py.File(run, "r") as f:
            h = f["history/surface"][()]
        last = h[h[:, 0] == h[-1, 0]]
        words = lines[run].replace(",", " ").split()
        peak = float(words[words.index("peak") + 2])
        stag = float(words[words.index("stagnation") + 2])
        close(peak, last[:, 3].min(), 1e-5, f"{run} suction peak")
        close(stag, last[:, 3].max(), 1e-5, f"{run} stagnation C_p")
    print(f"ok: suction peaks and stagnation C_p of {len(runs)} runs")


def check_polar(txt, runs):
    lines = runs_lines(txt, runs)
    for run in runs:
        with h5py.File(run, "r") as f:
            h = f["history/forces"][()]
            alpha = float(options(f).get("-airfoil_alpha", 0))
        m = h[:, 1] >= 0.5 * (h[0, 1] + h[-1, 1])
        left = re.split(r"\s+(?:mean t >=|final \(t =)", lines[run])[0].split()  # ... alpha C_D C_L C_M L/D
        a, cd, cl = (float(w) for w in left[-5:-2])
        close(a, alpha, 1e-9, f"{run} alpha")
        close(cd, h[m, 2].mean(), 1e-9, f"{run} C_D")
        close(cl, h[m, 3].mean(), 1e-9, f"{run} C_L")
    print(f"ok: alpha, C_D, C_L of {len(runs)} runs")


def check_help(script):
    """Every subcommand's --help (the manual) prints and exits 0, in one interpreter."""
    import importlib.util
    import contextlib
    import io
    spec = importlib.util.spec_from_file_location("design", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for sub in ([], ["convergence"], ["export-dat"], ["cp"], ["polar"]):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                mod.parse_args(sub + ["--help"])
        except SystemExit as e:
            if e.code not in (0, None):
                fail(f"{' '.join(sub + ['--help'])} exited {e.code}")
        if "Examples:" not in out.getvalue() and sub:
            fail(f"{sub[0]} --help has no Examples section")
        print(f"ok: {' '.join(sub) or 'main'} --help, {len(out.getvalue().splitlines())} lines")


def main(argv):
    if len(argv) == 2 and argv[0] == "help":
        check_help(argv[1])
        return 0
    if len(argv) < 3:
        print(__doc__)
        return 2
    mode = argv[0]
    if mode == "table":
        check_table(argv[1], argv[2])
    elif mode == "dat":
        check_dat(argv[1], argv[2])
    elif mode == "cp":
        check_cp(argv[1], argv[2:])
    elif mode == "polar":
        check_polar(argv[1], argv[2:])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
