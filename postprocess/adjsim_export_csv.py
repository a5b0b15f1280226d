#!/usr/bin/python3
"""Export datasets of an adjsim run file to CSV (one header line, then one row per value).

Two kinds of export, chosen by what the datasets are:

* Fields (grid-shaped: a /fields time series slice, /parameters or /gradients fields, a grid-shaped
  /optimization/design_last, vorticity, speed): one row per cell with the cell-centre coordinates
  first (x, y[, z], from /grid), then one column per dataset. Rows run x fastest, i.e. in the
  C order of the stored arrays (row r is element r of the flattened (My, Mx) array). A time series
  contributes the slice chosen with --index/--step/--time (default: the last slice that holds data);
  with --all-steps every slice is written, with step and time columns in front.
* Tables: 1-D datasets of equal length side by side (e.g. the optimization history
  /optimization/iteration, objective, gradient_norm, or /fields/step and /fields/time), and 2-D
  datasets as one column per entry (e.g. /optimization/design -> design[0], design[1], ...).
  Arrays such as /parameters/kappa are tables too (one row).

A group name exports all its datasets: /optimization gives the history (iteration, objective,
gradient_norm; add /optimization/design for the design vectors), /fields all fields at the chosen
step. Fields and tables cannot be mixed in one file. Column headers are the dataset names
with their units in brackets (none for units "1"); a name found in two groups is prefixed with its
group (parameters/kappa, gradients/kappa). Reals are written as the shortest text that reads back to
the same double (bit for bit), integers as integers, missing values (NaN) as nan.

Examples:
  /usr/bin/python3 postprocess/adjsim_export_csv.py demo-inverse.h5 /optimization -o history.csv
  /usr/bin/python3 postprocess/adjsim_export_csv.py demo-observations.h5 c --step 64 -o c_step64.csv
  /usr/bin/python3 postprocess/adjsim_export_csv.py demo-inverse.h5 /parameters/initial /gradients/initial -o f.csv
  /usr/bin/python3 postprocess/adjsim_export_csv.py demo-inverse.h5 /parameters/kappa /gradients/kappa

Exit status: 0 on success, 1 when a file or dataset cannot be read or the datasets do not fit one
table, 2 for bad options.
"""
import argparse
import os
import signal
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import h5py  # noqa: E402
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="adjsim run file (HDF5), or any HDF5 file")
    ap.add_argument("datasets", nargs="+", metavar="DATASET",
                    help="datasets or groups to export: full paths (/fields/c, /optimization), bare names "
                         "looked up in /fields, /parameters, /gradients, or 'vorticity', 'speed'")
    ap.add_argument("-o", "--output", default="-", metavar="CSV",
                    help="file to write (default: standard output)")
    ah.add_slice_options(ap, multiple=False, default_text="last")
    ap.add_argument("--all-steps", action="store_true",
                    help="fields: write every slice of the time series, with step and time columns")
    ap.add_argument("--no-units", action="store_true", help="column headers without units")
    ap.add_argument("--format", default=None, metavar="FMT",
                    help="printf format of real values, e.g. %%.6e (default: the shortest text that reads "
                         "back to the same double, as Python's repr)")
    ap.add_argument("--delimiter", default=",", help="column separator (default ,)")
    ap.add_argument("--components", nargs="+", metavar="DATASET", default=None,
                    help="velocity component datasets for vorticity and speed, x first (default: "
                         "/fields/u /fields/v [/fields/w], or /velocity/u /velocity/v)")
    args = ap.parse_args(argv)
    if args.all_steps and (args.index is not None or args.step is not None or args.time is not None):
        ap.error("--all-steps cannot be combined with --index, --step or --time")
    try:
        if args.format is not None:
            args.format % 1.0
    except (TypeError, ValueError):
        ap.error(f"--format {args.format!r} is not a printf format for one real number")
    return args


def expand(f, specs, components):
    """Quantities for the specs; a group stands for its datasets (without /fields step and time)."""
    out = []
    for spec in specs:
        path = "/" + spec.strip("/")
        if "/" in spec and path in f and isinstance(f[path], h5py.Group):
            members = [f"{path}/{k}" for k, v in f[path].items() if isinstance(v, h5py.Dataset)]
            if path == "/fields":
                members = [m for m in members if m.rsplit("/", 1)[1] not in ("step", "time")]
            if path == "/optimization" and "iteration" in f[path]:
                # The history: the 1-D datasets with one row per iteration (name /optimization/design
                # to get the design vectors too, one column per design entry).
                n = f[path]["iteration"].shape[0]
                members = [m for m in members if f[m].ndim == 1 and f[m].shape[0] == n
                           and not m.endswith("/design_last")]
                first = ["/optimization/iteration", "/optimization/objective", "/optimization/gradient_norm"]
                members.sort(key=lambda m: first.index(m) if m in first else len(first))
            if not members:
                raise ah.RunFileError(f"{f.filename}: group {path} holds no datasets")
            out += [ah.resolve(f, m) for m in members]
        else:
            out.append(ah.resolve(f, spec, components))
    return out


