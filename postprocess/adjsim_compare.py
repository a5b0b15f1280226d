#!/usr/bin/python3
"""Compare two adjsim run files dataset by dataset.

For every dataset under the chosen groups (default: /gradients and /parameters) the relative
difference max|a - b| / max(max|a|, max|b|) is printed; the exit status is 1 when any difference
exceeds --rtol or is NaN, a dataset is missing from one file, the shapes differ, no dataset was
compared, or every dataset compared is zero in both files (zero equals zero whatever the code
computes: such a comparison tests nothing), and 0 otherwise.
Use it to check that a gradient is the same under every checkpoint setting or rank count.
With --slices I J, time series (e.g. /particles/<name>, shaped (nt, ...)) are compared at slice I of
the first file and slice J of the second (negative: from the end), e.g. the last output step of a run
against the first of a run that started from its particles (-mpm_body0 file:run.h5).

Example:
  /usr/bin/python3 postprocess/adjsim_compare.py run_np1.h5 run_np4.h5 --groups /gradients --rtol 1e-10
"""
import argparse
import sys

import h5py
import numpy as np


def datasets(f, group):
    found = {}
    if group not in f:
        return found
    obj = f[group]
    if isinstance(obj, h5py.Dataset):
        found[group] = obj
        return found
    obj.visititems(lambda name, o: found.__setitem__(group.rstrip("/") + "/" + name, o)
                   if isinstance(o, h5py.Dataset) else None)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first", help="first run file (HDF5)")
    ap.add_argument("second", help="second run file (HDF5)")
    ap.add_argument("--groups", nargs="+", default=["/gradients", "/parameters"],
                    help="groups or datasets to compare (default: /gradients /parameters)")
    ap.add_argument("--rtol", type=float, default=1e-12, help="largest accepted relative difference")
    ap.add_argument("--exact", action="store_true", help="require bit-for-bit equality")
    ap.add_argument("--slices", nargs=2, type=int, metavar=("I", "J"),
                    help="compare slice I (first file) with slice J (second file) of each dataset's leading dimension")
    args = ap.parse_args()
    bad = 0
    compared = 0
    nonzero = 0  # datasets compared that are not zero in both files
    with h5py.File(args.first, "r") as fa, h5py.File(args.second, "r") as fb:
        for group in args.groups:
            da, db = datasets(fa, group), datasets(fb, group)
            if not da and not db:
                print(f"{group}: missing in both files")
                bad += 1
            for name in sorted(set(da) | set(db)):
                if name not in da or name not in db:
                    print(f"{name}: only in {'first' if name in da else 'second'} file")
                    bad += 1
                    continue
                a, b = np.asarray(da[name][()], dtype=float), np.asarray(db[name][()], dtype=float)
                if args.slices:
                    a, b = a[args.slices[0]], b[args.slices[1]]
                if a.shape != b.shape:
                    print(f"{name}: shapes differ {a.shape} vs {b.shape}")
                    bad += 1
                    continue
                scale = max(np.max(np.abs(a), initial=0.0), np.max(np.abs(b), initial=0.0))
                diff = np.max(np.abs(a - b), initial=0.0)
                rel = diff / scale if scale > 0 else diff
                ok = (diff == 0) if args.exact else (rel <= args.rtol)
                compared += 1
                nonzero += 0 if scale == 0 else 1
                print(f"{name}: shape {a.shape} max|a-b| {diff:.3e} relative {rel:.3e} {'ok' if ok else 'DIFFERS'}")
                bad += 0 if ok else 1
    print(f"{compared} dataset(s) compared, {bad} problem(s)")
    if compared and not nonzero:
        print("every dataset compared is zero in both files: the comparison tests nothing")
        return 1
    return 1 if bad or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
