#!/usr/bin/python3
"""Post-processing of airfoil design runs (issue 14): convergence of a (constrained) optimization, export of
a design as a Selig .dat file, surface C_p / C_f overlays and polars of body-fitted runs.

Subcommands (each has its own manual: adjsim_airfoil_design.py SUBCOMMAND --help):

  convergence RUN -o PNG     objective, each constraint's value, violation and multiplier, KKT residual per
                             outer iteration of a constrained optimization (/history/constraints), or objective
                             and gradient norm of a bounds-only one (/optimization); plot and table
  export-dat RUN -o DAT      the final (or --iteration I) NACA 4-digit or CST shape of a design run of the fluid
                             or the airfoil solver (/optimization/design, /parameters) as a Selig-format coordinate file, which
                             adjsim -problem airfoil -airfoil_body dat -airfoil_dat DAT reads back
  cp RUN [RUN...] -o PNG     C_p (and --cf C_f) along the surface of body-fitted runs (-problem airfoil,
                             /history/surface), upper and lower surfaces told apart, -C_p up
  shapes RUN [--cp RUN...] -o PNG
                             start and final shapes of a design run of either solver, and the C_p of forward
                             runs of them (e.g. the bench's re-runs on a finer grid)
  polar --design LABEL RUN... [--design ...] -o PNG
                             C_L vs C_D, C_L vs alpha and L/D vs alpha of several runs at different angles
                             (/history/forces), one curve per design; a sweep is run by
                             jobs/airfoil_polar_sweep.sh

The typical chain: optimize with the Brinkman solver (inputs/fluid_airfoil_constrained.yaml), export the final
shape with export-dat, run it and the start on the body-fitted solver at a few angles
(jobs/airfoil_polar_sweep.sh), then compare with cp and polar. Manual: docs/postprocess-design.md.

Exit status: 0 on success; 1 for a file without the groups a subcommand needs (the message names them) or a
failed write; 2 for bad options.
"""
import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402
import adjsim_plot_airfoil as pa  # noqa: E402  (the outline formulas of src/geometry/shapes.c)

SELIG_MAX = 512  # ADJ_SELIG_MAX in include/adjsim/geometry.h: points per surface adjsim's reader takes


def option_value(f, name, default=None):
    v = pa.option_value(f, name)
    return default if v is None else v


# ---------------------------------------------------------------------------------------------
# convergence

CONVERGENCE_HELP = """Convergence of an optimization run, plotted and printed as a table.

A constrained run (-optimize_constraints, docs/constrained.md) has /history/constraints, one row per outer
iteration of TAOALMM with the columns named in its 'columns' attribute: iteration, objective,
lagrangian_gradient_norm, kkt_residual, max_violation, then per constraint NAME, NAME_violation,
NAME_multiplier (NAME e.g. lift, thickness@0.3, area). The table repeats every column (12 significant digits);
the figure has four panels: the objective; each constraint's value with its bound (a dashed line, read from
-optimize_constraint_NAME_value in /provenance/options when given there; a bound left to the start's value is
drawn at the value of iteration 0); the violations, the largest violation, the KKT residual and the norm of the
augmented Lagrangian's projected gradient (log scale);
the multipliers (TAO's sign convention: y <= 0 on an active inequality).

A bounds-only run (no /history/constraints) gives the objective and TAO's gradient norm from /optimization
(iteration, objective, gradient_norm): two panels, and a table of those three columns.

--constrained refuses a file without /history/constraints (exit 1), for scripts that expect one.

Examples:
  adjsim_airfoil_design.py convergence airfoil_constrained.h5 -o convergence.png
  adjsim_airfoil_design.py convergence airfoil_optimize.h5 -o convergence.png --size 1000x500
"""


