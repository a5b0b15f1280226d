"""Shared helpers for the adjsim post-processing scripts (not a script itself).

Reading run files (layout: docs/output-format.md): opening with a format check, the grid, resolving
a dataset name given on the command line to a quantity (a field time series, a parameter or gradient
field, an array, or a derived quantity such as vorticity), choosing output steps, and the plotting
conventions shared by the adjsim_plot_*.py scripts (units as labels, colour scales, exact pixel sizes).

Only Debian's python3-h5py, python3-numpy and python3-matplotlib are used; the plotting helpers import
matplotlib lazily, so the non-plotting scripts do not need it.
"""
import os
import re
import shlex
import sys

import h5py
import numpy as np

FORMAT = "adjsim-run"
FORMAT_VERSION = 1
GROUPS = ("fields", "parameters", "gradients")  # searched in this order for a bare dataset name
DERIVED = {"vorticity": "vorticity", "speed": "speed", "velocity_magnitude": "speed", "|u|": "speed"}
DEFAULT_COMPONENTS = (("/fields/u", "/fields/v", "/fields/w"), ("/velocity/u", "/velocity/v", "/velocity/w"))
# Names whose values have no preferred sign: shown on a diverging colour map symmetric about zero.
SIGNED_NAMES = re.compile(r"(grad|sensitiv|adjoint|vortic|residual|error|diff|misfit)", re.IGNORECASE)


class RunFileError(Exception):
    """A problem with a run file or with what was asked of it; the message names both."""


def text(value):
    """HDF5 strings come back from h5py as bytes."""
    return value.decode() if isinstance(value, bytes) else str(value)


def script_name():
    return os.path.basename(sys.argv[0])


def fail(message):
    """Print one error line naming the script and return exit status 1."""
    print(f"{script_name()}: error: {message}", file=sys.stderr)
    return 1


# ---------------------------------------------------------------------------------------------
# Option lines of job arrays and the design layout of optimization runs

NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def parse_option_line(line):
    """'-a 1 -b 0.1,0.2 -c word -d' -> (ordered {name: float}, [names with non-numeric values]): a comma list
    gives name[0], name[1], ...; true/false give 1/0, a bare flag 1. ValueError for a token that is not an option."""
    values, other = {}, []
    tokens = shlex.split(line, comments=False)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if not tok.startswith("-") or NUMBER.match(tok):
            raise ValueError(f"cannot read option line {line!r}: {tok!r} is not an option name")
        name = tok.lstrip("-")
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        value = nxt if nxt is not None and (not nxt.startswith("-") or NUMBER.match(nxt)) else None
        i += 2 if value is not None else 1
        if value is None:
            values[name] = 1.0  # a flag
            continue
        parts = value.split(",")
        if all(NUMBER.match(p.strip()) for p in parts):
            if len(parts) == 1:
                values[name] = float(parts[0])
            else:
                for j, p in enumerate(parts):
                    values[f"{name}[{j}]"] = float(p)
        elif value.lower() in ("true", "false"):
            values[name] = 1.0 if value.lower() == "true" else 0.0
        else:
            other.append(name)
    return values, other


def design_layout(o):
    """{block: (first column, length, scale)} of /optimization/design (docs/output-format.md, "Design layout"),
    from the attributes design_blocks, design_offsets, design_sizes, design_scales of the group o; {} without them."""
    if "design_blocks" not in o.attrs:
        return {}
    names = text(o.attrs["design_blocks"]).split(",")
    offsets, sizes = np.atleast_1d(o.attrs["design_offsets"]), np.atleast_1d(o.attrs["design_sizes"])
    scales = np.atleast_1d(o.attrs.get("design_scales", np.ones(len(names))))
    return {n: (int(a), int(k), float(c)) for n, a, k, c in zip(names, offsets, sizes, scales) if n}


# ---------------------------------------------------------------------------------------------
# Opening files and the grid


