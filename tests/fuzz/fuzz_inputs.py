#!/usr/bin/env python3
"""Seeded mutation fuzzer of adjsim's input readers (issue 16).

Input kinds (--kinds, default all):
  yaml       a deck of inputs/ (made small: grid, final time, steps, optimizer iterations) with 1-3 text
             mutations: deleted, duplicated or swapped lines, changed indentation, values replaced by junk,
             huge, negative, nan, inf, empty, very long or unicode text, renamed keys, a truncated file,
             binary garbage
  obs        a transport run file as -transport_obs_file of a small transport_inverse run
  initial    a fluid run file as -fluid_initial_file (-fluid_initial file) of a small Taylor-Green run
  body       an MPM particle file as -mpm_body1 file:... of a small mpm_drop run (a run file with
             /particles, or a root-level file of postprocess/adjsim_particle_file.py)
  restart    a transport, fluid or MPM restart/run file as -restart of the continuing small run
The HDF5 files are written first by small runs of adjsim (the seeds), then mutated with h5py: datasets or
attributes dropped, shapes, dtypes and values changed (nan, inf, huge, negative, zero), step/time/cells/
solver attributes changed, groups renamed, the file truncated or its bytes flipped, or the file replaced by
an empty file, a text file, a directory or a dangling link.

Every case runs build/adjsim (-quiet, a timeout) in a fresh directory and is classified:
  OK        exit 0
  REJECTED  nonzero exit with a message ("adjsim: error: ..." or a PETSc error message) that names an
            option (-name), a file (*.h5, *.yaml), a dataset or attribute (/group/name, name@attr) or a key
  CRASH     a signal, an exit status >= 128 (except 85, the documented stop-and-requeue status), or a
            "Caught signal" / segmentation / sanitizer report in the output
  HANG      no exit within --timeout seconds (or a legitimately long run, e.g. particle velocities of 1e6 m/s
            make the CFL time step 3e-8 s: replay cmd.txt without -quiet to see which)
  UNCLEAR   nonzero exit without such a message
  DAMAGED   the run changed one of its input files
Each case draws from its own generator seeded by (--seed, case number), so one case is replayed alone with
--seed S --only N.  CRASH, HANG, UNCLEAR and DAMAGED cases are copied to --out (the mutated files, cmd.txt
with the command line, output.txt), and every distinct REJECTED message (numbers masked) with its count to
--out/messages.txt.  Exit status 0 only if no case is CRASH, HANG, UNCLEAR or DAMAGED.

  /usr/bin/python3 tests/fuzz/fuzz_inputs.py --cases 2500 --np 1 --timeout 30 --out /tmp/fuzz-np1
  /usr/bin/python3 tests/fuzz/fuzz_inputs.py --cases 300 --np 2 --seed 2 --timeout 30 --out /tmp/fuzz-np2

Only Python 3 with numpy and h5py (Debian's python3-numpy, python3-h5py)."""
import argparse
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

DEFAULT_SEED = 20261203
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KINDS = ["yaml", "obs", "initial", "body", "restart"]

# Decks for the yaml kind and the values that make them small (key -> value, replaced where the deck sets it).
SMALL_DECKS = {
    "transport_truth": {"grid": "16,16", "final_time": "0.0625", "steps": "8", "output_interval": "4"},
    "transport_inverse": {"grid": "16,16", "final_time": "0.0625", "steps": "8", "max_it": "2", "ram": "4"},
    "fluid_taylor_green": {"grid": "16,16", "final_time": "0.05", "output_interval": "2"},
    "fluid_cavity_re100": {"grid": "16,16", "final_time": "0.1"},
    "fluid_gradient_check": {"grid": "8,8", "final_time": "0.1", "objective_window": "0.05,0.1"},
    "mpm_drop": {"grid": "16,16", "final_time": "0.02", "output_interval": "10"},
    "mpm_collision": {"grid": "20,20", "final_time": "0.01", "output_interval": "10"},
    "mpm_gradient_check": {"final_time": "0.024"},
}

