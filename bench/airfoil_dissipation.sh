#!/usr/bin/env bash
# The airfoil solver's fourth-difference dissipation (docs/airfoil.md, "Dissipation"): the validation cases of
# bench/airfoil_validation.sh at several k4 (-airfoil_dissipation; 0 is the central scheme, whose NACA march never
# settles), with the checkerboard amplitude of the last fields on the outer rows (postprocess/
# adjsim_airfoil_checkerboard.py).  Shows what the term costs in accuracy (the forces' change from k4 = 0, which
# must shrink as the grid is refined) and that it lets the march reach -steady_tol.  Not a test.
# usage: bash bench/airfoil_dissipation.sh [ranks] [build dir] [cases] [levels] [k4 values]
#        (defaults: 2, build, cyl,naca5, 1,2, "0 0.03125 0.0625"; about an hour on 2 quiet cores)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-2} build=${2:-$here/build} cases=${3:-cyl,naca5} levels=${4:-1,2} k4s=${5:-0 0.03125 0.0625}
for k in $k4s; do
  out=$(mktemp -d)
  echo "== -airfoil_dissipation $k (runs in $out)"
  AIRFOIL_EXTRA="-airfoil_dissipation $k" ADJSIM_BENCH_OUT=$out bash "$here/bench/airfoil_validation.sh" "$np" \
    "$build" "$cases" "$levels"
  for f in "$out"/*.h5; do
    echo "$(basename "$f" .h5): outer 8 rows, largest 2x2 amplitude: $(/usr/bin/python3 \
      "$here/postprocess/adjsim_airfoil_checkerboard.py" "$f" | awk '/checkerboard/ { n = split($0, a, " ");
        m = 0; for (i = n - 7; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0; printf "%s %.0e  ", $1, m }')"
  done
done
