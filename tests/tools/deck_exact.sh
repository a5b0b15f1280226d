#!/bin/bash
# Bit-for-bit regression harness over every deck in inputs/: run each deck at a small size with a given
# build, on 1 and 2 ranks, and compare two such sets of outputs dataset by dataset (exact equality).
#
#   bash tests/tools/deck_exact.sh run BUILD_DIR OUT_DIR     # BUILD_DIR/adjsim -> OUT_DIR/<deck>_np<N>.h5 (+ .xmf,
#                                                            #   -restart.h5, .log); order: truth decks first
#   bash tests/tools/deck_exact.sh compare DIR_A DIR_B       # every .h5 of DIR_A against DIR_B, one PASS/FAIL line each
#
# Typical use around a refactoring:
#   bash tests/tools/deck_exact.sh run /path/to/build-before /tmp/before
#   bash tests/tools/deck_exact.sh run build /tmp/after
#   bash tests/tools/deck_exact.sh compare /tmp/before /tmp/after
#
# run: every deck runs from inside OUT_DIR (relative input files such as observations resolve there) with
# the overrides of the table below (smaller grids, fewer steps, few optimizer iterations, restart files),
# plus -quiet and -output <deck>_np<N>.h5.  A failing run does not stop the others; the summary lists
# the failures and the exit status is nonzero if any run failed.  Environment: NP_LIST (default "1 2"),
# DECKS (default: all decks of the table, e.g. DECKS="transport_truth transport_inverse"), MPIEXEC
# (default mpiexec), RUN_TIMEOUT (seconds per run, default 300).
#
# compare: for each file, every top-level group holding datasets in either file (e.g. /fields, /restart,
# /gradients, /parameters, /optimization, /history, /particles) is compared by
# postprocess/adjsim_compare.py --exact, and the HDF5 attributes of all groups and datasets by a short
# check below.  Excluded, because they legitimately differ from run to run: the group /provenance
# (wall-clock start/end/write times, host name, command line with the output directory, git commit)
# and nothing else.  Files only in DIR_B are reported too.  Exit status 0 only if every file PASSes.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INPUTS=$ROOT/inputs
PYTHON=${ADJSIM_PYTHON:-/usr/bin/python3}
COMPARE=$ROOT/postprocess/adjsim_compare.py