# Small runs (options after -options_file inputs/<deck>.yaml) whose output files are the HDF5 seeds.
TR_SMALL = ["-transport_grid", "16,16", "-transport_final_time", "0.0625", "-transport_steps", "8"]
FL_SMALL = ["-fluid_grid", "16,16", "-fluid_final_time", "0.05"]
MP_SMALL = ["-mpm_grid", "16,16", "-mpm_final_time", "0.02"]
SEED_RUNS = [
    ("transport_truth", TR_SMALL + ["-output_interval", "2", "-restart_interval", "4", "-output", "tr.h5"]),
    ("fluid_taylor_green", FL_SMALL + ["-output_interval", "2", "-output", "fl.h5"]),
    ("mpm_drop", MP_SMALL + ["-output_interval", "10", "-output", "mp.h5"]),
]

# kind -> list of (seed file, name in the case directory, deck, options); @F@ is the file's name.
TARGETS = {
    "obs": [("tr.h5", "obs.h5", "transport_inverse",
             TR_SMALL + ["-checkpoint_ram", "4", "-tao_max_it", "2", "-transport_obs_file", "@F@"])],
    "initial": [("fl.h5", "init.h5", "fluid_taylor_green",
                 FL_SMALL + ["-fluid_initial", "file", "-fluid_initial_file", "@F@"])],
    "body": [("mp.h5", "body.h5", "mpm_drop", MP_SMALL + ["-mpm_body1", "file:@F@:1"]),
             ("pf.h5", "body.h5", "mpm_drop", MP_SMALL + ["-mpm_body1", "file:@F@:1"])],
    "restart": [("tr-restart.h5", "r.h5", "transport_truth",
                 ["-transport_grid", "16,16", "-transport_final_time", "0.125", "-transport_steps", "16",
                  "-restart", "@F@"]),
                ("fl.h5", "r.h5", "fluid_taylor_green",
                 ["-fluid_grid", "16,16", "-fluid_final_time", "0.1", "-restart", "@F@"]),
                ("mp.h5", "r.h5", "mpm_drop", ["-mpm_grid", "16,16", "-mpm_final_time", "0.04", "-restart", "@F@"])],
}

JUNK_VALUES = ["", "nan", "inf", "-inf", "-1", "0", "-0", "1e308", "-1e308", "1e-320", "9223372036854775808",
               "2147483648", "-2147483649", "99999999999999999999999", "abc", "1,2,3,4,5,6,7,8,9", ",", ",,",
               "1,", ",1", "1,,2", "0x10", "1e", "--1", "true", "null", "~", "[1, 2]", "{a: 1}", "\"\"", "'",
               "\"unterminated", "\u00e9\u00e8\u4e2d\u6587", "\U0001F600", "1 2", "%s%s%n", "box:", "file:",
               "disk:0.5,0.5,-0.1", "box:1,1,0,0", "file:/", "file:nonexistent.h5", "x" * 5000, "1" * 400,
               "0.1," * 300, "-", "--", "periodic", "wall", "none", "file", "zero", "../../etc/passwd",
               "/dev/null", "/", "."]


def sh(cmd):
    return " ".join("'" + a.replace("'", "'\\''") + "'" if re.search(r"[^\w@%+=:,./-]", a) or not a else a
                    for a in cmd)


def small_deck(deck):
    """inputs/<deck>.yaml with the values of SMALL_DECKS[deck] replaced where the deck sets them."""
    with open(os.path.join(ROOT, "inputs", deck + ".yaml"), encoding="utf-8") as f:
        text = f.read()
    for key, value in SMALL_DECKS.get(deck, {}).items():
        text = re.sub(r"(?m)^(\s*%s:\s*)[^#\n]*" % re.escape(key), lambda m: m.group(1) + value + "  ", text)
    return text


