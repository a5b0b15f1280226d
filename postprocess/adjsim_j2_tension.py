#!/usr/bin/env python3
"""Plane-strain tension of a J2 strip (-mpm_model j2) against the model's own stress-strain curve.

  adjsim_j2_tension.py setup OUT.h5 --h H [geometry options]     write the strip's particle file (linear velocity field)
  adjsim_j2_tension.py check RUN.h5 [--tol T] [--show]            gauge-section stress-strain curve vs the reference

The specimen (docs/mpm.md, "J2 validation: plane-strain tension"): a strip of length L (the half specimen; its
left end on a slip wall, the symmetry plane) and width W, plane strain (eps_zz = 0), lateral faces free
(sigma_yy = 0), pulled at its right end by a heavy elastic grip moving at speed v.  The strip starts with the
homogeneous velocity field of the steady stretch, vx = v max(0, x - xfix) / (x0 + L - xfix) (xfix: the wall band's
last node, held at v_x = 0), vy = -nu/(1 - nu) (v/L) (y - yc) (the elastic plane-strain lateral contraction), so
that no stress wave is launched at t = 0.

Reference (Hencky elasticity, von Mises with linear hardening, the model's conventions): principal log strains
(eps_x, eps_y, 0) on fixed axes, plastic log strain p (tr p = 0), tau = 2 mu (eps - p) + lambda tr(eps) I,
von Mises stress sqrt(3/2) |dev tau| <= sigma_y + H alpha, alpha the equivalent plastic strain, tau_yy = 0.
  elastic:   tau_xx = E/(1 - nu^2) eps_x,  tau_zz = nu tau_xx,  eps_y = -nu/(1 - nu) eps_x
  yield at   tau_xx = sigma_y / sqrt(1 - nu + nu^2)      (von Mises of (tau, 0, nu tau))
  far past:  tau_zz -> tau_xx / 2, tau_xx -> 2/sqrt(3) (sigma_y + H alpha) (the plane-strain factor 2/sqrt(3)),
             slope d tau_xx / d eps_x -> 1 / ((1 - nu/2)/E + 3/(4 H))   (docs/mpm.md, "J2 validation")
In between tau_zz/tau_xx moves from nu to 1/2 (a non-proportional path): the curve is the solution of the rate
equations, integrated here with the exact radial return of the model (yield smoothing eps = 0) in 20000 strain
increments (--nref) with tau_yy = 0 solved to 1e-12 E at each (the difference against 5000 increments is 7.6e-5
sigma_y_ps, against 2000 3.8e-4: first order in the increment, from the yield kink).
Cauchy stress sigma_xx = tau_xx / J, J = exp(eps_x + eps_y); the nominal strain of the gauge is exp(eps_x) - 1.

The run's curve: at each output step the gauge section (particles that started between x0 + L/8 and
x0 + 5L/8, away from the wall's first rows and from the grip) gives the mean Cauchy sigma_xx, and its nominal
strain from two virtual extensometer lines: the mean x of the particles that started in the first and in the last
particle column of the gauge (their initial distance is the gauge length).
"""
import argparse
import sys

import h5py
import numpy as np


def lame(E, nu):
    return E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))


def reference(E, nu, sy, H, emax, n=20000):
    """Nominal strain, Cauchy sigma_xx and alpha of plane-strain tension with tau_yy = 0 (exact return, eps = 0)."""
    mu, lam = lame(E, nu)
    p = np.zeros(3)
    alpha = 0.0
    out = [(0.0, 0.0, 0.0)]

    def stress(ex, ey, p, alpha):
        e = np.array([ex, ey, 0.0]) - p
        t = e.sum() / 3
        s = e - t
        q = np.linalg.norm(s)
        f = np.sqrt(6) * mu * q - (sy + H * alpha)
        dp = max(0.0, f) / (3 * mu + H)
        kappa = np.sqrt(1.5) * dp / q if dp > 0 else 0.0
        ep = e - kappa * s
        tau = 2 * mu * ep + lam * e.sum()
        return tau, p + kappa * s, alpha + dp

    ey = 0.0
    emax_log = np.log1p(emax)
    for k in range(1, n + 1):
        ex = emax_log * k / n
        # tau_yy(ey) is increasing and piecewise smooth: secant steps safeguarded by bisection on a bracket
        lo, hi = ey - 0.05, ey + 0.05
        flo, fhi = stress(ex, lo, p, alpha)[0][1], stress(ex, hi, p, alpha)[0][1]
        assert flo < 0 < fhi
        for _ in range(200):
            mid = lo - flo * (hi - lo) / (fhi - flo)
            if not lo < mid < hi:
                mid = 0.5 * (lo + hi)
            fm = stress(ex, mid, p, alpha)[0][1]
            if fm < 0:
                lo, flo = mid, fm
            else:
                hi, fhi = mid, fm
            if abs(fm) < 1e-12 * E or hi - lo < 1e-16:
                break
        ey = mid
        tau, p, alpha = stress(ex, ey, p, alpha)
        out.append((np.expm1(ex), tau[0] / np.exp(ex + ey), alpha))
    return np.array(out)


