#!/usr/bin/python3
"""Checks of batch-job results, used by the Slurm test (tests/slurm) and handy after a campaign.

  free-ports N                      print N free TCP ports on 127.0.0.1 (for a test cluster's daemons)
  run FILE [--nranks N] [--min-steps K]
                                    the run file was written by N ranks and holds at least K output steps
  pairs ENSEMBLE_DIR PAIRS_FILE [--param NAME=V1,V2,... ...]
                                    every pair of adjsim_gather_ensemble.py's file is (slice k, slice k+1)
                                    of its member's run file (segments included), every member's pairs
                                    are there, and member i ran with parameter NAME = Vi (NaN: absent)
  segments DIR REFERENCE [--stem small]
                                    the output steps of an interrupted and resumed run (<stem>-segment*.h5
                                    and <stem>.h5 in DIR) are bit for bit those of the uninterrupted
                                    REFERENCE run, and together they cover the same steps

Exit status 1 with a line starting "FAIL:" on the first problem, 0 otherwise.
"""
import argparse
import glob
import os
import socket
import sys

import h5py
import numpy as np


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def slices(paths, field="c"):
    """{step: field slice} over several run files (segments of one run)."""
    got = {}
    for path in paths:
        with h5py.File(path, "r") as f:
            for k, s in enumerate(f["fields/step"][()]):
                got[int(s)] = f[f"fields/{field}"][k]
    return got


def free_ports(args):
    socks = [socket.socket() for _ in range(args.n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    print(*[s.getsockname()[1] for s in socks])


def run(args):
    with h5py.File(args.file, "r") as f:
        n = int(f["provenance"].attrs["nranks"])
        steps = list(f["fields/step"][()])
    print(f"{args.file}: nranks {n}, output steps {steps}")
    if args.nranks is not None and n != args.nranks:
        fail(f"{args.file} was written by {n} rank(s), expected {args.nranks}")
    if len(steps) < args.min_steps:
        fail(f"{args.file} holds {len(steps)} output steps, expected at least {args.min_steps}")


def member_files(ens, i):
    d = f"{ens}/member-{i:04d}"
    return sorted(glob.glob(f"{d}/run-segment*.h5")) + [f"{d}/run.h5"]


def pairs(args):
    expected = {}
    for spec in args.param or []:
        name, values = spec.split("=", 1)
        expected[name] = [float(v) for v in values.split(",")]
    with h5py.File(args.pairs, "r") as p:
        names = [n.decode() if isinstance(n, bytes) else n for n in p["param_names"][()]]
        member, state, nxt = p["member"][()], p["state"], p["next_state"]
        step, next_step, params = p["step"][()], p["next_step"][()], p["params"][()]
        members = sorted(set(int(m) for m in member))
        total = 0
        for i in members:
            got = slices(member_files(args.ensemble, i))
            steps = sorted(got)
            rows = np.where(member == i)[0]
            if len(rows) != len(steps) - 1:
                fail(f"member {i}: {len(rows)} pairs, expected {len(steps) - 1}")
            for r, k in zip(rows, range(len(steps) - 1)):
                if not (step[r] == steps[k] and next_step[r] == steps[k + 1] and np.array_equal(state[r], got[steps[k]])
                        and np.array_equal(nxt[r], got[steps[k + 1]])):
                    fail(f"member {i}: pair {r} is not (step {steps[k]}, step {steps[k + 1]}) of its run")
            for name, values in expected.items():
                if name not in names:
                    fail(f"no parameter column {name}; columns {names}")
                want, have = values[i], params[rows, names.index(name)]
                if not (np.all(np.isnan(have)) if np.isnan(want) else np.all(have == want)):
                    fail(f"member {i}: {name} = {have[0]}, expected {want}")
            total += len(rows)
        if total != state.shape[0]:
            fail(f"{state.shape[0]} pairs in the file, {total} accounted for by the members")
    print(f"pairs: {total} pairs from members {members}, parameters {names}: consistent")


def segments(args):
    parts = sorted(glob.glob(os.path.join(args.dir, f"{args.stem}-segment*.h5"))) + [os.path.join(args.dir, f"{args.stem}.h5")]
    if len(parts) < 2:
        fail(f"no {args.stem}-segment*.h5 in {args.dir}: the run was not interrupted")
    got, ref = slices(parts), slices([args.reference])
    if sorted(got) != sorted(ref):
        fail(f"interrupted + resumed output steps {sorted(got)} != uninterrupted {sorted(ref)}")
    for s in sorted(ref):
        if not np.array_equal(got[s], ref[s]):
            fail(f"field at step {s} differs from the uninterrupted run")
    print(f"segments: output steps {sorted(ref)} over {len(parts)} files identical to the uninterrupted run")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    a = sub.add_parser("free-ports", help="print free TCP ports")
    a.add_argument("n", type=int)
    a.set_defaults(func=free_ports)
    a = sub.add_parser("run", help="ranks and output steps of a run file")
    a.add_argument("file")
    a.add_argument("--nranks", type=int)
    a.add_argument("--min-steps", type=int, default=1)
    a.set_defaults(func=run)
    a = sub.add_parser("pairs", help="an ensemble's gathered pairs against its members")
    a.add_argument("ensemble")
    a.add_argument("pairs")
    a.add_argument("--param", action="append", metavar="NAME=V0,V1,...")
    a.set_defaults(func=pairs)
    a = sub.add_parser("segments", help="an interrupted run's segments against an uninterrupted run")
    a.add_argument("dir")
    a.add_argument("reference")
    a.add_argument("--stem", default="small")
    a.set_defaults(func=segments)
    args = ap.parse_args()
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