# ------------------------------------------------------------------------------------------------ YAML
def mutate_yaml(rng, text):
    lines = text.split("\n")
    ops = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = rng.choice(["delete", "duplicate", "indent", "value", "value", "value", "swap", "key", "truncate",
                         "garbage", "colon", "tab", "longline", "unicode", "empty"])
        ops.append(op)
        if not lines:
            lines = [""]
        keyed = [i for i, l in enumerate(lines) if re.match(r"^\s*[\w\"']+\s*:", l)] or [0]
        i = rng.choice(keyed)
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i + rng.choice([0, 1, 2]), lines[i])
        elif op == "indent":
            m = re.match(r"^(\s*)(.*)$", lines[i])
            n = max(0, len(m.group(1)) + rng.choice([-4, -2, -1, 1, 2, 3, 8]))
            lines[i] = " " * n + m.group(2)
        elif op == "value":
            m = re.match(r"^(\s*[^:#]+:\s*)(.*)$", lines[i])
            if m:
                v = rng.choice(JUNK_VALUES)
                if rng.random() < 0.3:
                    v = '"%s"' % v
                lines[i] = m.group(1) + v
        elif op == "swap":
            j = rng.choice(keyed)
            mi = re.match(r"^(\s*[^:#]+:)(.*)$", lines[i])
            mj = re.match(r"^(\s*[^:#]+:)(.*)$", lines[j])
            if mi and mj:
                lines[i], lines[j] = mi.group(1) + mj.group(2), mj.group(1) + mi.group(2)
        elif op == "key":
            m = re.match(r"^(\s*)([^:#]+)(:.*)$", lines[i])
            if m:
                k = rng.choice([m.group(2) + "x", m.group(2)[:-1], m.group(2).upper(), "", "-" + m.group(2),
                                "\u00e9t\u00e9", "a b", "x" * 300, m.group(2) + "_" + m.group(2)])
                lines[i] = m.group(1) + k + m.group(3)
        elif op == "truncate":
            t = "\n".join(lines)
            t = t[: rng.randrange(len(t) + 1)]
            lines = t.split("\n")
        elif op == "garbage":
            g = bytes(rng.randrange(256) for _ in range(rng.choice([1, 16, 200]))).decode("latin-1")
            lines.insert(rng.randrange(len(lines) + 1), g)
        elif op == "colon":
            lines[i] = lines[i].replace(":", "", 1) if rng.random() < 0.5 else lines[i] + ": :"
        elif op == "tab":
            lines[i] = "\t" + lines[i].lstrip(" ")
        elif op == "longline":
            lines.insert(i, "  " + "k" * rng.choice([5000, 70000]) + ": 1")
        elif op == "unicode":
            lines[i] = lines[i] + " \u00e9\u4e2d\U0001F600\u202e"
        elif op == "empty":
            lines = [] if rng.random() < 0.5 else ["---"]
    return "\n".join(lines), ops


# ------------------------------------------------------------------------------------------------ HDF5
def h5_items(f):
    dsets, groups = [], ["/"]
    f.visititems(lambda n, o: (dsets if isinstance(o, h5py.Dataset) else groups).append("/" + n))
    return [d for d in dsets if not d.startswith("/provenance")], [g for g in groups if not g.startswith("/provenance")]


def bad_value(rng):
    return rng.choice([np.nan, np.inf, -np.inf, 1e308, -1e308, -1.0, 0.0, 1e30, -1e30, 5e-324, 1e6, -7.5])


def replace_dataset(f, path, data):
    attrs = dict(f[path].attrs)
    del f[path]
    f[path] = data
    for k, v in attrs.items():
        f[path].attrs[k] = v