class Convergence:
    """The per-iteration table of a run: column names and rows (float), constraint names, bounds."""

    def __init__(self, f, path, constrained_only):
        if "history/constraints" in f:
            d = f["history/constraints"]
            self.names = [c.strip() for c in ah.text(d.attrs.get("columns", "")).split(",")]
            self.rows = np.atleast_2d(np.asarray(d[()], dtype=float))
            if self.rows.size == 0 or len(self.names) != self.rows.shape[1] or len(self.names) < 5 \
                    or (len(self.names) - 5) % 3:
                raise ah.RunFileError(f"{path}: /history/constraints has {self.rows.shape} rows x columns and "
                                      f"columns attribute {len(self.names)} names: not the layout of "
                                      f"docs/constrained.md")
            self.constraints = self.names[5::3]
            self.kind = "constrained"
        elif constrained_only:
            raise ah.RunFileError(f"{path}: no /history/constraints (written by constrained optimizations, "
                                  f"-optimize_constraints; docs/constrained.md)")
        elif "optimization/objective" in f and len(f["optimization/objective"]) > 0:
            o = f["optimization"]
            self.names = ["iteration", "objective", "gradient_norm"]
            self.rows = np.column_stack([np.asarray(o[n][()], dtype=float) for n in self.names])
            self.constraints = []
            self.kind = "bounds-only"
        else:
            raise ah.RunFileError(f"{path}: no /history/constraints and no /optimization history: not an "
                                  f"optimization run (adjsim -mode optimize)")
        self.bounds = {}
        for c in self.constraints:
            base = c.split("@")[0]
            sense = option_value(f, f"-optimize_constraint_{base}", "?")
            value = option_value(f, f"-optimize_constraint_{base}_value")
            bound = None
            if value is not None:
                vals = value.split(",")
                if base == "thickness" and "@" in c and len(vals) > 1:
                    stations = option_value(f, "-optimize_constraint_thickness_at", "").split(",")
                    at = c.split("@")[1]
                    idx = [k for k, s in enumerate(stations) if s and float(s) == float(at)]
                    bound = float(vals[idx[0]]) if idx and idx[0] < len(vals) else None
                else:
                    bound = float(vals[0])
            elif self.kind == "constrained":
                bound = float(self.column(c)[0])  # the default bound: the value at the initial design
            self.bounds[c] = (sense, bound)

    def column(self, name):
        return self.rows[:, self.names.index(name)]

    def print_table(self):
        widths = [max(len(n), 19) for n in self.names]
        print("  ".join(n.rjust(w) for n, w in zip(self.names, widths)))
        for r in self.rows:
            cells = [f"{int(v)}" if k == 0 else f"{v:.12g}" for k, v in enumerate(r)]
            print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))


def cmd_convergence(args):
    with ah.open_run(args.run) as f:
        conv = Convergence(f, args.run, args.constrained)
        units = ah.text(f["optimization/objective"].attrs.get("units", "1")) if "optimization/objective" in f \
            else "1"
    print(f"{args.run}: {conv.kind} optimization, {len(conv.rows)} iterations"
          + (f", constraints: {', '.join(conv.constraints)}" if conv.constraints else ""))
    for c in conv.constraints:
        sense, bound = conv.bounds[c]
        print(f"  constraint {c}: {sense} {'?' if bound is None else f'{bound:.12g}'}")
    conv.print_table()
    fig = draw_convergence(args, conv, units)
    ah.save_figure(fig, args.output)
    return 0


def draw_convergence(args, conv, units):
    from matplotlib.ticker import MaxNLocator
    size = ah.parse_size(args.size or ("1400x900" if conv.constraints else "1200x500"))
    fig = ah.new_figure(size, args.dpi)
    it = conv.column("iteration")
    if conv.constraints:
        axes = fig.subplots(2, 2).ravel()
    else:
        axes = fig.subplots(1, 2).ravel()
    axes[0].plot(it, conv.column("objective"), "o-", color="k", ms=4)
    axes[0].set_ylabel(ah.with_units("objective $J$", units))
    axes[0].set_title("objective", fontsize="medium")
    if not conv.constraints:
        axes[1].semilogy(it, np.maximum(conv.column("gradient_norm"), 1e-300), "o-", ms=4)
        axes[1].set_ylabel("projected gradient norm")
        axes[1].set_title("TAO's gradient norm", fontsize="medium")
    else:
        for k, c in enumerate(conv.constraints):
            color = f"C{k % 10}"
            axes[1].plot(it, conv.column(c), "o-", ms=4, color=color, label=c)
            sense, bound = conv.bounds[c]
            if bound is not None:
                axes[1].axhline(bound, color=color, ls="--", lw=0.9)
            axes[2].semilogy(it, np.maximum(conv.column(c + "_violation"), 1e-16), "o-", ms=3, color=color,
                             label=f"{c} violation")
            axes[3].plot(it, conv.column(c + "_multiplier"), "o-", ms=4, color=color, label=c)
        axes[2].semilogy(it, np.maximum(conv.column("max_violation"), 1e-16), "k--", lw=1.2, label="max violation")
        axes[2].semilogy(it, np.maximum(conv.column("kkt_residual"), 1e-16), "s-", color="0.3", ms=4,
                         label="KKT residual")
        axes[2].semilogy(it, np.maximum(conv.column("lagrangian_gradient_norm"), 1e-16), "^:", color="0.5", ms=4,
                         label="Lagrangian gradient norm")
        axes[1].set_title("constraint values (dashed: bounds)", fontsize="medium")
        axes[2].set_title("violations (zeros at 1e-16), KKT residual, gradient norm", fontsize="medium")
        axes[3].set_title("multipliers (TAO: y <= 0 on an active inequality)", fontsize="medium")
        for a in axes[1:]:
            a.legend(frameon=False, fontsize="small")
    for a in axes:
        a.set_xlabel("iteration")
        a.grid(True, alpha=0.3)
        a.xaxis.set_major_locator(MaxNLocator(integer=True))
    title = args.title if args.title is not None else f"Convergence ({ah.run_label(args.run)})"
    if title:
        fig.suptitle(title)
    return fig


