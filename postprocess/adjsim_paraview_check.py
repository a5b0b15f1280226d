#!/usr/bin/env pvpython
"""Open an adjsim run's XDMF file in ParaView, check it against the run file, and render a field.

Run with ParaView's pvpython (Debian package python3-paraview) or pvbatch, not with plain python3.
The .xmf (default: the run file's stem + .xmf) is opened with ParaView's "XDMF Reader" (XDMFReader,
the reader adjsim's XDMF files are written for; else Xdmf3ReaderS or Xdmf3ReaderT; --reader picks
one) and compared with the HDF5 run file (layout: docs/output-format.md), read with h5py:

  - the reader's time steps equal /fields/time (to --rtol relative);
  - the cell arrays the reader announces are exactly the fields of /fields, gradient_<name> and
    parameter_<name> for the grid-shaped members of /gradients and /parameters, and
    optimization_design_last for a grid-shaped /optimization/design_last;
  - at the first, middle and last time step (--all-steps: every step), each field written at that
    step is a cell array of the dataset, which has Mx*My[*Mz] cells (/grid/cells) and the domain
    box of /grid (lower, upper) as its bounds (ParaView puts a 2DCoRectMesh in its y-z plane: the run's
    x, y may come out as ParaView's y, z), and the array's minimum and maximum equal those of the
    HDF5 slice to --rtol relative (of the slice's magnitude), as does every value in C order;
  - at the last time step (no time for a run without /fields), the same for every gradient and
    parameter field, and each 1-D gradient or parameter array is field data with the same values.

With --png, one field (--field; default c, else the first of /fields, at the last time, else the
first gradient or parameter field) is rendered as a 2-D view of the whole domain with a colour bar
named after it (diverging colour map symmetric about zero for gradients, as adjsim_plot_fields.py
does, viridis otherwise) into a PNG of --png-size pixels. Debian's ParaView renders through X11 only: without a
display, run it under xvfb-run (Debian packages xvfb and xauth), e.g.

  xvfb-run -a -s "-screen 0 1280x1024x24" pvpython postprocess/adjsim_paraview_check.py \\
      runs/demo/demo-observations.h5 --png c.png --png-size 900x600
  pvpython postprocess/adjsim_paraview_check.py run.h5 --all-steps      # checks only, no display
  pvpython postprocess/adjsim_paraview_check.py run.h5 --xmf edited.xmf --reader xdmf2

With --particles the particle XDMF of an MPM run is checked instead (default <stem>-particles.xmf: a
temporal collection of Polyvertex grids whose HyperSlabs select one output step of each /particles
dataset; docs/mpm.md "Output"), at the first, middle and last output step (--all-steps: every step):

  - the reader's time steps equal /fields/time (to --rtol relative);
  - the point arrays the reader announces, and those of each step's dataset, are exactly the
    /particles datasets other than position, each with its number of components (F, stress: 4;
    velocity: 2; J, E, nu, rho, label, volume: 1);
  - the dataset has N points (N = the particle count of /particles/position) and N vertex cells, cell
    p holding point p (ParaView draws only the points of cells);
  - the point coordinates equal /particles/position of that step (x, y; z exactly 0) and every array
    the HDF5 slice, each to --rtol of the slice's largest magnitude; the largest difference found per
    array is printed.

Its --png draws the particles of the last output step (--time: the nearest one) as round dots about one
particle wide (sqrt of the median /particles/volume), in the domain box of /grid, coloured by --field:
von_mises (default; sqrt(sxx^2 - sxx syy + syy^2 + 3 sxy^2) of the Cauchy stress, plane stress, as
adjsim_plot_particles.py), pressure (-(sxx + syy)/2, diverging map), a scalar /particles array, or
<name>_magnitude of stress, F or velocity (the Euclidean norm of all components, ParaView's
"Magnitude"). The XDMF3 readers (--reader xdmf3s, xdmf3t) of ParaView 5.11 crash (SIGSEGV) on the
particle file's HyperSlab geometry; the default XDMFReader reads it.

  xvfb-run -a -s "-screen 0 1280x1024x24" pvpython postprocess/adjsim_paraview_check.py run.h5 \\
      --particles --all-steps --png particles.png --field stress_magnitude

If h5py cannot be imported in ParaView's Python, the script fails unless --xmf-only is given: then the
expected time steps and array names (and with --particles the particle count and components) come from
the .xmf itself and no values are compared.

Prints what it checked and exits 0; on any mismatch prints one line per problem (reader, time, array,
expected and found) and exits 1; 2 for bad options.
"""
import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # keep postprocess/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

READERS = {  # --reader choice -> paraview.simple proxy name, the property that takes the file name
    "xdmf3s": ("Xdmf3ReaderS", "FileName"),
    "xdmf3t": ("Xdmf3ReaderT", "FileName"),
    "xdmf2": ("XDMFReader", "FileNames"),
}
AUTO_ORDER = ("xdmf2", "xdmf3s", "xdmf3t")


class CheckError(Exception):
    """A problem that stops the check (missing file, no reader, bad option)."""


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", metavar="RUN.h5", help="the adjsim run file")
    ap.add_argument("--xmf", help="the XDMF file to open (default: RUN's stem + .xmf, with --particles "
                                  "RUN's stem + -particles.xmf)")
    ap.add_argument("--particles", action="store_true",
                    help="check the particle XDMF of an MPM run (<stem>-particles.xmf) against /particles "
                         "instead of the grid XDMF against /fields")
    ap.add_argument("--reader", choices=("auto",) + AUTO_ORDER, default="auto",
                    help="ParaView reader: auto (XDMFReader, the one adjsim files are written for; else Xdmf3ReaderS, else Xdmf3ReaderT; default), "
                         "xdmf3s, xdmf3t or xdmf2")
    ap.add_argument("--all-steps", action="store_true",
                    help="check every time step (default: the first, middle and last)")
    ap.add_argument("--rtol", type=float, default=1e-12,
                    help="relative tolerance of times, ranges and values (default 1e-12)")
    ap.add_argument("--png", help="render a field into this PNG file")
    ap.add_argument("--png-size", default="900x600", metavar="WxH", help="PNG size in pixels (default 900x600)")
    ap.add_argument("--field", help="array to render: a /fields name (e.g. c) or gradient_<name>, "
                                    "parameter_<name> (default: the first field, else the first gradient or "
                                    "parameter field); with --particles von_mises (default), pressure, a "
                                    "scalar /particles name (J, E, nu, rho, label, volume) or <name>_magnitude "
                                    "(stress, F, velocity; the bare name means the same)")
    ap.add_argument("--time", type=float, help="time to render a /fields array or the particles at (the "
                                               "nearest output step; default: the last)")
    ap.add_argument("--xmf-only", action="store_true",
                    help="without h5py: take the expected times and names from the .xmf, compare no values")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.png_size.lower().split("x"))
        if w < 100 or h < 100:
            raise ValueError
        args.png_size = (w, h)
    except ValueError:
        ap.error(f"--png-size must be WxH with W, H >= 100, got {args.png_size!r}")
    if args.rtol < 0:
        ap.error("--rtol must be >= 0")
    return args