# ---------------------------------------------------------------------------------------------------
# Decks, in run order (truth decks before the decks that read their output), and their overrides.
# "@NP@" in an override is replaced by the rank count of the run, so that e.g. transport_inverse_np2
# reads the observations written by transport_truth_np2.  Every run also gets -quiet and
# -output <name>_np<N>.h5.  An entry "<deck>:<variant>" runs inputs/<deck>.yaml again under the output
# name <deck>-<variant>_np<N>.h5 (used to get forward fields and restart files of the gradient decks).
# ---------------------------------------------------------------------------------------------------
DECK_TABLE=(
  # ---- transport
  "transport_truth|-transport_grid 32,32 -transport_final_time 0.125 -transport_steps 32 -output_interval 8 -restart_interval 8"
  "transport_inverse|-transport_grid 32,32 -transport_final_time 0.125 -transport_steps 32 -transport_obs_file transport_truth_np@NP@.h5 -checkpoint_ram 4 -tao_max_it 3 -output_interval 8 -restart_interval 8"
  # ---- fluid
  "fluid_inverse_truth|-fluid_final_time 1 -fluid_steps 60 -restart_interval 20"
  "fluid_inverse|-fluid_final_time 1 -fluid_steps 60 -fluid_obs_file fluid_inverse_truth_np@NP@.h5 -checkpoint_ram 6 -tao_max_it 3 -output_interval 20 -restart_interval 20"
  "fluid_gradient_check|-checkpoint_ram 4"
  "fluid_gradient_check:fwd|-mode forward -output_interval 3 -restart_interval 3"
  "fluid_cavity_re100|-fluid_grid 32,32 -fluid_final_time 2 -output_interval 20 -restart_interval 20"
  "fluid_cavity_re1000|-fluid_grid 48,48 -fluid_final_time 1 -output_interval 20 -restart_interval 20"
  "fluid_taylor_green|-fluid_grid 32,32 -output_interval 4 -restart_interval 4"
  "fluid_cylinder_re40|-fluid_grid 120,80 -fluid_final_time 5 -output_interval 20 -restart_interval 20"
  "fluid_cylinder_re100|-fluid_grid 120,80 -fluid_final_time 5 -output_interval 20 -restart_interval 20"
  "fluid_naca0012_re1000|-fluid_grid 160,120 -fluid_final_time 1 -output_interval 20 -restart_interval 20"
  "fluid_airfoil_optimize|-fluid_grid 96,48 -fluid_final_time 1 -fluid_objective_window 0.5,1 -checkpoint_ram 8 -tao_max_it 3 -output_interval 10 -restart_interval 10"
  "fluid_airfoil_constrained|-fluid_grid 60,30 -fluid_final_time 0.2 -fluid_objective_window 0.1,0.2 -checkpoint_ram 4 -tao_max_it 1 -output_interval 5 -restart_interval 5"
  # multipoint and robust designs: -design_point_groups @NP@ so that 1 rank runs the points one after the other
  "airfoil_design_multipoint|-fluid_grid 40,20 -fluid_final_time 0.1 -fluid_objective_window 0.05,0.1 -tao_max_it 1 -checkpoint_ram 4 -design_point_groups @NP@"
  "airfoil_design_robust|-fluid_grid 40,20 -fluid_final_time 0.1 -fluid_objective_window 0.05,0.1 -tao_max_it 1 -checkpoint_ram 4 -design_point_groups @NP@"
  # ---- airfoil (body-fitted): 32 x 13 cells, no steady state reached (the whole time axis runs)
  "airfoil_naca0012_re1000|-airfoil_grid_around 32 -airfoil_grid_normal 14 -airfoil_final_time 0.5 -output_interval 16 -restart_interval 16"
  "airfoil_cylinder_re40|-airfoil_grid_around 32 -airfoil_grid_normal 14 -airfoil_final_time 1 -output_interval 16 -restart_interval 16"
  "airfoil_dat_example|-airfoil_dat $INPUTS/airfoil_naca2412.dat -airfoil_grid_around 32 -airfoil_grid_normal 14 -airfoil_final_time 0.5 -output_interval 16 -restart_interval 16"
  # ---- mpm
  "mpm_inverse_truth|-restart_interval 50"
  "mpm_inverse|-mpm_obs_file mpm_inverse_truth_np@NP@.h5 -tao_max_it 3 -output_interval 50 -restart_interval 50"
  "mpm_gradient_check|"
  "mpm_gradient_check:fwd|-mode forward -output_interval 5 -restart_interval 5"
  "mpm_obstacle_gradient|"
  "mpm_obstacle_gradient:fwd|-mode forward -output_interval 5 -restart_interval 5"
  "mpm_bar|-mpm_final_time 0.05 -output_interval 10 -restart_interval 10"
  "mpm_collision|-mpm_final_time 0.1 -output_interval 20 -restart_interval 20"
  "mpm_column|-mpm_final_time 0.05 -output_interval 8 -restart_interval 8"
  "mpm_drop|-mpm_final_time 0.3 -output_interval 40 -restart_interval 40"
  "mpm_obstacle|-mpm_final_time 0.3 -output_interval 40 -restart_interval 40"
  "mpm_plastic_clay|-mpm_final_time 0.1 -output_interval 25 -restart_interval 25"
  "mpm_sand_column|-mpm_final_time 0.05 -output_interval 40 -restart_interval 40"
  "mpm_sand_inverse_truth|-mpm_final_time 0.1 -output_interval 625 -restart_interval 625"
  "mpm_sand_inverse|-mpm_final_time 0.1 -mpm_objective_mass_file mpm_sand_inverse_truth_np@NP@.h5 -tao_max_it 3 -output_interval 625 -restart_interval 625"
  "mpm_walker|-mpm_final_time 0.04 -tao_max_it 2 -output_interval 25 -restart_interval 25"
  "mpm_walker_controller|-mpm_final_time 0.04 -tao_max_it 2 -output_interval 25 -restart_interval 25"
  "mpm_walker_codesign|-mpm_final_time 0.04 -tao_max_it 2 -output_interval 25 -restart_interval 25"
  "mpm_clay_inverse_truth|-restart_interval 300"
  "mpm_clay_inverse|-mpm_objective_mass_file mpm_clay_inverse_truth_np@NP@.h5 -tao_max_it 3 -output_interval 300 -restart_interval 300"
)