# ---------------------------------------------------------------------------------------------
# export-dat

EXPORT_HELP = """Export the shape of a fluid design run as a Selig-format airfoil coordinate file.

The design is the final one (/parameters/body_shape) or that of --iteration I (a row of /optimization/design,
as adjsim_plot_airfoil.py reads it); the body type (naca4 or cst) comes from -fluid_body in
/provenance/options or --shape. The file has a name line, then one "x y" pair per line: from the trailing
edge (1, 0) over the upper surface to the leading edge (0, 0) and back along the lower surface to the trailing
edge, 2 N - 1 points in all (the leading edge once), in chord units (the body's chord divided out) in the
body frame: the angle of attack is not applied (it is printed; give it to the body-fitted solver as
-airfoil_alpha). The stations are the C code's cosine spacing s_j = sin^2(pi j / (2 (N - 1))), j = 0..N-1:
  NACA 4-digit: (s - y_t sin(theta), y_c + y_t cos(theta)) upper, (s + y_t sin(theta), y_c - y_t cos(theta))
  lower, y_t the thickness (closed trailing edge), y_c the camber line, theta = atan(dy_c/ds);
  CST: (s, y_u(s)) and (s, y_l(s)).
Numbers are written with 16 decimals (round-off 1e-16). adjsim's reader (src/geometry/selig.c) takes the
point of smallest x as the leading edge, needs x/c strictly increasing from it along each surface, the upper
surface first, at least 10 points and at most 512 per surface: N is checked against those limits. For a
cambered NACA section the smallest x lies a little aft of and above the formula's leading edge (x_u < 0 near
the nose); the reader then rotates the chord line slightly (by the angle of that point, a few 1e-4 chord for
2% camber).

Examples:
  adjsim_airfoil_design.py export-dat airfoil_constrained.h5 -o final.dat
  adjsim_airfoil_design.py export-dat airfoil_constrained.h5 --iteration 0 --points 121 -o start.dat
  adjsim -problem airfoil -airfoil_body dat -airfoil_dat final.dat -airfoil_alpha 3.44
"""


def export_points(body, points):
    """(x, y) in chords, Selig order: trailing edge, upper surface, leading edge, lower surface, trailing edge."""
    shape = np.array(body.shape, dtype=float)
    if body.kind == "naca4" and shape[1] == 0 and shape[2] == 0:
        shape[2] = 0.4  # p has no effect on a symmetric section (0/0 in the camber formula otherwise)
    x, y = pa.airfoil_polygon(body.kind, shape, points)  # upper TE->LE, then lower without its two ends
    chord = shape[0]
    if body.kind == "naca4":
        psi = math.pi * np.arange(points) / (points - 1)
        xl, yl = pa.naca4_surface(shape, np.sin(0.5 * psi), -1.0)
    else:
        ncst = (len(shape) - 1) // 2
        s = np.sin(0.5 * math.pi * np.arange(points) / (points - 1))
        xl, yl = s * s, pa.cst_surface(shape[1 + ncst:], s)
    # the polygon leaves out the lower surface's trailing-edge point: append it (closed trailing edge)
    X = np.concatenate([x / chord, [xl[-1]]])
    Y = np.concatenate([y / chord, [yl[-1]]])
    return X, Y


