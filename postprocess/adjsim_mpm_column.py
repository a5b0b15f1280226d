#!/usr/bin/env python3
"""Settling elastic column (MPM): time-averaged vertical stress against the static solution.

A column of height H rests on a floor (slip or sticky) between slip side walls under gravity g.  Laterally
confined, its static Cauchy stress is

    sigma_yy(Y) = -rho g (H - Y),

for any Poisson ratio and, in terms of the particle's initial height Y above the floor, for any strain:
the weight above a material point per unit (unchanged) width is rho g (H - Y).  Released unstressed, the
column oscillates about that state (free-end/fixed-end modes, fundamental period 4 H / c with
c = sqrt((lambda + 2 mu) / rho)) with little damping, so the stress of each particle is averaged over the
whole run with the smooth window w(t) = sin^4(pi t / t_end): its Fourier transform decays like
(t_end / T)^-5, so the oscillation of period T adds a relative error of order 1e-5 to the mean when the
run spans 10 periods, without needing T.  The initial heights Y are the particle positions of the
first output slice (step 0); the floor and the top are the lattice's outermost particle rows -/+ half
the particle spacing.

Reports per run: particles, grid spacing, the relative L2 error
    || sigma_yy_mean - sigma_exact || / || sigma_exact ||      (over particles, which have equal volumes)
and the largest pointwise error relative to rho g H, over all particles and over the core: the particles
more than 2 h (h the grid spacing) from the floor and the side walls (only from the floor when the
column is 4 cells wide), whose stencils do not reach the nodes the walls hold.  Near those nodes MPM
has an O(1) pointwise error in a layer of fixed width in cells, so the L2 error over all particles
falls like h^(1/2) while the core's falls like h; for several runs (coarse to fine) the observed
order log(e1 / e2) / log(h1 / h2).

  /usr/bin/python3 postprocess/adjsim_mpm_column.py col16.h5 col32.h5 --max-error 0.05 --decreasing

Exits 1 when the first run's L2 error exceeds --max-error, when --decreasing is given and an error does
not fall from one run to the next, or when a file lacks the particle stress; 0 otherwise."""
import argparse
import sys

import h5py
import numpy as np


def window(t):
    """sin^4 window over [t0, t_end]: smooth averaging weights of the output times t."""
    s = (t - t[0]) / (t[-1] - t[0])
    return np.sin(np.pi * s) ** 4


def column_error(path):
    with h5py.File(path, "r") as f:
        for d in ("/particles/position", "/particles/stress", "/fields/time", "/parameters/rho",
                  "/parameters/gravity"):
            if d not in f:
                raise KeyError(f"{path} has no {d} (an MPM run file with particle output is needed)")
        t = np.asarray(f["/fields/time"][()], dtype=float)
        x = np.asarray(f["/particles/position"][()], dtype=float)
        sig = np.asarray(f["/particles/stress"][()], dtype=float)[..., 3]  # sigma_yy (row-major 2x2)
        rho = float(np.asarray(f["/parameters/rho"][()]).ravel()[0])
        g = -float(np.asarray(f["/parameters/gravity"][()]).ravel()[1])
        hx = float(f["/grid"].attrs["spacing"][1]) if "/grid" in f and "spacing" in f["/grid"].attrs else float("nan")
    nt = min(len(t), x.shape[0], sig.shape[0])
    if nt < 16:
        raise ValueError(f"{path}: only {nt} output slices; write at least 16 per run (-output_interval)")
    t, sig = t[:nt], sig[:nt]
    if t[0] != 0.0:
        raise ValueError(f"{path}: the first output slice is at t = {t[0]} s, not the initial state")
    Y = x[0, :, 1]
    rows = np.unique(Y)
    dy = float(np.min(np.diff(rows))) if rows.size > 1 else float("nan")
    floor, top = rows[0] - dy / 2, rows[-1] + dy / 2
    H = top - floor
    w = window(t)
    mean = (w[:, None] * sig).sum(axis=0) / w.sum()
    exact = -rho * g * (top - Y)
    err = mean - exact
    l2 = float(np.linalg.norm(err) / np.linalg.norm(exact))
    linf = float(np.max(np.abs(err)) / (rho * g * H))
    X = x[0, :, 0]
    xl, xr = X.min() - dy / 2, X.max() + dy / 2
    # the core: particles whose stencils do not reach the nodes held by the floor and the side walls
    away = (Y > floor + 2 * hx) & (X > xl + 2 * hx) & (X < xr - 2 * hx)
    if not away.any():
        away = Y > floor + 2 * hx  # a column only 4 cells wide: just away from the floor
    l2in = float(np.linalg.norm(err[away]) / np.linalg.norm(exact[away]))
    linfin = float(np.max(np.abs(err[away])) / (rho * g * H))
    return dict(N=Y.size, h=hx, H=H, floor=floor, nt=nt, T=t[-1], l2=l2, linf=linf, l2in=l2in, linfin=linfin, dy=dy)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="MPM run files of the column, coarse to fine")
    ap.add_argument("--max-error", type=float, help="bound on the relative L2 error of the first run")
    ap.add_argument("--decreasing", action="store_true", help="require the error to fall from each run to the next")
    a = ap.parse_args()
    res = []
    for p in a.runs:
        try:
            r = column_error(p)
        except (KeyError, ValueError, OSError) as e:
            print(f"FAIL: {e}")
            return 1
        res.append(r)
        print(f"{p}: {r['N']} particles, h = {r['h']:.5g} m, particle spacing {r['dy']:.5g} m, column height "
              f"{r['H']:.6g} m on the floor y = {r['floor']:.6g} m, {r['nt']} output slices over {r['T']:.4g} s: "
              f"relative L2 error of the mean sigma_yy {r['l2']:.3e}, max |error| / (rho g H) {r['linf']:.3e}; "
              f"core: {r['l2in']:.3e}, max {r['linfin']:.3e}")
    ok = True
    for r0, r1 in zip(res, res[1:]):
        rate = np.log(r0["l2"] / r1["l2"]) / np.log(r0["dy"] / r1["dy"])
        ratein = np.log(r0["l2in"] / r1["l2in"]) / np.log(r0["dy"] / r1["dy"])
        fell = r1["l2"] < r0["l2"] and r1["l2in"] < r0["l2in"]
        print(f"  spacing {r0['dy']:.4g} -> {r1['dy']:.4g}: L2 error {r0['l2']:.3e} -> {r1['l2']:.3e}, observed order "
              f"{rate:.2f}; core {r0['l2in']:.3e} -> {r1['l2in']:.3e}, order {ratein:.2f}"
              f"{'' if fell or not a.decreasing else '  FAIL (did not fall)'}")
        ok &= fell or not a.decreasing
    if a.max_error is not None:
        good = res[0]["l2"] <= a.max_error
        print(f"first run: L2 error {res[0]['l2']:.3e} vs bound {a.max_error:.3e}  {'ok' if good else 'FAIL'}")
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