# ---------------------------------------------------------------------------------------------
# What the run file says


class Expected:
    """What ParaView should show: times, grid, and per array name its kind and data."""

    def __init__(self):
        self.times = []        # /fields/time
        self.cells = []        # x first
        self.lower = []
        self.upper = []
        self.length_units = "m"
        self.fields = {}       # name -> (array (n, [Mz,] My, Mx) or None, units)
        self.cell_data = {}    # gradient_/parameter_/optimization_ name -> (array ([Mz,] My, Mx) or None, units)
        self.field_data = {}   # gradient_/parameter_ name of a 1-D array -> (array (n,) or None, units)
        self.values = True     # False with --xmf-only: names and times only
        self.xmf_written = {}  # --xmf-only: field name -> output steps the .xmf lists it at

    @property
    def ncells(self):
        return int(math.prod(self.cells))

    def field_written(self, name, k):
        data = self.fields[name][0]
        if data is None:
            return k in self.xmf_written.get(name, ())
        return k < data.shape[0] and not bool(_np().all(_np().isnan(data[k])))


def _np():
    import numpy
    return numpy


def expected_from_h5(path):
    import adjsim_h5 as ah  # imports h5py and numpy
    np = _np()
    e = Expected()
    try:
        f = ah.open_run(path)
    except ah.RunFileError as err:
        raise CheckError(str(err)) from None
    with f:
        if "grid" not in f:
            raise CheckError(f"{path}: no /grid group")
        g = f["grid"].attrs
        e.cells = [int(c) for c in g["cells"]]
        e.lower = [float(v) for v in g["lower"]]
        e.upper = [float(v) for v in g["upper"]]
        e.length_units = ah.text(g.get("units", "m"))
        shape = tuple(reversed(e.cells))
        if "fields" in f:
            e.times = [float(t) for t in f["fields/time"][()]] if "time" in f["fields"] else []
            for name, ds in f["fields"].items():
                if name in ("step", "time"):
                    continue
                e.fields[name] = (np.asarray(ds[()], dtype=float), ah.text(ds.attrs.get("units", "1")))
        for group, prefix in (("gradients", "gradient_"), ("parameters", "parameter_")):
            if group not in f:
                continue
            for name, ds in f[group].items():
                units = ah.text(ds.attrs.get("units", "1"))
                if ds.shape == shape:
                    e.cell_data[prefix + name] = (np.asarray(ds[()], dtype=float), units)
                elif len(ds.shape) == 1:
                    e.field_data[prefix + name] = (np.asarray(ds[()], dtype=float), units)
        if "optimization" in f and "design_last" in f["optimization"]:
            ds = f["optimization/design_last"]
            if ds.shape == shape:
                e.cell_data["optimization_design_last"] = (np.asarray(ds[()], dtype=float), "1")
    return e


def expected_from_xmf(path):
    """--xmf-only: times and names as the .xmf itself lists them (nothing is compared to HDF5)."""
    e = Expected()
    e.values = False
    meshes = []

    def uniform(grid, k):  # k: output step in the temporal collection, None outside it
        if grid.find("Topology") is not None:
            meshes.append(grid)
        for att in grid.findall("Attribute"):
            name = att.get("Name")
            if k is not None:
                e.fields.setdefault(name, (None, "1"))
                e.xmf_written.setdefault(name, set()).add(k)
            elif att.get("Center") == "Grid":
                e.field_data[name] = (None, "1")
            else:
                e.cell_data[name] = (None, "1")

    try:
        domain = ET.parse(path).getroot().find("Domain")
        for grid in domain.findall("Grid"):
            if grid.get("CollectionType") == "Temporal":
                for k, step in enumerate(grid.findall("Grid")):
                    e.times.append(float(step.find("Time").get("Value")))
                    uniform(step, k)
            elif grid.get("GridType") == "Collection":
                for sub in grid.findall("Grid"):
                    uniform(sub, None)
            else:
                uniform(grid, None)
        points = [int(v) for v in meshes[0].find("Topology").get("Dimensions").split()][::-1]  # x first
        items = {d.get("Name"): [float(v) for v in d.text.split()][::-1]
                 for d in meshes[0].find("Geometry").findall("DataItem")}
        e.cells = [p - 1 for p in points]
        e.lower = items["Origin"]
        e.upper = [o + c * s for o, c, s in zip(items["Origin"], e.cells, items["Spacing"])]
    except (OSError, ET.ParseError, AttributeError, IndexError, KeyError, ValueError) as err:
        raise CheckError(f"{path}: cannot take the grid, times and names from it ({err!r})") from None
    return e


# ---------------------------------------------------------------------------------------------
# ParaView side


def open_reader(xmf, choice):
    import paraview.simple as pvs
    names = AUTO_ORDER if choice == "auto" else (choice,)
    for key in names:
        proxy, prop = READERS[key]
        if hasattr(pvs, proxy):
            # An absolute path: ParaView 5.11's XDMF3 reader joins a bare file name's (empty) directory
            # wrongly and looks for the HDF5 file as "<name>.xmf<run>.h5".
            return proxy, getattr(pvs, proxy)(**{prop: [os.path.abspath(xmf)]})
    raise CheckError(f"this ParaView has no {' / '.join(READERS[k][0] for k in names)} reader")


def reader_times(reader):
    v = reader.TimestepValues
    if v is None:
        return []
    if isinstance(v, (int, float)):
        return [float(v)]
    return [float(t) for t in v]


