#!/usr/bin/python3
"""Check the numbers that adjsim_plot_particles.py and adjsim_plot_airfoil.py print against the run
file (used by the tests). The values are recomputed here from the HDF5 datasets with plain h5py and
numpy, independently of the plotting scripts' code:

  particles: each line "step S (t = T s): N particles, FIELD min A max B" must match /fields/step,
    /fields/time, the number of particles with a finite position and the extremes of FIELD, computed
    from /particles (von Mises from the principal stresses of the symmetric in-plane stress, plane
    stress) or, for a restart file, from /restart/particles (x, v, C, F).
  airfoil: each line "iteration I: J = X, alpha = A deg, chord = c, m = .., p = .., t = .., position = x,y"
    (or Au0.., Al0.. for CST) must match /optimization/objective and the design row of iteration I
    taken apart by its column numbers: the body blocks are found by scanning design_blocks,
    design_offsets and design_scales by hand; blocks not optimized must equal /parameters. With
    --final, the last iteration printed must also equal /parameters (the final design).

Values are printed with 12 significant digits: the tolerance is --rtol (default 6e-12) relative to
the value, plus 1e-12 of the largest magnitude of the field (for values that cancel to about zero).
Exits 1 naming the first number that differs, 2 for bad options.

Example:
  /usr/bin/python3 postprocess/adjsim_plot_particles.py run.h5 -o p.png > p.txt
  /usr/bin/python3 postprocess/checks/adjsim_check_printed.py particles run.h5 p.txt
"""
import argparse
import re
import sys

import h5py
import numpy as np

NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf"


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=("particles", "airfoil"), help="which script printed the text")
    ap.add_argument("run", help="the run file the script read")
    ap.add_argument("text", help="the script's standard output, saved to a file")
    ap.add_argument("--field", default=None, help="particles: the --field the script was given (default: as printed)")
    ap.add_argument("--lines", type=int, default=None, help="required number of checked lines")
    ap.add_argument("--restart", action="store_true",
                    help="particles: the script was given --restart (the /restart/particles state of a run file)")
    ap.add_argument("--final", action="store_true", help="airfoil: the last line must be the final design too")
    ap.add_argument("--rtol", type=float, default=6e-12, help="relative tolerance (default 6e-12: the scripts print 12 significant digits)")
    return ap.parse_args(argv)


class Mismatch(Exception):
    pass


def close(what, printed, ref, scale, rtol):
    tol = rtol * abs(ref) + 1e-12 * scale
    if not (abs(printed - ref) <= tol or (np.isnan(printed) and np.isnan(ref))):
        raise Mismatch(f"{what}: printed {printed!r}, the file gives {ref!r} (difference {abs(printed - ref):.3e}, "
                       f"tolerance {tol:.3e})")
    print(f"  {what}: {printed!r} ok")


# ---------------------------------------------------------------------------------------------


def principal_von_mises(s):
    """Plane-stress von Mises from the principal stresses of the symmetric part of s (N, 4)."""
    out = np.empty(len(s))
    for i, row in enumerate(s):
        m = row.reshape(2, 2)
        s1, s2 = np.linalg.eigvalsh(0.5 * (m + m.T))
        out[i] = np.sqrt(s1 * s1 - s1 * s2 + s2 * s2)
    return out


def particle_values(f, k, field):
    """(positions, values) of field at slice k of /particles, or of the restart state (k None)."""
    if k is None:
        state = f["restart/particles"][()]
        x, v, F = state[:, 0:2], state[:, 2:4], state[:, 8:12]
        raw = {"velocity": v, "F": F}
    else:
        x = f["particles/position"][k]
        raw = {name: f[f"particles/{name}"][k] for name in f["particles"]}
    comp = {"xx": 0, "xy": 1, "yx": 2, "yy": 3}
    if field == "von_mises":
        val = principal_von_mises(raw["stress"])
    elif field == "pressure":
        val = -np.trace(raw["stress"].reshape(-1, 2, 2), axis1=1, axis2=2) / 2
    elif field[0] == "s" and field[1:] in comp:
        val = raw["stress"][:, comp[field[1:]]]
    elif field[0] == "F" and field[1:] in comp:
        val = raw["F"][:, comp[field[1:]]]
    elif field == "speed":
        val = np.linalg.norm(raw["velocity"], axis=1)
    elif field in ("vx", "vy"):
        val = raw["velocity"][:, "xy".index(field[1])]
    elif field == "J":
        val = np.linalg.det(raw["F"].reshape(-1, 2, 2))
    else:
        val = raw[field]
    keep = np.all(np.isfinite(x), axis=1)
    return x[keep], np.asarray(val, dtype=float)[keep]