def mutate_h5_inside(rng, f):
    dsets, groups = h5_items(f)
    op = rng.choice(["drop_dset", "drop_attr", "shape", "shape", "dtype", "values", "values", "values", "attr",
                     "attr", "attr", "rename_group", "scalar", "empty_dset", "drop_group"])
    if op in ("drop_attr", "attr"):
        holders = [p for p in groups + dsets if len(f[p].attrs)]
        if not holders:
            op = "values"
    if not dsets:
        op = "rename_group"
    if op == "drop_dset":
        p = rng.choice(dsets)
        del f[p]
        return "drop dataset " + p
    if op == "drop_group":
        g = [g for g in groups if g != "/"]
        if g:
            p = rng.choice(g)
            del f[p]
            return "drop group " + p
        op = "rename_group"
    if op == "rename_group":
        g = [g for g in groups if g != "/"]
        if g:
            p = rng.choice(g)
            f.move(p, p + "_x")
            return "rename group " + p
        return "nothing"
    if op == "drop_attr":
        p = rng.choice(holders)
        k = rng.choice(list(f[p].attrs))
        del f[p].attrs[k]
        return "drop attribute %s@%s" % (p, k)
    if op == "attr":
        p = rng.choice(holders)
        k = rng.choice(list(f[p].attrs))
        old = f[p].attrs[k]
        a = np.asarray(old)
        choices = [np.nan, np.inf, -1, 0, 2**31, 2**62, -(2**62), 1.5, "junk", b"", "x" * 3000, np.zeros(0),
                   np.array([1, 2, 3, 4, 5]), np.array([-4, 7]), np.array([0, 0]), np.array([1e300, 1e300])]
        if a.dtype.kind in "iuf" and a.size:
            choices += [a + 1, a - 1, a * 2, a[:-1] if a.ndim else a, -a, a.astype(np.float32)]
        if a.dtype.kind in "SOU":
            choices += ["fluid", "mpm", "transport", "c", "u,v", "particles", "u,v,p,q", ",", "restart"]
        v = rng.choice(choices)
        del f[p].attrs[k]
        f[p].attrs[k] = v
        return "attribute %s@%s = %r" % (p, k, v if not isinstance(v, str) or len(v) < 40 else v[:20] + "...")
    p = rng.choice(dsets)
    d = f[p]
    a = d[()]
    if op == "values" and np.asarray(a).dtype.kind in "iuf" and np.asarray(a).size:
        a = np.array(a, dtype=np.float64 if np.asarray(a).dtype.kind == "f" else a.dtype)
        flat = a.reshape(-1)
        if a.dtype.kind == "f":
            if rng.random() < 0.3:
                flat[:] = bad_value(rng)
            else:
                for _ in range(rng.choice([1, 3, 10])):
                    flat[rng.randrange(flat.size)] = bad_value(rng)
        else:
            flat[rng.randrange(flat.size)] = rng.choice([-1, 2**31 - 1, -(2**31), 10**12])
        replace_dataset(f, p, a)
        return "values of " + p
    if op == "shape" or op == "values":
        a = np.asarray(a)
        c = rng.choice(["drop_last", "add_dim", "transpose", "plus1", "minus1", "flatten", "one"])
        if c == "drop_last" and a.ndim:
            b = a[..., 0]
        elif c == "add_dim":
            b = a[..., None]
        elif c == "transpose" and a.ndim >= 2:
            b = np.ascontiguousarray(a.T)
        elif c == "plus1" and a.ndim:
            b = np.concatenate([a, a[-1:]], axis=0) if a.shape[0] else np.zeros((1,) + a.shape[1:], a.dtype)
        elif c == "minus1" and a.ndim:
            b = a[:-1]
        elif c == "flatten":
            b = a.reshape(-1)
        else:
            b = a.reshape(-1)[:1]
        replace_dataset(f, p, b)
        return "shape of %s %s -> %s" % (p, a.shape, b.shape)
    if op == "dtype":
        a = np.asarray(a)
        t = rng.choice(["int32", "int64", "float32", "uint8", "str", "bool", "complex"])
        if t == "str":
            b = np.array([b"junk"] * max(1, a.size)).reshape(a.shape if a.size else (1,))
        elif t == "complex":
            b = a.astype(np.complex128) if a.dtype.kind in "iuf" else a
        else:
            b = a.astype(t) if a.dtype.kind in "iufb" else np.zeros(a.shape, t)
        replace_dataset(f, p, b)
        return "dtype of %s -> %s" % (p, t)
    if op == "scalar":
        replace_dataset(f, p, np.float64(1.0))
        return "scalar " + p
    replace_dataset(f, p, np.zeros((0,) + np.asarray(a).shape[1:]))
    return "empty dataset " + p