def reader_cell_arrays(reader):
    for prop in ("CellArrays", "CellArrayStatus"):
        if prop in reader.ListProperties():
            return [str(n) for n in getattr(reader, prop)]
    return []


def output_at(reader, time):
    """The reader's output data object (builtin session) at time (None: no time)."""
    if time is None:
        reader.UpdatePipeline()
    else:
        reader.UpdatePipeline(time)
    return reader.GetClientSideObject().GetOutputDataObject(0)


def leaves(obj):
    """The datasets of a (possibly composite) output."""
    if obj is None:
        return []
    if not obj.IsA("vtkCompositeDataSet"):
        return [obj] if obj.IsA("vtkDataSet") else []
    out = []
    it = obj.NewIterator()
    it.SetSkipEmptyNodes(True)
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        d = it.GetCurrentDataObject()
        if d is not None and d.IsA("vtkDataSet"):
            out.append(d)
        it.GoToNextItem()
    return out


def describe(datasets):
    parts = []
    for d in datasets:
        cd = d.GetCellData()
        names = [cd.GetArrayName(i) for i in range(cd.GetNumberOfArrays())]
        parts.append(f"{d.GetClassName()} with {d.GetNumberOfCells()} cells, cell arrays {names}")
    return "; ".join(parts) if parts else "no dataset at all"


def to_numpy(arr):
    from vtkmodules.util.numpy_support import vtk_to_numpy
    return _np().array(vtk_to_numpy(arr), dtype=float).ravel()


class Checker:
    def __init__(self, args, exp, reader_name):
        self.args = args
        self.exp = exp
        self.reader_name = reader_name
        self.problems = []
        self.checked = 0
        self.orientation = None  # ParaView's axes spanned by the data: the run's x, y, (z) first

    def fail(self, where, message):
        self.problems.append(f"{self.reader_name}, {where}: {message}")

    def close(self, a, b, scale):
        return abs(a - b) <= self.args.rtol * max(abs(scale), abs(a), abs(b)) or a == b

    def check_geometry(self, ds, where):
        exp = self.exp
        if ds.GetNumberOfCells() != exp.ncells:
            self.fail(where, f"dataset has {ds.GetNumberOfCells()} cells, expected "
                             f"{' x '.join(map(str, exp.cells))} = {exp.ncells} (/grid/cells)")
            return False
        b = ds.GetBounds()
        size = max(u - lo for lo, u in zip(exp.lower, exp.upper))
        axes = [a for a in range(3) if b[2 * a + 1] - b[2 * a] > 1e-12 * size]
        if len(axes) < len(exp.cells):
            self.fail(where, f"dataset bounds {b} span {len(axes)} axes, the grid has {len(exp.cells)}")
            return False
        ok = True
        for a, vtk_axis in enumerate(axes[:len(exp.cells)]):
            lo, hi = b[2 * vtk_axis], b[2 * vtk_axis + 1]
            if not (self.close(lo, exp.lower[a], size) and self.close(hi, exp.upper[a], size)):
                self.fail(where, f"the run's {'xyz'[a]} axis is ParaView's {'XYZ'[vtk_axis]} axis with bounds "
                                 f"[{lo!r}, {hi!r}], expected /grid [{exp.lower[a]!r}, {exp.upper[a]!r}]")
                ok = False
        if ok and ds.IsA("vtkImageData"):
            dims = ds.GetDimensions()
            got = [dims[v] - 1 for v in axes[:len(exp.cells)]]
            if got != exp.cells:
                self.fail(where, f"image has {got} cells along the run's axes, expected {exp.cells}")
                ok = False
        if ok:
            self.orientation = axes
        return ok

    def check_cell_array(self, datasets, name, data, where):
        """data: the HDF5 values of this array (C order) or None (--xmf-only)."""
        hits = [(d, d.GetCellData().GetArray(name)) for d in datasets if d.GetCellData().GetArray(name)]
        if not hits:
            self.fail(where, f"cell array {name!r} is missing ({describe(datasets)})")
            return None
        if len(hits) > 1:
            self.fail(where, f"cell array {name!r} is in {len(hits)} datasets, expected one")
            return None
        ds, arr = hits[0]
        if not self.check_geometry(ds, f"{where}, dataset of {name!r}"):
            return None
        if arr.GetNumberOfComponents() != 1 or arr.GetNumberOfTuples() != self.exp.ncells:
            self.fail(where, f"cell array {name!r} has {arr.GetNumberOfTuples()} tuples x "
                             f"{arr.GetNumberOfComponents()} components, expected {self.exp.ncells} x 1")
            return None
        self.checked += 1
        if data is None:
            return ds
        np = _np()
        got = to_numpy(arr)
        want = np.asarray(data, dtype=float).ravel()
        scale = float(np.nanmax(np.abs(want))) if np.any(np.isfinite(want)) else 0.0
        gmin, gmax = float(np.nanmin(got)), float(np.nanmax(got))
        wmin, wmax = float(np.nanmin(want)), float(np.nanmax(want))
        if not (self.close(gmin, wmin, scale) and self.close(gmax, wmax, scale)):
            self.fail(where, f"cell array {name!r} has range [{gmin!r}, {gmax!r}], "
                             f"the HDF5 data [{wmin!r}, {wmax!r}]")
            return None
        bad = ~(np.abs(got - want) <= self.args.rtol * max(scale, 1e-300)) & ~(np.isnan(got) & np.isnan(want))
        if np.any(bad):
            i = int(np.argmax(bad))
            self.fail(where, f"cell array {name!r}: {int(bad.sum())} of {got.size} values differ from the HDF5 "
                             f"data in C order (first at cell {i}: {got[i]!r} vs {want[i]!r}; transposed?)")
            return None
        return ds

    def check_field_data(self, datasets, name, data, where):
        hits = [d.GetFieldData().GetAbstractArray(name) for d in datasets
                if d.GetFieldData().GetAbstractArray(name) is not None]
        if not hits:
            self.fail(where, f"field-data array {name!r} is missing ({describe(datasets)})")
            return
        arr = hits[0]
        n = arr.GetNumberOfTuples() * arr.GetNumberOfComponents()
        self.checked += 1
        if data is None:
            return
        if n != data.size:
            self.fail(where, f"field-data array {name!r} has {n} values, expected {data.size}")
            return
        np = _np()
        got = to_numpy(arr)
        scale = float(np.max(np.abs(data))) if data.size else 0.0
        if not all(self.close(float(a), float(b), scale) for a, b in zip(got, data.ravel())):
            self.fail(where, f"field-data array {name!r} is {got.tolist()}, the HDF5 data {data.ravel().tolist()}")