def open_run(path):
    """Open a run file read-only. adjsim run files must carry format adjsim-run version 1; HDF5 files
    without a format attribute (e.g. a velocity input file) are accepted as generic files."""
    if not os.path.exists(path):
        if os.path.exists(path + ".partial"):
            raise RunFileError(f"{path}: no such file, only {path}.partial: the run did not finish")
        raise RunFileError(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise RunFileError(f"{path}: cannot be opened as HDF5 ({e})") from None
    if "format" in f.attrs:
        fmt, version = text(f.attrs["format"]), int(f.attrs.get("format_version", 0))
        if fmt != FORMAT:
            f.close()
            raise RunFileError(f"{path}: format is {fmt!r}, not {FORMAT!r}")
        if version > FORMAT_VERSION:
            f.close()
            raise RunFileError(f"{path}: format_version {version} is newer than this script ({FORMAT_VERSION})")
    return f


class Grid:
    """Cell-centred box grid. Arrays are x first (as in /grid); data are C order, slowest axis first."""

    def __init__(self, cells, lower, upper, units="m", physical=True):
        self.cells = [int(c) for c in cells]
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.units = units
        self.physical = physical  # False: no /grid matching the data, axes are cell indices
        self.dim = len(self.cells)
        self.spacing = (self.upper - self.lower) / np.array(self.cells)

    @property
    def shape(self):
        """Shape of one field (slowest axis first)."""
        return tuple(reversed(self.cells))

    def centres(self, axis):
        """Cell centres along axis 0 = x, 1 = y, 2 = z."""
        return self.lower[axis] + (np.arange(self.cells[axis]) + 0.5) * self.spacing[axis]

    def axis_name(self, axis):
        return "xyz"[axis] if self.physical else "ijk"[axis]

    def axis_label(self, axis):
        """e.g. 'x [m]', or 'i (cell index)' for a generic file."""
        if not self.physical:
            return f"{'ijk'[axis]} (cell index)"
        return with_units(self.axis_name(axis), self.units)

    def extent(self):
        """imshow extent of a 2-D (x, y) grid."""
        return (self.lower[0], self.upper[0], self.lower[1], self.upper[1])

    def plane(self, keep=(0, 1)):
        return Grid([self.cells[a] for a in keep], self.lower[list(keep)], self.upper[list(keep)],
                    self.units, self.physical)

    def coordinates(self):
        """Cell-centre coordinates flattened in C order, one array per axis, x first."""
        mesh = np.meshgrid(*[self.centres(a) for a in reversed(range(self.dim))], indexing="ij")
        return [m.ravel() for m in reversed(mesh)]

    def same_as(self, other):
        return (self.cells == other.cells and np.allclose(self.lower, other.lower)
                and np.allclose(self.upper, other.upper))


def grid_of(f, shape=None):
    """The file's /grid, or (for generic files, or data not shaped like /grid) an index grid for shape."""
    if "grid" in f:
        g = f["grid"].attrs
        grid = Grid(g["cells"], g["lower"], g["upper"], text(g.get("units", "m")))
        if shape is None or tuple(shape) == grid.shape:
            return grid
    if shape is None:
        return None
    cells = list(reversed(shape))  # index grid: cell i centred at i
    return Grid(cells, np.full(len(cells), -0.5), np.array(cells, dtype=float) - 0.5, "1", physical=False)


# ---------------------------------------------------------------------------------------------
# Units


def pretty_units(units):
    """Units for a plot label with exponents as superscripts ('m^2/s' -> 'm$^{2}$/s'); '' when the
    units are '1' (dimensionless or not given, docs/output-format.md) or a ratio of such."""
    u = text(units).strip()
    if not u or re.fullmatch(r"[1\s/*().]+", u):
        return ""
    return re.sub(r"\^\(?([-+]?[0-9.]+)\)?", r"$^{\1}$", u)


def with_units(label, units):
    p = pretty_units(units)
    return f"{label} [{p}]" if p else label


def plain_units(label, units):
    """The same for CSV headers: 'kappa [m^2/s]', or just the name for units '1'."""
    u = text(units).strip()
    return f"{label} [{u}]" if u and not re.fullmatch(r"[1\s/*().]+", u) else label


def unit_ratio(num, den):
    """Units of num / den, simplified in the common cases ('m/s' / 'm' -> '1/s')."""
    num, den = text(num).strip() or "1", text(den).strip() or "1"
    if den == "1":
        return num
    if num.startswith(den + "/"):
        return "1/" + num[len(den) + 1:]
    if num == den:
        return "1"
    wrap = lambda u: f"({u})" if re.search(r"[/* ]", u) else u  # noqa: E731
    return f"{wrap(num)}/{wrap(den)}"


# ---------------------------------------------------------------------------------------------
# Quantities: what a dataset name on the command line refers to


class Quantity:
    """A field time series (slices along axis 0), a static field, an array, or a derived field.

    name: short name ('c', 'initial', 'vorticity'); path: where it comes from; group: 'fields',
    'parameters', 'gradients', 'optimization', 'derived' or another group name; units: as stored;
    series: True when read(k) takes a slice index; shape: the shape of one slice (or of the array);
    signed: values have no preferred sign (gradients, vorticity): diverging symmetric colour scale.
    """

    def __init__(self, f, name, path, group, units, series, shape, reader, count, signed=False, label=None):
        self.file, self.name, self.path, self.group, self.units = f, name, path, group, units
        self.series, self.shape, self._reader, self._count = series, tuple(shape), reader, count
        self.signed = signed
        self.label = label or name

    def count(self):
        """Number of slices of a time series (1 for static data)."""
        return self._count if self.series else 1

    def read(self, k=None):
        return np.asarray(self._reader(k), dtype=float)

    def read_raw(self, k=None):
        """As stored (int64 stays integer), for exact export."""
        return np.asarray(self._reader(k))

    def grid(self):
        return grid_of(self.file, self.shape)

    def is_field(self):
        """Shaped like the run's grid (in a file without /grid: at least 2-D)."""
        if self.group == "optimization" and self.name != "design_last":
            return False  # histories, even when their length happens to match a 1-D grid
        if self.group == "fields" and self.name in ("step", "time"):
            return False
        if "grid" in self.file:
            return self.shape == grid_of(self.file).shape
        return len(self.shape) >= 2

    def step_and_time(self, k):
        """(step, time) of slice k of a time series, or (None, None)."""
        if not self.series or "fields/step" not in self.file:
            return None, None
        steps, times = self.file["fields/step"], self.file["fields/time"]
        if k >= len(steps):
            return None, None
        return int(steps[k]), float(times[k])


def _dataset_quantity(f, path):
    ds = f[path]
    parts = path.strip("/").split("/")
    group = parts[0] if len(parts) > 1 else ""
    name = parts[-1]
    units = text(ds.attrs.get("units", "1"))
    grid = grid_of(f)
    gshape = grid.shape if grid else None
    series = group == "fields" and name not in ("step", "time") and ds.ndim >= 1 and (
        ds.shape[1:] == gshape if gshape else ds.ndim >= 3)
    shape = ds.shape[1:] if series else ds.shape
    signed = group == "gradients" or bool(SIGNED_NAMES.search(name))
    if group == "gradients":
        label = r"$\partial J/\partial$" + f" {name}"
    elif group == "parameters":
        label = f"{name} (parameter)"
    elif path.strip("/") == "optimization/design_last":
        label = "last design"
    else:
        label = name
    return Quantity(f, name, "/" + path.strip("/"), group, units, series, shape,
                    (lambda k: ds[k] if series else ds[()]), ds.shape[0] if series else 1, signed, label)


def _components(f, components):
    """The velocity component datasets: given explicitly, or /fields/u,v[,w], or /velocity/u,v[,w]."""
    if components:
        missing = [c for c in components if c not in f]
        if missing:
            raise RunFileError(f"{f.filename}: no dataset {', '.join(missing)}")
        return [_dataset_quantity(f, c) for c in components]
    for names in DEFAULT_COMPONENTS:
        if names[0] in f and names[1] in f:
            return [_dataset_quantity(f, c) for c in names if c in f]
    raise RunFileError(f"{f.filename}: vorticity and speed need velocity components /fields/u and /fields/v "
                       f"(or /velocity/u, /velocity/v, or --components U V)")


def _derived_quantity(f, kind, components):
    comps = _components(f, components)
    shapes = {c.shape for c in comps}
    if len(shapes) != 1:
        raise RunFileError(f"{f.filename}: velocity components differ in shape: "
                           + ", ".join(f"{c.path} {c.shape}" for c in comps))
    series = all(c.series for c in comps)
    if series != any(c.series for c in comps):
        raise RunFileError(f"{f.filename}: the velocity components must all be time series or all static: "
                           + ", ".join(c.path for c in comps))
    count = min(c.count() for c in comps) if series else 1
    shape = comps[0].shape
    grid = grid_of(f, shape)
    units = comps[0].units
    names = ",".join(c.path for c in comps)
    if kind == "speed":
        def reader(k):
            return np.sqrt(sum(c.read(k) ** 2 for c in comps))
        return Quantity(f, "speed", f"|({names})|", "derived", units, series, shape, reader, count, False,
                        "velocity magnitude")
    if len(shape) < 2:
        raise RunFileError(f"{f.filename}: vorticity needs a 2-D or 3-D grid, the components are {shape}")

    def reader(k):
        # z-component of curl u, second-order central differences inside, one-sided at the walls.
        u, v = comps[0].read(k), comps[1].read(k)
        return np.gradient(v, grid.spacing[0], axis=-1) - np.gradient(u, grid.spacing[1], axis=-2)
    omega_units = unit_ratio(units, grid.units) if grid.physical else units
    label = r"vorticity $\omega_z$" if len(shape) == 3 else r"vorticity $\omega$"
    return Quantity(f, "vorticity", f"curl({names})", "derived", omega_units, series, shape, reader, count, True,
                    label)


def candidates(f):
    """Dataset paths worth offering in an error message or --list."""
    found = []
    f.visititems(lambda n, o: found.append("/" + n) if isinstance(o, h5py.Dataset) else None)
    return [p for p in found if not p.startswith(("/provenance", "/restart"))]


def resolve(f, spec, components=None):
    """A Quantity for spec: a full path ('/fields/c'), a bare name searched in /fields, /parameters and
    /gradients ('c'), or a derived quantity ('vorticity', 'speed')."""
    spec = spec.strip()
    if spec.lower() in DERIVED and "/" not in spec and not any(f"{g}/{spec}" in f for g in GROUPS):
        return _derived_quantity(f, DERIVED[spec.lower()], components)
    if "/" in spec:
        path = "/" + spec.strip("/")
        if path in f and isinstance(f[path], h5py.Dataset):
            return _dataset_quantity(f, path)
        raise RunFileError(f"{f.filename}: no dataset {path}; datasets: {', '.join(candidates(f))}")
    hits = [f"/{g}/{spec}" for g in GROUPS if f"{g}/{spec}" in f and isinstance(f[f"{g}/{spec}"], h5py.Dataset)]
    if len(hits) == 1:
        return _dataset_quantity(f, hits[0])
    if len(hits) > 1:
        raise RunFileError(f"{f.filename}: {spec!r} is ambiguous ({' and '.join(hits)}); give the full path")
    raise RunFileError(f"{f.filename}: no dataset named {spec!r}; datasets: {', '.join(candidates(f))}")


def default_field(f, components=None):
    """The dataset plotted when none is named: vorticity when u and v exist, else the only field."""
    try:
        _components(f, components)
        return "vorticity"
    except RunFileError:
        pass
    names = [k for k in f.get("fields", {}) if k not in ("step", "time")]
    if len(names) == 1:
        return "/fields/" + names[0]
    raise RunFileError(f"{f.filename}: name a dataset with --dataset; datasets: {', '.join(candidates(f))}")


def plottable(f):
    """(path, description) of every field-shaped dataset and of the derived quantities available."""
    out = []
    for path in candidates(f):
        q = _dataset_quantity(f, path)
        if q.is_field() and len(q.shape) >= 1:
            kind = f"time series of {q.count()} slices" if q.series else "field"
            out.append((path, f"{kind}, {'x'.join(map(str, reversed(q.shape)))} cells, units {q.units}"))
    try:
        _components(f, None)
        out += [("vorticity", "derived from the velocity components"), ("speed", "velocity magnitude")]
    except RunFileError:
        pass
    return out


# ---------------------------------------------------------------------------------------------
# Choosing output steps


def add_slice_options(ap, multiple=True, default_text="first, middle and last"):
    """--index / --step / --time: which slices of a time series (mutually exclusive)."""
    nargs = "+" if multiple else None
    many = "s" if multiple else ""
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--index", type=int, nargs=nargs, metavar="K",
                   help=f"slice index{'es' if multiple else ''} of the time series (0 = first; negative counts "
                        f"from the end). Default: the {default_text} slice{many} that hold{'' if multiple else 's'} data")
    g.add_argument("--step", type=int, nargs=nargs, metavar="N",
                   help=f"simulation step number{many}, as listed in /fields/step")
    g.add_argument("--time", type=float, nargs=nargs, metavar="T",
                   help=f"simulated time{many} in s; the nearest output step is used")


