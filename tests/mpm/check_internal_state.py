#!/usr/bin/python3
"""Checks the internal-state output of an MPM run with the test-only model test-damage (tests/mpm/mpmtestmodel.h)
on label 1 and an elastic model on label 0:
  - /particles/internal_state is (T, N, nz) with units "1", nz as given;
  - at step 0 it is z0 = stateinit: (0, nu) on label 1, zeros on label 0 (the reals an elastic particle carries);
  - label 0 keeps zeros at every output step, label 1 has accumulated z0 > 0 by the last one;
  - the particle XDMF file <stem>-particles.xmf has an internal_state attribute of nz components per particle.
usage: check_internal_state.py RUN.h5 NZ   (exit status 0 only if every check holds)"""
import sys
import h5py
import numpy as np

path, nz = sys.argv[1], int(sys.argv[2])
fail = []
with h5py.File(path, "r") as f:
    z = f["/particles/internal_state"][...]
    label = f["/particles/label"][0]
    nu = f["/particles/nu"][0]
    units = f["/particles/internal_state"].attrs.get("units")
    units = units.decode() if isinstance(units, bytes) else units
T, N = z.shape[0], z.shape[1]
if z.ndim != 3 or z.shape[2] != nz:
    fail.append(f"/particles/internal_state has shape {z.shape}, expected (T, N, {nz})")
if units != "1":
    fail.append(f"/particles/internal_state units {units!r}, expected '1'")
one, zero = label == 1, label == 0
if not one.any() or not zero.any():
    fail.append("need particles of both labels")
if not fail:
    if not (np.all(z[0, one, 0] == 0) and np.array_equal(z[0, one, 1], nu[one])):
        fail.append("step 0: label 1 internal state is not (0, nu)")
    if not np.all(z[:, zero, :] == 0):
        fail.append("label 0 (elastic) particles do not carry zeros")
    if not np.all(z[-1, one, 0] > 0):
        fail.append("label 1: the accumulated z0 is not positive at the last output step")
xmf = path[:-3] + "-particles.xmf"
text = open(xmf).read()
if f'Attribute Name="internal_state"' not in text or f"{N} {nz}" not in text:
    fail.append(f"{xmf}: no internal_state attribute of {nz} components")
for msg in fail:
    print("FAIL:", msg)
print(f"internal_state: {T} output steps, {N} particles, {nz} reals each, z0 max {z[-1, :, 0].max():.4g}:",
      "FAIL" if fail else "PASS")
sys.exit(1 if fail else 0)