def check_particles(f, lines, args):
    pat = re.compile(rf"^step (\d+) \(t = ({NUM}) s\): (\d+) particles, (\w+) min ({NUM}) max ({NUM})$")
    restart = args.restart or "particles" not in f or f.attrs.get("content", b"run") in (b"restart", "restart")
    n = 0
    for line in lines:
        m = pat.match(line)
        if not m:
            continue
        step, time, count, field = int(m[1]), float(m[2]), int(m[3]), m[4]
        if args.field and field != args.field:
            raise Mismatch(f"printed field {field!r}, expected {args.field!r}")
        print(line)
        if restart:
            k, ref_step, ref_time = None, int(f["restart"].attrs["step"]), float(f["restart"].attrs["time"])
        else:
            steps = list(f["fields/step"][()])
            if step not in steps:
                raise Mismatch(f"printed step {step} is not an output step of the file ({steps})")
            k = steps.index(step)
            ref_step, ref_time = step, float(f["fields/time"][k])
        if step != ref_step:
            raise Mismatch(f"printed step {step}, the restart state is at step {ref_step}")
        close(f"step {step} time", time, ref_time, abs(ref_time), args.rtol)
        _, val = particle_values(f, k, field)
        if count != val.size:
            raise Mismatch(f"step {step}: printed {count} particles, the file has {val.size}")
        print(f"  particles: {count} ok")
        scale = float(np.max(np.abs(val))) if val.size else 0.0
        close(f"step {step} {field} min", float(m[5]), float(val.min()), scale, args.rtol)
        close(f"step {step} {field} max", float(m[6]), float(val.max()), scale, args.rtol)
        n += 1
    return n


# ---------------------------------------------------------------------------------------------


def body_value(f, row, block, index):
    """Entry `index` of body parameter block `block` at design row `row` (None: the final /parameters)."""
    o = f["optimization"]
    names = o.attrs["design_blocks"]
    names = (names.decode() if isinstance(names, bytes) else str(names)).split(",")
    if row is not None:
        for b, name in enumerate(names):
            if name == block:
                col = int(o.attrs["design_offsets"][b]) + index
                return float(o.attrs["design_scales"][b]) * float(o["design"][row, col])
    return float(f[f"parameters/{block}"][index])


def shape_entry(name, nshape):
    """(block, index) of a printed parameter name."""
    fixed = {"alpha": ("body_alpha", 0), "chord": ("body_shape", 0), "R": ("body_shape", 0), "a": ("body_shape", 0),
             "b": ("body_shape", 1), "m": ("body_shape", 1), "p": ("body_shape", 2), "t": ("body_shape", 3)}
    if name in fixed:
        return fixed[name]
    m = re.fullmatch(r"A([ul])(\d+)", name)
    if m:
        ncst = (nshape - 1) // 2
        return "body_shape", 1 + int(m[2]) + (ncst if m[1] == "l" else 0)
    raise Mismatch(f"unknown parameter name {name!r} in the printed line")


def check_airfoil(f, lines, args):
    pat = re.compile(rf"^iteration (\d+): J = ({NUM}), (.*)$")
    iters = list(f["optimization/iteration"][()])
    nshape = f["parameters/body_shape"].shape[0]
    n, last = 0, None
    for line in lines:
        m = pat.match(line)
        if not m:
            continue
        print(line)
        it = int(m[1])
        if it not in iters:
            raise Mismatch(f"printed iteration {it} is not in /optimization/iteration")
        row = len(iters) - 1 - iters[::-1].index(it)
        close(f"iteration {it} J", float(m[2]), float(f["optimization/objective"][row]),
              abs(float(f["optimization/objective"][row])), args.rtol)
        values = {}
        for part in m[3].split(", "):
            name, value = part.split(" = ")
            if name == "position":
                for i, v in enumerate(value.split(",")):
                    values[("body_position", i)] = float(v)
            else:
                values[shape_entry(name, nshape)] = float(value.split()[0])
        if len(values) != 3 + nshape:
            raise Mismatch(f"iteration {it}: {len(values)} parameters printed, the body has {3 + nshape}")
        for (block, i), v in values.items():
            ref = body_value(f, row, block, i)
            close(f"iteration {it} {block}[{i}]", v, ref, abs(ref), args.rtol)
        last = values
        n += 1
    if args.final and last is not None:
        for (block, i), v in last.items():
            ref = body_value(f, None, block, i)
            close(f"final design {block}[{i}] (/parameters)", v, ref, abs(ref), args.rtol)
    return n


def main(argv=None):
    args = parse_args(argv)
    try:
        with open(args.text) as t:
            lines = [line.rstrip("\n") for line in t]
        with h5py.File(args.run, "r") as f:
            n = (check_particles if args.kind == "particles" else check_airfoil)(f, lines, args)
    except (OSError, KeyError) as e:
        print(f"adjsim_check_printed.py: error: {e}", file=sys.stderr)
        return 1
    except Mismatch as e:
        print(f"adjsim_check_printed.py: error: {args.text}: {e}", file=sys.stderr)
        return 1
    if n == 0 or (args.lines is not None and n != args.lines):
        print(f"adjsim_check_printed.py: error: {args.text}: {n} lines checked, expected "
              f"{args.lines if args.lines is not None else 'at least 1'}", file=sys.stderr)
        return 1
    print(f"{args.text}: {n} lines, every number matches {args.run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
