#!/usr/bin/python3
"""Lid-driven cavity computed by OpenFOAM (icoFoam): compare the cell-centre velocity U of one
time directory with Ghia, Ghia & Shin, J. Comput. Phys. 48 (1982) 387-411, Tables I (u along the
vertical centreline x = L/2) and II (v along the horizontal one y = L/2), the same way as
postprocess/adjsim_ghia_compare.py does for adjsim's run files.

The case must be the single-block cavity of bench/openfoam/cavity128 (blockMesh, Mx x My x 1
uniform cells on [0,Lx] x [0,Ly]): blockMesh numbers cell (i, j) as i + Mx j, so the ASCII field
`<case>/<time>/U` (internalField nonuniform List<vector>; reconstructPar first after a parallel
run) is read directly, without OpenFOAM's sampling utilities.  With an even number of cells the
centreline x = Lx/2 lies between the cell columns Mx/2-1 and Mx/2: u(Lx/2, y) is their mean
(linear interpolation), then interpolated linearly along y between the cell centres and the walls
(u = 0 at y = 0, u = lid speed at y = Ly); likewise v(x, Ly/2) from the rows My/2-1 and My/2,
with v = 0 at both side walls.  Printed: the largest |computed - Ghia| for u and for v (in
lid-speed units); exit 1 if either exceeds --tol or is NaN (a NaN anywhere in U makes it NaN).

Example:
  /usr/bin/python3 postprocess/adjsim_foam_ghia.py case --cells 128,128 \\
      --table tests/fluid/ghia1982_cavity.csv --re 100
"""
import argparse
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from adjsim_ghia_compare import centreline_errors, nan_max, read_table, within  # noqa: E402


def latest_time(case):
    """The largest numeric time directory of the case holding a field U (not 0)."""
    best = None
    for name in os.listdir(case):
        try:
            t = float(name)
        except ValueError:
            continue
        if t > 0 and os.path.isfile(os.path.join(case, name, "U")) and (best is None or t > best[0]):
            best = (t, name)
    if best is None:
        sys.exit(f"{case}: no time directory with a field U (after a parallel run: reconstructPar)")
    return best[1]


def read_internal_vector_field(path, ncells):
    """internalField of an ASCII OpenFOAM volVectorField as an (ncells, 3) array."""
    text = open(path).read()
    m = re.search(r"internalField\s+nonuniform\s+List<vector>\s*(\d+)\s*\(", text)
    if not m:
        u = re.search(r"internalField\s+uniform\s+\(([^)]*)\)", text)
        if u:
            return np.tile(np.array([float(x) for x in u.group(1).split()]), (ncells, 1))
        sys.exit(f"{path}: no ASCII internalField (set writeFormat ascii and writeCompression off)")
    n = int(m.group(1))
    if n != ncells:
        sys.exit(f"{path}: {n} cells, expected {ncells} (--cells)")
    body = text[m.end():text.index("\n)", m.end())]
    values = np.array(body.replace("(", " ").replace(")", " ").split(), dtype=float)
    return values.reshape(n, 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", help="OpenFOAM case directory (reconstructed)")
    ap.add_argument("--time", help="time directory to read (default: the latest one)")
    ap.add_argument("--cells", default="128,128", help="cells Mx,My of the blockMesh block (default 128,128)")
    ap.add_argument("--domain", default="1,1", help="Lx,Ly [m] (default 1,1)")
    ap.add_argument("--table", required=True, help="Ghia et al. centreline table (CSV: table,coord,Re100,...)")
    ap.add_argument("--re", type=int, default=100, help="Reynolds-number column of the table (default 100)")
    ap.add_argument("--lid", type=float, default=1.0, help="lid speed [m/s] (default 1)")
    ap.add_argument("--tol", type=float, help="largest accepted centreline error; exit 1 above it")
    ap.add_argument("--profiles", help="write the sampled centreline profiles to this CSV file")
    args = ap.parse_args()
    Mx, My = (int(n) for n in args.cells.split(","))
    Lx, Ly = (float(x) for x in args.domain.split(","))
    if Mx % 2 or My % 2:
        sys.exit("the Ghia comparison needs an even number of cells per direction")
    table = read_table(args.table, args.re)
    tdir = args.time or latest_time(args.case)
    U = read_internal_vector_field(os.path.join(args.case, tdir, "U"), Mx * My)
    u = U[:, 0].reshape(My, Mx)   # [j, i]: cell i + Mx j
    v = U[:, 1].reshape(My, Mx)
    hx, hy = Lx / Mx, Ly / My
    ys = np.concatenate(([0.0], (np.arange(My) + 0.5) * hy, [Ly]))
    us = np.concatenate(([0.0], 0.5 * (u[:, Mx // 2 - 1] + u[:, Mx // 2]), [args.lid]))
    xs = np.concatenate(([0.0], (np.arange(Mx) + 0.5) * hx, [Lx]))
    vs = np.concatenate(([0.0], 0.5 * (v[My // 2 - 1, :] + v[My // 2, :]), [0.0]))
    err_u, err_v = centreline_errors(table, ys, us, xs, vs, Lx, Ly)
    if not np.all(np.isfinite(U)):
        err_u = err_v = float("nan")  # a NaN or infinity anywhere in the field: no agreement to speak of
    err = nan_max([err_u, err_v])
    if args.profiles:
        with open(args.profiles, "w") as f:
            f.write("line,coord,value\n")
            for y, val in zip(ys, us):
                f.write(f"u_x0.5,{y:.8g},{val:.10g}\n")
            for x, val in zip(xs, vs):
                f.write(f"v_y0.5,{x:.8g},{val:.10g}\n")
    print(f"Ghia Re {args.re}, {Mx}x{My} cells, OpenFOAM time {tdir} s: max centreline error "
          f"u {err_u:.4e}, v {err_v:.4e}, max {err:.4e}"
          + ("" if args.tol is None else f" (accepted <= {args.tol:g}): {'ok' if within(err, args.tol) else 'FAIL'}"))
    return 1 if args.tol is not None and not within(err, args.tol) else 0


if __name__ == "__main__":
    sys.exit(main())