def column_names(qs, units):
    """Dataset names, prefixed by their group where two datasets share a name."""
    names = [q.name for q in qs]
    out = []
    for q in qs:
        name = q.name if names.count(q.name) == 1 else f"{q.group}/{q.name}" if q.group else q.path
        out.append(ah.plain_units(name, q.units) if units else name)
    return out


def fmt_real(v, real_format):
    return repr(float(v)) if real_format is None else real_format % v


def fmt_column(values, real_format):
    if np.issubdtype(values.dtype, np.integer):
        return [str(int(v)) for v in values]
    if real_format is None:
        return [repr(v) for v in values.astype(float).tolist()]
    return [real_format % v for v in values.astype(float)]


def field_table(f, qs, args):
    """Header and columns of a field export."""
    shapes = {q.shape for q in qs}
    if len(shapes) != 1:
        raise ah.RunFileError(f"{f.filename}: the fields differ in shape: "
                              + ", ".join(f"{q.path} {q.shape}" for q in qs))
    grid = qs[0].grid()
    coords = grid.coordinates()
    if not grid.physical:  # no /grid: cell indices
        coords = [np.rint(c).astype(np.int64) for c in coords]
    axis_names = [grid.axis_name(a) for a in range(grid.dim)]
    header = [ah.plain_units(n, grid.units) if (grid.physical and not args.no_units) else n for n in axis_names]
    header += column_names(qs, not args.no_units)
    series = [q for q in qs if q.series]
    if args.all_steps:
        if not series:
            raise ah.RunFileError("--all-steps: none of the datasets is a time series")
        n = min(q.count() for q in series)
        slices = list(range(n))
        header = ["step", "time [s]" if not args.no_units else "time"] + header
    else:
        pick = lambda v: None if v is None else [v]  # noqa: E731
        first = series[0] if series else qs[0]
        slices = ah.choose_slices(first, pick(args.index), pick(args.step), pick(args.time), default="last")
        if series:
            k = slices[0]
            print(f"{ah.script_name()}: {first.path} at {ah.slice_title(first, k)}", file=sys.stderr)
    columns = [[] for _ in header]
    ncells = int(np.prod(grid.shape))
    for k in slices:
        col = 0
        if args.all_steps:
            s, t = series[0].step_and_time(k)
            columns[0] += [str(s) if s is not None else str(k)] * ncells
            columns[1] += [fmt_real(t, args.format) if t is not None else "nan"] * ncells
            col = 2
        for c in coords:
            columns[col] += fmt_column(c, args.format)
            col += 1
        for q in qs:
            columns[col] += fmt_column(q.read_raw(k if q.series else None).ravel(), args.format)
            col += 1
    return header, columns


def plain_table(f, qs, args):
    """Header and columns of a table export (1-D datasets side by side, 2-D ones split by column)."""
    header, columns = [], []
    for q, name in zip(qs, column_names(qs, False)):
        data = q.read_raw(q.count() - 1 if q.series else None)
        if data.ndim == 0:
            data = data.reshape(1)
        if data.ndim > 2:
            raise ah.RunFileError(f"{q.path} has shape {data.shape}: neither a field on the grid nor a table")
        units = "" if args.no_units else q.units
        if data.ndim == 1:
            header.append(ah.plain_units(name, units))
            columns.append(fmt_column(data, args.format))
        else:
            for j in range(data.shape[1]):
                header.append(ah.plain_units(f"{name}[{j}]", units))
                columns.append(fmt_column(data[:, j], args.format))
    lengths = {len(c) for c in columns}
    if len(lengths) > 1:
        raise ah.RunFileError("the datasets differ in length, export them separately: "
                              + ", ".join(f"{q.path} {q.shape}" for q in qs))
    if args.all_steps or args.index is not None or args.step is not None or args.time is not None:
        raise ah.RunFileError("--index, --step, --time and --all-steps apply to fields only")
    return header, columns


def main(argv=None):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly
    args = parse_args(argv)
    try:
        with ah.open_run(args.run) as f:
            qs = expand(f, args.datasets, args.components)
            kinds = {q.is_field() for q in qs}
            if len(kinds) > 1:
                raise ah.RunFileError("fields and tables cannot go in one CSV file: fields "
                                      + ", ".join(q.path for q in qs if q.is_field()) + "; tables "
                                      + ", ".join(q.path for q in qs if not q.is_field())
                                      + "; export them separately")
            header, columns = (field_table if kinds == {True} else plain_table)(f, qs, args)
        rows = len(columns[0]) if columns else 0
        out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8", newline="")
        try:
            d = args.delimiter
            out.write(d.join(header) + "\n")
            for r in range(rows):
                out.write(d.join(c[r] for c in columns) + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
        if args.output != "-":
            print(f"{ah.script_name()}: wrote {rows} rows x {len(header)} columns to {args.output}", file=sys.stderr)
    except ah.RunFileError as e:
        return ah.fail(e)
    except OSError as e:
        return ah.fail(f"cannot write {args.output}: {e.strerror}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
