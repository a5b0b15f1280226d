#!/usr/bin/env python3
"""Makes a bad input file for the test suite: copies an HDF5 file and rewrites one dataset with another
element type (its values converted; attributes kept), e.g. a restart state stored as complex numbers:

  /usr/bin/python3 tests/fuzz/retype_dataset.py run-restart.h5 complex.h5 --dataset /restart/particles \\
      --dtype complex128

Exits 1 when the source has no such dataset, so a test built on the bad file cannot pass because the file
was never made bad."""
import argparse
import shutil
import sys

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", help="HDF5 file to copy (left unchanged)")
    ap.add_argument("target", help="the copy to change")
    ap.add_argument("--dataset", required=True, help="dataset path, e.g. /restart/particles")
    ap.add_argument("--dtype", required=True, help="numpy element type, e.g. complex128, S8, float32")
    a = ap.parse_args()
    shutil.copyfile(a.source, a.target)
    with h5py.File(a.target, "r+") as f:
        if a.dataset not in f or not isinstance(f[a.dataset], h5py.Dataset):
            print(f"FAIL: {a.source} has no dataset {a.dataset}")
            return 1
        data, attrs = f[a.dataset][()], dict(f[a.dataset].attrs)
        del f[a.dataset]
        f[a.dataset] = np.asarray(data).astype(a.dtype)
        for k, v in attrs.items():
            f[a.dataset].attrs[k] = v
    return 0


if __name__ == "__main__":
    sys.exit(main())
