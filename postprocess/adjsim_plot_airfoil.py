#!/usr/bin/python3
"""Plot the airfoil shape over the iterations of a fluid shape optimization (adjsim -mode optimize
with -fluid_body naca4 or cst, e.g. inputs/fluid_airfoil_optimize.yaml).

The design of every iteration is row r of /optimization/design; the attributes design_blocks,
design_offsets, design_sizes and design_scales of /optimization say which columns hold which
parameter block (value = scale * design variable, docs/output-format.md). Blocks that were not
optimized keep their values from /parameters (body_position, body_alpha, body_shape). The body type
comes from the run's options (/provenance/options, -fluid_body) or from --shape.

The outline is computed here with the formulas of src/geometry/shapes.c:
  NACA 4-digit (body_shape = chord, m, p, t): thickness
    y_t = 5 t (0.2969 sqrt(s) - 0.1260 s - 0.3516 s^2 + 0.2843 s^3 - 0.1036 s^4)
  (closed trailing edge) laid off normal to the camber line y_c = m/p^2 (2 p s - s^2) for s < p and
  m/(1-p)^2 (1 - 2p + 2 p s - s^2) for s >= p, s = x/c from the leading edge;
  CST (body_shape = chord, Au_0..Au_n, Al_0..Al_n): y = sqrt(s) (1 - s) sum_i A_i C(n,i) s^i (1-s)^(n-i)
  (class function N1 = 0.5, N2 = 1, Bernstein shape function) for each surface;
with the stations s = sin^2(psi/2), psi = pi j/(n-1), j = 0..n-1 (cosine spacing, --points n per
surface, 160 as in the C code). The body is then turned by the angle of attack alpha (nose up for
alpha > 0) about its reference point, the quarter chord, which sits at body_position (x0, y0):
  x = x0 + X cos(alpha) + Y sin(alpha),  y = y0 - X sin(alpha) + Y cos(alpha),  X = x_LE-frame - c/4.
Circles (body_shape = R) and ellipses (a, b) are drawn too.

The outlines of the initial design, of --count intermediate iterations (evenly spaced) or of the
iterations given with --iterations, and of the final design are overlaid, coloured by iteration; a
second panel shows the objective per iteration (--no-objective to leave it out). For each outline
drawn the script prints one line with the iteration, the objective and the shape parameters.

--check-mask compares the final design (/parameters) with the body mask the C code wrote
(/fields/mask, last slice): a cell centre must lie inside the outline exactly when its mask is > 0
(the mask is zero outside the body and positive inside, docs/fluid.md). Cells within 1e-9 m of the
outline count as ties. Exit 1 on any other difference.

Examples:
  /usr/bin/python3 postprocess/adjsim_plot_airfoil.py airfoil_optimize.h5 -o airfoil.png
  /usr/bin/python3 postprocess/adjsim_plot_airfoil.py airfoil_optimize.h5 --iterations 0 2 5 -o a.png --no-objective
  /usr/bin/python3 postprocess/adjsim_plot_airfoil.py airfoil_optimize.h5 --check-mask -o a.png

Exit status: 0 on success; 1 when the file has no design history or no immersed body, or
--check-mask finds a difference; 2 for bad options.
"""
import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402

DEFAULT_SIZE = "1600x700"
BODY_BLOCKS = ("body_position", "body_alpha", "body_shape")
AIRFOIL_BLOCKS = (None, "alpha", "shape")  # their counterparts in a -problem airfoil run (no position block)
SHAPES = ("circle", "ellipse", "naca4", "cst")
AIRFOIL_POINTS = 160  # ADJ_AIRFOIL_POINTS in include/adjsim/geometry.h
TIE = 1e-9  # m: cell centres this close to the outline may fall on either side


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="run file of a fluid optimization with an immersed body")
    sel = ap.add_mutually_exclusive_group()
    sel.add_argument("--iterations", type=int, nargs="+", metavar="I",
                     help="iteration numbers to draw (as in /optimization/iteration; default: the initial and "
                          "final designs and --count in between)")
    sel.add_argument("--count", type=int, default=3,
                     help="number of intermediate iterations drawn, evenly spaced (default 3)")
    ap.add_argument("--shape", choices=SHAPES, default=None,
                    help="body type (default: -fluid_body in the run's /provenance/options)")
    ap.add_argument("--points", type=int, default=AIRFOIL_POINTS,
                    help=f"stations per airfoil surface (default {AIRFOIL_POINTS}, as the C code samples it)")
    ap.add_argument("--no-objective", action="store_true", help="leave out the objective panel")
    ap.add_argument("--zoom", type=float, default=0.35,
                    help="margin around the outlines, as a fraction of the chord (default 0.35); 0 shows the "
                         "whole domain")
    ap.add_argument("--cmap", default="viridis", help="colour map of the iterations (default viridis)")
    ap.add_argument("--check-mask", action="store_true",
                    help="check the final outline against /fields/mask > 0 cell by cell (exit 1 on a difference)")
    ah.add_figure_options(ap, DEFAULT_SIZE, default_title="'Airfoil shape over the optimization' and the file name")
    args = ap.parse_args(argv)
    if args.count < 0:
        ap.error(f"--count {args.count}: give 0 or more")
    if args.points < 3:
        ap.error(f"--points {args.points}: give at least 3")
    return args


