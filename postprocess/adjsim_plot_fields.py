#!/usr/bin/python3
"""Plot snapshots of a field from an adjsim run file.

The dataset may be a field time series (/fields/<name>: by default its first, middle and last output
steps that hold data), a parameter or gradient field (/parameters/<name>, /gradients/<name>), the last
design on the grid (/optimization/design_last), any grid-shaped dataset of a generic HDF5 file
(e.g. /velocity/u), or a quantity derived from velocity components: "vorticity" (dv/dx - du/dy, central
differences) or "speed" (velocity magnitude). A bare name ("c") is looked up in /fields, /parameters
and /gradients.

Axes are physical (cell edges from /grid lower and upper, equal aspect); all panels share one colour
scale with a colour bar labelled with the dataset's units. Gradients (sensitivities), vorticity and
data of both signs use a diverging colour map symmetric about zero, other data viridis. Slices of
steps at which a field was not written (NaN) are grey. 1-D fields are drawn as curves, one per step;
3-D fields as their middle z plane (--z-index).

Examples:
  /usr/bin/python3 postprocess/adjsim_plot_fields.py demo-observations.h5 -d c -o c.png
  /usr/bin/python3 postprocess/adjsim_plot_fields.py demo-observations.h5 -d c --time 0 0.25 0.5 -o c.png
  /usr/bin/python3 postprocess/adjsim_plot_fields.py demo-inverse.h5 -d /gradients/initial -o grad.png
  /usr/bin/python3 postprocess/adjsim_plot_fields.py fluid.h5 -d vorticity -o vort.png
  /usr/bin/python3 postprocess/adjsim_plot_fields.py demo-inverse.h5 --list

Exit status: 0 on success, 1 with a message naming the file and dataset otherwise, 2 for bad options.
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
    ap.add_argument("run", help="adjsim run file (HDF5), or any HDF5 file with grid-shaped datasets")
    ap.add_argument("-d", "--dataset", default=None,
                    help="dataset to plot: full path (/fields/c, /gradients/initial), bare name, "
                         "'vorticity' or 'speed' (default: vorticity when /fields/u and /fields/v exist, "
                         "else the only field of /fields)")
    ap.add_argument("--list", action="store_true", help="list the plottable datasets and exit")
    ah.add_slice_options(ap)
    ah.add_color_options(ap)
    ap.add_argument("--separate-scales", action="store_true",
                    help="one colour scale and colour bar per panel instead of one shared scale "
                         "(for fields that decay or grow strongly in time)")
    ap.add_argument("--columns", type=int, default=None, metavar="N",
                    help="panels per row (default: all in one row, at most 4)")
    ah.add_figure_options(ap, "fitted to the number of panels and the domain's aspect ratio",
                         required=False)
    args = ap.parse_args(argv)
    if not args.list and not args.output:
        ap.error("-o/--output is required")
    if args.columns is not None and args.columns < 1:
        ap.error("--columns must be at least 1")
    return args


def plot_curves(fig, q, slices, data, args):
    """1-D fields: one curve per output step on one axis."""
    ax = fig.subplots()
    grid = q.grid()
    x = grid.centres(0)
    for k, d in zip(slices, data):
        ax.plot(x, d, lw=1.5, label=ah.slice_title(q, k) or None)
    ax.set_xlabel(grid.axis_label(0))
    ax.set_ylabel(ah.with_units(q.label, q.units))
    ax.set_xlim(grid.lower[0], grid.upper[0])
    if q.signed:
        ax.axhline(0.0, color="k", lw=0.6)
    ax.grid(True, alpha=0.3)
    if any(k is not None for k in slices):
        ax.legend(frameon=False)


def plot_panels(fig, q, slices, data, args, ncols):
    """2-D planes: one equal-aspect panel per output step; returns (image axes, colour bars)."""
    n = len(slices)
    nrows = (n + ncols - 1) // ncols
    axes, caxes = ah.panel_axes(fig, nrows, ncols, n, args.separate_scales)
    grid = q.grid().plane()
    zero_floor = q.name == "speed"
    shared = ah.color_scale(q.signed, data, args.cmap, args.vmin, args.vmax, args.symmetric, zero_floor)
    bars = []
    for i, (ax, k, d) in enumerate(zip(axes, slices, data)):
        # Separate scales: each panel its own range, but all the same kind of colour map.
        cmap, lo, hi, sym = shared if not args.separate_scales else ah.color_scale(
            q.signed, [d], shared[0], args.vmin, args.vmax, shared[3], zero_floor)
        im = ah.draw_field(ax, grid, d, cmap, lo, hi)
        title = ah.slice_title(q, k)
        if not np.any(np.isfinite(d)):
            title += " (not written)"
        ax.set_title(title, fontsize="medium")
        if i % ncols:
            ax.set_ylabel("")
        if i + ncols < n:
            ax.set_xlabel("")
        if args.separate_scales:
            bars.append((ah.colorbar(fig, im, caxes[i], q.label, q.units, sym), [ax]))
    if not args.separate_scales:
        bars.append((ah.colorbar(fig, im, caxes[0], q.label, q.units, shared[3]), axes))
    return axes, bars


def title_of(q, note, args):
    if args.title is not None:
        return args.title
    return f"{q.label}" + (f" at {note}" if note else "") + f"  ({ah.run_label(args.run)})"


def make_figure(q, slices, data, note, args):
    grid = q.grid()
    if grid.dim == 1:
        fig = ah.new_figure(ah.parse_size(args.size) if args.size else (1200, 720), args.dpi)
        plot_curves(fig, q, slices, data, args)
        fig.suptitle(title_of(q, note, args))
        return fig
    ncols = args.columns or min(len(slices), 4)
    nrows = (len(slices) + ncols - 1) // ncols
    extra_w = 1.3 + (0.9 * ncols if args.separate_scales else 0.0)
    w, h = ah.default_panel_size(grid.plane(), ncols, args.dpi, extra_w=extra_w)
    guess = (w, (h - int(1.25 * args.dpi)) * nrows + int(1.25 * args.dpi) + int(0.35 * args.dpi) * (nrows - 1))

    def build(size):
        fig = ah.new_figure(size, args.dpi)
        axes, bars = plot_panels(fig, q, slices, data, args, ncols)
        title = title_of(q, note, args)
        if title:
            fig.suptitle(title)
        return fig, axes, bars
    return ah.fitted_figure(build, ah.parse_size(args.size) if args.size else guess, not args.size)


def main(argv=None):
    args = parse_args(argv)
    try:
        with ah.open_run(args.run) as f:
            if args.list:
                for path, what in ah.plottable(f):
                    print(f"{path:<32} {what}")
                return 0
            q = ah.resolve(f, args.dataset or ah.default_field(f, args.components), args.components)
            if not q.is_field():
                raise ah.RunFileError(f"{args.run}: {q.path} has shape {q.shape}, not a field on the grid; "
                                      f"use adjsim_export_csv.py or adjsim_summary.py for arrays")
            slices = ah.choose_slices(q, args.index, args.step, args.time)
            data, note = [], ""
            for k in slices:
                d, note = ah.plane_of(q, q.read(k), args.z_index)
                data.append(d)
            fig = make_figure(q, slices, data, note, args)
            ah.save_figure(fig, args.output)
    except ah.RunFileError as e:
        return ah.fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
