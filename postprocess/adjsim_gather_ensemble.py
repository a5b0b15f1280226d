#!/usr/bin/python3
"""Gather an adjsim ensemble (jobs/slurm/ensemble.sbatch) into one HDF5 file of training pairs for a
surrogate model: (parameters of the member, field at output slice k, field at output slice k+1).

The ensemble directory holds member-NNNN/ folders, each with run.h5 (the run file), options.txt (the
member's line of the parameter file) and, for a member that was stopped and resumed, run-segment<N>.h5
(the output steps written before each stop).  The segments and run.h5 are joined by step, so a resumed
member gives the same pairs as an uninterrupted one.  Pairs never cross members.

The parameters of a member are the numbers in its line: "-transport_kappa 1.5e-3" gives the column
transport_kappa, "-transport_initial_blobs 0.3,0.5,0.08,1" the columns transport_initial_blobs[0..3].
Options with other values (words) are kept only in /members/options.  A column missing from a
member is NaN.

Output (default <ensemble>/ensemble-pairs.h5), for P parameter columns, N pairs, a (My, Mx) field:
  /params       (N, P) float64   parameters of the pair's member; attribute names = the column names
  /state        (N, My, Mx)      field at output slice k
  /next_state   (N, My, Mx)      field at output slice k+1
  /member, /step, /next_step (N) int64; /time, /next_time, /dt (N) float64 [s]
  /param_names  (P) strings
  /members/     index, options, run_file, nslices, params (one row per member)
  /grid         the members' grid attributes (all members must share the grid)
Root attributes: format "adjsim-ensemble-pairs", format_version 1, field, ensemble_dir, source.

Examples:
  /usr/bin/python3 postprocess/adjsim_gather_ensemble.py runs/ensemble
  /usr/bin/python3 postprocess/adjsim_gather_ensemble.py runs/ensemble -o pairs.h5 --field c --allow-missing
Exit status 1 (with the reason) when a member is missing or incomplete (unless --allow-missing), the
members' grids differ, or no pair can be formed.
"""
import argparse
import glob
import os
import re
import sys

import h5py
import numpy as np

import adjsim_h5 as ah

FORMAT = "adjsim-ensemble-pairs"
FORMAT_VERSION = 1


class GatherError(Exception):
    pass


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def parse_options(line):
    """'-a 1 -b 0.1,0.2 -c word' -> (ordered {name: float}, [names with non-numeric values])."""
    try:
        return ah.parse_option_line(line)
    except ValueError as e:
        raise GatherError(str(e)) from None


def member_series(directory, field):
    """Output steps of /fields/<field> of one member, joined over its segments by step (a later segment
    wins): steps, times, where each slice is [(file, k)], grid attributes, files read, slice shape, units."""
    def seg_number(path):
        return int(re.search(r"-segment(\d+)\.h5$", path).group(1))
    files = sorted(glob.glob(os.path.join(directory, "run-segment*.h5")), key=seg_number)
    files.append(os.path.join(directory, "run.h5"))
    by_step, grid, shape, units = {}, None, None, "1"
    for path in files:
        try:
            f = h5py.File(path, "r")
        except OSError as e:
            raise GatherError(f"{path}: cannot open as HDF5 ({e})")
        with f:
            if text(f.attrs.get("format", "")) != "adjsim-run":
                raise GatherError(f"{path}: not an adjsim run file")
            if f"fields/{field}" not in f:
                names = [k for k in f.get("fields", {}) if k not in ("step", "time")]
                raise GatherError(f"{path}: no /fields/{field} (its fields: {', '.join(names) or 'none'})")
            steps, times, data = f["fields/step"][()], f["fields/time"][()], f[f"fields/{field}"]
            for k in range(data.shape[0]):
                if np.isnan(data[k]).all():
                    continue  # an output step at which this field was not written
                by_step[int(steps[k])] = (float(times[k]), path, k)
            if shape is not None and data.shape[1:] != shape:
                raise GatherError(f"{path}: /fields/{field} slices are {data.shape[1:]}, other files of the member {shape}")
            shape, units = data.shape[1:], text(data.attrs.get("units", "1"))
            if grid is None:
                grid = {a: text(v) if isinstance(v, (bytes, str)) else np.asarray(v) for a, v in f["grid"].attrs.items()}
    order = sorted(by_step)
    return dict(steps=np.array(order, dtype=np.int64), times=np.array([by_step[s][0] for s in order]),
                slices=[by_step[s][1:] for s in order], grid=grid, files=files, shape=shape, units=units)


def read_slice(cache, where, field):
    path, k = where
    if path not in cache:
        for f in cache.values():
            f.close()
        cache.clear()
        cache[path] = h5py.File(path, "r")
    return cache[path][f"fields/{field}"][k]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ensemble", help="ensemble output directory (with member-NNNN/ folders)")
    ap.add_argument("-o", "--output", help="pairs file (default <ensemble>/ensemble-pairs.h5)")
    ap.add_argument("--field", default="c", help="field to pair (default c, the transported scalar)")
    ap.add_argument("--allow-missing", action="store_true",
                    help="skip members without a complete run.h5 (default: fail and list them)")
    args = ap.parse_args()
    out = args.output or os.path.join(args.ensemble, "ensemble-pairs.h5")
    try:
        gather(args.ensemble, out, args.field, args.allow_missing)
    except GatherError as e:
        print(f"adjsim_gather_ensemble.py: error: {e}", file=sys.stderr)
        return 1
    return 0


