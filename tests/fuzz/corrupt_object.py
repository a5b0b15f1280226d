#!/usr/bin/env python3
"""Makes a bad input file for the test suite: copies an HDF5 file and overwrites the first bytes of one
object's header (a dataset or a group) with garbage, so that the file still opens but HDF5 cannot open that
object (corrupt metadata, as a disk or transfer error leaves it):

  /usr/bin/python3 tests/fuzz/corrupt_object.py run-restart.h5 corrupt.h5 --object /restart/c

With --data-address, the object (a contiguous dataset) still opens but the address of its data in its layout
message points far beyond the end of the file, so that reading its values fails.

Exits 1 when the source has no such object or the copy still opens it, so a test built on the bad file
cannot pass because the file was never made bad."""
import argparse
import shutil
import struct
import sys

import h5py


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", help="HDF5 file to copy (left unchanged)")
    ap.add_argument("target", help="the copy to change")
    ap.add_argument("--object", required=True, help="object path, e.g. /restart/c")
    ap.add_argument("--bytes", type=int, default=16, help="how many header bytes to overwrite (default 16)")
    ap.add_argument("--data-address", action="store_true", help="corrupt the data address, not the header")
    a = ap.parse_args()
    with h5py.File(a.source, "r") as f:
        if a.object not in f:
            print(f"FAIL: {a.source} has no object {a.object}")
            return 1
        addr = h5py.h5o.get_info(f[a.object].id).addr
        data = f[a.object].id.get_offset() if a.data_address else None
    shutil.copyfile(a.source, a.target)
    with open(a.target, "r+b") as f:
        if data is None:
            f.seek(addr)
            f.write(bytes([0xA5]) * a.bytes)
        else:
            f.seek(addr)
            header = f.read(1024)
            pos = header.find(struct.pack("<Q", data))
            if data is None or pos < 0:
                print(f"FAIL: no data address of {a.object} in its header (not a contiguous dataset?)")
                return 1
            f.seek(addr + pos)
            f.write(struct.pack("<Q", 1 << 40))
    try:
        with h5py.File(a.target, "r") as f:
            if data is None:
                f[a.object]
            else:
                f[a.object][()]
        print(f"FAIL: {a.target} still reads {a.object}")
        return 1
    except (OSError, KeyError, RuntimeError, ValueError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
