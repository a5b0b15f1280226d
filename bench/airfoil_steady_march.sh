#!/usr/bin/env bash
# Why the body-fitted airfoil march does not settle (docs/airfoil.md, "Why the march does not settle"): a small
# NACA 0012 case (48 x 24 cells, wall spacing 0.01, far field 20 chords, Re 200, alpha 5, one rank, t = 60) at two
# time steps (-airfoil_cfl 1 and 0.5), with C_L, C_D at t = 20 ... 60, the per-row checkerboard amplitude of p and u
# (postprocess/adjsim_airfoil_checkerboard.py) and where the state still changes.  About 2 minutes on 2 cores.  Not a test.
# usage: bench/airfoil_steady_march.sh   (report in bench/results/airfoil_steady_march-*.txt)
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bench_setup airfoil_steady_march
bench_header "airfoil march to steady state: odd-even modes of the outer grid"
common=(-problem airfoil -airfoil_naca 0012 -airfoil_re 200 -airfoil_alpha 5 -airfoil_grid_around 48
  -airfoil_grid_normal 25 -airfoil_wall_spacing 0.01 -airfoil_farfield 20 -airfoil_final_time 60 -steady_tol 1e-7
  -output_interval 250 -airfoil_quiet)
for cfl in 1 0.5; do
  say "== -airfoil_cfl $cfl"
  (cd "$work" && "$exe" "${common[@]}" -airfoil_cfl "$cfl" -output "cfl$cfl.h5" >"cfl$cfl.log" 2>&1) || true
  /usr/bin/python3 "$root/postprocess/adjsim_airfoil_checkerboard.py" "$work/cfl$cfl.h5" 20 30 40 50 60 | tee -a "$report"
done