def gather(ensemble, out, field, allow_missing):
    dirs = sorted(d for d in glob.glob(os.path.join(ensemble, "member-*")) if os.path.isdir(d))
    if not dirs:
        raise GatherError(f"{ensemble}: no member-NNNN directories (is it the output directory of ensemble.sbatch?)")
    missing = [d for d in dirs if not os.path.isfile(os.path.join(d, "run.h5"))
               or os.path.isfile(os.path.join(d, "run-restart.h5"))]
    if missing and not allow_missing:
        raise GatherError(f"{len(missing)} member(s) without a complete run.h5 (still running, stopped or failed): "
                          f"{', '.join(os.path.basename(d) for d in missing)}; rerun them or use --allow-missing")
    members = []
    for d in dirs:
        if d in missing:
            print(f"skipping {os.path.basename(d)}: no complete run.h5")
            continue
        index = int(re.search(r"member-(\d+)$", d).group(1))
        opt_path = os.path.join(d, "options.txt")
        line = open(opt_path).read().strip() if os.path.isfile(opt_path) else ""
        values, other = parse_options(line)
        m = member_series(d, field)
        m.update(index=index, line=line, values=values, other=other)
        members.append(m)
    if not members:
        raise GatherError(f"{ensemble}: no complete member")
    ref = members[0]
    for m in members[1:]:
        if m["shape"] != ref["shape"]:
            raise GatherError(f"member-{m['index']:04d} has /fields/{field} slices {m['shape']}, member-{ref['index']:04d} "
                              f"{ref['shape']}: an ensemble shares one grid")
    names = []
    for m in members:
        names += [n for n in m["values"] if n not in names]
    P = len(names)
    member_params = np.full((len(members), P), np.nan)
    for i, m in enumerate(members):
        for j, n in enumerate(names):
            member_params[i, j] = m["values"].get(n, np.nan)
    npairs = sum(max(len(m["steps"]) - 1, 0) for m in members)
    if npairs == 0:
        raise GatherError("no pairs: every member has fewer than two output slices of "
                          f"/fields/{field} (run the members with -output_interval k)")
    shape = ref["shape"]
    tmp = out + ".partial"
    with h5py.File(tmp, "w") as f:
        f.attrs["format"] = FORMAT
        f.attrs["format_version"] = np.int64(FORMAT_VERSION)
        f.attrs["field"] = field
        f.attrs["ensemble_dir"] = os.path.abspath(ensemble)
        f.attrs["source"] = "postprocess/adjsim_gather_ensemble.py"
        g = f.create_group("grid")
        for k, v in ref["grid"].items():
            g.attrs[k] = v
        ds = {}
        for name in ("state", "next_state"):
            ds[name] = f.create_dataset(name, (npairs,) + shape, dtype="f8", chunks=(1,) + shape)
            ds[name].attrs["units"] = ref["units"]
        params = np.empty((npairs, P))
        member, step, next_step = (np.empty(npairs, dtype=np.int64) for _ in range(3))
        time, next_time = np.empty(npairs), np.empty(npairs)
        r, cache = 0, {}
        for i, m in enumerate(members):
            n = len(m["steps"]) - 1
            previous = read_slice(cache, m["slices"][0], field) if n > 0 else None
            for k in range(n):
                current = read_slice(cache, m["slices"][k + 1], field)
                ds["state"][r] = previous
                ds["next_state"][r] = current
                previous = current
                params[r] = member_params[i]
                member[r], step[r], next_step[r] = m["index"], m["steps"][k], m["steps"][k + 1]
                time[r], next_time[r] = m["times"][k], m["times"][k + 1]
                r += 1
        for h in cache.values():
            h.close()
        name_array = np.array(names, dtype=h5py.string_dtype())
        f.create_dataset("params", data=params).attrs["names"] = name_array
        f.create_dataset("param_names", data=name_array)
        for name, data, units in (("member", member, "1"), ("step", step, "1"), ("next_step", next_step, "1"),
                                  ("time", time, "s"), ("next_time", next_time, "s"), ("dt", next_time - time, "s")):
            f.create_dataset(name, data=data).attrs["units"] = units
        mg = f.create_group("members")
        mg.create_dataset("index", data=np.array([m["index"] for m in members], dtype=np.int64))
        mg.create_dataset("options", data=np.array([m["line"] for m in members], dtype=h5py.string_dtype()))
        mg.create_dataset("run_file", data=np.array([os.path.abspath(m["files"][-1]) for m in members],
                                                    dtype=h5py.string_dtype()))
        mg.create_dataset("nslices", data=np.array([len(m["steps"]) for m in members], dtype=np.int64))
        mg.create_dataset("params", data=member_params).attrs["names"] = name_array
    os.replace(tmp, out)
    others = sorted({n for m in members for n in m["other"]})
    print(f"{out}: {npairs} pairs of /fields/{field} {shape} from {len(members)} member(s); "
          f"parameters {names if names else '(none)'}" + (f"; non-numeric options kept as text: {others}" if others else ""))


if __name__ == "__main__":
    sys.exit(main())
