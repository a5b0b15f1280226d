#!/usr/bin/env python3
"""Checks one entry of a dataset in an adjsim run file against an expected value, e.g. an exact
gradient:  dJ/dv = T for J the final centre of mass of a body in free flight and v its initial velocity.

  /usr/bin/python3 postprocess/checks/adjsim_check_value.py run.h5 --dataset /gradients/velocity --index 0 \\
      --expect 0.12 --rtol 1e-12

Prints the value, the expected value and the relative error; exits 1 when the error exceeds --rtol
(or the dataset is missing), 0 otherwise.

With --conserved instead of --index/--expect: the sum of every slice of a time series (e.g.
/fields/c) must equal the first slice's sum to --rtol (a conserved total, e.g. the scalar in a
closed box).  It fails when the series has fewer than 2 slices or is zero everywhere: then every sum equals
the first whatever the solver does, and the check tests nothing.  A NaN fails every check."""
import argparse
import sys

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="adjsim run file (HDF5)")
    ap.add_argument("--dataset", required=True, help="dataset path, e.g. /gradients/velocity")
    ap.add_argument("--index", type=int, default=0, help="entry of the flattened dataset (default 0)")
    ap.add_argument("--expect", type=float, help="expected value")
    ap.add_argument("--conserved", action="store_true", help="check that every slice's sum equals the first's")
    ap.add_argument("--rtol", type=float, required=True, help="allowed relative error |value - expect| / |expect|")
    a = ap.parse_args()
    with h5py.File(a.run, "r") as f:
        if a.dataset not in f:
            print(f"FAIL: {a.run} has no dataset {a.dataset}")
            return 1
        data = np.asarray(f[a.dataset][()], dtype=float)
    if a.conserved:
        if data.ndim < 1 or data.shape[0] < 2:
            print(f"FAIL: {a.dataset} has shape {data.shape}: conservation needs at least 2 slices (with one, every "
                  "sum equals the first whatever the solver does)")
            return 1
        if not np.any(data != 0):
            print(f"FAIL: {a.dataset} is zero everywhere: its sums are conserved whatever the solver does")
            return 1
        sums = data.reshape(data.shape[0], -1).sum(axis=1)
        err = float(np.max(np.abs(sums - sums[0]))) / max(abs(sums[0]), np.finfo(float).tiny)
        ok = err <= a.rtol
        print(f"{a.dataset}: sums of {len(sums)} slices from {sums[0]:.16e} to {sums[-1]:.16e}: largest relative "
              f"change {err:.2e} (tolerance {a.rtol:.1e})  {'ok' if ok else 'FAIL'}")
        return 0 if ok else 1
    if a.expect is None:
        print("FAIL: give --expect (or --conserved)")
        return 2
    v = data.ravel()
    if not 0 <= a.index < v.size:
        print(f"FAIL: {a.dataset} has {v.size} entries, no index {a.index}")
        return 1
    err = abs(v[a.index] - a.expect) / max(abs(a.expect), np.finfo(float).tiny)
    ok = err <= a.rtol
    print(f"{a.dataset}[{a.index}] = {v[a.index]:.16e}, expected {a.expect:.16e}: relative error {err:.2e} "
          f"(tolerance {a.rtol:.1e})  {'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
