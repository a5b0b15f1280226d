#!/usr/bin/env bash
# NACA 0012 at Re = 1000 and several angles of attack by Brinkman penalization: time-averaged lift
# and drag coefficients, to be compared with D. F. Kurtulus, "On the unsteady behavior of the flow
# around NACA 0012 airfoil with steady external conditions at Re=1000", Int. J. Micro Air Vehicles
# 7(3) (2015) 301-326 (doi:10.1260/1756-8293.7.3.301), whose lift and drag curves are given there
# as figures (read them off: this script does not hard-code them).
# Deck: inputs/fluid_naca0012_re1000.yaml (8 c x 6 c, 80 cells per chord, slip far field).
# usage: bash bench/fluid_naca.sh [ranks] [build dir] [end time] [angles...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-2}
build=${2:-$here/build}
tend=${3:-20}
shift $(($# < 3 ? $# : 3))
angles=${*:-0 5 10}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
run=$build/adjsim
[ -x "$run" ] || { echo "build first: cmake -S $here -B $build && cmake --build $build"; exit 1; }
out=${ADJSIM_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$out"
for a in $angles; do
  echo "== NACA 0012, Re 1000, alpha = $a deg, t = $tend s"
  start=$(date +%s)
  mpiexec -n "$np" --oversubscribe --bind-to none "$run" -options_file "$here/inputs/fluid_naca0012_re1000.yaml" \
    -fluid_body_alpha "$a" -fluid_final_time "$tend" -output "$out/naca_a$a.h5" -quiet
  echo "wall time $(( $(date +%s) - start )) s"
  /usr/bin/python3 "$here/postprocess/adjsim_forces.py" "$out/naca_a$a.h5" --from "$(awk "BEGIN{print $tend / 2}")" \
    --length 1 --control-volume
done
echo "run files in $out"
