#!/usr/bin/env python3
"""Energy history of an MPM run (/history/energy: step, time, kinetic, elastic, potential, total per
step, docs/output-format.md): checks its layout and reports the energy drift.

  /usr/bin/python3 postprocess/adjsim_mpm_energy.py run.h5 --max-drift 0.02 --max-gain 1e-12

Prints the energies at the first and last step, the relative drift |E(T) - E(0)| / E(0) of the total,
its largest deviation over the run, the largest gain max(E - E(0)) / E(0), and the loss in the first
step (the first projection onto the grid).  Exits 1 when the dataset or its column names are wrong,
a row's total is not the sum of its parts (1e-12), the steps are not consecutive, an entry is NaN or
infinite, every energy is zero (then every check holds whatever the solver does), or a bound given
(--max-drift on the final drift, --max-gain) is exceeded or its quantity is NaN; 0 otherwise."""
import argparse
import sys

import h5py
import numpy as np

COLUMNS = "step [1], time [s], kinetic [J/m], elastic [J/m], potential [J/m], total [J/m]"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="MPM run file (HDF5)")
    ap.add_argument("--max-drift", type=float, help="bound on |E(T) - E(0)| / E(0)")
    ap.add_argument("--max-gain", type=float, help="bound on max over the run of (E(t) - E(0)) / E(0)")
    a = ap.parse_args()
    with h5py.File(a.run, "r") as f:
        if "/history/energy" not in f:
            print(f"FAIL: {a.run} has no /history/energy")
            return 1
        d = f["/history/energy"]
        cols = d.attrs.get("columns", b"")
        cols = cols.decode() if isinstance(cols, bytes) else str(cols)
        h = np.asarray(d[()], dtype=float)
    if cols != COLUMNS or h.ndim != 2 or h.shape[1] != 6:
        print(f"FAIL: /history/energy has shape {h.shape} and columns '{cols}', expected (n, 6) and '{COLUMNS}'")
        return 1
    ok = True
    if h.shape[0] < 2 or not np.all(np.diff(h[:, 0]) == 1):
        print("FAIL: fewer than 2 rows, or the steps are not consecutive")
        ok = False
    elif h[0, 0] != 0:
        print(f"note: the history starts at step {int(h[0, 0])} (a run continued from a restart file): E(0) below "
              "is the energy of that step")
    if not np.all(np.isfinite(h)):
        bad = np.argwhere(~np.isfinite(h))[0]
        print(f"FAIL: /history/energy holds NaN or infinite entries (first at row {bad[0]}, column {bad[1]})")
        ok = False
    scale = np.abs(h[:, 2:5]).sum(axis=1).max()
    if scale == 0:
        print("FAIL: every energy of the history is zero: nothing moves, so the checks below test nothing")
        ok = False
    sumerr = float(np.max(np.abs(h[:, 2:5].sum(axis=1) - h[:, 5]))) / scale if scale > 0 else float("nan")  # NaN fails
    if not sumerr <= 1e-12:  # written so that a NaN fails too (NaN > 1e-12 is False)
        print(f"FAIL: total differs from kinetic + elastic + potential by {sumerr:.2e} (relative)")
        ok = False
    E = h[:, 5]
    E0 = E[0]
    drift = abs(E[-1] - E0) / abs(E0)
    dev = float(np.max(np.abs(E - E0))) / abs(E0)
    gain = float(np.max(E - E0)) / abs(E0)
    first = (E0 - E[1]) / abs(E0) if len(E) > 1 else 0.0
    for r, name in ((0, "first"), (-1, "last")):
        print(f"{name} step {int(h[r, 0])} (t = {h[r, 1]:.6g} s): kinetic {h[r, 2]:.6e}, elastic {h[r, 3]:.6e}, "
              f"potential {h[r, 4]:.6e}, total {h[r, 5]:.6e} J/m")
    print(f"{len(E) - 1} steps, dt {h[1, 1] - h[0, 1] if len(E) > 1 else 0:.4g} s: drift |E(T) - E(0)| / E(0) = "
          f"{drift:.4e}, largest deviation {dev:.4e}, largest gain {gain:.3e}, loss in the first step {first:.3e}")
    if a.max_drift is not None:
        good = drift <= a.max_drift
        print(f"drift {drift:.4e} vs bound {a.max_drift:.3e}  {'ok' if good else 'FAIL'}")
        ok &= good
    if a.max_gain is not None:
        good = gain <= a.max_gain
        print(f"gain {gain:.3e} vs bound {a.max_gain:.3e}  {'ok' if good else 'FAIL'}")
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