def hints(xmf, reader_name, problems):
    """Known ways ParaView 5.11's XDMF readers misread an .xmf, when the problems look like them."""
    try:
        with open(xmf, encoding="utf-8") as fh:
            xml = fh.read()
        domain = ET.fromstring(xml).find("Domain")
    except (OSError, ET.ParseError):
        return []
    text = "\n".join(problems)
    out = []
    hyperslab = 'ItemType="HyperSlab"' in xml
    temporal = [g for g in domain.findall("Grid") if g.get("CollectionType") == "Temporal"]
    siblings = [g.get("Name") for g in domain.findall("Grid") if g.get("GridType", "Uniform") == "Uniform"]
    if reader_name.startswith("Xdmf3") and hyperslab and "is missing" in text:
        out.append("the XDMF3 reader does not read DataItems with ItemType=\"HyperSlab\" (it lists the "
                   "attribute, then prints 'Skipping unrecognized array type [None]' and leaves it out); "
                   "XDMF3's own form of a slice is a plain HDF DataItem, e.g. Dimensions=\"My Mx\" "
                   "holding 'run.h5:/fields/c|k 0 0:1 1 1:1 My Mx:n My Mx' (start:stride:count:dataset dims)")
    if reader_name.startswith("Xdmf3") and len(temporal) == 1 and siblings and \
            ("with 0 cells" in text or "gradient" in text or "parameter" in text):
        out.append(f"the Domain holds one Temporal collection and the Uniform grid(s) {siblings} beside it: the "
                   "XDMF3 reader then makes a single (non-multiblock) dataset from the collection, drops the "
                   "sibling grid, and at a time both have returns an empty dataset; with a second collection in "
                   "the Domain (e.g. the sibling grid inside a Spatial collection) the output is a multiblock "
                   "holding both")
    if reader_name == "XDMFReader" and hyperslab and "tuples" in text:
        out.append("the XDMF2 reader misreads a HyperSlab whose Dimensions have a rank other than the "
                   "topology's cells (\"1 My Mx\" on a 2DCoRectMesh); Dimensions=\"My Mx\" reads correctly")
    return out


