#!/usr/bin/python3
"""Plot the particles of an MPM run (adjsim -problem mpm) as scatter plots coloured by a field.

Reads /particles/<name> (one slice per output step, slice k belongs to /fields/step[k]; layout in
docs/mpm.md, "Output") and draws one equal-aspect panel per chosen output step with the particles at
their positions, a shared colour bar, and the domain box [0, Lx] x [0, Ly] (the run's /grid is the
node grid: lower = -h/2, upper = L + h/2). Fields (--field):

  von_mises   sqrt(sxx^2 - sxx syy + syy^2 + 3 sxy^2) of the Cauchy stress (plane stress, sigma_zz = 0) [Pa]
  pressure    -(sxx + syy)/2, the mean in-plane normal stress with the sign of a pressure [Pa]
  sxx, sxy, syx, syy   Cauchy stress components [Pa]
  speed       |v| [m/s];  vx, vy the velocity components [m/s]
  J           det F;  Fxx, Fxy, Fyx, Fyy the deformation gradient
  E, nu, rho, label    material parameters per particle (label: the material/body label)

A restart file (or the /restart group of a run file, --restart) holds /restart/particles (N, 12 + nz):
x, v, C, F per particle (then the nz reals of the models' internal state, if any), not the /particles layout; it is accepted with the fields that follow
from that state: speed, vx, vy, J and the F components (one panel, the restart step).

For every panel one line is printed: the step, the time, the number of particles and the minimum
and maximum of the field.

Examples:
  /usr/bin/python3 postprocess/adjsim_plot_particles.py mpm_drop.h5 -o drop.png
  /usr/bin/python3 postprocess/adjsim_plot_particles.py mpm_drop.h5 --field label --step 0 -o labels.png
  /usr/bin/python3 postprocess/adjsim_plot_particles.py mpm_drop-restart.h5 --field J -o restart.png

Exit status: 0 on success; 1 when the file has no particles or a step or field does not exist;
2 for bad options.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402

# name: (label, units, needs, function of the dict of raw datasets); raw names are /particles datasets.
STRESS = {"sxx": 0, "sxy": 1, "syx": 2, "syy": 3}
DEFORMATION = {"Fxx": 0, "Fxy": 1, "Fyx": 2, "Fyy": 3}


def von_mises(s):
    sxx, sxy, syy = s[:, 0], 0.5 * (s[:, 1] + s[:, 2]), s[:, 3]
    return np.sqrt(sxx * sxx - sxx * syy + syy * syy + 3 * sxy * sxy)


FIELDS = {
    "von_mises": ("von Mises stress", "Pa", "stress", von_mises),
    "pressure": ("pressure $-(\\sigma_{xx}+\\sigma_{yy})/2$", "Pa", "stress", lambda s: -0.5 * (s[:, 0] + s[:, 3])),
    "speed": ("speed $|v|$", "m/s", "velocity", lambda v: np.hypot(v[:, 0], v[:, 1])),
    "vx": ("velocity $v_x$", "m/s", "velocity", lambda v: v[:, 0]),
    "vy": ("velocity $v_y$", "m/s", "velocity", lambda v: v[:, 1]),
    "J": ("J = det F", "1", "F", lambda F: F[:, 0] * F[:, 3] - F[:, 1] * F[:, 2]),
    "E": ("Young's modulus E", "Pa", "E", lambda a: a),
    "nu": ("Poisson ratio", "1", "nu", lambda a: a),
    "rho": ("density", "kg/m^3", "rho", lambda a: a),
    "label": ("label", "1", "label", lambda a: a),
}
for _n, _c in STRESS.items():
    FIELDS[_n] = (f"stress $\\sigma_{{{_n[1:]}}}$", "Pa", "stress", lambda s, c=_c: s[:, c])
for _n, _c in DEFORMATION.items():
    FIELDS[_n] = (f"$F_{{{_n[1:]}}}$", "1", "F", lambda F, c=_c: F[:, c])
SIGNED = {"sxx", "sxy", "syx", "syy", "pressure", "vx", "vy"}
RESTART_FIELDS = ("speed", "vx", "vy", "J", "Fxx", "Fxy", "Fyx", "Fyy")
RESTART_COLUMNS = {"position": slice(0, 2), "velocity": slice(2, 4), "F": slice(8, 12)}  # x, v, C, F


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="MPM run file (/particles) or restart file (/restart/particles)")
    ap.add_argument("-f", "--field", default="von_mises", choices=sorted(FIELDS),
                    help="particle field to colour by (default von_mises)")
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--step", type=int, nargs="+", metavar="N",
                     help="output step number(s) (as in /fields/step), one panel each")
    sel.add_argument("--index", type=int, nargs="+", metavar="K",
                     help="output slice index(es) (0 = first, negative counts from the end)")
    sel.add_argument("--restart", action="store_true",
                     help="plot the /restart/particles state of the file (a restart file is read this way anyway)")
    ap.add_argument("--columns", type=int, default=None, help="panels per row (default: up to 4)")
    ap.add_argument("--marker-size", type=float, default=None, metavar="PT2",
                    help="marker area in points^2 (default: from the particle spacing, so markers about touch)")
    ap.add_argument("--cmap", default=None,
                    help="colour map (default viridis; RdBu_r for signed fields; tab10 for labels)")
    ap.add_argument("--vmin", type=float, default=None, help="lower end of the colour scale (default: data minimum)")
    ap.add_argument("--vmax", type=float, default=None, help="upper end of the colour scale (default: data maximum)")
    ah.add_figure_options(ap, "fitted to the domain and the panels",
                          default_title="the field and the file name")
    args = ap.parse_args(argv)
    if args.columns is not None and args.columns < 1:
        ap.error(f"--columns {args.columns}: give 1 or more")
    return args


class Particles:
    """The particle states to plot: for each panel (step, time, position (N, 2), raw arrays)."""

    def __init__(self, f, path, args):
        self.path, self.f = path, f
        content = ah.text(f.attrs.get("content", "run"))
        self.restart = args.restart or content == "restart" or ("particles" not in f and "restart/particles" in f)
        if self.restart:
            if "restart/particles" not in f:
                raise ah.RunFileError(f"{path}: no /restart/particles (not the restart state of an MPM run)")
            if args.step or args.index:
                raise ah.RunFileError(f"{path}: a restart state has one step; --step and --index do not apply")
            if args.field not in RESTART_FIELDS:
                raise ah.RunFileError(f"{path}: a restart state (x, v, C, F) has no field {args.field!r}; "
                                      f"choose one of {', '.join(RESTART_FIELDS)}")
            shape = f["restart/particles"].shape
            if len(shape) != 2 or shape[1] < 12:
                raise ah.RunFileError(f"{path}: /restart/particles has shape {shape}, expected (N, 12 + nz) "
                                      f"(x, v, C, F of 2-D particles, then their internal state)")
            self.slices = [None]
        else:
            if "particles/position" not in f:
                raise ah.RunFileError(f"{path}: no /particles/position: not an MPM run file "
                                      f"(datasets: {', '.join(ah.candidates(f))})")
            need = FIELDS[args.field][2]
            if f"particles/{need}" not in f:
                raise ah.RunFileError(f"{path}: no /particles/{need} for --field {args.field}")
            self.slices = self._choose(args)

    def _choose(self, args):
        n = self.f["particles/position"].shape[0]
        steps = [int(s) for s in self.f["fields/step"][:n]]
        if args.step:
            missing = [s for s in args.step if s not in steps]
            if missing:
                raise ah.RunFileError(f"{self.path}: step(s) {missing} not in the output steps {steps}")
            return [steps.index(s) for s in args.step]
        if args.index:
            bad = [k for k in args.index if not -n <= k < n]
            if bad:
                raise ah.RunFileError(f"{self.path}: index {bad[0]} outside its {n} output steps")
            return [k % n for k in args.index]
        return sorted({0, n // 2, n - 1})

    def step_time(self, k):
        if k is None:
            a = self.f["restart"].attrs
            return int(a["step"]), float(a["time"])
        return int(self.f["fields/step"][k]), float(self.f["fields/time"][k])

    def raw(self, k, name):
        if k is None:
            return np.asarray(self.f["restart/particles"][()][:, RESTART_COLUMNS[name]], dtype=float)
        return np.asarray(self.f[f"particles/{name}"][k], dtype=float)

    def panel(self, k, field):
        """(position (N, 2), values (N,)) of slice k; particles not yet written (NaN) are dropped."""
        x = self.raw(k, "position")
        label, units, need, fn = FIELDS[field]
        values = fn(self.raw(k, need))
        keep = np.all(np.isfinite(x), axis=1)
        return x[keep], values[keep]


def domain_box(f):
    """[0, L] of the MPM domain from the node grid (lower = -h/2, upper = L + h/2)."""
    g = f["grid"].attrs
    h = np.asarray(g["spacing"], dtype=float)
    return np.asarray(g["lower"], dtype=float) + h / 2, np.asarray(g["upper"], dtype=float) - h / 2, h


def color_scale(field, data, args):
    if field == "label":
        lo, hi = float(min(d.min() for d in data)), float(max(d.max() for d in data))
        return args.cmap or "tab10", lo - 0.5, hi + 0.5, False
    return ah.color_scale(field in SIGNED, data, args.cmap, args.vmin, args.vmax, None, field in ("speed", "von_mises"))


def draw_panels(fig, parts, panels, field, args, lower, upper, h):
    import matplotlib
    ncols = args.columns or min(len(panels), 4)
    nrows = (len(panels) + ncols - 1) // ncols
    axes, caxes = ah.panel_axes(fig, nrows, ncols, len(panels), False)
    cmap, lo, hi, sym = color_scale(field, [v for _, _, _, v in panels], args)
    if field == "label":
        n = int(round(hi - lo))
        cmap = matplotlib.colormaps[cmap].resampled(n) if n <= 20 else cmap
    fig.canvas.draw()
    for i, (ax, (step, time, x, v)) in enumerate(zip(axes, panels)):
        # Marker area: a particle spacing of h/2 (2 x 2 particles per cell by default) in points^2.
        width_pt = ax.get_position().width * fig.get_figwidth() * 72
        size = args.marker_size or max((0.5 * h[0] / (upper[0] - lower[0]) * width_pt) ** 2, 0.5)
        sc = ax.scatter(x[:, 0], x[:, 1], c=v, s=size, cmap=cmap, vmin=lo, vmax=hi, linewidths=0)
        ax.add_patch(matplotlib.patches.Rectangle(lower, *(upper - lower), fill=False, ec="k", lw=1.0))
        ax.set_aspect("equal")
        pad = 0.02 * (upper - lower)
        ax.set_xlim(lower[0] - pad[0], upper[0] + pad[0])
        ax.set_ylim(lower[1] - pad[1], upper[1] + pad[1])
        ax.set_title(f"t = {time:.4g} s (step {step})" if not parts.restart else f"restart state, t = {time:.4g} s "
                     f"(step {step})", fontsize="medium")
        ax.set_xlabel("x [m]" if i + ncols >= len(panels) else "")
        ax.set_ylabel("y [m]" if i % ncols == 0 else "")
    label, units = FIELDS[field][:2]
    cb = ah.colorbar(fig, sc, caxes[0], label, units, sym)
    if field == "label":
        cb.set_ticks(np.arange(int(lo + 0.5), int(hi + 0.5) + 1))
    return axes, [(cb, axes)]


def main(argv=None):
    args = parse_args(argv)
    try:
        with ah.open_run(args.run) as f:
            parts = Particles(f, args.run, args)
            lower, upper, h = domain_box(f)
            panels = []
            for k in parts.slices:
                x, v = parts.panel(k, args.field)
                step, time = parts.step_time(k)
                if v.size == 0:
                    raise ah.RunFileError(f"{args.run}: no particles at step {step}")
                panels.append((step, time, x, v))
                print(f"step {step} (t = {time:.12g} s): {v.size} particles, {args.field} "
                      f"min {v.min():.12g} max {v.max():.12g}")
            ncols = args.columns or min(len(panels), 4)
            nrows = (len(panels) + ncols - 1) // ncols
            grid = ah.Grid([1, 1], lower, upper)
            w, hpx = ah.default_panel_size(grid, ncols, args.dpi)
            guess = (w, (hpx - int(1.25 * args.dpi)) * nrows + int(1.25 * args.dpi) + int(0.35 * args.dpi) * (nrows - 1))

            def build(size):
                fig = ah.new_figure(size, args.dpi)
                axes, bars = draw_panels(fig, parts, panels, args.field, args, lower, upper, h)
                title = args.title if args.title is not None else (
                    f"{FIELDS[args.field][0]}  ({ah.run_label(args.run)})")
                if title:
                    fig.suptitle(title)
                return fig, axes, bars
            fig = ah.fitted_figure(build, ah.parse_size(args.size) if args.size else guess, not args.size)
            ah.save_figure(fig, args.output)
    except ah.RunFileError as e:
        return ah.fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
