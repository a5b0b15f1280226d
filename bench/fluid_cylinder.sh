#!/usr/bin/env bash
# Flow past a circular cylinder (D = 1, U = 1) by Brinkman penalization, against published values:
#   Re 40 (steady):  C_D 1.52 (Dennis & Chang, J. Fluid Mech. 42 (1970) 471-489), 1.50 (Fornberg,
#                    J. Fluid Mech. 98 (1980) 819-855); recirculation length L/D 2.35 (Dennis &
#                    Chang), 2.24 (Fornberg).
#   Re 100 (shedding): Strouhal number 0.164-0.166 (Williamson, Annu. Rev. Fluid Mech. 28 (1996)
#                    477-539), mean C_D 1.35 (Liu, Zheng & Sung, J. Comput. Phys. 139 (1998) 35-57),
#                    1.36 (Braza, Chassaing & Ha Minh, J. Fluid Mech. 165 (1986) 79-130).
# The decks inputs/fluid_cylinder_re40.yaml and _re100.yaml: 30 D x 20 D, slip far field (5%
# blockage), 16 cells per diameter.  This script runs them in a box of W x H diameters (default
# 90 x 60: 1.7% blockage, 30 D upstream, 60 D downstream; about 40 min on 2 cores at Re 100), body at
# (W/3, H/2); at Re 100 the body
# sits 0.002 D above the centre line so that shedding starts (a larger offset, 0.02 D, selected an
# asymmetric limit cycle with mean C_L 0.19 at 8 cells per D: see docs/fluid.md).  The issue's
# targets: St within 0.16-0.17 at Re 100, drag and recirculation length against the values above.
# usage: bash bench/fluid_cylinder.sh [ranks] [build dir] [cells per diameter] [Re 40 end] [Re 100 end] [W,H]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-2}
build=${2:-$here/build}
cpd=${3:-16}
t40=${4:-60}
t100=${5:-160}
box=${6:-90,60}
W=${box%,*}
H=${box#*,}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
run=$build/adjsim
[ -x "$run" ] || { echo "build first: cmake -S $here -B $build && cmake --build $build"; exit 1; }
out=${ADJSIM_BENCH_OUT:-$(mktemp -d)}
mkdir -p "$out"
grid="$((W * cpd)),$((H * cpd))"
x0=$(awk -v w="$W" 'BEGIN { print w / 3 }')
y0=$(awk -v h="$H" 'BEGIN { print h / 2 }')
box_opts=(-fluid_domain "$W,$H" -fluid_grid "$grid")
forces="/usr/bin/python3 $here/postprocess/adjsim_forces.py"
echo "== Re 40, $W D x $H D, grid $grid ($cpd cells per diameter), body at ($x0, $y0), t = $t40 s"
start=$(date +%s)
mpiexec -n "$np" --oversubscribe --bind-to none "$run" -options_file "$here/inputs/fluid_cylinder_re40.yaml" \
  "${box_opts[@]}" -fluid_body_position "$x0,$y0" -fluid_final_time "$t40" -output "$out/re40.h5" -quiet
echo "wall time $(( $(date +%s) - start )) s"
$forces "$out/re40.h5" --from "$(awk "BEGIN{print $t40 * 0.75}")" --recirculation "$x0,$y0,0.5" --control-volume \
  --expect-cd 1.45,1.65 --expect-recirculation 2.1,2.5 || true
y1=$(awk -v y="$y0" 'BEGIN { print y + 0.002 }')
echo "== Re 100, $W D x $H D, grid $grid, body at ($x0, $y1), t = $t100 s"
start=$(date +%s)
mpiexec -n "$np" --oversubscribe --bind-to none "$run" -options_file "$here/inputs/fluid_cylinder_re100.yaml" \
  "${box_opts[@]}" -fluid_body_position "$x0,$y1" -fluid_final_time "$t100" -output "$out/re100.h5" -quiet
echo "wall time $(( $(date +%s) - start )) s"
$forces "$out/re100.h5" --from "$(awk "BEGIN{print $t100 * 0.6}")" --expect-st 0.16,0.17 --expect-cd 1.30,1.42 \
  --expect-cl=-0.02,0.02 --plot "$out/re100_forces.png" || true
echo "run files in $out"