usage() {
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mpi_env() {
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  export OMPI_MCA_rmaps_base_oversubscribe=1
}

# ---------------------------------------------------------------------------------------------------
cmd_run() {
  local build=$1 out=$2
  local exe
  exe=$(cd "$build" && pwd)/adjsim
  [ -x "$exe" ] || { echo "deck_exact: no executable $exe" >&2; exit 2; }
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  mpi_env
  local mpiexec=${MPIEXEC:-mpiexec} timeout_s=${RUN_TIMEOUT:-300}
  local np_list=${NP_LIST:-"1 2"}
  local -a failed=() missing=()
  local -A in_table=()
  local entry name deck variant opts np tag t0 t1 rc total0 selected
  total0=$(date +%s)

  for entry in "${DECK_TABLE[@]}"; do in_table[${entry%%|*}]=1; in_table[${entry%%[:|]*}]=1; done
  # Decks in inputs/ without a table entry are not run: they must get small-size overrides first.
  for f in "$INPUTS"/*.yaml; do
    deck=$(basename "$f" .yaml)
    [ -n "${in_table[$deck]:-}" ] || missing+=("$deck")
  done

  for np in $np_list; do
    for entry in "${DECK_TABLE[@]}"; do
      name=${entry%%|*}
      opts=${entry#*|}
      deck=${name%%:*}
      variant=""
      [ "$name" != "$deck" ] && variant=-${name#*:}
      if [ -n "${DECKS:-}" ]; then
        selected=0
        for d in $DECKS; do
          if [ "$d" = "$deck" ] || [ "$d" = "$name" ]; then selected=1; fi
        done
        [ $selected = 1 ] || continue
      fi
      tag=${deck}${variant}_np${np}
      opts=${opts//@NP@/$np}
      rm -f "$out/$tag".h5 "$out/$tag"-*.h5 "$out/$tag".xmf "$out/$tag"-*.xmf "$out/$tag".h5.partial "$out/$tag".log
      t0=$(date +%s%N)
      set +e
      # shellcheck disable=SC2086  # opts is a list of words
      (cd "$out" && timeout "$timeout_s" "$mpiexec" -n "$np" --bind-to none "$exe" \
        -options_file "$INPUTS/$deck.yaml" $opts -quiet -output "$tag.h5" >"$tag.log" 2>&1)
      rc=$?
      set -e
      t1=$(date +%s%N)
      if [ $rc -eq 0 ] && [ -f "$out/$tag.h5" ]; then
        printf '%-42s ok    %6.1f s\n' "$tag" "$(((t1 - t0) / 100000000))e-1"
      else
        printf '%-42s FAIL  %6.1f s  (exit %d, see %s)\n' "$tag" "$(((t1 - t0) / 100000000))e-1" "$rc" "$out/$tag.log"
        failed+=("$tag")
      fi
    done
  done
  echo "total $(($(date +%s) - total0)) s; outputs in $out"
  if [ ${#missing[@]} -gt 0 ]; then
    echo "NOT RUN (no entry in the override table of $0): ${missing[*]}"
  fi
  if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED runs: ${failed[*]}"
  fi
  [ ${#failed[@]} -eq 0 ] && [ ${#missing[@]} -eq 0 ]
}

# ---------------------------------------------------------------------------------------------------
# One pass over both files.  Prints "groups: ..." (the top-level groups holding at least one dataset in
# either file, except /provenance), then one line per attribute of any group or dataset outside
# /provenance that is missing from one file or not equal bit for bit (compared as raw bytes).
h5_inspect() {
  "$PYTHON" - "$1" "$2" <<'EOF'
import sys, h5py, numpy as np
groups, attrs = set(), []
for path in sys.argv[1:]:
    found = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if name == "provenance" or name.startswith("provenance/"):
                return
            if isinstance(obj, h5py.Dataset):
                groups.add("/" + name.split("/")[0])
            for k, v in obj.attrs.items():
                a = np.asarray(v)
                found["/" + name + "@" + k] = (a.dtype.str, a.shape, repr(v) if a.dtype.kind == "O" else a.tobytes())
        visit("", f)
        f.visititems(visit)
    attrs.append(found)
print("groups:", " ".join(sorted(groups)))
a, b = attrs
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        print(f"attribute {k}: {'only in first file' if k not in b else 'only in second file' if k not in a else 'differs'}")
EOF
}

cmd_compare() {
  local a=$1 b=$2 f name groups log nfail=0 nfiles=0 why
  [ -d "$a" ] || { echo "deck_exact: no directory $a" >&2; exit 2; }
  [ -d "$b" ] || { echo "deck_exact: no directory $b" >&2; exit 2; }
  log=$(mktemp)
  shopt -s nullglob
  for f in "$a"/*.h5; do
    name=$(basename "$f")
    nfiles=$((nfiles + 1))
    if [ ! -f "$b/$name" ]; then
      printf '%-52s FAIL  missing in %s\n' "$name" "$b"
      nfail=$((nfail + 1))
      continue
    fi
    if ! h5_inspect "$f" "$b/$name" >"$log" 2>&1; then
      printf '%-52s FAIL  cannot read: %s\n' "$name" "$(tail -1 "$log")"
      nfail=$((nfail + 1))
      continue
    fi
    groups=$(sed -n 's/^groups: *//p' "$log")
    why=""
    if grep -q '^attribute' "$log"; then
      why="attributes differ: $(grep '^attribute' "$log" | head -3 | tr '\n' ';')"
    fi
    # shellcheck disable=SC2086  # groups is a list of words
    if [ -z "$groups" ]; then
      why="${why:+$why }no datasets"
    elif ! "$PYTHON" "$COMPARE" "$f" "$b/$name" --exact --groups $groups >"$log" 2>&1; then
      # (grep finding none of these must not abort the script under set -e and pipefail before FAIL is printed)
      why="${why:+$why }datasets differ: $({ grep -E 'DIFFERS|only in|shapes differ|missing|Error' "$log" || true; } | head -3 | tr '\n' ';')"
    fi
    if [ -z "$why" ]; then
      printf '%-52s PASS  %s (%s datasets)\n' "$name" "$groups" "$(tail -1 "$log" | sed 's/ dataset(s) compared.*//')"
    else
      printf '%-52s FAIL  %s\n' "$name" "$why"
      nfail=$((nfail + 1))
    fi
  done
  for f in "$b"/*.h5; do
    name=$(basename "$f")
    if [ ! -f "$a/$name" ]; then
      printf '%-52s FAIL  only in %s\n' "$name" "$b"
      nfail=$((nfail + 1))
    fi
  done
  rm -f "$log"
  echo "$nfiles file(s) in $a, $nfail problem(s)"
  [ "$nfiles" -gt 0 ] && [ "$nfail" -eq 0 ]
}

[ $# -eq 3 ] || usage
case $1 in
run) cmd_run "$2" "$3" ;;
compare) cmd_compare "$2" "$3" ;;
*) usage ;;
esac