# ---------------------------------------------------------------------------------------------
# The shape (src/geometry/shapes.c)


def naca4_surface(shape, sigma, side):
    """NACA 4-digit surface point (X, Y) in chords, leading edge at the origin; side +1 upper, -1 lower."""
    _, m, p, th = shape
    t = sigma * sigma
    t2, t3, t4 = t * t, t * t * t, t * t * t * t
    yt = 5 * th * (0.2969 * sigma - 0.1260 * t - 0.3516 * t2 + 0.2843 * t3 - 0.1036 * t4)
    fore = t < p
    q = np.where(fore, m / (p * p), m / ((1 - p) * (1 - p)))
    yc = np.where(fore, q * (2 * p * t - t2), q * (1 + 2 * p * (t - 1) - t2))
    slope = 2 * q * (p - t)
    cs = 1 / np.sqrt(slope * slope + 1)
    sn = slope * cs
    return t - side * yt * sn, yc + side * yt * cs


def cst_surface(coef, sigma):
    """CST surface y/c = sqrt(s) (1 - s) sum_i A_i C(n,i) s^i (1-s)^(n-i) at s = sigma^2."""
    t = sigma * sigma
    n = len(coef) - 1
    total = sum(a * math.comb(n, i) * t ** i * (1 - t) ** (n - i) for i, a in enumerate(coef))
    return total * sigma * (1 - t)


def airfoil_polygon(kind, shape, points):
    """The closed outline in metres, leading edge at the origin, as the C code samples it: the upper
    surface from the trailing edge to the leading edge, then the lower one back (2 points - 2 vertices)."""
    psi = math.pi * np.arange(points) / (points - 1)
    sigma = np.sin(0.5 * psi)
    chord = shape[0]
    if kind == "naca4":
        (xu, yu), (xl, yl) = naca4_surface(shape, sigma, 1.0), naca4_surface(shape, sigma, -1.0)
    else:
        ncst = (len(shape) - 1) // 2
        xu = xl = sigma * sigma
        yu, yl = cst_surface(shape[1:1 + ncst], sigma), cst_surface(shape[1 + ncst:], sigma)
    x = np.concatenate([xu[::-1], xl[1:-1]]) * chord
    y = np.concatenate([yu[::-1], yl[1:-1]]) * chord
    return x, y


def check_shape(kind, shape):
    sizes = {"circle": 1, "ellipse": 2, "naca4": 4}
    if kind in sizes and len(shape) != sizes[kind]:
        raise ah.RunFileError(f"body_shape has {len(shape)} entries, a {kind} has {sizes[kind]}")
    if kind == "cst" and (len(shape) < 3 or len(shape) % 2 == 0):
        raise ah.RunFileError(f"body_shape has {len(shape)} entries: a CST airfoil has the chord and as many "
                              f"upper as lower coefficients")