def mutate_h5(rng, src, dst):
    """Writes the mutated copy of src at dst (a file, or something else in its place); returns the ops."""
    r = rng.random()
    if r < 0.05:
        open(dst, "wb").close()
        return ["empty file"]
    if r < 0.08:
        os.mkdir(dst)
        return ["directory"]
    if r < 0.10:
        os.symlink("no-such-target.h5", dst)
        return ["dangling link"]
    if r < 0.12:
        with open(dst, "w") as f:
            f.write("not an hdf5 file\n" * rng.choice([1, 1000]))
        return ["text file"]
    shutil.copyfile(src, dst)
    ops = []
    if r < 0.85:
        with h5py.File(dst, "r+") as f:
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                try:
                    ops.append(mutate_h5_inside(rng, f))
                except (ValueError, TypeError, IndexError, KeyError, OSError, RuntimeError) as e:
                    ops.append("mutation not applied (%s)" % type(e).__name__)  # e.g. a shape change of an empty array
    raw = rng.random()
    if r >= 0.85 or raw < 0.08:
        size = os.path.getsize(dst)
        with open(dst, "r+b") as f:
            if rng.random() < 0.5:
                n = rng.randrange(size)
                f.truncate(n)
                ops.append("truncated at %d of %d bytes" % (n, size))
            else:
                for _ in range(rng.choice([1, 8, 64])):
                    pos = rng.randrange(size)
                    f.seek(pos)
                    f.write(bytes([rng.randrange(256)]))
                ops.append("bytes flipped")
    return ops


# ------------------------------------------------------------------------------------------------ runs
CRASH_RE = re.compile(r"Caught signal|Segmentation|SEGV|Bus error|AddressSanitizer|UndefinedBehaviorSanitizer|"
                      r"runtime error:|double free|stack smashing|Floating point exception|core dumped|"
                      r"free\(\): invalid|malloc\(\): |corrupted size|Aborted|std::bad_alloc")
NAMES_RE = re.compile(r"(?:^|[\s(\"'`])-[A-Za-z][\w]*|[\w.+-]+\.(?:h5|yaml|yml|hdf5)\b|/[A-Za-z_]\w*|\w@\w|"
                      r"\bkey\b|\boption\b|\bdataset\b|\battribute\b")


def message_lines(out):
    """adjsim's error lines, and the message proper of PETSc error reports (the lines between a report's
    "Error Message" header and its "See https://petsc.org" line: e.g. "Error in external library" and
    "HDF5 call failed: obj", which name no file)."""
    msgs, inside = [], False
    for line in out.splitlines():
        if line.startswith("adjsim: error"):
            msgs.append(line)
        m = re.match(r"\[\d+\]PETSC ERROR: (.*)", line)
        if m and "Error Message" in m.group(1):
            inside = True
        elif m and m.group(1).startswith("See ") or not m:
            inside = False
        elif inside:
            msgs.append(line)
    return msgs


def classify(rc, out, timed_out):
    if timed_out:
        return "HANG"
    if rc < 0 or (rc >= 128 and rc != 85) or CRASH_RE.search(out):
        return "CRASH"
    if rc == 0:
        return "OK"
    msgs = message_lines(out)
    if msgs and any(NAMES_RE.search(m) for m in msgs):
        return "REJECTED"
    return "UNCLEAR"


def run(cmd, cwd, timeout):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return p.returncode, out.decode("utf-8", "replace"), True


def launcher(args):
    if args.np == 1:
        return [args.adjsim]
    return [args.mpiexec, "-n", str(args.np), "--oversubscribe", "--bind-to", "none", args.adjsim]