def cmd_export_dat(args):
    if not 6 <= args.points <= SELIG_MAX:
        return usage_error(args, f"--points {args.points}: give 6 to {SELIG_MAX} points per surface (adjsim's reader "
                                 f"needs at least 10 points in all and takes at most {SELIG_MAX} per surface)")
    with ah.open_run(args.run) as f:
        hist = pa.History(f, args.run, args.shape, args.points)
        if hist.kind not in ("naca4", "cst"):
            raise ah.RunFileError(f"{args.run}: the body is a {hist.kind}, not an airfoil (naca4 or cst)")
        if args.iteration is None:
            body, it = hist.final_body(), int(hist.iteration[-1])
        else:
            row = hist.row_of(args.iteration)
            body, it = hist.body(row), args.iteration
            if body is None:
                raise ah.RunFileError(f"{args.run}: iteration {it} has no design in /optimization/design (NaN row)")
    X, Y = export_points(body, args.points)
    name = args.name or f"adjsim {body.kind} design, iteration {it} of {os.path.basename(args.run)}: {body.describe()}"
    directory = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(directory):
        raise ah.RunFileError(f"cannot write {args.output}: directory {directory} does not exist")
    with open(args.output, "w") as out:
        out.write(name.replace("\n", " ") + "\n")
        for x, y in zip(X, Y):
            out.write(f"{x:.16f} {y:.16f}\n")
    print(f"iteration {it}: {body.describe()}")
    print(f"{ah.script_name()}: wrote {args.output} ({len(X)} points, {args.points} per surface; angle of attack "
          f"{body.alpha:.12g} deg: -airfoil_alpha)")
    return 0


# ---------------------------------------------------------------------------------------------
# cp

CP_HELP = """Surface pressure (and skin friction) of body-fitted runs (adjsim -problem airfoil), overlaid.

/history/surface holds, at every output step, one row per wall face: step, x, y [m] (the body frame:
quarter chord at the origin, the chord along x; the angle of attack is the free stream's), C_p, C_f. The
step drawn is the last one in the file or --step S (the same for every run). x/c = x / chord + 1/4, the chord
from -airfoil_chord in /provenance/options (default 1). The faces are split at the leading edge (smallest x)
and the trailing edge (largest x) into two surfaces; the one with the larger mean y is the upper surface
(solid lines), the other the lower (dashed). C_p is drawn with its axis reversed (suction up, the -C_p
convention). With --cf a second panel shows C_f.

For each run one line is printed: step, faces, the suction peak (minimum C_p, its x/c and surface), the
stagnation C_p (the maximum), and C_D, C_L at that step from /history/forces.

Examples:
  adjsim_airfoil_design.py cp naca0012_a4.h5 final_a4.h5 --labels start final -o cp.png
  adjsim_airfoil_design.py cp run.h5 --step 2000 --cf -o cp_cf.png
"""


class Surface:
    """One step of /history/surface split into the upper and lower surfaces, x/c from the leading edge."""

    def __init__(self, f, path, step):
        if "history/surface" not in f or len(f["history/surface"]) == 0:
            raise ah.RunFileError(f"{path}: no /history/surface (written by the body-fitted solver, -problem airfoil, "
                                  f"at its output steps)")
        h = np.asarray(f["history/surface"][()], dtype=float)
        steps = np.unique(h[:, 0])
        self.step = steps[-1] if step is None else float(step)
        if self.step not in steps:
            raise ah.RunFileError(f"{path}: step {step} not in /history/surface (steps "
                                  f"{', '.join(str(int(s)) for s in steps)})")
        rows = h[h[:, 0] == self.step]
        self.chord = float(option_value(f, "-airfoil_chord", "1"))
        x, y, self.cp, self.cf = rows[:, 1], rows[:, 2], rows[:, 3], rows[:, 4]
        self.xc, self.yc = x / self.chord + 0.25, y / self.chord
        n = len(x)
        le, te = int(np.argmin(x)), int(np.argmax(x))
        arc1 = [(le + k) % n for k in range((te - le) % n + 1)]  # le -> te, increasing index
        arc2 = [(te + k) % n for k in range((le - te) % n + 1)]  # te -> le
        upper_first = np.mean(y[arc1]) > np.mean(y[arc2])
        self.upper = np.array(arc1 if upper_first else arc2)
        self.lower = np.array(arc2 if upper_first else arc1)
        self.upper = self.upper[np.argsort(self.xc[self.upper], kind="stable")]
        self.lower = self.lower[np.argsort(self.xc[self.lower], kind="stable")]
        self.forces = None
        if "history/forces" in f:
            fh = np.asarray(f["history/forces"][()], dtype=float)
            match = fh[fh[:, 0] == self.step]
            if len(match):
                self.forces = match[-1]


