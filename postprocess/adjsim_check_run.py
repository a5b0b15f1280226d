#!/usr/bin/python3
"""Check adjsim run files against docs/output-format.md and their XDMF files for well-formedness.

usage: adjsim_check_run.py RUN.h5 [RUN.h5 ...]

For each run file: the root, /provenance, /grid, /fields, /gradients, /parameters, /optimization and
/restart layout; then the <stem>.xmf beside it: it parses, every HDF DataItem names an existing dataset
with the declared dimensions, every HyperSlab selects inside its dataset and yields one value per cell,
the time values are those of /fields/time, and every field-shaped dataset of /fields, /gradients and
/parameters (and every /gradients or /parameters array) is referenced. MPM run files: /particles holds
one slice per output step for every particle; per-particle gradient and parameter maps ((N) or (N, ncomp)
in /gradients, /parameters) need not be in the grid XDMF; and <stem>-particles.xmf shows every /particles dataset
at each output step. Exits 1 with a message on the first problem.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


class CheckError(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise CheckError(msg)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check_layout(f):
    """The HDF5 side; returns the grid cells in C order (slowest first)."""
    need(text(f.attrs.get("format", b"")) == "adjsim-run", "root attribute format is not adjsim-run")
    need(int(f.attrs.get("format_version", 0)) == 1, "root attribute format_version is not 1")
    prov = f["provenance"].attrs
    for key in ("adjsim_version", "git_commit", "petsc_version", "hdf5_version", "mpi_version", "nranks",
                "start_time", "end_time", "command_line", "hostname"):
        need(key in prov, f"/provenance lacks attribute {key}")
    for key in ("start_time", "end_time"):
        need(ISO.match(text(prov[key])), f"/provenance {key} {text(prov[key])!r} is not ISO 8601 UTC")
    need("options" in f["provenance"], "/provenance lacks the options dataset")

    grid = f["grid"].attrs
    dim = int(grid["dim"])
    cells = [int(c) for c in grid["cells"]]
    need(len(cells) == dim, "/grid cells has not dim entries")
    for key in ("lower", "upper", "spacing"):
        need(len(grid[key]) == dim, f"/grid {key} has not dim entries")
    need(np.allclose((grid["upper"] - grid["lower"]) / np.array(cells), grid["spacing"]), "/grid spacing inconsistent")
    need("units" in grid, "/grid lacks units")
    cshape = tuple(reversed(cells))

    step, time = f["fields/step"], f["fields/time"]
    need(step.dtype == np.int64 and step.ndim == 1, "/fields/step is not a 1-D int64 dataset")
    need(time.shape == step.shape, "/fields/time and /fields/step differ in length")
    need(np.all(np.diff(step[:]) > 0), "/fields/step does not increase")
    for name, ds in f["fields"].items():
        need("units" in ds.attrs, f"/fields/{name} lacks units")
        if name in ("step", "time"):
            continue
        need(ds.shape[1:] == cshape, f"/fields/{name} slices are {ds.shape[1:]}, the grid is {cshape}")
        need(ds.shape[0] <= step.shape[0], f"/fields/{name} has more slices than output steps")
        need(ds.maxshape[0] is None and ds.chunks is not None, f"/fields/{name} is not extendable in time")
    for group in ("gradients", "parameters"):
        for name, ds in f[group].items():
            need("units" in ds.attrs, f"/{group}/{name} lacks units")
            need(ds.shape == cshape or ds.ndim == 1 or is_particle_map(f, ds),
                 f"/{group}/{name} is neither a field, an array nor a per-particle map")

    opt = f["optimization"]
    n = opt["iteration"].shape[0]
    need(opt["iteration"].dtype == np.int64, "/optimization/iteration is not int64")
    for key in ("objective", "gradient_norm"):
        need(opt[key].shape == (n,), f"/optimization/{key} has not one entry per iteration")
    if "design" in opt:
        need(opt["design"].shape[0] <= n, "/optimization/design has more rows than iterations")
    if "design_blocks" in opt.attrs:  # the design layout (docs/output-format.md): blocks tile the row
        names = text(opt.attrs["design_blocks"]).split(",")
        offsets, sizes = np.atleast_1d(opt.attrs["design_offsets"]), np.atleast_1d(opt.attrs["design_sizes"])
        need(len(names) == len(offsets) == len(sizes) == len(np.atleast_1d(opt.attrs["design_scales"]))
             == len(text(opt.attrs["design_units"]).split(",")), "/optimization design_* attributes differ in length")
        need(list(offsets) == list(np.concatenate([[0], np.cumsum(sizes)[:-1]])),
             "/optimization design_offsets are not the running sum of design_sizes")
        if "design" in opt:
            need(opt["design"].shape[1] == int(np.sum(sizes)), "/optimization/design columns differ from the "
                 "sum of design_sizes")

    if "restart" in f:
        r = f["restart"].attrs
        for key in ("step", "time", "solver", "cells", "field_names"):
            need(key in r, f"/restart lacks attribute {key}")
        need([int(c) for c in r["cells"]] == cells, "/restart cells differ from /grid cells")
        for name in text(r["field_names"]).split(","):
            if name == "particles":  # MPM: one row of state per particle
                need(f["restart/particles"].ndim == 2, "/restart/particles is not (particles, state)")
            elif name:
                need(f["restart"][name].shape == cshape, f"/restart/{name} is not shaped like the grid")
    if "particles" in f:
        check_particles(f)
    return cshape


def particle_count(f):
    """Particles of an MPM run file (0 for grid solvers)."""
    return f["particles/position"].shape[1] if "particles/position" in f else 0


def is_particle_map(f, ds):
    """A per-particle gradient or parameter (MPM): (N) or (N, ncomp), rows in the order of /particles.
    These belong to the particles, not to the grid, so the grid XDMF does not show them."""
    n = particle_count(f)
    return n > 0 and ds.ndim in (1, 2) and ds.shape[0] == n


def check_particles(f):
    """MPM runs: /particles/<name> is (output steps, particles[, components]), extendable in time."""
    nout = f["fields/step"].shape[0]
    need("position" in f["particles"], "/particles lacks position")
    npart = f["particles/position"].shape[1]
    for name, ds in f["particles"].items():
        need("units" in ds.attrs, f"/particles/{name} lacks units")
        need(ds.ndim >= 2 and ds.shape[1] == npart, f"/particles/{name} is not (steps, {npart} particles, ...)")
        need(ds.shape[0] == nout, f"/particles/{name} has {ds.shape[0]} slices for {nout} output steps")
        need(ds.maxshape[0] is None, f"/particles/{name} is not extendable in time")
    if "restart/particles" in f:
        need(f["restart/particles"].shape[0] == npart, "/restart/particles and /particles differ in particle count")


def check_particles_xdmf(h5path):
    """<stem>-particles.xmf: a temporal collection of Polyvertex grids, one per output step, whose every
    HyperSlab picks one step of an existing /particles dataset; every /particles dataset is shown."""
    stem = h5path[:-3] if h5path.endswith(".h5") else h5path
    xmf = stem + "-particles.xmf"
    need(os.path.exists(xmf), f"{xmf} is missing")
    xmf_dir = os.path.dirname(os.path.abspath(xmf))
    domain = ET.parse(xmf).getroot().find("Domain")
    need(domain is not None, f"{xmf}: no <Domain>")
    files, used = {}, set()
    run = files.setdefault(os.path.abspath(h5path), h5py.File(h5path, "r"))
    npart = run["particles/position"].shape[1]
    steps = [g for g in domain.iter("Grid") if g.get("GridType") != "Collection"]
    times = [float(g.find("Time").get("Value")) for g in steps]
    need(times == [float(t) for t in run["fields/time"][:]], f"{xmf}: times differ from /fields/time")
    for k, grid in enumerate(steps):
        topo = grid.find("Topology")
        need(topo.get("TopologyType") == "Polyvertex" and int(topo.get("NumberOfElements")) == npart,
             f"{xmf}: step {k} is not a Polyvertex of {npart} particles")
        items = [grid.find("Geometry").find("DataItem")] + [a.find("DataItem") for a in grid.findall("Attribute")]
        for item in items:
            sel, data = item.findall("DataItem")
            ds = check_hdf_item(data, xmf_dir, files, used)
            start, _, count = np.array(sel.text.split(), dtype=np.int64).reshape(dims_of(sel))
            need(start[0] == k and count[0] == 1, f"{xmf}: step {k} shows slice {start[0]} of {ds.name}")
            need(int(np.prod(count)) == int(np.prod(dims_of(item))), f"{xmf}: hyperslab count differs from Dimensions")
    for name, ds in run["particles"].items():
        need(ds.name in used, f"{ds.name} is not referenced by {xmf}")
    for h in files.values():
        h.close()


def dims_of(item):
    return tuple(int(d) for d in item.get("Dimensions").split())


def heavy(item, xmf_dir):
    ref = item.text.strip()
    need(":" in ref, f"HDF DataItem {ref!r} lacks file:path")
    fname, path = ref.split(":", 1)
    return os.path.join(xmf_dir, fname), path


def check_hdf_item(item, xmf_dir, files, used):
    """An HDF DataItem: the dataset exists with exactly the declared dimensions."""
    fname, path = heavy(item, xmf_dir)
    need(os.path.exists(fname), f"XDMF references missing file {fname}")
    f = files.setdefault(fname, h5py.File(fname, "r"))
    need(path in f, f"XDMF references {path}, which is not in {fname}")
    need(f[path].shape == dims_of(item),
         f"XDMF declares {path} as {dims_of(item)}, the dataset is {f[path].shape}")
    used.add(path)
    return f[path]


def check_xdmf(h5path, cshape):
    stem = h5path[:-3] if h5path.endswith(".h5") else h5path
    xmf = stem + ".xmf"
    need(os.path.exists(xmf), f"{xmf} is missing")
    need(not os.path.exists(xmf + ".partial") and not os.path.exists(h5path + ".partial"), "a .partial file remains")
    xmf_dir = os.path.dirname(os.path.abspath(xmf))
    root = ET.parse(xmf).getroot()  # raises on malformed XML
    need(root.tag == "Xdmf" and root.get("Version", "").startswith("2"), "root element is not <Xdmf Version=2.x>")
    domain = root.find("Domain")
    need(domain is not None, "no <Domain>")
    files, used = {}, set()
    ncells = int(np.prod(cshape))
    points = tuple(c + 1 for c in cshape) if len(cshape) > 1 else (2, cshape[0] + 1)

    for grid in domain.iter("Grid"):
        if grid.get("GridType") == "Collection":
            continue
        topo = grid.find("Topology")
        need(topo is not None and grid.find("Geometry") is not None, f"grid {grid.get('Name')} lacks topology/geometry")
        need(dims_of(topo) == points, f"topology {dims_of(topo)} is not cells+1 = {points}")
        need(len(grid.find("Geometry").findall("DataItem")) == 2, "geometry needs origin and spacing")
        for attr in grid.findall("Attribute"):
            item = attr.find("DataItem")
            need(item is not None, f"attribute {attr.get('Name')} has no DataItem")
            center = attr.get("Center")
            if item.get("ItemType") == "HyperSlab":
                sel, data = item.findall("DataItem")
                ds = check_hdf_item(data, xmf_dir, files, used)
                rows = np.array(sel.text.split(), dtype=np.int64).reshape(dims_of(sel))
                start, stride, count = rows
                need(len(start) == ds.ndim, "hyperslab rank differs from its dataset")
                need(np.all(start + (count - 1) * stride < np.array(ds.shape)), f"hyperslab outside {ds.name}")
                need(int(np.prod(count)) == int(np.prod(dims_of(item))), "hyperslab count differs from its Dimensions")
                need(len(dims_of(item)) == ds.ndim - 1, "hyperslab Dimensions must be those of one slice (ParaView's XDMF reader)")
                need(item.get("NumberType") == "Float", "hyperslab DataItem without NumberType (ParaView's XDMF reader)")
                values = int(np.prod(count))
            else:
                ds = check_hdf_item(item, xmf_dir, files, used)
                values = ds.size
            if center == "Cell":
                need(values == ncells, f"attribute {attr.get('Name')} has {values} values for {ncells} cells")
            else:
                need(center == "Grid", f"attribute {attr.get('Name')} has unexpected Center {center}")

    run = files.setdefault(os.path.abspath(h5path), h5py.File(h5path, "r"))
    times = run["fields/time"][:]
    coll = [g for g in domain.findall("Grid") if g.get("CollectionType") == "Temporal"]
    if len(times):
        need(len(coll) == 1, "no temporal collection for the output steps")
        tvals = [float(g.find("Time").get("Value")) for g in coll[0].findall("Grid")]
        need(tvals == [float(t) for t in times], f"XDMF times {tvals} differ from /fields/time {list(times)}")
    for group in ("fields", "gradients", "parameters"):
        for name, ds in run[group].items():
            if group == "fields" and name in ("step", "time"):
                continue
            need(ds.name in used or (group != "fields" and is_particle_map(run, ds)),
                 f"{ds.name} is not referenced by {xmf}")
    for f in files.values():
        f.close()


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    for path in argv[1:]:
        try:
            with h5py.File(path, "r") as f:
                cshape = check_layout(f)
            check_xdmf(path, cshape)
            with h5py.File(path, "r") as f:
                has_particles = "particles" in f
            if has_particles:
                check_particles_xdmf(path)
        except (CheckError, KeyError, OSError, ET.ParseError) as e:
            print(f"adjsim_check_run.py: {path}: {e}")
            return 1
        print(f"adjsim_check_run.py: {path}: layout and XDMF OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
