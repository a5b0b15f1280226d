#!/usr/bin/env bash
# Steady-state adjoint of the airfoil solver (-adjoint_steady, docs/steady.md, docs/airfoil.md) on a tiny NACA 0012
# case (24 x 9 cells, Re 10, 4 degrees, far field at 3 chords: steady to 1e-6 in about 1910 steps of 2190), objective
# C_L + C_D,
# parameters alpha and re:
#   1. the steady gradient on 1 rank with a Taylor test (fails below rate 1.9),
#   2. the same on 2 ranks: equal to round-off (1e-10),
#   3. the unsteady revolve gradient of the objective at the last step of a run long enough to be steady: equal to
#      the steady tolerance (change rate 1e-6 1/s; 1e-4 relative asked of the gradients),
#   4. run 2's case on 1 rank with -steady_adjoint_retake_step (the forward step retaken before every step-adjoint
#      application): bit for bit run 1's gradient, which took it once (the solver declares that its adjoint keeps the
#      step's intermediates, AdjStepperSetAdjointKeepsStep).
# usage: steady_airfoil.sh <mpiexec> <adjsim> <python> <compare.py>
set -euo pipefail
mpiexec=$1 adj=$2 py=$3 compare=$4
case=(-problem airfoil -airfoil_body naca4 -airfoil_naca 0012 -airfoil_alpha 4 -airfoil_re 10 -airfoil_grid_around 24
  -airfoil_grid_normal 10 -airfoil_wall_spacing 0.02 -airfoil_farfield 3 -airfoil_final_time 60
  -airfoil_pressure_ksp_rtol 1e-13 -airfoil_velocity_ksp_rtol 1e-13 -airfoil_quiet -mode gradient
  -airfoil_objective_lift 1 -airfoil_objective_drag 1 -adjoint_params alpha,re)
run() { local np=$1; shift; "$mpiexec" -n "$np" --oversubscribe --bind-to none "$adj" "${case[@]}" "$@"; }
steady=(-adjoint_steady -steady_tol 1e-6)
run 1 "${steady[@]}" -adjoint_taylor_test -adjoint_taylor_levels 3 -output afsteady_np1.h5 |
  grep -E 'steady adjoint|gradient:|Taylor test: smallest'
run 2 "${steady[@]}" -output afsteady_np2.h5 | grep -E 'steady adjoint|gradient:'
run 1 -checkpoint_ram 64 -output afsteady_unsteady.h5 | grep -E 'gradient:'
"$py" "$compare" afsteady_np1.h5 afsteady_np2.h5 --groups /gradients --rtol 1e-10
"$py" "$compare" afsteady_np1.h5 afsteady_unsteady.h5 --groups /gradients --rtol 1e-4
run 1 "${steady[@]}" -steady_adjoint_retake_step -output afsteady_retake.h5 | grep -E 'steady adjoint'
"$py" "$compare" afsteady_np1.h5 afsteady_retake.h5 --groups /gradients --exact