def cmd_cp(args):
    labels = args.labels or [ah.run_label(r) for r in args.runs]
    if len(labels) != len(args.runs):
        return usage_error(args, f"--labels: {len(labels)} labels for {len(args.runs)} runs")
    surfaces = []
    for run in args.runs:
        with ah.open_run(run) as f:
            surfaces.append(Surface(f, run, args.step))
    for label, s in zip(labels, surfaces):
        k = int(np.argmin(s.cp))
        side = "upper" if k in set(s.upper.tolist()) else "lower"
        line = (f"{label}: step {int(s.step)}, {len(s.cp)} faces, suction peak C_p {s.cp[k]:.6g} at x/c "
                f"{s.xc[k]:.4f} ({side}), stagnation C_p {np.max(s.cp):.6g}")
        if s.forces is not None:
            line += f", C_D {s.forces[2]:.6g}, C_L {s.forces[3]:.6g}"
        print(line)
    fig = ah.new_figure(ah.parse_size(args.size or ("1200x1000" if args.cf else "1200x650")), args.dpi)
    axes = fig.subplots(2, 1, sharex=True) if args.cf else [fig.subplots(1, 1)]
    for k, (label, s) in enumerate(zip(labels, surfaces)):
        color = f"C{k % 10}"
        for idx, ls, name in ((s.upper, "-", "upper"), (s.lower, "--", "lower")):
            axes[0].plot(s.xc[idx], s.cp[idx], ls, color=color, lw=1.5, label=f"{label} {name}")
            if args.cf:
                axes[1].plot(s.xc[idx], s.cf[idx], ls, color=color, lw=1.5, label=f"{label} {name}")
    axes[0].invert_yaxis()
    axes[0].set_ylabel("$C_p$ (axis reversed: suction up)")
    axes[0].axhline(0, color="0.6", lw=0.7)
    if args.cf:
        axes[1].set_ylabel("$C_f$")
        axes[1].axhline(0, color="0.6", lw=0.7)
    axes[-1].set_xlabel("x/c")
    for a in axes:
        a.grid(True, alpha=0.3)
        a.legend(frameon=False, fontsize="small", ncol=2)
    title = args.title if args.title is not None else "Surface pressure" + (" and skin friction" if args.cf else "") \
        + (" (last step)" if args.step is None else f" (step {args.step})")
    if title:
        fig.suptitle(title)
    ah.save_figure(fig, args.output)
    return 0


# ---------------------------------------------------------------------------------------------
# polar

POLAR_HELP = """Polars of one or several designs from runs at different angles of attack.

Each run file gives one point: its angle of attack (-airfoil_alpha in /provenance/options for the
body-fitted solver, default 0; /parameters/body_alpha for the Brinkman solver) and C_D, C_L (C_M when
written) from /history/forces (step, time, C_D, C_L[, C_M]). The value of a run is (--average):
  auto   (default) the final value when the run stopped at steady state before its final time
         (-steady_tol; the last time in /history/forces below -airfoil_final_time / -fluid_final_time), the
         mean over the window otherwise, as adjsim_forces.py reports them;
  final  the last row;  mean  the mean over the window t >= --from (default: the second half of the run).
Runs are grouped into designs with --design LABEL RUN [RUN...] (repeatable, e.g. start and final), or given
as plain arguments (one design). The figure has three panels: C_L against C_D (the drag polar), C_L against
alpha, and L/D against alpha, one curve per design, points sorted by alpha. A table is printed: design,
alpha, C_D, C_L, C_M, L/D, how the value was taken, file.

A sweep of one design over angles: jobs/airfoil_polar_sweep.sh.

Examples:
  adjsim_airfoil_design.py polar --design "NACA 0012" sweep0/*.h5 --design final sweep1/*.h5 -o polar.png
  adjsim_airfoil_design.py polar a0.h5 a4.h5 a8.h5 --average mean --from 20 -o polar.png
"""


