#!/usr/bin/env python3
"""Writes an MPM particle file, the input of  adjsim -problem mpm -mpm_body0 file:particles.h5
(layout: docs/output-format.md, "Particle files").

A box [x0,x1) x [y0,y1) is filled with a regular lattice of spacing h (points at the sub-cell centres
(i + 1/2) h, rows in y outer, x inner: the order and positions adjsim's own lattice uses for
-mpm_body box:... with -mpm_ppc L/(M h)), each point with volume h^2 unless --volume is given.

  /usr/bin/python3 postprocess/adjsim_particle_file.py box.h5 --box 0.3,0.3,0.5,0.5 --spacing 0.015625 \\
      --velocity 1,0 --label 1

--mass RHO writes the dataset mass = RHO * volume instead of volume.  --truncate NAME:N keeps only the
first N rows of one dataset, --omit NAME leaves one out (malformed files, for testing the reader's
messages).  --E, --nu add
per-particle values (the initial per-particle fields)."""
import argparse
import sys

import h5py
import numpy as np


def floats(text, n):
    v = [float(t) for t in text.split(",")]
    if len(v) != n:
        raise argparse.ArgumentTypeError(f"need {n} comma-separated numbers, got {text!r}")
    return v


def lattice(box, h):
    x0, y0, x1, y1 = box
    nx, ny = int(round((x1 - x0) / h)), int(round((y1 - y0) / h))
    iy, ix = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
    return np.stack([x0 + (ix.ravel() + 0.5) * h, y0 + (iy.ravel() + 0.5) * h], axis=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", help="particle file to write (HDF5)")
    ap.add_argument("--box", required=True, help="x0,y0,x1,y1 [m]")
    ap.add_argument("--spacing", type=float, required=True, help="lattice spacing h [m]")
    ap.add_argument("--volume", type=float, help="volume of every particle [m^2] (default h^2)")
    ap.add_argument("--mass", type=float, metavar="RHO", help="write mass = RHO * volume [kg/m] instead of volume")
    ap.add_argument("--velocity", default="0,0", help="vx,vy of every particle [m/s] (default 0,0)")
    ap.add_argument("--label", type=int, help="label of every particle (default: no label dataset)")
    ap.add_argument("--E", type=float, help="Young's modulus of every particle [Pa] (dataset E)")
    ap.add_argument("--nu", type=float, help="Poisson ratio of every particle (dataset nu)")
    ap.add_argument("--truncate", help="NAME:N: keep only the first N rows of dataset NAME")
    ap.add_argument("--omit", help="leave dataset NAME out")
    a = ap.parse_args()
    x = lattice(floats(a.box, 4), a.spacing)
    n = len(x)
    if n == 0:
        print("the box holds no lattice point", file=sys.stderr)
        return 1
    vol = np.full(n, a.volume if a.volume is not None else a.spacing ** 2)
    data = {"position": x, "velocity": np.tile(floats(a.velocity, 2), (n, 1))}
    if a.mass is not None:
        data["mass"] = a.mass * vol
    else:
        data["volume"] = vol
    if a.label is not None:
        data["label"] = np.full(n, float(a.label))
    if a.E is not None:
        data["E"] = np.full(n, a.E)
    if a.nu is not None:
        data["nu"] = np.full(n, a.nu)
    if a.truncate:
        name, rows = a.truncate.split(":")
        data[name] = data[name][: int(rows)]
    if a.omit:
        del data[a.omit]
    with h5py.File(a.output, "w") as f:
        for name, value in data.items():
            f.create_dataset(name, data=np.asarray(value, dtype=float))
    print(f"{a.output}: {n} particles ({', '.join(data)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
