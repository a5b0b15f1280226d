#!/usr/bin/env python3
"""Makes a bad input file for the test suite: copies an HDF5 file and overwrites the first bytes of one
object's header (a dataset or a group) with garbage, so that the file still opens but HDF5 cannot open that
object (corrupt metadata, as a disk or transfer error leaves it):

  /usr/bin/python3 tests/fuzz/corrupt_object.py run-restart.h5 corrupt.h5 --object /restart/c

Exits 1 when the source has no such object or the copy still opens it, so a test built on the bad file
cannot pass because the file was never made bad."""
import argparse
import shutil
import sys

import h5py


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", help="HDF5 file to copy (left unchanged)")
    ap.add_argument("target", help="the copy to change")
    ap.add_argument("--object", required=True, help="object path, e.g. /restart/c")
    ap.add_argument("--bytes", type=int, default=16, help="how many header bytes to overwrite (default 16)")
    a = ap.parse_args()
    with h5py.File(a.source, "r") as f:
        if a.object not in f:
            print(f"FAIL: {a.source} has no object {a.object}")
            return 1
        addr = h5py.h5o.get_info(f[a.object].id).addr
    shutil.copyfile(a.source, a.target)
    with open(a.target, "r+b") as f:
        f.seek(addr)
        f.write(bytes([0xA5]) * a.bytes)
    try:
        with h5py.File(a.target, "r") as f:
            f[a.object]
        print(f"FAIL: {a.target} still opens {a.object}")
        return 1
    except (OSError, KeyError, RuntimeError, ValueError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