def setup(a):
    x0, y0, L, W, h = a.x0, a.y0, a.length, a.width, a.h
    s = h / a.ppc
    nx, ny = int(round(L / s)), int(round(W / s))
    iy, ix = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    x = np.stack([x0 + (ix.ravel() + 0.5) * s, y0 + (iy.ravel() + 0.5) * s], axis=1)
    xf = a.xfix if a.xfix is not None else x0
    rate = a.speed / (x0 + L - xf)
    yc = y0 + W / 2
    v = np.stack([rate * np.maximum(x[:, 0] - xf, 0.0), -a.nu / (1 - a.nu) * rate * (x[:, 1] - yc)], axis=1)
    with h5py.File(a.output, "w") as f:
        f["position"] = x
        f["velocity"] = v
        f["volume"] = np.full(len(x), s * s)
        f["label"] = np.zeros(len(x), dtype=np.int32)
    print(f"{a.output}: {len(x)} particles, strain rate {rate:.6g} 1/s")
    return 0


def curve(run, x0, L):
    with h5py.File(run, "r") as f:
        P = f["particles"]
        pos = np.asarray(P["position"])
        sig = np.asarray(P["stress"])
        lab = np.asarray(P["label"])[0].ravel()
    bar = lab == 0
    xi = pos[0, :, 0]
    gauge = bar & (xi > x0 + L / 8) & (xi < x0 + 5 * L / 8)
    xa, xb = xi[gauge].min(), xi[gauge].max()
    ca, cb = bar & (np.abs(xi - xa) < 1e-9), bar & (np.abs(xi - xb) < 1e-9)
    l0 = xb - xa
    strain = (pos[:, cb, 0].mean(axis=1) - pos[:, ca, 0].mean(axis=1)) / l0 - 1
    sxx = sig[:, gauge, 0].mean(axis=1)
    return strain, sxx


def check(a):
    strain, sxx = curve(a.run, a.x0, a.length)
    ref = reference(a.E, a.nu, a.sigma_y, a.H, max(strain.max(), 1e-6) * 1.01, a.nref)
    sref = np.interp(strain, ref[:, 0], ref[:, 1])
    # errors relative to the reference's yield stress in tension (the scale of the curve)
    sy_ps = a.sigma_y / np.sqrt(1 - a.nu + a.nu**2)
    err = (sxx - sref) / sy_ps
    ey = sy_ps * (1 - a.nu**2) / a.E
    el = strain < 0.8 * ey
    pl = strain > 1.5 * ey
    if a.show:
        print("# nominal strain, sigma_xx run, sigma_xx reference [Pa], (run - ref)/sigma_y_ps")
        for e, s, r, d in zip(strain, sxx, sref, err):
            print(f"{e:.6f} {s:.6g} {r:.6g} {d:+.4f}")
    print(f"plane-strain tensile yield stress sigma_y/sqrt(1-nu+nu^2) = {sy_ps:.6g} Pa at nominal strain {ey:.5f}")
    print(f"largest nominal strain {strain.max():.5f} ({strain.max() / ey:.2f} yield strains); "
          f"reference final sigma_xx {sref[-1]:.6g} Pa, run {sxx[-1]:.6g} Pa")
    e_el = np.abs(err[el]).max() if el.any() else np.nan
    e_pl = np.abs(err[pl]).max() if pl.any() else np.nan
    e_all = np.abs(err).max()
    rms = np.sqrt(np.mean(err**2))
    print(f"|run - ref| / sigma_y_ps: elastic part max {e_el:.4f}, plastic part (> 1.5 yield strains) max {e_pl:.4f}, "
          f"all max {e_all:.4f}, rms {rms:.4f}")
    if a.tol is not None:
        if not (pl.sum() >= 3 and strain.max() > 3 * ey):
            print("FAIL: the run did not go past 3 yield strains", file=sys.stderr)
            return 1
        if not e_all <= a.tol:
            print(f"FAIL: max error {e_all:.4f} > {a.tol}", file=sys.stderr)
            return 1
        print(f"OK: within {a.tol} of sigma_y_ps")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("setup", "check"):
        p = sub.add_parser(name)
        p.add_argument("file")
        p.add_argument("--x0", type=float, required=True, help="left end of the strip [m]")
        p.add_argument("--length", type=float, required=True, help="strip length L [m]")
        p.add_argument("--E", type=float, default=1e6)
        p.add_argument("--nu", type=float, default=0.3)
    s = sub.choices["setup"]
    s.add_argument("--y0", type=float, required=True)
    s.add_argument("--width", type=float, required=True)
    s.add_argument("--h", type=float, required=True, help="cell size [m]")
    s.add_argument("--ppc", type=int, default=2)
    s.add_argument("--xfix", type=float, help="x of the fixed plane (the slip wall's last node; default x0) [m]")
    s.add_argument("--speed", type=float, required=True, help="grip speed v [m/s]")
    c = sub.choices["check"]
    c.add_argument("--sigma_y", type=float, default=1e4)
    c.add_argument("--H", type=float, default=1e5)
    c.add_argument("--tol", type=float, help="fail if max |run - ref| > TOL * sigma_y_ps")
    c.add_argument("--show", action="store_true")
    c.add_argument("--nref", type=int, default=20000, help="strain increments of the reference (default 20000)")
    a = ap.parse_args()
    if a.cmd == "setup":
        a.output = a.file
        return setup(a)
    a.run = a.file
    return check(a)


if __name__ == "__main__":
    sys.exit(main())