def digest(path):
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def make_seeds(args, seeddir):
    os.makedirs(seeddir, exist_ok=True)
    # The command line is stored in the files (/provenance): run ./adjsim on local decks so that the seeds have the
    # same layout whatever the paths, and a case (its byte flips, its truncation) replays with any build or checkout.
    os.symlink(args.adjsim, os.path.join(seeddir, "adjsim"))
    for deck, opts in SEED_RUNS:
        shutil.copyfile(os.path.join(ROOT, "inputs", deck + ".yaml"), os.path.join(seeddir, deck + ".yaml"))
        cmd = ["./adjsim", "-options_file", deck + ".yaml"] + opts + ["-quiet"]
        rc, out, to = run(cmd, seeddir, 120)
        if rc or to:
            sys.exit("fuzz_inputs: seed run failed (%s): %s\n%s" % (rc, sh(cmd), out))
    rc = subprocess.call([sys.executable, os.path.join(ROOT, "postprocess", "adjsim_particle_file.py"), "pf.h5",
                          "--box", "0.6,0.6,0.7,0.7", "--spacing", "0.03125", "--label", "1", "--E", "3e4",
                          "--nu", "0.25"], cwd=seeddir, stdout=subprocess.DEVNULL)
    if rc:
        sys.exit("fuzz_inputs: postprocess/adjsim_particle_file.py failed")


