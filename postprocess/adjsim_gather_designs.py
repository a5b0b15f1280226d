#!/usr/bin/python3
"""Gather a design sweep (jobs/slurm/design-sweep.sbatch) into one table, and optionally its Pareto set.

The sweep directory holds member-NNNN/ folders, each with design.h5 (the run file of one optimization) and
options.txt (the member's line of the parameter file). A member is complete when design.h5 holds the attribute
/optimization/stop_reason (written when an optimization ends, not when it is stopped by a signal) and no
design-restart.h5 is left beside it.

One row per complete member:
  member, options        the folder's index and the member's line
  the member's numbers   the numeric options of the line, read as adjsim_gather_ensemble.py reads them (a list
                         a,b,c gives option[0], option[1], ...; true/false 1/0), so that a sweep table has its
                         swept variable as a column
  iterations             the last optimization iteration
  objective              the objective at the last iteration
  stop_reason            TAO's converged reason
  for a constrained run (/history/constraints, docs/constrained.md), at the last outer iteration:
    kkt_residual, max_violation, and <name>, <name>_violation, <name>_multiplier of each constraint
  the final design       <block>[k] (the physical value: scale x design variable) of every optimized block
                         (/optimization/design's last row; designs of more than -output_design_max entries
                         keep only design_last and are left out of the table)

--pareto a:min,b:max    the members not dominated in those columns (each to be minimized or maximized) among
                        the feasible ones (max_violation <= --feasible, unconstrained runs always feasible),
                        printed and written to <sweep>/design-pareto.csv; e.g. objective:min,lift:max for
                        drag against lift in a sweep of the target lift.

Examples:
  /usr/bin/python3 postprocess/adjsim_gather_designs.py runs/design-sweep
  /usr/bin/python3 postprocess/adjsim_gather_designs.py runs/design-sweep --pareto objective:min,lift:max
Writes <sweep>/design-sweep.csv (or -o). Exit status 1 (with the reason) when a member is missing or
incomplete (unless --allow-missing), a --pareto column does not exist, or no member is complete.
"""
import argparse
import csv
import math
import os
import re
import sys

import h5py
import numpy as np

import adjsim_h5 as ah

def member_numbers(line):
    """{'option': value} (lists as option[k]) of the numeric options of a parameter-file line."""
    return ah.parse_option_line(line)[0]


def final_design(o):
    """{'block[k]': value} of the last row of /optimization/design, in physical values."""
    if "design" not in o or len(o["design"]) == 0:
        return {}
    row = np.asarray(o["design"][-1], dtype=float)
    return {f"{name}[{k}]": float(row[first + k] * scale)
            for name, (first, size, scale) in ah.design_layout(o).items() for k in range(size)}


def final_constraints(f):
    """The last row of /history/constraints as {column: value}, without iteration/objective/gradient norm."""
    if "history/constraints" not in f:
        return {}
    d = f["history/constraints"]
    names = [c.strip() for c in ah.text(d.attrs.get("columns", "")).split(",")]
    rows = np.atleast_2d(np.asarray(d[()], dtype=float))
    if rows.size == 0 or len(names) != rows.shape[1]:
        raise ah.RunFileError(f"{f.filename}: /history/constraints does not match its columns attribute")
    keep = [k for k, n in enumerate(names) if n not in ("iteration", "objective", "lagrangian_gradient_norm")]
    return {names[k]: float(rows[-1, k]) for k in keep}


def read_member(folder):
    """One table row (dict) for a complete member, or a string saying why it is not complete."""
    run = os.path.join(folder, "design.h5")
    if not os.path.exists(run):
        return "no design.h5"
    if os.path.exists(os.path.join(folder, "design-restart.h5")):
        return "stopped (design-restart.h5 left: resubmit the array to continue it)"
    line = ""
    if os.path.exists(os.path.join(folder, "options.txt")):
        with open(os.path.join(folder, "options.txt")) as fh:
            line = fh.read().strip()
    try:
        with h5py.File(run, "r") as f:
            o = f.get("optimization")
            if o is None or "stop_reason" not in o.attrs:
                return "design.h5 has no /optimization/stop_reason: the optimization did not finish"
            row = {"member": os.path.basename(folder), "options": line}
            row.update(member_numbers(line))
            it = np.asarray(o["iteration"][()])
            J = np.asarray(o["objective"][()], dtype=float)
            row["iterations"] = int(it[-1]) if it.size else 0
            row["objective"] = float(J[-1]) if J.size else math.nan
            row["stop_reason"] = ah.text(o.attrs["stop_reason"])
            row.update(final_constraints(f))
            row.update(final_design(o))
    except (OSError, KeyError) as e:
        return f"cannot read design.h5 ({e})"
    return row


