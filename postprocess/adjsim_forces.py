#!/usr/bin/python3
"""Force coefficients of an immersed body in an adjsim fluid run: mean drag, lift statistics, the
Strouhal number of vortex shedding, and the recirculation length of a steady wake.

Reads /history/forces (one row per time step: step, time [s], C_D, C_L; written by forward fluid
runs with -fluid_body, and with a fifth column C_M by the body-fitted solver -problem airfoil) and, for
--recirculation, the last slice of the field u.  The final values are printed too (those of a steady run);
an airfoil run's /history/wake gives the recirculation length of a cylinder.

  mean C_D, C_L         averages over the window t >= --from (default: the second half of the run)
  C_L amplitude         (max - min)/2 of C_L over the window
  Strouhal number       St = f L / U from the dominant frequency f of C_L (peak of its spectrum,
                        refined by a parabola through the three largest bins; needs a few periods
                        in the window)
  control volume        --control-volume: C_D, C_L again from a momentum balance on the whole box
                        (x inflow/outflow sides, slip or wall y sides) with the last field slice:
                        F_x = sum_in (u^2 + p) hy - sum_out (u^2 + p) hy,
                        F_y = sum_in u v hy - sum_out u v hy + sum_bottom p hx - sum_top p hx
                        (cell-centre values next to the sides; steady flows only: the rate of
                        change of momentum and the viscous stresses on the sides are left out)
  recirculation length  from the body's rear x0 + R along the wake centre line y = y0: the distance
                        to the first point where the cell-centre u turns from negative to positive
                        (linear interpolation), in units of --length

Examples:
  /usr/bin/python3 postprocess/adjsim_forces.py cylinder_re100.h5 --from 100 --length 1 --velocity 1
  /usr/bin/python3 postprocess/adjsim_forces.py cylinder_re40.h5 --recirculation 10,10,0.5 --length 1
  /usr/bin/python3 postprocess/adjsim_forces.py run.h5 --plot forces.png

Checks (exit 1 when failed): --expect-cd LO,HI, --expect-cl LO,HI (mean C_L), --expect-st LO,HI,
--expect-recirculation LO,HI.
Exit status: 0 on success, 1 on a failed check or an unreadable file, 2 for bad options.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="adjsim run file of a fluid run with an immersed body")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="start of the averaging window [s]")
    ap.add_argument("--length", type=float, default=1.0, help="reference length L [m] (Strouhal, recirculation)")
    ap.add_argument("--velocity", type=float, default=1.0, help="reference velocity U [m/s] (Strouhal)")
    ap.add_argument("--recirculation", metavar="X0,Y0,R", default=None,
                    help="body centre and rear half-length: report the recirculation length behind x0 + R")
    ap.add_argument("--control-volume", action="store_true",
                    help="cross-check C_D, C_L by a momentum balance on the whole box (steady flows)")
    ap.add_argument("-o", "--plot", metavar="PNG", default=None, help="plot C_D and C_L against time to this file")
    for name in ("cd", "cl", "st", "recirculation"):
        ap.add_argument(f"--expect-{name}", metavar="LO,HI", default=None,
                        help=f"exit 1 unless the {name} value lies in [LO, HI]")
    return ap.parse_args(argv)


def pair(text_value, option):
    try:
        lo, hi = (float(v) for v in text_value.split(","))
    except ValueError:
        raise ah.RunFileError(f"{option} {text_value}: give two numbers LO,HI") from None
    return lo, hi


def strouhal(t, cl, length, velocity):
    """Dominant frequency of C_L (mean removed, Hann window), refined by a parabola through the peak."""
    if len(t) < 16 or np.ptp(cl) < 1e-6 * max(1.0, float(np.max(np.abs(cl)))):
        return float("nan")  # no oscillation to measure
    dt = np.mean(np.diff(t))
    x = (cl - cl.mean()) * np.hanning(len(cl))
    spec = np.abs(np.fft.rfft(x))
    k = int(np.argmax(spec[1:])) + 1
    shift = 0.0
    if 1 <= k < len(spec) - 1:
        a, b, c = spec[k - 1], spec[k], spec[k + 1]
        shift = 0.5 * (a - c) / (a - 2 * b + c) if (a - 2 * b + c) != 0 else 0.0
    f = (k + shift) / (len(cl) * dt)
    return f * length / velocity


def recirculation(f, spec, length):
    x0, y0, r = (float(v) for v in spec.split(","))
    g = f["grid"].attrs
    lower, upper = np.asarray(g["lower"], float), np.asarray(g["upper"], float)
    u = np.asarray(f["fields/u"][-1], float)
    ny, nx = u.shape[-2], u.shape[-1]
    hx, hy = (upper[0] - lower[0]) / nx, (upper[1] - lower[1]) / ny
    xc = lower[0] + (np.arange(nx) + 0.5) * hx
    yc = lower[1] + (np.arange(ny) + 0.5) * hy
    j = int(np.argmin(np.abs(yc - y0)))
    j2 = j + 1 if yc[j] < y0 else j - 1  # interpolate between the two rows around y0
    w = (y0 - yc[j]) / (yc[j2] - yc[j]) if 0 <= j2 < ny else 0.0
    line = (1 - w) * u[j] + (w * u[j2] if 0 <= j2 < ny else 0.0)
    rear = x0 + r
    for i in range(nx - 1):
        if xc[i] >= rear and line[i] < 0 <= line[i + 1]:
            xz = xc[i] - line[i] * (xc[i + 1] - xc[i]) / (line[i + 1] - line[i])
            return (xz - rear) / length
    return float("nan")


def control_volume(f, length, velocity):
    g = f["grid"].attrs
    lower, upper = np.asarray(g["lower"], float), np.asarray(g["upper"], float)
    u, v, p = (np.asarray(f[f"fields/{n}"][-1], float) for n in ("u", "v", "p"))
    ny, nx = u.shape[-2], u.shape[-1]
    hx, hy = (upper[0] - lower[0]) / nx, (upper[1] - lower[1]) / ny
    fx = np.sum(u[:, 0] ** 2 + p[:, 0]) * hy - np.sum(u[:, -1] ** 2 + p[:, -1]) * hy
    fy = (np.sum(u[:, 0] * v[:, 0]) - np.sum(u[:, -1] * v[:, -1])) * hy + (np.sum(p[0, :]) - np.sum(p[-1, :])) * hx
    q = 2 / (velocity ** 2 * length)
    return q * fx, q * fy


def main(argv):
    args = parse_args(argv)
    status = 0
    try:
        with ah.open_run(args.run) as f:
            if "history/forces" not in f:
                return ah.fail(f"{args.run} has no /history/forces: run the fluid solver forward with -fluid_body, "
                               "or -problem airfoil")
            h = np.asarray(f["history/forces"][()], float)
            t, cd, cl = h[:, 1], h[:, 2], h[:, 3]
            t0 = args.t0 if args.t0 is not None else 0.5 * (t[0] + t[-1])
            m = t >= t0
            if not m.any():
                return ah.fail(f"--from {t0}: no step of {args.run} at or after it (last time {t[-1]:g} s)")
            values = {"cd": cd[m].mean(), "st": strouhal(t[m], cl[m], args.length, args.velocity)}
            print(f"{args.run}: {len(t)} steps, t = {t[0]:g} .. {t[-1]:g} s; window t >= {t0:g} s ({m.sum()} steps)")
            print(f"  mean C_D {values['cd']:.4f}   mean C_L {cl[m].mean():+.4f}   "
                  f"C_L amplitude {0.5 * np.ptp(cl[m]):.4f}   C_D amplitude {0.5 * np.ptp(cd[m]):.4f}")
            final = f"  final (step {int(h[-1, 0])}, t = {t[-1]:g} s): C_D {cd[-1]:.5f}   C_L {cl[-1]:+.5f}"
            if h.shape[1] >= 5:
                final += f"   C_M {h[-1, 4]:+.5f} (window mean C_M {h[m, 4].mean():+.5f})"
            if "history/wake" in f and len(f["history/wake"]) > 0:
                final += f"   recirculation length {f['history/wake'][-1, 2]:.4f} L"
            print(final)
            print(f"  Strouhal number {values['st']:.4f} (L = {args.length:g} m, U = {args.velocity:g} m/s)")
            if args.control_volume:
                cdv, clv = control_volume(f, args.length, args.velocity)
                print(f"  control-volume balance of the last slice: C_D {cdv:.4f}  C_L {clv:+.4f} "
                      f"(penalization force at the last step: C_D {cd[-1]:.4f}  C_L {cl[-1]:+.4f})")
            if args.recirculation:
                values["recirculation"] = recirculation(f, args.recirculation, args.length)
                print(f"  recirculation length {values['recirculation']:.4f} L")
            values["cl"] = cl[m].mean()
            for name in ("cd", "cl", "st", "recirculation"):
                spec = getattr(args, f"expect_{name}")
                if spec is None:
                    continue
                lo, hi = pair(spec, f"--expect-{name}")
                ok = name in values and lo <= values[name] <= hi
                print(f"  check {name} in [{lo:g}, {hi:g}]: {'ok' if ok else 'FAILED'}")
                status = status or (0 if ok else 1)
            if args.plot:
                import matplotlib
                matplotlib.use("Agg")
                import matplotlib.pyplot as plt
                fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
                ax[0].plot(t, cd)
                ax[0].set_ylabel("C_D")
                ax[1].plot(t, cl)
                ax[1].set_ylabel("C_L")
                ax[1].set_xlabel("t [s]")
                for a in ax:
                    a.axvline(t0, color="0.6", lw=0.8, ls="--")
                fig.suptitle(os.path.basename(args.run))
                fig.savefig(args.plot, dpi=100)
                print(f"  wrote {args.plot}")
    except ah.RunFileError as e:
        return ah.fail(str(e))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