def run_alpha(f, path):
    if "parameters/body_alpha" in f:
        return float(np.atleast_1d(f["parameters/body_alpha"][()])[0])
    if option_value(f, "-problem") == "airfoil":  # /parameters/alpha: the final design's of an optimization
        if "parameters/alpha" in f:
            return float(np.atleast_1d(f["parameters/alpha"][()])[0])
        return float(option_value(f, "-airfoil_alpha", "0"))
    raise ah.RunFileError(f"{path}: no angle of attack: neither /parameters/body_alpha (Brinkman solver) nor an "
                          f"airfoil run's -airfoil_alpha in /provenance/options")


def polar_point(f, path, average, t0):
    """(alpha, C_D, C_L, C_M or nan, how) of one run."""
    if "history/forces" not in f or len(f["history/forces"]) == 0:
        raise ah.RunFileError(f"{path}: no /history/forces (written by forward runs of -problem airfoil or of "
                              f"-problem fluid with -fluid_body)")
    h = np.atleast_2d(np.asarray(f["history/forces"][()], dtype=float))
    t = h[:, 1]
    how = average
    if average == "auto":
        final = option_value(f, "-airfoil_final_time") or option_value(f, "-fluid_final_time")
        dt = np.min(np.diff(t)) if len(t) > 1 else 0.0
        steady = final is not None and t[-1] < float(final) - 0.5 * dt
        how = "final" if steady else "mean"
    if how == "final":
        row = h[-1]
        label = f"final (t = {t[-1]:.6g} s)"
    else:
        start = 0.5 * (t[0] + t[-1]) if t0 is None else t0
        m = t >= start
        if not m.any():
            raise ah.RunFileError(f"{path}: --from {t0:g}: no row of /history/forces at or after it (last time "
                                  f"{t[-1]:g} s)")
        row = h[m].mean(axis=0)
        label = f"mean t >= {start:.6g} s ({int(m.sum())} rows)"
    cm = row[4] if h.shape[1] >= 5 else float("nan")
    return run_alpha(f, path), row[2], row[3], cm, label


