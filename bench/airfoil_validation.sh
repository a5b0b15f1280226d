#!/usr/bin/env bash
# Validation of the body-fitted airfoil solver (-problem airfoil) against published values, on two or three
# grids each (not run by CI; the figures go to docs/airfoil.md):
#   circular cylinder, Re 40 (steady): C_D 1.52 (Dennis & Chang, J. Fluid Mech. 42 (1970) 471-489), 1.50
#     (Fornberg, J. Fluid Mech. 98 (1980) 819-855); recirculation length L/D 2.35 (Dennis & Chang), 2.24
#     (Fornberg).
#   NACA 0012, Re 1000: alpha 0 C_D 0.119-0.121 (Di Ilio et al. 2018; Kurtulus 2015); alpha 5 C_L 0.247,
#     C_D 0.130 (Kouser et al. 2021, read off figures: +-2%).
# The results of the three levels 1, m, 2 (cells around 64, 96, 128) and their observed orders: docs/airfoil.md.
# Each run stops at steady state (-steady_tol) or at its final time; the table gives the last step's
# coefficients (from /history/forces), the recirculation length (/history/wake) and the wall time.
# usage: bash bench/airfoil_validation.sh [ranks] [build dir] [cases: cyl,naca0,naca5] [levels: 1,m,2,f,3]
#        AIRFOIL_EXTRA="-airfoil_dissipation 0" adds options to every run (bench/airfoil_dissipation.sh);
#        ADJSIM_BENCH_OUT=dir keeps the run files there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
np=${1:-2}
build=${2:-$here/build}
cases=${3:-cyl,naca0,naca5}
levels=${4:-1,2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
run=$build/adjsim
[ -x "$run" ] || { echo "build first: cmake -S $here -B $build && cmake --build $build"; exit 1; }
out=${ADJSIM_BENCH_OUT:-$(mktemp -d)}
echo "airfoil validation: $np ranks, output in $out"
printf '%-8s %-5s %-10s %8s %8s %9s %9s %9s %7s %8s\n' case level grid steps t C_D C_L C_M L_r/D wall_s

# grids per level: cells around, nodes along the lines (cells - 1 a multiple of a power of 2), wall spacing
# (level m: between 1 and 2, refinement ratio 1.5, for a third point where level 3 costs too much)
# (level f: 192 around, between 2 and 3, for the airfoil, whose level 3 takes about an hour on 2 ranks)
cylgrid() { case $1 in 1) echo "64 50 0.01" ;; m) echo "96 74 0.00667" ;; 2) echo "128 98 0.005" ;; f) echo "192 146 0.00333" ;; 3) echo "256 194 0.0025" ;; esac; }
nacagrid() { case $1 in 1) echo "64 34 0.008" ;; m) echo "96 50 0.00533" ;; 2) echo "128 66 0.004" ;; f) echo "192 98 0.00267" ;; 3) echo "256 130 0.002" ;; esac; }

one() { # case level deck alpha grid...
  local name=$1 lev=$2 deck=$3 alpha=$4 ni=$5 nj=$6 dw=$7 t0 t1 f=$out/$1-$2.h5
  t0=$(date +%s.%N)
  mpiexec -n "$np" --oversubscribe "$run" -options_file "$here/inputs/$deck" -airfoil_alpha "$alpha" \
    -airfoil_grid_around "$ni" -airfoil_grid_normal "$nj" -airfoil_wall_spacing "$dw" -output "$f" \
    -output_interval 100000 -airfoil_quiet ${AIRFOIL_EXTRA:-} >"$out/$1-$2.log" 2>&1 || { echo "$name level $lev failed: $out/$1-$2.log"; return; }
  t1=$(date +%s.%N)
  /usr/bin/python3 - "$f" "$name" "$lev" "${ni}x$((nj - 1))" "$(echo "$t1 - $t0" | bc)" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
h = f["history/forces"][()]
lr = float("nan")
if sys.argv[2] == "cyl":  # wake length along the grid line i = 0 behind the cylinder (last field slice)
    u, x, y = (f[f"fields/{n}"][-1] for n in ("u", "x", "y"))
    uc, xc, yc = 0.5 * (u[:, 0] + u[:, -1]), 0.5 * (x[:, 0] + x[:, -1]), 0.5 * (y[:, 0] + y[:, -1])
    d = ((xc - f["grid/x_nodes"][0, 0]) ** 2 + (yc - f["grid/y_nodes"][0, 0]) ** 2) ** 0.5
    for j in range(len(uc) - 1):
        if uc[j] < 0 <= uc[j + 1]:
            lr = d[j] - uc[j] * (d[j + 1] - d[j]) / (uc[j + 1] - uc[j])
            break
print(f"{sys.argv[2]:<8} {sys.argv[3]:<5} {sys.argv[4]:<10} {int(h[-1,0]):8d} {h[-1,1]:8.2f} {h[-1,2]:9.5f} {h[-1,3]:9.5f} "
      f"{h[-1,4]:9.5f} {lr:7.4f} {float(sys.argv[5]):8.1f}")
PY
}

IFS=, read -r -a C <<<"$cases"
IFS=, read -r -a L <<<"$levels"
for c in "${C[@]}"; do
  for l in "${L[@]}"; do
    case $c in
    cyl) one cyl "$l" airfoil_cylinder_re40.yaml 0 $(cylgrid "$l") ;;
    naca0) one naca0 "$l" airfoil_naca0012_re1000.yaml 0 $(nacagrid "$l") ;;
    naca5) one naca5 "$l" airfoil_naca0012_re1000.yaml 5 $(nacagrid "$l") ;;
    esac
  done
done