def steps_to_check(nt, all_steps):
    if all_steps:
        return list(range(nt))
    return sorted({0, nt // 2, nt - 1}) if nt else []


def open_and_check_times(args, xmf, exp, checker_class):
    """Open the .xmf, make the checker, and compare the reader's time steps with /fields/time."""
    proxy, reader = open_reader(xmf, args.reader)
    print(f"{os.path.basename(xmf)}: opened with ParaView's {proxy}")
    chk = checker_class(args, exp, proxy)
    times = reader_times(reader)
    if len(times) != len(exp.times) or not all(chk.close(a, b, max(map(abs, exp.times)))
                                               for a, b in zip(times, exp.times)):
        chk.fail("time steps", f"{len(times)} steps {times}, expected /fields/time ({len(exp.times)} steps) "
                               f"{exp.times}")
    else:
        print(f"  time steps: {len(times)}, equal to /fields/time")
    return reader, chk


def run_checks(args, xmf, exp):
    reader, chk = open_and_check_times(args, xmf, exp, Checker)

    announced = set(reader_cell_arrays(reader))
    expected_names = {n for n in exp.fields if any(exp.field_written(n, k) for k in range(len(exp.times)))}
    expected_names |= set(exp.cell_data)
    if announced != expected_names:
        missing, extra = sorted(expected_names - announced), sorted(announced - expected_names)
        chk.fail("cell arrays listed by the reader",
                 f"{sorted(announced)}; missing {missing}, unexpected {extra}")
    else:
        print(f"  cell arrays listed: {sorted(announced)}")

    render_source = {}
    for k in steps_to_check(len(exp.times), args.all_steps):
        t = exp.times[k]
        where = f"t = {t!r} (output step {k})"
        datasets = leaves(output_at(reader, t))
        for name, (data, _) in exp.fields.items():
            if not exp.field_written(name, k):
                continue
            ds = chk.check_cell_array(datasets, name, None if data is None else data[k], where)
            if ds is not None:
                render_source[(name, k)] = ds.NewInstance()
                render_source[(name, k)].DeepCopy(ds)
    if exp.fields:
        print(f"  fields {sorted(exp.fields)} checked at output steps {steps_to_check(len(exp.times), args.all_steps)}")

    if exp.cell_data or exp.field_data:
        t = exp.times[-1] if exp.times else None
        where = "gradients/parameters" + (f" at t = {t!r}" if t is not None else "")
        datasets = leaves(output_at(reader, t))
        for name, (data, _) in sorted(exp.cell_data.items()):
            ds = chk.check_cell_array(datasets, name, data, where)
            if ds is not None:
                render_source[(name, None)] = ds.NewInstance()
                render_source[(name, None)].DeepCopy(ds)
        for name, (data, _) in sorted(exp.field_data.items()):
            chk.check_field_data(datasets, name, data, where)
        print(f"  gradients/parameters: {len(exp.cell_data)} cell arrays, {len(exp.field_data)} field-data arrays")
    return chk, render_source


# ---------------------------------------------------------------------------------------------
# Particles (--particles): <stem>-particles.xmf of an MPM run


class ParticleExpected:
    """What ParaView should show of the particle XDMF: times, N points at /particles/position, and the
    other /particles datasets as point arrays."""

    def __init__(self):
        self.times = []        # /fields/time
        self.n = 0             # particle count N
        self.position = None   # (nt, N, 2) or None (--xmf-only)
        self.arrays = {}       # name -> (data (nt, N, ncomp) or None, units, ncomp)
        self.cells = [0, 0]    # /grid, for the camera of --png (the domain box)
        self.lower = None
        self.upper = None
        self.length_units = "m"
        self.values = True


def expected_particles_from_h5(path):
    import adjsim_h5 as ah
    np = _np()
    e = ParticleExpected()
    try:
        f = ah.open_run(path)
    except ah.RunFileError as err:
        raise CheckError(str(err)) from None
    with f:
        if "particles" not in f or "position" not in f["particles"]:
            raise CheckError(f"{path}: no /particles/position: not the run file of an MPM run with output")
        e.times = [float(t) for t in f["fields/time"][()]] if "fields" in f and "time" in f["fields"] else []
        if "grid" in f:
            g = f["grid"].attrs
            e.cells = [int(c) for c in g["cells"]]
            e.lower = [float(v) for v in g["lower"]]
            e.upper = [float(v) for v in g["upper"]]
            e.length_units = ah.text(g.get("units", "m"))
        pos = f["particles/position"]
        if pos.ndim != 3 or pos.shape[2] != 2:
            raise CheckError(f"{path}: /particles/position has shape {pos.shape}, expected (nt, N, 2)")
        e.n = int(pos.shape[1])
        e.position = np.asarray(pos[()], dtype=float)
        for name, ds in f["particles"].items():
            if not isinstance(ds, ah.h5py.Dataset):
                continue
            if ds.shape[:2] != pos.shape[:2] or ds.ndim not in (2, 3):
                raise CheckError(f"{path}: /particles/{name} has shape {ds.shape}, expected "
                                 f"({pos.shape[0]}, {pos.shape[1]}[, ncomp]) like /particles/position")
            if name == "position":
                continue
            data = np.asarray(ds[()], dtype=float)
            e.arrays[name] = (data.reshape(data.shape[0], data.shape[1], -1), ah.text(ds.attrs.get("units", "1")),
                              1 if ds.ndim == 2 else int(ds.shape[2]))
        if len(e.times) != pos.shape[0]:
            raise CheckError(f"{path}: /particles holds {pos.shape[0]} output steps, /fields/time {len(e.times)}")
    return e


def expected_particles_from_xmf(path):
    """--particles --xmf-only: times, N, array names and components as the .xmf lists them."""
    e = ParticleExpected()
    e.values = False
    try:
        domain = ET.parse(path).getroot().find("Domain")
        steps = [g for c in domain.findall("Grid") if c.get("CollectionType") == "Temporal"
                 for g in c.findall("Grid")]
        for step in steps:
            e.times.append(float(step.find("Time").get("Value")))
        first = steps[0]
        e.n = int(first.find("Topology").get("NumberOfElements"))
        for att in first.findall("Attribute"):
            dims = att.find("DataItem").get("Dimensions").split()
            e.arrays[att.get("Name")] = (None, "1", int(dims[1]) if len(dims) > 1 else 1)
    except (OSError, ET.ParseError, AttributeError, IndexError, TypeError, ValueError) as err:
        raise CheckError(f"{path}: cannot take the times, particle count and names from it ({err!r})") from None
    return e


def reader_point_arrays(reader):
    for prop in ("PointArrays", "PointArrayStatus"):
        if prop in reader.ListProperties():
            return [str(n) for n in getattr(reader, prop)]
    return []


class ParticleChecker(Checker):
    def __init__(self, args, exp, reader_name):
        super().__init__(args, exp, reader_name)
        self.orientation = [0, 1]   # ParaView's X, Y are the run's x, y (XY geometry, z = 0)
        self.max_diff = {}          # array name -> largest |ParaView - HDF5| / max |HDF5 slice| seen

    def compare(self, where, key, what, got, want):
        """got, want: (N, ncomp); records the largest relative difference under key, fails above --rtol."""
        np = _np()
        scale = float(np.nanmax(np.abs(want))) if np.any(np.isfinite(want)) else 0.0
        both_nan = np.isnan(got) & np.isnan(want)
        diff = np.where(both_nan, 0.0, np.abs(got - want))
        top = float(np.max(diff, initial=0.0))
        rel = top / scale if scale > 0 else top
        self.max_diff[key] = max(self.max_diff.get(key, 0.0), rel)
        bad = ~(diff <= self.args.rtol * max(scale, 1e-300))
        if np.any(bad):
            p, c = (int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
            self.fail(where, f"{what}: {int(bad.any(axis=1).sum())} of {got.shape[0]} particles differ from the HDF5 "
                             f"slice (first: particle {p}, component {c}: {got[p, c]!r} vs {want[p, c]!r}; "
                             f"largest difference {rel:.3g} of max |HDF5| {scale:.6g}, --rtol {self.args.rtol:g})")
            return False
        return True

    def check_step(self, datasets, k, where):
        """The dataset of output step k: N points at /particles/position[k], one vertex cell per particle,
        and exactly the expected point arrays with the HDF5 values.  Returns the dataset or None."""
        np = _np()
        exp = self.exp
        if len(datasets) != 1:
            self.fail(where, f"expected one dataset of particles, got {describe(datasets)}")
            return None
        ds = datasets[0]
        if ds.GetNumberOfPoints() != exp.n:
            self.fail(where, f"dataset has {ds.GetNumberOfPoints()} points, expected the particle count N = {exp.n}")
            return None
        # Every particle must be a vertex cell of its own: a point no cell references is not drawn.
        ok = True
        cells = ds.GetCells() if ds.IsA("vtkUnstructuredGrid") else None
        if ds.GetNumberOfCells() != exp.n or cells is None:
            self.fail(where, f"{ds.GetClassName()} has {ds.GetNumberOfCells()} cells, expected N = {exp.n} vertex "
                             f"cells (Polyvertex, one particle each): ParaView draws only the points of cells")
            ok = False
        else:
            conn = to_numpy(cells.GetConnectivityArray())
            offsets = to_numpy(cells.GetOffsetsArray())
            if not (np.array_equal(conn, np.arange(exp.n)) and np.array_equal(offsets, np.arange(exp.n + 1))):
                self.fail(where, "the cells are not one vertex per particle in the order of the points")
                ok = False
        if exp.position is not None:
            pts = to_numpy(ds.GetPoints().GetData()).reshape(-1, 3)
            ok &= self.compare(where, "position", "point coordinates (x, y)", pts[:, :2], exp.position[k])
            if np.any(pts[:, 2] != 0.0):
                self.fail(where, f"point z is not 0 (max |z| = {float(np.max(np.abs(pts[:, 2])))!r})")
                ok = False
        pd = ds.GetPointData()
        present = {pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())}
        if present != set(exp.arrays):
            self.fail(where, f"point arrays {sorted(present)}, expected the /particles datasets other than position "
                             f"{sorted(exp.arrays)}: missing {sorted(set(exp.arrays) - present)}, "
                             f"unexpected {sorted(present - set(exp.arrays))}")
            ok = False
        for name, (data, _, ncomp) in sorted(exp.arrays.items()):
            arr = pd.GetArray(name)
            if arr is None:
                continue
            if arr.GetNumberOfComponents() != ncomp or arr.GetNumberOfTuples() != exp.n:
                self.fail(where, f"point array {name!r} has {arr.GetNumberOfTuples()} tuples x "
                                 f"{arr.GetNumberOfComponents()} components, expected {exp.n} x {ncomp}")
                ok = False
                continue
            self.checked += 1
            if data is not None:
                ok &= self.compare(where, name, f"point array {name!r}", to_numpy(arr).reshape(exp.n, ncomp), data[k])
        return ds if ok else None


def run_particle_checks(args, xmf, exp):
    reader, chk = open_and_check_times(args, xmf, exp, ParticleChecker)

    announced = set(reader_point_arrays(reader))
    if announced != set(exp.arrays):
        chk.fail("point arrays listed by the reader",
                 f"{sorted(announced)}; missing {sorted(set(exp.arrays) - announced)}, "
                 f"unexpected {sorted(announced - set(exp.arrays))}")
    else:
        print(f"  point arrays listed: {', '.join(f'{n} ({exp.arrays[n][2]})' for n in sorted(announced))}")

    sources = {}
    steps = steps_to_check(len(exp.times), args.all_steps)
    for k in steps:
        where = f"t = {exp.times[k]!r} (output step {k})"
        ds = chk.check_step(leaves(output_at(reader, exp.times[k])), k, where)
        if ds is not None:
            sources[k] = ds.NewInstance()
            sources[k].DeepCopy(ds)
    print(f"  {exp.n} particles (points and vertex cells), positions and {len(exp.arrays)} point arrays checked "
          f"at output steps {steps}")
    if chk.max_diff:
        worst = max(chk.max_diff, key=chk.max_diff.get)
        print(f"  largest |ParaView - HDF5| / max |HDF5 slice| over the steps checked: {chk.max_diff[worst]:.3g} "
              f"({worst}; --rtol {args.rtol:g}); per array: "
              + ", ".join(f"{n} {v:.3g}" for n, v in sorted(chk.max_diff.items())))
    return chk, sources


# Colour fields of the particle PNG beyond the point arrays themselves: name -> (units, function of the
# (N, 4) row-major Cauchy stress), as postprocess/adjsim_plot_particles.py defines them.
def _von_mises(s):
    sxx, sxy, syy = s[:, 0], 0.5 * (s[:, 1] + s[:, 2]), s[:, 3]
    return _np().sqrt(sxx * sxx - sxx * syy + syy * syy + 3 * sxy * sxy)


STRESS_FIELDS = {
    "von_mises": _von_mises,                              # plane stress, sigma_zz = 0
    "pressure": lambda s: -0.5 * (s[:, 0] + s[:, 3]),     # -(sxx + syy)/2
}


def particle_field_names(exp):
    names = sorted(exp.arrays) + [f"{n}_magnitude" for n in sorted(exp.arrays) if exp.arrays[n][2] > 1]
    return (sorted(STRESS_FIELDS) if "stress" in exp.arrays else []) + names


def pick_particle_field(args, exp):
    """--field for particles: von_mises (default), pressure, a scalar point array, <array>_magnitude for a
    multi-component one (a bare multi-component name means its magnitude).  Returns (name, units, k)."""
    name = args.field or ("von_mises" if "stress" in exp.arrays else sorted(exp.arrays)[0])
    if name in exp.arrays and exp.arrays[name][2] > 1:
        name += "_magnitude"
    if name not in particle_field_names(exp):
        raise CheckError(f"--field {name!r}: not a particle field; choose one of {particle_field_names(exp)}")
    if name in STRESS_FIELDS:
        units = exp.arrays["stress"][1]
    else:
        units = exp.arrays[name[:-len("_magnitude")] if name.endswith("_magnitude") else name][1]
    if not exp.times:
        raise CheckError("--png: the run has no output step")
    k = len(exp.times) - 1 if args.time is None else \
        min(range(len(exp.times)), key=lambda i: abs(exp.times[i] - args.time))
    return name, units, k


def add_particle_field(ds, name):
    """Adds the scalar point array `name` (derived from the point arrays) to ds unless it has it."""
    from vtkmodules.util.numpy_support import numpy_to_vtk
    np = _np()
    pd = ds.GetPointData()
    if pd.GetArray(name) is not None and pd.GetArray(name).GetNumberOfComponents() == 1:
        return
    if name in STRESS_FIELDS:
        values = STRESS_FIELDS[name](to_numpy(pd.GetArray("stress")).reshape(-1, 4))
    else:
        base = pd.GetArray(name[:-len("_magnitude")])
        values = np.linalg.norm(to_numpy(base).reshape(-1, base.GetNumberOfComponents()), axis=1)
    arr = numpy_to_vtk(np.ascontiguousarray(values, dtype=float), deep=1)
    arr.SetName(name)
    pd.AddArray(arr)


# ---------------------------------------------------------------------------------------------
# Rendering


def pick_field(args, exp):
    if args.field:
        name = args.field
        if name not in exp.fields and name not in exp.cell_data:
            raise CheckError(f"--field {name!r}: not a field ({sorted(exp.fields)}) nor a gradient/parameter "
                             f"field ({sorted(exp.cell_data)})")
    elif exp.fields:
        name = sorted(exp.fields)[0] if "c" not in exp.fields else "c"
    elif exp.cell_data:
        name = sorted(exp.cell_data)[0]
    else:
        raise CheckError("--png: the run has no field to render")
    if name in exp.fields:
        if not exp.times:
            raise CheckError(f"--png: field {name!r} has no time steps")
        if args.time is None:
            k = max(k for k in range(len(exp.times)) if exp.field_written(name, k))
        else:
            k = min(range(len(exp.times)), key=lambda i: abs(exp.times[i] - args.time))
        return name, k, exp.fields[name][1]
    return name, None, exp.cell_data[name][1]


def check_display():
    """Debian's ParaView renders through X11 (vtkXOpenGLRenderWindow): say so instead of aborting."""
    from vtkmodules.vtkRenderingCore import vtkRenderWindow
    import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (registers the OpenGL render window)
    rw = vtkRenderWindow()
    if rw.GetClassName() == "vtkXOpenGLRenderWindow" and not os.environ.get("DISPLAY"):
        raise CheckError("this ParaView renders through X11 and DISPLAY is not set: run under "
                         "xvfb-run -a -s '-screen 0 1280x1024x24' (Debian packages xvfb, xauth)")


def render(args, exp, name, k, units, ds, run_path, association="CELLS", box=None, point_size=None):
    """Renders the array `name` of ds (its cells, or with association "POINTS" its points drawn as
    round dots of point_size pixels) in a 2-D view of ds's bounds, or of box (xmin, xmax, ymin, ymax,
    zmin, zmax) when given."""
    import paraview.simple as pvs
    from paraview import servermanager as sm
    np = _np()
    import adjsim_h5 as ah

    check_display()
    producer = sm.sources.PVTrivialProducer()
    producer.GetClientSideObject().SetOutput(ds)
    producer.UpdatePipeline()

    w, h = args.png_size
    view = pvs.CreateView("RenderView")
    view.ViewSize = [w, h]
    view.OrientationAxesVisibility = 0
    if "UseColorPaletteForBackground" in view.ListProperties():
        view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    black = [0.0, 0.0, 0.0]

    disp = pvs.Show(producer, view)
    if association == "POINTS":
        disp.Representation = "Points"
        disp.PointSize = point_size or 4.0
        if "RenderPointsAsSpheres" in disp.ListProperties():
            disp.RenderPointsAsSpheres = 1
        values = to_numpy(ds.GetPointData().GetArray(name))
    else:
        disp.Representation = "Surface"
        values = to_numpy(ds.GetCellData().GetArray(name))
    pvs.ColorBy(disp, (association, name))
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    lut = pvs.GetColorTransferFunction(name)
    signed = bool(ah.SIGNED_NAMES.search(name)) or name == "pressure"  # as adjsim_plot_fields.py
    if signed:
        lut.ApplyPreset("Cool to Warm", True)
        m = max(abs(lo), abs(hi)) or 1.0
        lo, hi = -m, m
    else:
        lut.ApplyPreset("Viridis (matplotlib)", True)
        if hi <= lo:
            hi = lo + (abs(lo) or 1.0) * 1e-6
    lut.RescaleTransferFunction(lo, hi)
    lut.AutomaticRescaleRangeMode = "Never"
    disp.SetScalarBarVisibility(view, True)
    bar = pvs.GetScalarBar(lut, view)
    bar.Title = name
    pu = ah.pretty_units(units).replace("$^{", "^").replace("}$", "")
    bar.ComponentTitle = f"[{pu}]" if pu else ""
    bar.TitleColor = black
    bar.LabelColor = black
    bar.TitleFontSize = 18
    bar.LabelFontSize = 15
    bar.RangeLabelFormat = "%-#.3g"
    bar.WindowLocation = "Any Location"
    bar.Orientation = "Vertical"
    bar.Position = [0.86, 0.12]
    bar.ScalarBarLength = 0.74

    when = f" at t = {exp.times[k]:.6g} s" if k is not None else ""
    title = pvs.Text(Text=f"{name}{when}    ({os.path.basename(run_path)})")
    tdisp = pvs.Show(title, view)
    tdisp.WindowLocation = "Upper Center"
    tdisp.FontSize = 20
    tdisp.Color = black

    # Camera: parallel projection looking along the axis the 2-D data does not span, the run's x to the
    # right and y up, the whole domain in view, left of the colour bar.
    b = box or ds.GetBounds()
    centre = [(b[2 * a] + b[2 * a + 1]) / 2 for a in range(3)]
    axes = args.orientation or [0, 1, 2][:len(exp.cells)]
    if len(axes) >= 2 and len(exp.cells) <= 2:
        xa, ya = axes[0], axes[1]
        normal = ({0, 1, 2} - {xa, ya}).pop()
        right = [0.0, 0.0, 0.0]
        right[xa] = 1.0
        up = [0.0, 0.0, 0.0]
        up[ya] = 1.0
        # the camera sits on the side where right x up points towards it
        cross = [right[1] * up[2] - right[2] * up[1], right[2] * up[0] - right[0] * up[2],
                 right[0] * up[1] - right[1] * up[0]]
        width, height = b[2 * xa + 1] - b[2 * xa], b[2 * ya + 1] - b[2 * ya]
        aspect = w / h
        frac_w, frac_h = 0.72, 0.76  # of the image, for the domain
        scale = max(height / (2 * frac_h), width / (2 * frac_w * aspect))  # half the visible height
        focal = list(centre)
        focal[xa] += 0.05 * 2 * scale * aspect  # domain left of centre, clear of the colour bar
        focal[ya] += 0.02 * 2 * scale           # and a little below, clear of the title
        dist = 4 * max(width, height)
        view.CameraParallelProjection = 1
        view.CameraFocalPoint = focal
        view.CameraPosition = [focal[i] + dist * cross[i] for i in range(3)]
        view.CameraViewUp = up
        view.CameraParallelScale = scale
        grid = view.AxesGrid
        grid.Visibility = 1
        grid.ShowGrid = 0
        if box is not None and "UseCustomBounds" in grid.ListProperties():  # axes around the whole box
            grid.UseCustomBounds = 1
            grid.CustomBounds = list(box)
        # (trailing blanks keep the left-hand title clear of its tick labels)
        titles = {xa: ah.with_units("x", exp.length_units), ya: ah.with_units("y", exp.length_units) + "      ",
                  normal: " "}
        grid.XTitle, grid.YTitle, grid.ZTitle = (titles[0].replace("$", ""), titles[1].replace("$", ""),
                                                 titles[2].replace("$", ""))
        grid.FacesToRender = [1, 2, 4][normal]  # min-YZ, min-ZX or min-XY: the plane of the data
        grid.AxesToLabel = (1 << xa) | (1 << ya)  # min-side edges only: x below, y on the left
        for axis_prop in ("XTitleColor", "YTitleColor", "ZTitleColor", "XLabelColor", "YLabelColor",
                          "ZLabelColor", "GridColor"):
            setattr(grid, axis_prop, black)
        grid.XTitleFontSize = grid.YTitleFontSize = grid.ZTitleFontSize = 16
        grid.XLabelFontSize = grid.YLabelFontSize = grid.ZLabelFontSize = 14
    else:
        view.CameraPosition = [1, 1, 1]
        view.CameraViewUp = [0, 0, 1]
        view.ResetCamera()
    out = os.path.abspath(args.png)
    pvs.SaveScreenshot(out, view, ImageResolution=[w, h], TransparentBackground=0)
    # Tear the view down now: left to interpreter exit (sys.exit), Debian's build dies of an X error
    # (GLXBadContext) with exit status 1 after the image is written.
    pvs.Delete(title)
    pvs.Delete(view)
    del view
    if not os.path.exists(out):
        raise CheckError(f"ParaView wrote no {out}")
    print(f"  rendered {name}{when} into {args.png} ({w}x{h})")


# ---------------------------------------------------------------------------------------------


def report_problems(xmf, chk):
    me = os.path.basename(sys.argv[0])
    for p in chk.problems:
        print(f"{me}: FAIL: {xmf}: {p}", file=sys.stderr)
    for hint in hints(xmf, chk.reader_name, chk.problems):
        print(f"{me}: hint: {hint}", file=sys.stderr)
    print(f"{me}: {len(chk.problems)} problem(s) reading {xmf} in ParaView", file=sys.stderr)


def check_particles(args, xmf, have_h5py):
    """--particles: check <stem>-particles.xmf against /particles, then render one particle field."""
    if have_h5py and not args.xmf_only:
        exp = expected_particles_from_h5(args.run)
    elif args.xmf_only:
        exp = expected_particles_from_xmf(xmf)
        print(f"{xmf}: --xmf-only: times, particle count and names from the .xmf, no values compared")
    else:
        raise CheckError(f"h5py cannot be imported in this Python ({sys.executable}): install python3-h5py, "
                         f"or pass --xmf-only to check names and times without values")
    if args.png:  # a bad --field fails before the checks run
        name, units, k = pick_particle_field(args, exp)
    chk, sources = run_particle_checks(args, xmf, exp)
    if chk.problems:
        report_problems(xmf, chk)
        return 1
    print(f"  OK: {chk.checked} point arrays checked")
    if not args.png:
        return 0
    ds = sources.get(k)
    if ds is None:  # a step the checks skipped
        ds = chk.check_step(leaves(output_at(open_reader(xmf, args.reader)[1], exp.times[k])), k,
                            f"t = {exp.times[k]!r} (output step {k})")
        if ds is None:
            report_problems(xmf, chk)
            return 1
    add_particle_field(ds, name)
    args.orientation = chk.orientation
    box = None
    if exp.lower is not None:  # the whole domain (the node grid's box), z = 0
        box = (exp.lower[0], exp.upper[0], exp.lower[1], exp.upper[1], 0.0, 0.0)
    render(args, exp, name, k, units, ds, args.run, association="POINTS", box=box,
           point_size=particle_point_size(args, exp, ds, box))
    return 0


def particle_point_size(args, exp, ds, box):
    """Dots about as wide as a particle: sqrt of the median initial volume (area per particle) in pixels
    of the domain as render() fits it (76 % of the height or 72 % of the width), at least 3 pixels."""
    np = _np()
    vol = ds.GetPointData().GetArray("volume")
    b = box or ds.GetBounds()
    width, height = b[1] - b[0], b[3] - b[2]
    w, h = args.png_size
    if vol is None or width <= 0 or height <= 0:
        return 4.0
    pixels_per_length = min(0.76 * h / height, 0.72 * w / width)
    return float(max(3.0, min(30.0, np.sqrt(np.median(to_numpy(vol))) * pixels_per_length)))


def main(argv):
    args = parse_args(argv)
    xmf = args.xmf or os.path.splitext(args.run)[0] + ("-particles.xmf" if args.particles else ".xmf")
    try:
        import paraview.simple  # noqa: F401
    except ImportError:
        print(f"{os.path.basename(sys.argv[0])}: error: run this script with ParaView's pvpython or pvbatch "
              f"(Debian package python3-paraview), not {sys.executable}", file=sys.stderr)
        return 1
    try:
        if not os.path.exists(xmf):
            raise CheckError(f"{xmf}: no such file (adjsim writes <stem>.xmf beside the run file at close)")
        try:
            import h5py  # noqa: F401
            have_h5py = True
        except ImportError:
            have_h5py = False
        if args.particles:
            return check_particles(args, xmf, have_h5py)
        if have_h5py and not args.xmf_only:
            exp = expected_from_h5(args.run)
        elif args.xmf_only:
            exp = expected_from_xmf(xmf)
            print(f"{xmf}: --xmf-only: times and names from the .xmf, no values compared")
        else:
            raise CheckError(f"h5py cannot be imported in this Python ({sys.executable}): install python3-h5py, "
                             f"or pass --xmf-only to check names and times without values")
        args.orientation = None
        chk, sources = run_checks(args, xmf, exp)
        args.orientation = chk.orientation
        if chk.problems:
            for p in chk.problems:
                print(f"{os.path.basename(sys.argv[0])}: FAIL: {xmf}: {p}", file=sys.stderr)
            for hint in hints(xmf, chk.reader_name, chk.problems):
                print(f"{os.path.basename(sys.argv[0])}: hint: {hint}", file=sys.stderr)
            print(f"{os.path.basename(sys.argv[0])}: {len(chk.problems)} problem(s) reading {xmf} in ParaView",
                  file=sys.stderr)
            return 1
        print(f"  OK: {chk.checked} arrays checked")
        if args.png:
            name, k, units = pick_field(args, exp)
            ds = sources.get((name, k))
            if ds is None:  # a time step the checks skipped
                proxy, reader = open_reader(xmf, args.reader)
                when = exp.times[k] if k is not None else (exp.times[-1] if exp.times else None)
                datasets = leaves(output_at(reader, when))
                data = (exp.fields[name][0][k] if k is not None else exp.cell_data[name][0]) if exp.values else None
                ds = chk.check_cell_array(datasets, name, data, f"t = {when!r}")
                if ds is None:
                    for p in chk.problems:
                        print(f"{os.path.basename(sys.argv[0])}: FAIL: {xmf}: {p}", file=sys.stderr)
                    return 1
            render(args, exp, name, k, units, ds, args.run)
    except CheckError as e:
        print(f"{os.path.basename(sys.argv[0])}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