class Body:
    """A body of a given kind: position (x0, y0) [m], angle of attack alpha [deg], body_shape."""

    def __init__(self, kind, position, alpha, shape, points=AIRFOIL_POINTS):
        check_shape(kind, shape)
        self.kind, self.position, self.alpha, self.shape = kind, np.asarray(position, float), float(alpha), shape
        self.points = points
        if kind in ("naca4", "cst"):
            self.polygon = airfoil_polygon(kind, shape, points)

    def to_body_frame(self, x, y):
        """World -> body frame, in the C code's order of operations; airfoils: leading edge at the origin."""
        dx, dy = x - self.position[0], y - self.position[1]
        a = self.alpha * (math.pi / 180)
        c, s = math.cos(a), math.sin(a)
        X, Y = dx * c - dy * s, dx * s + dy * c
        if self.kind in ("naca4", "cst"):
            X = X + self.shape[0] * 0.25
        return X, Y

    def to_world(self, X, Y):
        """Body frame (airfoils: leading edge at the origin) -> world: the inverse rotation."""
        if self.kind in ("naca4", "cst"):
            X = X - self.shape[0] * 0.25
        a = self.alpha * (math.pi / 180)
        c, s = math.cos(a), math.sin(a)
        return self.position[0] + X * c + Y * s, self.position[1] - X * s + Y * c

    def outline(self):
        """Closed outline (x, y) in world coordinates."""
        if self.kind in ("naca4", "cst"):
            X, Y = self.polygon
        else:
            th = np.linspace(0, 2 * math.pi, 4 * self.points)
            a, b = (self.shape[0], self.shape[0]) if self.kind == "circle" else self.shape
            X, Y = a * np.cos(th), b * np.sin(th)
        x, y = self.to_world(np.append(X, X[0]), np.append(Y, Y[0]))
        return x, y

    def inside(self, x, y):
        """Point-in-body test of world points (the sign of the C code's distance)."""
        X, Y = self.to_body_frame(x, y)
        if self.kind == "circle":
            return np.hypot(X, Y) < self.shape[0]
        if self.kind == "ellipse":
            return np.hypot(X / self.shape[0], Y / self.shape[1]) < 1
        ax, ay = self.polygon
        bx, by = np.roll(ax, -1), np.roll(ay, -1)
        crossings = np.zeros(X.shape, dtype=int)
        for k in range(len(ax)):  # crossing-number test, as AdjAirfoilDistance
            ex, ey = bx[k] - ax[k], by[k] - ay[k]
            straddle = (ay[k] > Y) != (by[k] > Y)
            with np.errstate(divide="ignore", invalid="ignore"):
                crossings += straddle & (X < ax[k] + (Y - ay[k]) * ex / ey)
        return crossings % 2 == 1

    def distance_to_outline(self, x, y):
        """Distance of world points to the outline polygon (for ties in --check-mask)."""
        ox, oy = self.outline()
        ax, ay, bx, by = ox[:-1], oy[:-1], ox[1:], oy[1:]
        px, py = np.asarray(x, float)[:, None], np.asarray(y, float)[:, None]
        ex, ey = bx - ax, by - ay
        t = np.clip(((px - ax) * ex + (py - ay) * ey) / np.maximum(ex * ex + ey * ey, 1e-300), 0, 1)
        return np.min(np.hypot(px - ax - t * ex, py - ay - t * ey), axis=1)

    def describe(self):
        names = {"circle": ["R"], "ellipse": ["a", "b"], "naca4": ["chord", "m", "p", "t"]}.get(self.kind)
        if names is None:
            n = (len(self.shape) - 1) // 2
            names = ["chord"] + [f"Au{i}" for i in range(n)] + [f"Al{i}" for i in range(n)]
        parts = [f"alpha = {self.alpha:.12g} deg"] + [f"{k} = {v:.12g}" for k, v in zip(names, self.shape)]
        parts.append(f"position = {self.position[0]:.12g},{self.position[1]:.12g}")
        return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# The run file


def option_value(f, name):
    """The value of option name in /provenance/options, or None."""
    if "provenance/options" not in f:
        return None
    tokens = ah.text(f["provenance/options"][()]).split()
    for i, tok in enumerate(tokens[:-1]):
        if tok == name:
            return tokens[i + 1]
    return None