def cmd_polar(args):
    designs = []
    if args.runs:
        designs.append(("design", args.runs))
    for group in args.design or []:
        if len(group) < 2:
            return usage_error(args, f"--design {' '.join(group)}: give a label and at least one run file")
        designs.append((group[0], group[1:]))
    if not designs:
        return usage_error(args, "no run files: give them as arguments or with --design LABEL RUN...")
    table = []
    for label, runs in designs:
        pts = []
        for run in runs:
            with ah.open_run(run) as f:
                pts.append(polar_point(f, run, args.average, args.t0) + (run,))
        pts.sort(key=lambda p: p[0])
        table.append((label, pts))
    print(f"{'design':>16} {'alpha':>10} {'C_D':>17} {'C_L':>17} {'C_M':>17} {'L/D':>17}  value, file")
    for label, pts in table:
        for a, cd, cl, cm, how, run in pts:
            print(f"{label:>16} {a:10.6g} {cd:17.10g} {cl:17.10g} {cm:17.10g} {cl / cd:17.10g}  {how}, {run}")
    fig = ah.new_figure(ah.parse_size(args.size or "1600x550"), args.dpi)
    axes = fig.subplots(1, 3)
    for k, (label, pts) in enumerate(table):
        a, cd, cl = (np.array([p[i] for p in pts]) for i in range(3))
        style = dict(color=f"C{k % 10}", marker="o", ms=5, label=label)
        axes[0].plot(cd, cl, **style)
        axes[1].plot(a, cl, **style)
        axes[2].plot(a, cl / cd, **style)
    for ax, (xl, yl, t) in zip(axes, (("$C_D$", "$C_L$", "drag polar"), ("alpha [deg]", "$C_L$", "lift"),
                                      ("alpha [deg]", "$L/D$", "lift-to-drag ratio"))):
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_title(t, fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.legend(frameon=False, fontsize="small")
    title = args.title if args.title is not None else "Polars"
    if title:
        fig.suptitle(title)
    ah.save_figure(fig, args.output)
    return 0


# ---------------------------------------------------------------------------------------------
# shapes

SHAPES_HELP = """Start and final shapes of a design run, and (--cp) their surface pressures.

The shapes of the first and the last iteration of /optimization (or --iterations I J ...) of a design run of
either solver: the Brinkman fluid solver (-fluid_body naca4/cst, blocks body_alpha, body_shape) or the
body-fitted airfoil solver (-problem airfoil, -airfoil_body naca4/cst, blocks alpha and shape: the entries after
the chord; the chord from -airfoil_chord), drawn in the chord frame (leading edge at 0, trailing edge at 1; the
angle of attack is printed in the legend, not applied). With --cp RUN [RUN...] a second panel overlays the C_p
of forward runs of the airfoil solver (e.g. the start and the final design re-run on a finer grid, as
bench/airfoil_design.sh does), as the cp subcommand draws them (upper surfaces solid, lower dashed).

Examples:
  adjsim_airfoil_design.py shapes airfoil_design_default.h5 -o shapes.png
  adjsim_airfoil_design.py shapes design.h5 --cp start_fine.h5 final_fine.h5 --labels start final -o shapes.png
"""


def cmd_shapes(args):
    with ah.open_run(args.run) as f:
        hist = pa.History(f, args.run, args.shape, pa.AIRFOIL_POINTS)
        if hist.kind not in ("naca4", "cst"):
            raise ah.RunFileError(f"{args.run}: the body is a {hist.kind}, not an airfoil (naca4 or cst)")
        rows = [hist.row_of(i) for i in args.iterations] if args.iterations \
            else [0, len(hist.iteration) - 1]
        bodies = [hist.body(r) for r in rows]
        if any(b is None for b in bodies):
            raise ah.RunFileError(f"{args.run}: an iteration drawn has no design in /optimization/design")
    surfaces = []
    for run in args.cp or []:
        with ah.open_run(run) as f:
            surfaces.append(Surface(f, run, None))
    labels = args.labels or [ah.run_label(r) for r in (args.cp or [])]
    if len(labels) != len(surfaces):
        return usage_error(args, f"--labels: {len(labels)} labels for {len(surfaces)} --cp runs")
    fig = ah.new_figure(ah.parse_size(args.size or ("1400x1000" if surfaces else "1400x550")), args.dpi)
    axes = fig.subplots(2, 1) if surfaces else [fig.subplots(1, 1)]
    for k, (r, body) in enumerate(zip(rows, bodies)):
        X, Y = export_points(body, 121)
        it = int(hist.iteration[r])
        label = f"iteration {it}: alpha {body.alpha:.4g} deg, J {hist.objective[r]:.6g}"
        axes[0].plot(X, Y, "--" if k == 0 else "-", color=f"C{k % 10}", lw=1.6, label=label)
        print(f"iteration {it}: J = {hist.objective[r]:.12g}, {body.describe()}")
    axes[0].set_aspect("equal")
    axes[0].set_xlabel("x/c")
    axes[0].set_ylabel("y/c")
    axes[0].set_title(f"{hist.kind} shapes (chord frame)", fontsize="medium")
    for k, (label, sf) in enumerate(zip(labels, surfaces)):
        for idx, ls, name in ((sf.upper, "-", "upper"), (sf.lower, "--", "lower")):
            axes[1].plot(sf.xc[idx], sf.cp[idx], ls, color=f"C{k % 10}", lw=1.5, label=f"{label} {name}")
        line = f"{label}: step {int(sf.step)}, suction peak C_p {np.min(sf.cp):.6g}"
        if sf.forces is not None:
            line += f", C_D {sf.forces[2]:.6g}, C_L {sf.forces[3]:.6g}"
        print(line)
    if surfaces:
        axes[1].invert_yaxis()
        axes[1].set_xlabel("x/c")
        axes[1].set_ylabel("$C_p$ (axis reversed: suction up)")
        axes[1].axhline(0, color="0.6", lw=0.7)
    for a in axes:
        a.grid(True, alpha=0.3)
        a.legend(frameon=False, fontsize="small")
    title = args.title if args.title is not None else f"Design {ah.run_label(args.run)}: start and final"
    if title:
        fig.suptitle(title)
    ah.save_figure(fig, args.output)
    return 0


# ---------------------------------------------------------------------------------------------
# The command line


def usage_error(args, message):
    args.parser.print_usage(sys.stderr)
    print(f"{args.parser.prog}: error: {message}", file=sys.stderr)
    return 2


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    fmt = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser("convergence", description=CONVERGENCE_HELP, formatter_class=fmt,
                       help="objective, constraints, multipliers, KKT residual per iteration")
    p.add_argument("run", help="run file of adjsim -mode optimize")
    p.add_argument("--constrained", action="store_true",
                   help="refuse (exit 1) a file without /history/constraints instead of showing the bounds-only "
                        "history")
    ah.add_figure_options(p, "1400x900 (constrained), 1200x500 (bounds only)",
                          default_title="'Convergence' and the file name")
    p.set_defaults(func=cmd_convergence)

    p = sub.add_parser("export-dat", description=EXPORT_HELP, formatter_class=fmt,
                       help="a design's shape as a Selig-format .dat file")
    p.add_argument("run", help="run file of a fluid optimization with a naca4 or cst body")
    p.add_argument("-o", "--output", required=True, metavar="DAT", help="the Selig file to write")
    p.add_argument("--iteration", type=int, default=None,
                   help="iteration of /optimization/iteration to export (default: the final design, /parameters)")
    p.add_argument("--points", type=int, default=81,
                   help=f"points per surface, leading and trailing edge included (default 81; 6 to {SELIG_MAX})")
    p.add_argument("--shape", choices=("naca4", "cst"), default=None,
                   help="body type (default: -fluid_body in the run's /provenance/options)")
    p.add_argument("--name", default=None, help="the name line (default: body type, iteration, file and parameters)")
    p.set_defaults(func=cmd_export_dat)

    p = sub.add_parser("shapes", description=SHAPES_HELP, formatter_class=fmt,
                       help="start and final shapes of a design run, and their C_p (--cp)")
    p.add_argument("run", help="run file of an optimization (fluid or airfoil solver) with a naca4 or cst body")
    p.add_argument("--iterations", type=int, nargs="+", default=None,
                   help="iterations to draw (default: the first and the last)")
    p.add_argument("--cp", nargs="+", metavar="RUN", default=None,
                   help="forward runs of -problem airfoil whose C_p to overlay")
    p.add_argument("--labels", nargs="+", default=None, help="one label per --cp run (default: the file names)")
    p.add_argument("--shape", choices=("naca4", "cst"), default=None,
                   help="body type (default: -fluid_body or -airfoil_body in /provenance/options)")
    ah.add_figure_options(p, "1400x550, 1400x1000 with --cp", default_title="'Design' and the file name")
    p.set_defaults(func=cmd_shapes)

    p = sub.add_parser("cp", description=CP_HELP, formatter_class=fmt,
                       help="C_p (and C_f) along the surface of body-fitted runs")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files of adjsim -problem airfoil")
    p.add_argument("--step", type=int, default=None, help="output step to draw (default: the last in each file)")
    p.add_argument("--labels", nargs="+", default=None, help="one legend label per run (default: the file names)")
    p.add_argument("--cf", action="store_true", help="add a panel with the skin friction C_f")
    ah.add_figure_options(p, "1200x650, 1200x1000 with --cf", default_title="'Surface pressure' and the step")
    p.set_defaults(func=cmd_cp)

    p = sub.add_parser("polar", description=POLAR_HELP, formatter_class=fmt,
                       help="C_L vs C_D, C_L and L/D vs alpha of runs at several angles")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files of one design (or use --design)")
    p.add_argument("--design", nargs="+", action="append", metavar="ARG",
                   help="LABEL RUN [RUN...]: a design's label and its run files (repeatable)")
    p.add_argument("--average", choices=("auto", "final", "mean"), default="auto",
                   help="the value of a run: auto (default), final or mean (see above)")
    p.add_argument("--from", dest="t0", type=float, default=None,
                   help="start of the averaging window [s] (default: the second half of each run)")
    ah.add_figure_options(p, "1600x550", default_title="'Polars'")
    p.set_defaults(func=cmd_polar)

    args = ap.parse_args(argv)
    args.parser = sub.choices[args.command]
    if getattr(args, "size", None) is not None:
        try:
            ah.parse_size(args.size)
        except ah.RunFileError as e:
            args.parser.error(str(e))
    if getattr(args, "dpi", 1.0) <= 0:
        args.parser.error(f"--dpi {args.dpi}: give a positive resolution")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        return args.func(args)
    except ah.RunFileError as e:
        return ah.fail(e)


if __name__ == "__main__":
    sys.exit(main())