def written_slices(q):
    """Indices of the slices that hold data (slices of steps at which the field was not written are NaN)."""
    return [k for k in range(q.count()) if np.any(np.isfinite(q.read(k)))]


def choose_slices(q, index=None, step=None, time=None, default="first-middle-last"):
    """Slice indices of q for the --index/--step/--time options (each a list or None)."""
    n = q.count()
    if not q.series:
        if index or step or time:
            raise RunFileError(f"{q.path} is not a time series; --index, --step and --time do not apply")
        return [None]
    if n == 0:
        raise RunFileError(f"{q.path} has no slices")
    f = q.file
    if index is not None:
        out = []
        for k in index:
            if not -n <= k < n:
                raise RunFileError(f"{q.path}: index {k} outside its {n} slices")
            out.append(k % n)
        return out
    if step is not None:
        steps = list(f["fields/step"][:n])
        missing = [s for s in step if s not in steps]
        if missing:
            raise RunFileError(f"{q.path}: step(s) {missing} not in the output steps {steps}")
        return [steps.index(s) for s in step]
    if time is not None:
        times = f["fields/time"][:n]
        return [int(np.argmin(np.abs(times - t))) for t in time]
    valid = written_slices(q) or list(range(n))
    if default == "last":
        return [valid[-1]]
    picks = [valid[0], valid[len(valid) // 2], valid[-1]]
    return sorted(set(picks))


def match_slice(qa, ka, qb):
    """The slice of qb that belongs with slice ka of qa: the same step number if qb has it, else the
    nearest time. Returns (index, note) where note describes a mismatch ('' when the steps match)."""
    if not qb.series:
        return None, ""
    if not qa.series:
        return qb.count() - 1, ""
    sa, ta = qa.step_and_time(ka)
    nb = qb.count()
    if sa is not None and "fields/step" in qb.file:
        steps = list(qb.file["fields/step"][:nb])
        if sa in steps:
            kb = steps.index(sa)
            tb = qb.step_and_time(kb)[1]
            if abs(tb - ta) <= 1e-12 * max(1.0, abs(ta)):
                return kb, ""
    if ta is not None and "fields/time" in qb.file:
        kb = int(np.argmin(np.abs(qb.file["fields/time"][:nb] - ta)))
        sb, tb = qb.step_and_time(kb)
        return kb, "" if tb == ta else f"times differ: {ta:g} s vs {tb:g} s"
    return min(ka, nb - 1), ""


def slice_title(q, k):
    """'t = 0.25 s (step 64)' for a time-series slice, '' for static data."""
    s, t = q.step_and_time(k) if k is not None else (None, None)
    if t is None:
        return f"slice {k}" if k is not None else ""
    return f"t = {t:.4g} s (step {s})"


def plane_of(q, data, z_index):
    """A 2-D (y, x) plane of a 3-D field: z index z_index (default: the middle). Returns (plane, note)."""
    if data.ndim < 3:
        return data, ""
    nz = data.shape[0]
    kz = nz // 2 if z_index is None else z_index
    if not -nz <= kz < nz:
        raise RunFileError(f"{q.path}: --z-index {kz} outside its {nz} cells in z")
    kz %= nz
    grid = q.grid()
    zc = grid.centres(2)[kz] if grid else kz
    zname = f"z = {zc:.4g} {pretty_units(grid.units)}".rstrip() if grid and grid.physical else f"k = {kz}"
    return data[kz], zname


# ---------------------------------------------------------------------------------------------
# Plotting conventions


def add_figure_options(ap, default_size, required=True, default_title="the dataset and the file name"):
    ap.add_argument("-o", "--output", required=required, metavar="PNG",
                    help="image file to write (PNG; the extension chooses the format, e.g. .pdf or .svg)"
                         + ("" if required else "; required unless --list"))
    ap.add_argument("--size", metavar="WxH", default=None,
                    help=f"image size in pixels, e.g. 1600x900 (default: {default_size})")
    ap.add_argument("--dpi", type=float, default=150.0,
                    help="resolution in dots per inch: sets the size of text and lines relative to the "
                         "image (default 150)")
    ap.add_argument("--title", default=None, help=f"figure title (default: {default_title}; '' for none)")


def parse_size(text_size):
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text_size or "")
    if not m or int(m.group(1)) < 50 or int(m.group(2)) < 50:
        raise RunFileError(f"--size {text_size!r}: expected WIDTHxHEIGHT in pixels, each at least 50")
    return int(m.group(1)), int(m.group(2))


def new_figure(size_px, dpi):
    """A figure of exactly size_px = (width, height) pixels at dpi, with constrained layout."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    w, h = size_px
    # Agg truncates width*dpi to an integer: a quarter-pixel margin keeps w x h exact.
    fig = Figure(figsize=((w + 0.25) / dpi, (h + 0.25) / dpi), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def fitted_figure(build, size_px, autosize):
    """Build a figure of equal-aspect image panels, fit the colour bars to the panels, and (autosize)
    trim the space that the panels' aspect ratio leaves unused.

    build(size) returns (fig, image_axes, colorbars) where colorbars is a list of (colorbar, axes it
    belongs to). Constrained layout makes a colour bar as tall as the space allotted to its panels;
    here it is made exactly as tall as the panels. With autosize, size_px is a first guess and the
    figure is rebuilt without the unused margins; the suptitle goes just above the content.
    """
    from matplotlib.transforms import Bbox
    w, h = size_px
    for attempt in range(4 if autosize else 1):
        fig, axes, bars = build((w, h))
        fig.canvas.draw()  # runs the constrained layout
        given, used = axes[0].get_position(original=True), axes[0].get_position(original=False)
        height_limited = (given.width - used.width) * w > 1.0  # else the panels fill their width
        _fit_colorbars(fig, axes, bars)
        r = fig.canvas.get_renderer()
        content = Bbox.union([a.get_tightbbox(r) for a in axes] + [cb.ax.get_tightbbox(r) for cb, _ in bars])
        pad = 0.08 * fig.dpi
        title_h = fig._suptitle.get_window_extent(r).height + pad if fig._suptitle is not None else 0.0
        # Trim only the dimension the panels do not fill: trimming the other one would shrink them.
        nw = min(int(round(content.width + 2 * pad)), w) if height_limited else w
        nh = h if height_limited else min(int(round(content.height + title_h + 2 * pad)), h)
        if not autosize or (w - nw < 3 and h - nh < 3):
            break
        w, h = nw, nh
    if not autosize:
        # A given size leaves space above and below the panels: centre the panels and the title in it.
        spare = fig.bbox.height - content.height - title_h - 2 * pad
        shift = (fig.bbox.height - pad - title_h - content.y1) - spare / 2
        if spare > 0 and abs(shift) > 1:
            for ax in fig.axes:
                p = ax.get_position(original=False)
                ax.set_position([p.x0, p.y0 + shift / fig.bbox.height, p.width, p.height])
            content = Bbox.union([a.get_tightbbox(r) for a in axes] + [cb.ax.get_tightbbox(r) for cb, _ in bars])
    if fig._suptitle is not None:
        top = content.y1 + 0.06 * fig.dpi
        fig._suptitle.set_va("bottom")
        fig._suptitle.set_y(min(top / fig.bbox.height, 0.99))
    return fig


def _fit_colorbars(fig, axes, bars):
    """Freeze the (already drawn) constrained layout, then give each colour bar its panels' height."""
    fig.set_layout_engine("none")
    for cb, owners in bars:
        boxes = [a.get_position(original=False) for a in owners]
        y0, y1 = min(b.y0 for b in boxes), max(b.y1 for b in boxes)
        x1 = max(b.x1 for b in boxes)
        pos = cb.ax.get_position(original=False)
        cb.ax.set_box_aspect(None)
        cb.ax.set_aspect("auto")
        x0 = x1 + min(max(pos.x0 - x1, 0.0), 0.1 * fig.dpi / fig.bbox.width)
        cb.ax.set_position([x0, y0, pos.width, y1 - y0])


def save_figure(fig, path):
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise RunFileError(f"cannot write {path}: directory {directory} does not exist")
    fig.savefig(path, dpi=fig.dpi)
    print(f"{script_name()}: wrote {path}")


def color_scale(q_signed, arrays, cmap=None, vmin=None, vmax=None, symmetric=None, zero_floor=False):
    """(cmap name, vmin, vmax, diverging) shared by all panels showing arrays.

    Signed quantities (gradients, vorticity) and data of both signs in comparable amounts get a
    diverging map symmetric about zero; others a perceptually uniform sequential map.
    """
    finite = np.concatenate([a[np.isfinite(a)].ravel() for a in arrays]) if arrays else np.zeros(0)
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if symmetric is None:
        both_signs = lo < 0 < hi and min(-lo, hi) > 0.2 * max(-lo, hi)
        symmetric = q_signed or both_signs
    if symmetric:
        a = max(abs(lo), abs(hi)) or 1.0
        lo, hi = -a, a
    elif zero_floor and lo >= 0:
        lo = 0.0
    if lo == hi:
        lo, hi = lo - (abs(lo) or 1.0) * 0.5, hi + (abs(hi) or 1.0) * 0.5
    lo = lo if vmin is None else vmin
    hi = hi if vmax is None else vmax
    return (cmap or ("RdBu_r" if symmetric else "viridis")), lo, hi, symmetric


def colormap(name):
    """A copy of the named colour map that shows NaN (data not written) in light grey."""
    import matplotlib
    cm = matplotlib.colormaps[name].copy()
    cm.set_bad("0.85")
    return cm


def add_color_options(ap):
    ap.add_argument("--cmap", default=None,
                    help="matplotlib colour map (default: viridis, or RdBu_r symmetric about zero for "
                         "gradients, vorticity and data of both signs)")
    ap.add_argument("--vmin", type=float, default=None, help="lower end of the colour scale (default: data minimum)")
    ap.add_argument("--vmax", type=float, default=None, help="upper end of the colour scale (default: data maximum)")
    sym = ap.add_mutually_exclusive_group()
    sym.add_argument("--symmetric", dest="symmetric", action="store_const", const=True, default=None,
                     help="force a colour scale symmetric about zero")
    sym.add_argument("--no-symmetric", dest="symmetric", action="store_const", const=False,
                     help="never make the colour scale symmetric about zero")
    ap.add_argument("--z-index", type=int, default=None, metavar="K",
                    help="3-D fields: the z cell index of the plane shown (default: the middle plane)")
    ap.add_argument("--components", nargs="+", metavar="DATASET", default=None,
                    help="velocity component datasets for vorticity and speed, x first (default: "
                         "/fields/u /fields/v [/fields/w], or /velocity/u /velocity/v)")


def draw_field(ax, grid, data, cmap, vmin, vmax):
    """Cell-centred data on the (x, y) plane with physical axes and equal aspect; returns the image."""
    im = ax.imshow(data, origin="lower", extent=grid.extent(), cmap=colormap(cmap), vmin=vmin, vmax=vmax,
                   interpolation="nearest", aspect="equal")
    ax.set_xlabel(grid.axis_label(0))
    ax.set_ylabel(grid.axis_label(1))
    ax.set_xlim(grid.lower[0], grid.upper[0])
    ax.set_ylim(grid.lower[1], grid.upper[1])
    return im


def panel_axes(fig, nrows, ncols, n, separate_bars, bar_ratio=0.055):
    """Grid of n image panels with colour-bar axes in their own gridspec columns (so constrained layout
    sizes their ticks and labels): one bar right of each panel (separate_bars) or one at the right
    spanning all rows. Returns (panels, bar axes: a list with one entry per panel, or [one axis])."""
    if separate_bars:
        gs = fig.add_gridspec(nrows, 2 * ncols, width_ratios=[1.0, bar_ratio] * ncols)
        panels = [fig.add_subplot(gs[i // ncols, 2 * (i % ncols)]) for i in range(n)]
        bars = [fig.add_subplot(gs[i // ncols, 2 * (i % ncols) + 1]) for i in range(n)]
    else:
        gs = fig.add_gridspec(nrows, ncols + 1, width_ratios=[1.0] * ncols + [bar_ratio])
        panels = [fig.add_subplot(gs[i // ncols, i % ncols]) for i in range(n)]
        bars = [fig.add_subplot(gs[:, ncols])]
    return panels, bars


def colorbar(fig, im, cax, name, units, symmetric):
    """Colour bar in cax labelled 'name [units]'. Very small or large values get their power of ten
    in the label ('name [10$^{-5}$ m/s]') rather than an offset text above the bar, which would collide
    with the panel titles."""
    from matplotlib.ticker import ScalarFormatter
    cb = fig.colorbar(im, cax=cax)
    lo, hi = im.get_clim()
    top = max(abs(lo), abs(hi))
    power = int(np.floor(np.log10(top))) if top > 0 and np.isfinite(top) else 0
    fmt = ScalarFormatter(useMathText=True)
    fmt.set_useOffset(False)
    if power < -2 or power > 3:
        fmt.set_powerlimits((power, power))
        u = pretty_units(units)
        label = f"{name} [$10^{{{power}}}$" + (f" {u}]" if u else "]")
    else:
        fmt.set_powerlimits((-99, 99))
        label = with_units(name, units)
    cb.ax.yaxis.set_major_formatter(fmt)
    cb.ax.yaxis.get_offset_text().set_visible(False)
    cb.set_label(label)
    if symmetric:
        cb.ax.axhline(0.0, color="k", lw=0.6)
    return cb


def default_panel_size(grid, panels, dpi, panel_inches=3.4, extra_w=1.3, extra_h=1.25, max_ratio=3.0):
    """Pixel size that fits `panels` equal-aspect panels in a row with a colour bar and labels."""
    if grid is None or grid.dim < 2:
        ratio = 0.6
    else:
        lx, ly = grid.upper[0] - grid.lower[0], grid.upper[1] - grid.lower[1]
        ratio = min(max(ly / lx, 1.0 / max_ratio), max_ratio)
    w = panels * panel_inches + extra_w
    h = panel_inches * ratio + extra_h
    return int(round(w * dpi)), int(round(h * dpi))


def run_label(path):
    return os.path.basename(path)