class History:
    """Iterations, objectives and the body of each iteration of an optimization run file."""

    def __init__(self, f, path, kind, points):
        self.path = path
        if "optimization" not in f or len(f["optimization/objective"]) == 0:
            raise ah.RunFileError(f"{path}: no /optimization history (written by -mode optimize)")
        o = f["optimization"]
        # the body-fitted solver (-problem airfoil): blocks alpha and shape (the entries after the chord), the
        # quarter chord at the origin; its chord from -airfoil_chord (docs/airfoil.md)
        self.airfoil = option_value(f, "-problem") == "airfoil"
        option = "-airfoil_body" if self.airfoil else "-fluid_body"
        self.kind = kind or option_value(f, option) or ("naca4" if self.airfoil else None)
        if self.kind is None or self.kind == "none":
            raise ah.RunFileError(f"{path}: the run has no immersed body (-fluid_body); give --shape if the "
                                  f"options are not in /provenance/options")
        if self.kind not in SHAPES:
            raise ah.RunFileError(f"{path}: unknown body type {option} {self.kind!r}; known: {', '.join(SHAPES)}")
        self.blocks = dict(zip(BODY_BLOCKS, AIRFOIL_BLOCKS if self.airfoil else BODY_BLOCKS))
        self.chord = float(option_value(f, "-airfoil_chord") or 1) if self.airfoil else None
        missing = [b for b in self.blocks.values() if b and f"parameters/{b}" not in f]
        if missing:
            raise ah.RunFileError(f"{path}: no /parameters/{missing[0]}: not a fluid run with an immersed body "
                                  f"nor an airfoil run with the block shape")
        self.raw_final = {b: np.asarray(f[f"parameters/{b}"][()], dtype=float) for b in self.blocks.values() if b}
        self.final = self._from_file(self.raw_final)
        self.iteration = np.asarray(o["iteration"][()], dtype=int)
        self.objective = np.asarray(o["objective"][()], dtype=float)
        self.units = ah.text(o["objective"].attrs.get("units", "1"))
        self.points = points
        self.columns = self._columns(o)
        self.design = np.asarray(o["design"][()], dtype=float) if "design" in o else None
        if self.columns and self.design is None:
            raise ah.RunFileError(f"{path}: no /optimization/design (the design was larger than "
                                  f"-output_design_max, so only the last one was kept)")

    def _columns(self, o):
        """{block: (first column, length, scale)} of the body blocks that were optimized."""
        if "design_blocks" not in o.attrs:
            raise ah.RunFileError(f"{self.path}: /optimization has no design_blocks attribute (written by adjsim "
                                  f"since the design layout was recorded): cannot tell which columns of "
                                  f"/optimization/design hold the shape")
        return {n: col for n, col in ah.design_layout(o).items() if n in self.blocks.values()}

    def _from_file(self, v):
        """{body block: values} from the file's blocks (the airfoil solver's: chord prepended, position 0, 0)."""
        if not self.airfoil:
            return dict(v)
        return {"body_position": np.zeros(2), "body_alpha": np.atleast_1d(v["alpha"]),
                "body_shape": np.concatenate([[self.chord], np.atleast_1d(v["shape"])])}

    def row_of(self, it):
        rows = np.nonzero(self.iteration == it)[0]
        if rows.size == 0:
            raise ah.RunFileError(f"{self.path}: iteration {it} not in /optimization/iteration "
                                  f"({self.iteration[0]}..{self.iteration[-1]})")
        return int(rows[-1])

    def values(self, row):
        """{block: values} at row r: optimized blocks from the design row, the others from /parameters."""
        out = {b: np.asarray(f, dtype=float) for b, f in self.raw_final.items()}
        for b, (a, n, scale) in self.columns.items():
            d = self.design[row, a:a + n]
            if not np.all(np.isfinite(d)):
                return None  # a row without a design (a resumed run's earlier iterations)
            out[b] = scale * d
        return self._from_file(out)

    def body(self, row):
        v = self.values(row)
        return None if v is None else Body(self.kind, v["body_position"], v["body_alpha"][0], v["body_shape"],
                                           self.points)

    def final_body(self):
        v = self.final
        return Body(self.kind, v["body_position"], v["body_alpha"][0], v["body_shape"], self.points)

    def default_rows(self, count):
        """Rows with a design: the first, `count` evenly spaced ones, and the last."""
        valid = [r for r in range(len(self.iteration)) if self.values(r) is not None]
        if not valid:
            raise ah.RunFileError(f"{self.path}: no row of /optimization/design holds a design")
        picks = np.linspace(0, len(valid) - 1, count + 2).round().astype(int)
        return sorted({valid[i] for i in picks})


def check_mask(f, path, body):
    """Cell centres inside the outline against /fields/mask > 0 (last slice). Returns the number of
    differences that are not ties; prints a summary line."""
    if "fields/mask" not in f:
        raise ah.RunFileError(f"{path}: no /fields/mask (a run without an immersed body?)")
    mask = np.asarray(f["fields/mask"][-1], dtype=float)
    grid = ah.grid_of(f)
    if mask.ndim != 2 or grid is None or mask.shape != grid.shape:
        raise ah.RunFileError(f"{path}: /fields/mask is not a 2-D field on /grid")
    # Cell centres as the C code computes them: (i + 0.5) h from the lower corner (0 in the fluid solver).
    x = grid.lower[0] + (np.arange(grid.cells[0]) + 0.5) * grid.spacing[0]
    y = grid.lower[1] + (np.arange(grid.cells[1]) + 0.5) * grid.spacing[1]
    X, Y = np.meshgrid(x, y)
    inside, wet = body.inside(X, Y), mask > 0
    differ = inside != wet
    ties = np.zeros_like(differ)
    if differ.any():
        ties[differ] = body.distance_to_outline(X[differ], Y[differ]) < TIE
    bad = int(np.count_nonzero(differ & ~ties))
    print(f"mask check: {int(wet.sum())} cells with mask > 0, {int(inside.sum())} cell centres inside the outline, "
          f"{bad} differences, {int(ties.sum())} ties within {TIE:g} m of the outline")
    if bad:
        j, i = np.argwhere(differ & ~ties)[0]
        print(f"{ah.script_name()}: error: cell ({i}, {j}) at ({X[j, i]:.6g}, {Y[j, i]:.6g}) m: mask "
              f"{mask[j, i]:.6g} but {'inside' if inside[j, i] else 'outside'} the outline", file=sys.stderr)
    return bad