def one_case(args, seeddir, case, workroot):
    rng = random.Random("%d:%d" % (args.seed, case))
    kind = args.kinds[case % len(args.kinds)]
    d = tempfile.mkdtemp(prefix="case%d-" % case, dir=workroot)
    out_name = "out.h5"
    if kind == "yaml":
        deck = rng.choice(sorted(SMALL_DECKS))
        text, ops = mutate_yaml(rng, small_deck(deck))
        name = "deck.yaml" if rng.random() < 0.9 else "deck.yml"
        with open(os.path.join(d, name), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        if deck == "transport_inverse":
            shutil.copyfile(os.path.join(seeddir, "tr.h5"), os.path.join(d, "demo-observations.h5"))
        cmd = launcher(args) + ["-options_file", name, "-quiet", "-output", out_name]
        inputs = [name]
        what = "%s: %s" % (deck, ", ".join(ops))
    else:
        src, name, deck, opts = rng.choice(TARGETS[kind])
        ops = mutate_h5(rng, os.path.join(seeddir, src), os.path.join(d, name))
        opts = [o.replace("@F@", name) for o in opts]
        cmd = launcher(args) + ["-options_file", os.path.join(ROOT, "inputs", deck + ".yaml")] + opts + \
            ["-quiet", "-output", out_name]
        inputs = [name]
        what = "%s (%s, %s): %s" % (name, src, deck, "; ".join(ops))
    before = {p: digest(os.path.join(d, p)) for p in inputs}
    t0 = time.time()
    rc, out, timed_out = run(cmd, d, args.timeout)
    dt = time.time() - t0
    cls = classify(rc, out, timed_out)
    if cls not in ("CRASH", "HANG") and any(digest(os.path.join(d, p)) != h for p, h in before.items()):
        cls = "DAMAGED"
    return kind, cls, rc, dt, cmd, out, what, d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="campaign seed (default %(default)s)")
    ap.add_argument("--cases", type=int, default=100, help="number of cases (default %(default)s)")
    ap.add_argument("--first", type=int, default=0, help="number of the first case (default 0)")
    ap.add_argument("--only", type=int, action="append", help="run only this case number (repeatable)")
    ap.add_argument("--np", type=int, choices=[1, 2], default=1, help="ranks per run (default 1)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated subset of " + ",".join(KINDS))
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run before HANG (default 60)")
    ap.add_argument("--adjsim", default=os.path.join(ROOT, "build", "adjsim"), help="executable")
    ap.add_argument("--mpiexec", default="mpiexec", help="MPI launcher for --np 2")
    ap.add_argument("--out", default="fuzz-out", help="directory of the reproducers (default ./fuzz-out)")
    ap.add_argument("--keep", action="store_true", help="keep every case directory under --out/cases")
    ap.add_argument("--verbose", action="store_true", help="one line per case")
    args = ap.parse_args()
    args.kinds = [k for k in args.kinds.split(",") if k]
    for k in args.kinds:
        if k not in KINDS:
            ap.error("unknown kind %r (kinds: %s)" % (k, ", ".join(KINDS)))
    args.adjsim = os.path.abspath(args.adjsim)
    if not os.access(args.adjsim, os.X_OK):
        ap.error("no executable %s (--adjsim)" % args.adjsim)
    if os.geteuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    os.environ.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    os.makedirs(args.out, exist_ok=True)
    workroot = tempfile.mkdtemp(prefix="adjsim-fuzz-")
    classes = ["OK", "REJECTED", "CRASH", "HANG", "UNCLEAR", "DAMAGED"]
    table = {k: dict.fromkeys(classes, 0) for k in args.kinds}
    times = {k: 0.0 for k in args.kinds}
    messages = {}
    t_start = time.time()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit("fuzz_inputs: stopped by SIGTERM"))
    try:
        seeddir = os.path.join(workroot, "seeds")
        make_seeds(args, seeddir)
        cases = args.only if args.only else range(args.first, args.first + args.cases)
        for case in cases:
            kind, cls, rc, dt, cmd, out, what, d = one_case(args, seeddir, case, workroot)
            table[kind][cls] += 1
            if cls == "REJECTED":  # the messages, numbers masked, for a review of their wording
                m = re.sub(r"(?<![A-Za-z_\d])\d+(\.\d*)?(e[-+]?\d+)?", "N", message_lines(out)[0])[:200]
                messages[(kind, m)] = messages.get((kind, m), 0) + 1
            times[kind] += dt
            bad = cls in ("CRASH", "HANG", "UNCLEAR", "DAMAGED")
            if args.verbose or bad:
                first = (message_lines(out) or out.strip().splitlines()[-1:] or [""])[0]
                print("case %d %-7s %-8s rc=%s %.1fs  %s\n    %s" % (case, kind, cls, rc, dt, what, first[:300]),
                      flush=True)
            if bad or args.keep:
                dest = os.path.join(args.out, "%s%s-case%d-%s" % ("cases/" if not bad else "", kind, case, cls))
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(d, dest, symlinks=True)
                with open(os.path.join(dest, "cmd.txt"), "w") as f:
                    f.write("# seed %d case %d np %d: %s\n# replay: %s %s --seed %d --only %d --np %d --kinds %s\n"
                            "cd %s && %s\n" % (args.seed, case, args.np, what, sys.executable,
                                               os.path.abspath(__file__), args.seed, case, args.np,
                                               ",".join(args.kinds), os.path.abspath(dest), sh(cmd)))
                with open(os.path.join(dest, "output.txt"), "w") as f:
                    f.write("exit %s, %.1f s, %s\n%s" % (rc, dt, cls, out))
            shutil.rmtree(d, ignore_errors=True)
    except (KeyboardInterrupt, SystemExit) as e:  # the summary of the cases run so far
        print("\nfuzz_inputs: stopped (%s)" % (e or "interrupt"), flush=True)
    finally:
        shutil.rmtree(workroot, ignore_errors=True)
    with open(os.path.join(args.out, "messages.txt"), "w") as f:
        for (k, m), n in sorted(messages.items(), key=lambda x: -x[1]):
            f.write("%5d %-8s %s\n" % (n, k, m))
    print("\nseed %d, np %d, %.0f s" % (args.seed, args.np, time.time() - t_start))
    print("%-8s %6s " % ("kind", "cases") + " ".join("%8s" % c for c in classes) + "  s/case")
    total = dict.fromkeys(classes, 0)
    for k in args.kinds:
        n = sum(table[k].values())
        print("%-8s %6d " % (k, n) + " ".join("%8d" % table[k][c] for c in classes) +
              "  %6.2f" % (times[k] / n if n else 0))
        for c in classes:
            total[c] += table[k][c]
    print("%-8s %6d " % ("total", sum(total.values())) + " ".join("%8d" % total[c] for c in classes))
    nbad = total["CRASH"] + total["HANG"] + total["UNCLEAR"] + total["DAMAGED"]
    if nbad:
        print("%d case(s) to look at: reproducers in %s" % (nbad, os.path.abspath(args.out)))
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())