def dominates(a, b, crit):
    """a is at least as good as b in every criterion and better in one."""
    better = False
    for col, sense in crit:
        x, y = (a[col], b[col]) if sense == "min" else (-a[col], -b[col])
        if x > y:
            return False
        better = better or x < y
    return better


def pareto_set(rows, crit, feasible_tol):
    ok = [r for r in rows if r.get("max_violation", 0.0) <= feasible_tol]
    return [r for r in ok if not any(dominates(s, r, crit) for s in ok if s is not r)]


def parse_pareto(text_):
    crit = []
    for part in text_.split(","):
        col, _, sense = part.partition(":")
        if not col or sense not in ("min", "max"):
            raise ValueError(f"--pareto {text_}: each entry is column:min or column:max (got '{part}')")
        crit.append((col, sense))
    return crit


def columns_of(rows):
    cols = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    return cols


def write_csv(path, rows):
    cols = columns_of(rows)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "") for c in cols])


def print_table(rows, title):
    shown = [c for c in columns_of(rows) if c != "options"]
    table = [[f"{r[c]:.8g}" if isinstance(r.get(c), float) else str(r.get(c, "")) for c in shown] for r in rows]
    widths = [max([len(c)] + [len(t[k]) for t in table]) for k, c in enumerate(shown)]
    print(title)
    print("  ".join(c.rjust(w) for c, w in zip(shown, widths)))
    for t in table:
        print("  ".join(c.rjust(w) for c, w in zip(t, widths)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("sweep", help="the output directory of design-sweep.sbatch (member-NNNN/ folders)")
    p.add_argument("-o", "--output", default=None, help="the table (default <sweep>/design-sweep.csv)")
    p.add_argument("--pareto", default=None, metavar="COL:min|max,...", help="the Pareto set in these columns")
    p.add_argument("--feasible", type=float, default=1e-6,
                   help="largest max_violation of a feasible member for --pareto (default 1e-6)")
    p.add_argument("--allow-missing", action="store_true", help="leave out missing or incomplete members")
    args = p.parse_args(argv)
    try:
        crit = parse_pareto(args.pareto) if args.pareto else None
        if not os.path.isdir(args.sweep):
            raise ah.RunFileError(f"{args.sweep}: no such directory")
        folders = sorted(d for d in os.listdir(args.sweep) if re.match(r"^member-\d{4,}$", d))
        if not folders:
            raise ah.RunFileError(f"{args.sweep}: no member-NNNN folders (the output of design-sweep.sbatch)")
        rows, bad = [], []
        for d in folders:
            r = read_member(os.path.join(args.sweep, d))
            (rows.append(r) if isinstance(r, dict) else bad.append(f"{d}: {r}"))
        for b in bad:
            print(("left out " if args.allow_missing else "") + b, file=sys.stderr)
        if bad and not args.allow_missing:
            raise ah.RunFileError(f"{len(bad)} of {len(folders)} members incomplete (--allow-missing to gather "
                                  f"the others)")
        if not rows:
            raise ah.RunFileError(f"{args.sweep}: no complete member")
        out = args.output or os.path.join(args.sweep, "design-sweep.csv")
        write_csv(out, rows)
        print_table(rows, f"design sweep {args.sweep}: {len(rows)} members -> {out}")
        if crit:
            missing = [c for c, _ in crit if any(c not in r for r in rows)]
            if missing:
                raise ah.RunFileError(f"--pareto: no column {', '.join(missing)} in every member (columns: "
                                      f"{', '.join(columns_of(rows))})")
            front = pareto_set(rows, crit, args.feasible)
            pout = os.path.join(args.sweep, "design-pareto.csv")
            write_csv(pout, front)
            print_table(front, f"Pareto set in {args.pareto} ({len(front)} of {len(rows)} members, feasible to "
                               f"{args.feasible:g}) -> {pout}")
    except (ah.RunFileError, ValueError) as e:
        return ah.fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