# ---------------------------------------------------------------------------------------------
# The figure


def draw(args, hist, rows, bodies, grid):
    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    fig = ah.new_figure(ah.parse_size(args.size or DEFAULT_SIZE), args.dpi)
    if args.no_objective:
        ax, axj = fig.subplots(1, 1), None
    else:
        ax, axj = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1.0]})
    its = [int(hist.iteration[r]) for r in rows]
    norm = Normalize(vmin=min(its), vmax=max(max(its), min(its) + 1))
    cmap = matplotlib.colormaps[args.cmap]
    for k, (r, body) in enumerate(zip(rows, bodies)):
        x, y = body.outline()
        first, last = k == 0, k == len(rows) - 1
        label = f"iteration {hist.iteration[r]}" + (" (initial)" if first else " (final)" if last else "")
        ax.plot(x, y, color=cmap(norm(hist.iteration[r])), lw=2.2 if first or last else 1.3,
                ls="--" if first else "-", label=label)
        ax.plot([body.position[0]], [body.position[1]], marker="+", color=cmap(norm(hist.iteration[r])), ms=6)
    ax.set_aspect("equal")
    pts = np.concatenate([np.column_stack(b.outline()) for b in bodies])
    if args.zoom > 0 or grid is None:
        pad = max(args.zoom, 0.05) * max(np.ptp(pts[:, 0]), 1e-12)
        ax.set_xlim(pts[:, 0].min() - pad, pts[:, 0].max() + pad)
        ax.set_ylim(pts[:, 1].min() - pad, pts[:, 1].max() + pad)
    else:
        ax.set_xlim(grid.lower[0], grid.upper[0])
        ax.set_ylim(grid.lower[1], grid.upper[1])
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    ax.legend(frameon=False, fontsize="small", loc="best")
    ax.set_title(f"{hist.kind} outline (+: reference point, the quarter chord)" if hist.kind in ("naca4", "cst")
                 else f"{hist.kind} outline", fontsize="medium")
    fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="iteration", shrink=0.8)
    if axj is not None:
        axj.plot(hist.iteration, hist.objective, color="0.4", lw=1.2, marker="o", ms=3)
        for r in rows:
            axj.plot([hist.iteration[r]], [hist.objective[r]], "o", ms=8, color=cmap(norm(hist.iteration[r])),
                     markeredgecolor="k")
        axj.set_xlabel("iteration")
        axj.set_ylabel(ah.with_units("objective $J$", hist.units))
        axj.grid(True, alpha=0.3)
        from matplotlib.ticker import MaxNLocator
        axj.xaxis.set_major_locator(MaxNLocator(integer=True))
        axj.set_title("objective (circles: the outlines drawn)", fontsize="medium")
    title = args.title if args.title is not None else f"Airfoil shape over the optimization  ({ah.run_label(args.run)})"
    if title:
        fig.suptitle(title)
    return fig


def main(argv=None):
    args = parse_args(argv)
    try:
        with ah.open_run(args.run) as f:
            hist = History(f, args.run, args.shape, args.points)
            rows = [hist.row_of(i) for i in args.iterations] if args.iterations else hist.default_rows(args.count)
            bodies = []
            for r in rows:
                body = hist.body(r)
                if body is None:
                    raise ah.RunFileError(f"{args.run}: iteration {hist.iteration[r]} has no design in "
                                          f"/optimization/design (NaN row)")
                bodies.append(body)
                print(f"iteration {hist.iteration[r]}: J = {hist.objective[r]:.12g}, {body.describe()}")
            bad = check_mask(f, args.run, hist.final_body()) if args.check_mask else 0
            fig = draw(args, hist, rows, bodies, ah.grid_of(f))
            ah.save_figure(fig, args.output)
    except ah.RunFileError as e:
        return ah.fail(e)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
