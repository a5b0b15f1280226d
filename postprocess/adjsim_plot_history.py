#!/usr/bin/python3
"""Plot the optimization history of adjsim runs: objective and gradient norm against iteration.

Reads /optimization/iteration, /optimization/objective and /optimization/gradient_norm (one row per
optimization iteration, docs/output-format.md) and draws two panels sharing the iteration axis, both
on a logarithmic scale: the objective J and the norm of its gradient |g| (in the optimizer's design
space, as adjsim prints it). Several run files are drawn as overlaid curves, e.g. to compare
optimizers or checkpoint settings; the legend gives each run's first and last value. Non-positive
values cannot be shown on a log scale and are left out (a note says how many).

Examples:
  /usr/bin/python3 postprocess/adjsim_plot_history.py demo-inverse.h5 -o history.png
  /usr/bin/python3 postprocess/adjsim_plot_history.py lbfgs.h5 cg.h5 --labels L-BFGS CG --relative -o h.png

Exit status: 0 on success; 1 when a file cannot be read or has no optimization history (e.g. a
forward run); 2 for bad options.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402

DEFAULT_SIZE = "1200x900"


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="RUN", help="adjsim run file(s) with an /optimization history")
    ap.add_argument("--labels", nargs="+", default=None,
                    help="legend label per run file, in the same order (default: the file names)")
    ap.add_argument("--relative", action="store_true",
                    help="divide each run's objective and gradient norm by their values at the first iteration")
    ap.add_argument("--linear", action="store_true", help="linear instead of logarithmic value axes")
    ap.add_argument("--markers", choices=("auto", "on", "off"), default="auto",
                    help="mark every iteration (default auto: on for at most 60 iterations)")
    ah.add_figure_options(ap, DEFAULT_SIZE, default_title="'Optimization history' and the file name")
    args = ap.parse_args(argv)
    if args.labels is not None and len(args.labels) != len(args.runs):
        ap.error(f"--labels needs one label per run file ({len(args.runs)}), got {len(args.labels)}")
    return args


def read_history(path):
    """(iteration, objective, gradient_norm, objective units, gradient-norm units) of a run file."""
    with ah.open_run(path) as f:
        if "optimization" not in f or "objective" not in f["optimization"]:
            raise ah.RunFileError(f"{path}: no /optimization history (written by -mode optimize)")
        o = f["optimization"]
        J = np.asarray(o["objective"][()], dtype=float)
        if J.size == 0:
            raise ah.RunFileError(f"{path}: /optimization is empty: this run did not optimize "
                                  f"(run adjsim with -mode optimize)")
        g = np.asarray(o["gradient_norm"][()], dtype=float) if "gradient_norm" in o else np.full(J.size, np.nan)
        it = np.asarray(o["iteration"][()], dtype=float) if "iteration" in o else np.arange(J.size, dtype=float)
        n = min(J.size, g.size, it.size)
        units = (ah.text(o["objective"].attrs.get("units", "1")),
                 ah.text(o["gradient_norm"].attrs.get("units", "1")) if "gradient_norm" in o else "1")
        return it[:n], J[:n], g[:n], units[0], units[1]


def draw(ax, it, values, label, log, marker, color):
    """One curve; non-positive values are dropped on a log axis. Returns how many were dropped."""
    keep = np.isfinite(values) & ((values > 0) if log else True)
    ax.plot(it[keep], values[keep], marker=marker, ms=3.5, lw=1.6, label=label, color=color)
    return int(np.count_nonzero(np.isfinite(values) & ~keep))


def main(argv=None):
    args = parse_args(argv)
    try:
        histories = [read_history(p) for p in args.runs]
        size = ah.parse_size(args.size or DEFAULT_SIZE)
        fig = ah.new_figure(size, args.dpi)
        ax_j, ax_g = fig.subplots(2, 1, sharex=True)
        labels = args.labels or [ah.run_label(p) for p in args.runs]
        log = not args.linear
        dropped = 0
        longest = max(len(h[1]) for h in histories)
        marker = "o" if args.markers == "on" or (args.markers == "auto" and longest <= 60) else None
        for i, ((it, J, g, uj, ug), label) in enumerate(zip(histories, labels)):
            color = f"C{i % 10}"
            if args.relative:
                J = J / J[0] if J[0] != 0 else J
                g = g / g[0] if g[0] != 0 else g
            dropped += draw(ax_j, it, J, f"{label}: {J[0]:.3e} → {J[-1]:.3e}", log, marker, color)
            dropped += draw(ax_g, it, g, f"{label}: {g[0]:.3e} → {g[-1]:.3e}", log, marker, color)
        uj, ug = ("1", "1") if args.relative else histories[0][3:5]
        if args.relative:
            ax_j.set_ylabel(r"objective $J/J_0$")
            ax_g.set_ylabel(r"gradient norm $|g|/|g_0|$")
        else:
            ax_j.set_ylabel(ah.with_units("objective $J$", uj))
            ax_g.set_ylabel(ah.with_units("gradient norm $|g|$", ug))
        ax_g.set_xlabel("iteration")
        from matplotlib.ticker import MaxNLocator
        ax_g.xaxis.set_major_locator(MaxNLocator(integer=True))
        for ax in (ax_j, ax_g):
            if log:
                ax.set_yscale("log")
            ax.grid(True, which="major", alpha=0.35)
            ax.legend(frameon=False, fontsize="small", loc="upper right")
        first = min(h[0][0] for h in histories)
        last = max(h[0][-1] for h in histories)
        ax_g.set_xlim(first - 0.02 * max(last - first, 1), last + 0.02 * max(last - first, 1))
        title = args.title if args.title is not None else (
            "Optimization history" + (f"  ({labels[0]})" if len(args.runs) == 1 and not args.labels else ""))
        if title:
            fig.suptitle(title)
        if dropped:
            print(f"{ah.script_name()}: note: {dropped} non-positive value(s) not shown on the log scale",
                  file=sys.stderr)
        ah.save_figure(fig, args.output)
    except ah.RunFileError as e:
        return ah.fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
