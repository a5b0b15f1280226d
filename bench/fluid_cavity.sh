#!/usr/bin/env bash
# Lid-driven cavity against Ghia, Ghia & Shin, J. Comput. Phys. 48 (1982) 387-411 (Tables I, II;
# tests/fluid/ghia1982_cavity.csv): maximum centreline error (lid speed 1) of
#   128x128 at Re 100  (target <= 0.01)   and   256x256 at Re 1000 (target <= 0.02).
# usage: bash bench/fluid_cavity.sh [ranks] [build dir] [Re100 final time] [Re1000 final time]
# Runs adjsim on inputs/fluid_cavity_re100.yaml, then postprocess/adjsim_ghia_compare.py.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-2}
build=${2:-$here/build}
t100=${3:-20}
t1000=${4:-50}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run=$build/adjsim
[ -x "$run" ] || { echo "build first: cmake -S $here -B $build && cmake --build $build"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ghia=$here/tests/fluid/ghia1982_cavity.csv
echo "== 128x128, Re 100, t = $t100 s (target: max centreline error <= 0.01)"
mpiexec -n "$np" --oversubscribe --bind-to none "$run" -options_file "$here/inputs/fluid_cavity_re100.yaml" \
  -fluid_grid 128,128 -fluid_final_time "$t100" -output "$out/re100.h5" -quiet
/usr/bin/python3 "$here/postprocess/adjsim_ghia_compare.py" "$out/re100.h5" --table "$ghia" --re 100 --tol 0.01 || true
echo "== 256x256, Re 1000, t = $t1000 s (target: max centreline error <= 0.02)"
mpiexec -n "$np" --oversubscribe --bind-to none "$run" -options_file "$here/inputs/fluid_cavity_re100.yaml" \
  -fluid_grid 256,256 -fluid_re 1000 -fluid_final_time "$t1000" -output "$out/re1000.h5" -quiet
/usr/bin/python3 "$here/postprocess/adjsim_ghia_compare.py" "$out/re1000.h5" --table "$ghia" --re 1000 --tol 0.02 || true
