#!/usr/bin/python3
"""Plot one dataset of two adjsim runs side by side, with their difference.

For a field (a /fields time series slice, a /parameters or /gradients field, vorticity, ...): three
panels with physical axes: run A, run B on one shared colour scale, and A - B on a diverging colour
scale symmetric about zero, each with a colour bar labelled with the units. The maximum absolute
difference and its size relative to max|B| are given above the difference panel and printed.

For a time series, the slice of A is chosen with --index/--step/--time (default: the last slice that
holds data); B's slice is the one with the same step number, else the one nearest in time (the panel
titles give both times). For 1-D datasets (e.g. /optimization/objective) both are drawn as curves, with
their difference below when the lengths agree.

Use adjsim_compare.py for a pass/fail comparison of many datasets with a tolerance.

Examples:
  /usr/bin/python3 postprocess/adjsim_plot_compare.py demo-inverse.h5 demo-observations.h5 \\
      -d /parameters/initial --labels recovered truth -o initial.png
  /usr/bin/python3 postprocess/adjsim_plot_compare.py a.h5 b.h5 -d c --time 0.25 -o c.png

Exit status: 0 on success, 1 when a file or dataset cannot be read or the grids differ, 2 for bad options.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first", help="run file A (HDF5)")
    ap.add_argument("second", help="run file B (HDF5)")
    ap.add_argument("-d", "--dataset", default=None,
                    help="dataset to compare: full path (/parameters/initial), bare name, 'vorticity' or "
                         "'speed' (default: as adjsim_plot_fields.py: vorticity when u and v exist, else the "
                         "only field of /fields)")
    ap.add_argument("--labels", nargs=2, metavar=("A", "B"), default=None,
                    help="names of the two runs in titles and legends (default: the file names)")
    ap.add_argument("--relative", action="store_true",
                    help="show (A - B) / max|B| instead of A - B (dimensionless)")
    ah.add_slice_options(ap, multiple=False, default_text="last")
    ah.add_color_options(ap)
    ap.add_argument("--log", choices=("auto", "on", "off"), default="auto",
                    help="1-D data: logarithmic value axis (default auto: for positive /optimization "
                         "histories spanning more than two decades)")
    ap.add_argument("--diff-cmap", default="RdBu_r", help="colour map of the difference (default RdBu_r)")
    ah.add_figure_options(ap, "fitted to the domain's aspect ratio; 1200x900 for 1-D data",
                         default_title="the dataset")
    return ap.parse_args(argv)


def labels_of(args):
    if args.labels:
        return args.labels
    a, b = ah.run_label(args.first), ah.run_label(args.second)
    if a == b:
        a = os.path.join(os.path.basename(os.path.dirname(os.path.abspath(args.first))), a)
        b = os.path.join(os.path.basename(os.path.dirname(os.path.abspath(args.second))), b)
    return a, b


def difference(a, b, relative):
    """(A - B or its relative form, max|A - B|, max|A - B| / max|B|)."""
    d = a - b
    dmax = float(np.nanmax(np.abs(d))) if np.any(np.isfinite(d)) else float("nan")
    bmax = float(np.nanmax(np.abs(b))) if np.any(np.isfinite(b)) else 0.0
    rel = dmax / bmax if bmax > 0 else float("inf") if dmax > 0 else 0.0
    return (d / bmax if relative and bmax > 0 else d), dmax, rel


def stats_text(dmax, rel):
    return f"max |A−B| {dmax:.3e}, relative {rel:.2e}"


def build_fields(size, qa, qb, a, b, titles, labels, args):
    grid = qa.grid().plane()
    d, dmax, rel = difference(a, b, args.relative)
    fig = ah.new_figure(size, args.dpi)
    gs = fig.add_gridspec(1, 5, width_ratios=[1.0, 1.0, 0.055, 1.0, 0.055])
    axa, axb, cab = fig.add_subplot(gs[0]), fig.add_subplot(gs[1]), fig.add_subplot(gs[2])
    axd, cd = fig.add_subplot(gs[3]), fig.add_subplot(gs[4])
    cmap, lo, hi, sym = ah.color_scale(qa.signed, [a, b], args.cmap, args.vmin, args.vmax, args.symmetric,
                                       qa.name == "speed")
    im = ah.draw_field(axa, grid, a, cmap, lo, hi)
    ah.draw_field(axb, grid, b, cmap, lo, hi)
    axb.set_ylabel("")
    axa.set_title(titles[0], fontsize="medium")
    axb.set_title(titles[1], fontsize="medium")
    bar1 = ah.colorbar(fig, im, cab, qa.label, qa.units, sym)
    _, dlo, dhi, _ = ah.color_scale(True, [d], symmetric=True)
    imd = ah.draw_field(axd, grid, d, args.diff_cmap, dlo, dhi)
    axd.set_ylabel("")
    axd.set_title(f"{labels[0]} − {labels[1]}\n{stats_text(dmax, rel)}", fontsize="medium")
    bar2 = ah.colorbar(fig, imd, cd, "relative difference" if args.relative else "difference",
                       "1" if args.relative else qa.units, True)
    title = args.title if args.title is not None else qa.label
    if title:
        fig.suptitle(title)
    return fig, [axa, axb, axd], [(bar1, [axa, axb]), (bar2, [axd])]


def plot_curves(size, qa, a, b, labels, args):
    fig = ah.new_figure(size, args.dpi)
    same = a.shape == b.shape
    axes = fig.subplots(2 if same else 1, 1, sharex=True, squeeze=False).ravel()
    grid = qa.grid()
    if qa.is_field() and grid is not None:
        xa = xb = grid.centres(0)
        xlabel = grid.axis_label(0)
    else:
        xa, xb = np.arange(a.size), np.arange(b.size)
        xlabel = "iteration" if qa.group == "optimization" else "index"
    ax = axes[0]
    ax.plot(xa, a, lw=1.6, label=labels[0])
    ax.plot(xb, b, lw=1.4, ls="--", label=labels[1])
    positive = np.all(a[np.isfinite(a)] > 0) and np.all(b[np.isfinite(b)] > 0)
    finite = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]])
    history = qa.group == "optimization"
    if args.log == "on" or (args.log == "auto" and history and positive and finite.size
                            and finite.max() > 100 * finite.min()):
        ax.set_yscale("log")
    if qa.is_field() and grid is not None:
        ax.set_xlim(grid.lower[0], grid.upper[0])
    ax.set_ylabel(ah.with_units(qa.label, qa.units))
    ax.legend(frameon=False)
    ax.grid(True, alpha=0.3)
    if same:
        d, dmax, rel = difference(a, b, args.relative)
        axes[1].plot(xa, d, lw=1.4, color="C3")
        axes[1].axhline(0.0, color="k", lw=0.6)
        axes[1].set_ylabel("relative difference" if args.relative else ah.with_units("difference", qa.units))
        axes[1].set_title(f"{labels[0]} − {labels[1]}: {stats_text(dmax, rel)}", fontsize="medium")
        axes[1].grid(True, alpha=0.3)
    else:
        ax.set_title(f"lengths differ ({a.size} and {b.size}): no difference shown", fontsize="medium")
    axes[-1].set_xlabel(xlabel)
    title = args.title if args.title is not None else qa.label
    if title:
        fig.suptitle(title)
    return fig


def main(argv=None):
    args = parse_args(argv)
    labels = labels_of(args)
    try:
        with ah.open_run(args.first) as fa, ah.open_run(args.second) as fb:
            spec = args.dataset or ah.default_field(fa, args.components)
            qa, qb = ah.resolve(fa, spec, args.components), ah.resolve(fb, spec, args.components)
            if qa.shape != qb.shape and (len(qa.shape) > 1 or qa.is_field()):
                raise ah.RunFileError(f"{qa.path}: shapes differ: {qa.shape} in {args.first}, {qb.shape} in "
                                      f"{args.second} (different grids cannot be compared cell by cell)")
            ga, gb = qa.grid(), qb.grid()
            if ga is not None and gb is not None and qa.is_field() and not ga.same_as(gb):
                print(f"{ah.script_name()}: warning: the grids' domains differ; A's coordinates are shown",
                      file=sys.stderr)
            pick = lambda v: None if v is None else [v]  # noqa: E731
            ka = ah.choose_slices(qa, pick(args.index), pick(args.step), pick(args.time), default="last")[0]
            kb, note = ah.match_slice(qa, ka, qb)
            if note:
                print(f"{ah.script_name()}: warning: {note}", file=sys.stderr)
            a, b = qa.read(ka), qb.read(kb)
            if qa.is_field() and len(qa.shape) >= 2:
                a, zn = ah.plane_of(qa, a, args.z_index)
                b, _ = ah.plane_of(qb, b, args.z_index)
                titles = [labels[0] + (f"\n{ah.slice_title(qa, ka)}" if ka is not None else ""),
                          labels[1] + (f"\n{ah.slice_title(qb, kb)}" if kb is not None else "")]
                if zn:
                    titles = [t + f", {zn}" for t in titles]
                ncols_w, h = ah.default_panel_size(qa.grid().plane(), 3, args.dpi, extra_w=2.6)
                guess = (ncols_w, h + int(0.3 * args.dpi))
                fig = ah.fitted_figure(lambda size: build_fields(size, qa, qb, a, b, titles, labels, args),
                                       ah.parse_size(args.size) if args.size else guess, not args.size)
            else:
                if a.ndim != 1 or b.ndim != 1:
                    raise ah.RunFileError(f"{qa.path} has shape {qa.shape}: neither a field nor a 1-D array")
                if a.size < 2 and b.size < 2:
                    raise ah.RunFileError(f"{qa.path} holds single values ({a[0]:.10g} and {b[0]:.10g}): "
                                          f"nothing to plot; use adjsim_compare.py")
                fig = plot_curves(ah.parse_size(args.size or "1200x900"), qa, a, b, labels, args)
            if a.shape == b.shape:
                print(f"{qa.path}: {stats_text(*difference(a, b, False)[1:])} (A = {labels[0]}, B = {labels[1]})")
            else:
                print(f"{qa.path}: lengths differ ({a.size} and {b.size})")
            ah.save_figure(fig, args.output)
    except ah.RunFileError as e:
        return ah.fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
