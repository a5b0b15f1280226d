#!/usr/bin/env python3
"""Makes a bad input file for the test suite: copies an HDF5 file and sets one entry of one dataset to
a given value (nan, inf, -inf or a number), e.g. a NaN in an observation slice:

  /usr/bin/python3 postprocess/checks/adjsim_poke_value.py truth.h5 nan_obs.h5 --dataset /fields/c \\
      --index 2,5,7 --value nan

--index is the entry's index per dimension (C order, slowest first: time slice, then y, then x); a
negative index counts from the end, as in numpy. Give a negative value as --value=-inf. Exits 1 when the source has no such dataset or entry,
so a test built on the bad file cannot pass because the file was never made bad."""
import argparse
import shutil
import sys

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", help="HDF5 file to copy (left unchanged)")
    ap.add_argument("target", help="the copy to change")
    ap.add_argument("--dataset", required=True, help="dataset path, e.g. /fields/c")
    ap.add_argument("--index", required=True, help="comma-separated index per dimension, e.g. 2,5,7")
    ap.add_argument("--value", required=True, help="nan, inf, -inf or a number")
    a = ap.parse_args()
    index = tuple(int(i) for i in a.index.split(","))
    value = float(a.value)
    shutil.copyfile(a.source, a.target)
    with h5py.File(a.target, "r+") as f:
        if a.dataset not in f:
            print(f"FAIL: {a.source} has no dataset {a.dataset}")
            return 1
        d = f[a.dataset]
        if len(index) != d.ndim or any(not -n <= i < n for i, n in zip(index, d.shape)):
            print(f"FAIL: {a.dataset} has shape {d.shape}; index {index} is not in it")
            return 1
        data = d[()]
        data[index] = value
        d[...] = data
        back = f[a.dataset][()][index]
    if not (np.isnan(back) if np.isnan(value) else back == value):
        print(f"FAIL: {a.target}:{a.dataset}{list(index)} reads back {back}, not {value}")
        return 1
    print(f"{a.target}: {a.dataset}{list(index)} = {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
