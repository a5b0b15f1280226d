#!/usr/bin/python3
"""Check a CSV file written by adjsim_export_csv.py against its run file (used by the tests).

Checks that the file parses (header line, then rows of equal length), has --rows data rows and the
--columns named (names without their "[units]"), and that each --match COLUMN RUN SOURCE holds
exactly the values of SOURCE in RUN, in order (bit for bit by default, --rtol to relax), which also
checks the row count against the HDF5 file. SOURCE is one of:

  /group/name        a dataset, flattened in C order (e.g. /optimization/objective, /parameters/initial)
  /group/name[K]     slice K of a time series (negative counts from the end), e.g. /fields/c[-1]
  /group/name[:,J]   column J of a 2-D dataset, e.g. /optimization/design[:,0]
  grid:x             the cell-centre x coordinates of /grid in the same order (also grid:y, grid:z)

Exits 1 with a message naming the column, the row and both values on the first difference.

Example:
  /usr/bin/python3 postprocess/checks/adjsim_check_csv.py c.csv --rows 480 --match c run.h5 '/fields/c[-1]'
"""
import argparse
import csv
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # postprocess/
import numpy as np  # noqa: E402

import adjsim_h5 as ah  # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="CSV file to check")
    ap.add_argument("--rows", type=int, default=None, help="required number of data rows (header excluded)")
    ap.add_argument("--columns", nargs="+", default=None, metavar="NAME",
                    help="column names that must be present (without units)")
    ap.add_argument("--match", nargs=3, action="append", default=[], metavar=("COLUMN", "RUN", "SOURCE"),
                    help="COLUMN must equal SOURCE of run file RUN, value by value (repeatable)")
    ap.add_argument("--rtol", type=float, default=0.0,
                    help="relative tolerance of --match (default 0: bit for bit)")
    ap.add_argument("--delimiter", default=",", help="column separator (default ,)")
    return ap.parse_args(argv)


def read_csv(path, delimiter):
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter=delimiter))
    except OSError as e:
        raise ah.RunFileError(f"cannot read {path}: {e.strerror}") from None
    if not rows:
        raise ah.RunFileError(f"{path} is empty (no header line)")
    header = [re.sub(r"\s+\[[^\]]*\]$", "", h) for h in rows[0]]  # drop " [units]"
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            raise ah.RunFileError(f"{path} line {i} has {len(r)} fields, the header has {len(header)}")
    return header, rows[1:]


def source_values(run, source):
    """The expected values of a --match SOURCE, flattened."""
    with ah.open_run(run) as f:
        m = re.fullmatch(r"grid:([xyz])", source)
        if m:
            grid = ah.grid_of(f)
            if grid is None:
                raise ah.RunFileError(f"{run} has no /grid")
            axis = "xyz".index(m.group(1))
            if axis >= grid.dim:
                raise ah.RunFileError(f"{run}: the grid has {grid.dim} dimension(s), no {m.group(1)}")
            return grid.coordinates()[axis]
        m = re.fullmatch(r"(/[^\[]+)(?:\[(-?\d+)\]|\[:\s*,\s*(\d+)\])?", source)
        if not m or m.group(1) not in f:
            raise ah.RunFileError(f"{run}: no dataset for SOURCE {source!r}")
        ds = f[m.group(1)]
        if m.group(2) is not None:
            return np.asarray(ds[int(m.group(2))]).ravel()
        if m.group(3) is not None:
            return np.asarray(ds[:, int(m.group(3))]).ravel()
        return np.asarray(ds[()]).ravel()


def same(a, b, rtol):
    if math.isnan(a) and math.isnan(b):
        return True
    return a == b if rtol == 0 else abs(a - b) <= rtol * max(abs(a), abs(b))


def main(argv=None):
    args = parse_args(argv)
    try:
        header, rows = read_csv(args.csv, args.delimiter)
        print(f"{args.csv}: {len(rows)} rows, columns {', '.join(header)}")
        if args.rows is not None and len(rows) != args.rows:
            raise ah.RunFileError(f"{args.csv} has {len(rows)} data rows, expected {args.rows}")
        for name in args.columns or []:
            if name not in header:
                raise ah.RunFileError(f"{args.csv} lacks column {name!r} (columns: {', '.join(header)})")
        for column, run, source in args.match:
            if column not in header:
                raise ah.RunFileError(f"{args.csv} lacks column {column!r} (columns: {', '.join(header)})")
            j = header.index(column)
            expected = source_values(run, source)
            if len(expected) != len(rows):
                raise ah.RunFileError(f"{args.csv} has {len(rows)} rows, {source} of {run} has {len(expected)} values")
            if len(rows) == 0:  # an empty column matches an empty source whatever the exporter does
                raise ah.RunFileError(f"{args.csv}: no rows to compare with {source} of {run}")
            for i, (row, e) in enumerate(zip(rows, expected)):
                try:
                    got = float(row[j])
                except ValueError:
                    raise ah.RunFileError(f"{args.csv} row {i + 1} column {column}: {row[j]!r} is not a number") from None
                if not same(got, float(e), args.rtol):
                    raise ah.RunFileError(f"{args.csv} row {i + 1} column {column}: {got!r} differs from "
                                          f"{source} of {run}: {float(e)!r}")
            print(f"{args.csv}: column {column} equals {source} of {run} ({len(rows)} values)")
    except ah.RunFileError as e:
        return ah.fail(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
