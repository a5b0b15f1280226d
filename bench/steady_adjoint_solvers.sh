#!/usr/bin/env bash
# Steady-state adjoint solvers (-adjoint_steady, docs/steady.md, "The fixed-point-sweep preconditioner"): for each
# case and each KSP set-up, the cost of the adjoint solve against the steady march of the same run (-log_view events
# AdjSteadyMarch and AdjSteadyAdjoint: the ratio comes from one run), with the forward steps, step-adjoint applications,
# KSP iterations and the relative residual reached. One rank. Not a test.
#   cylinder: the Brinkman cylinder of the steady tests at Re 20, 64 x 32, drag, -steady_tol 1e-8 (cold start: the
#             march is the whole forward steady solve).
#   cylinder40: inputs/fluid_cylinder_re40.yaml (30 D x 20 D, Re 40) at 8 cells per diameter (240 x 160), drag,
#             -steady_tol 1e-6 (steady at t = 103 s, 1792 steps; cold start).
#   naca:     inputs/airfoil_naca0012_re1000.yaml (96 x 49, Re 1000, alpha 5), drag, parameters alpha and re. Its forward
#             does not reach the deck's -steady_tol 1e-4 (docs/airfoil.md), so: one forward run to -steady_tol 2e-3
#             (timed: the forward steady solve), then every gradient warm-started from its final state
#             (-steady_initial: a march of one step) with a budget of 600 step adjoints (-steady_adjoint_ksp_max_it,
#             -steady_adjoint_ksp_converged_maxits: the gradient is reported whatever the residual reached).
# usage: bench/steady_adjoint_solvers.sh [cases]   (cylinder cylinder40 naca by default; about 20 minutes on 2 cores;
#        report in bench/results/steady_adjoint_solvers-*.txt)
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bench_setup steady_adjoint_solvers
bench_header "steady-state adjoint solvers: adjoint solve vs steady march (one run each)"
say "columns: case, KSP set-up, march steps, march [s], step adjoints, KSP its, adjoint [s], adjoint/march, rel. residual, load"

# the KSP set-ups compared: name and options
setups=(
  "gmres100" ""
  "gmres100-sw4" "-steady_adjoint_sweeps 4"
  "gmres30-sw4" "-steady_adjoint_sweeps 4 -steady_adjoint_ksp_gmres_restart 30"
  "lgmres" "-steady_adjoint_ksp_type lgmres"
  "bcgs" "-steady_adjoint_ksp_type bcgs"
)

# report <case> <run> <march run>: one line; the march's steps and time are those of <march run> (the run itself for
# a cold start, the forward run for a warm-started one), the adjoint's those of <run>
report() {
  local c=$1 r=$2 m=$3 ms mt at a its rel
  mt=$(ev "$c-$m" AdjSteadyMarch | cut -d' ' -f2)
  at=$(ev "$c-$r" AdjSteadyAdjoint | cut -d' ' -f2)
  read -r ms a its rel <<<"$(/usr/bin/python3 -c "
import h5py
m = h5py.File('$work/$c-$m/run.h5')
m = m['/gradients'] if 'steady_adjoint_iterations' in m['/gradients'].attrs else m['/']
a = h5py.File('$work/$c-$r/run.h5')['/gradients'].attrs
print(int(m.attrs['final_step'][0]), int(a['steady_adjoint_applications'][0]), int(a['steady_adjoint_iterations'][0]),
      '%.2e' % (a['steady_adjoint_residual'] / a['steady_adjoint_rhs_norm']))")"
  say "$(printf '%-9s %-14s %7s %8.2f %7s %6s %8.2f %7.3f %9s  %s' "$c" "$r" "$ms" "$mt" "$a" "$its" "$at" \
    "$(calc %.3f "$at / $mt")" "$rel" "$(cat "$work/$c-$r/load.txt")")"
}

cyl40=(-options_file "$root/inputs/fluid_cylinder_re40.yaml" -fluid_grid 240,160 -fluid_objective_drag 1
  -adjoint_params nu,bc_velocity,body_position,body_shape -adjoint_steady -steady_tol 1e-6 -fluid_final_time 200
  -mode gradient)
cyl=(-options_file "$root/tests/adjoint/steady_cylinder.yaml" -fluid_grid 64,32 -fluid_final_time 20 -fluid_steps 1024
  -adjoint_steady -steady_tol 1e-8 -mode gradient)
naca=(-options_file "$root/inputs/airfoil_naca0012_re1000.yaml" -airfoil_objective_drag 1 -adjoint_params alpha,re
  -adjoint_steady -steady_tol 2e-3 -airfoil_final_time 40)
cases=${*:-cylinder cylinder40 naca}
if [[ " $cases " == *" cylinder "* ]]; then
  for ((s = 0; s < ${#setups[@]}; s += 2)); do
    # shellcheck disable=SC2086
    run "cylinder-${setups[s]}" 1 "${cyl[@]}" ${setups[s + 1]}
    report cylinder "${setups[s]}" "${setups[s]}"
  done
fi
if [[ " $cases " == *" cylinder40 "* ]]; then
  for ((s = 0; s < ${#setups[@]}; s += 2)); do
    # shellcheck disable=SC2086
    run "cylinder40-${setups[s]}" 1 "${cyl40[@]}" ${setups[s + 1]}
    report cylinder40 "${setups[s]}" "${setups[s]}"
  done
fi
if [[ " $cases " == *" naca "* ]]; then
  run naca-forward 1 "${naca[@]}" -mode forward
  n=$(/usr/bin/python3 -c "import h5py; print(int(h5py.File('$work/naca-forward/run.h5')['/'].attrs['final_step'][0]))")
  mt=$(ev naca-forward AdjSteadyMarch | cut -d' ' -f2)
  say "naca: forward steady solve to -steady_tol 2e-3: $n steps, march $mt s (every gradient below starts from its state)"
  for ((s = 0; s < ${#setups[@]}; s += 2)); do
    its=600 # a budget of 600 step adjoints: 150 iterations of 4 sweeps, 300 of bcgs (two per iteration)
    [[ "${setups[s + 1]}" == *sweeps* ]] && its=150
    [[ "${setups[s + 1]}" == *bcgs* ]] && its=300
    # shellcheck disable=SC2086
    run "naca-${setups[s]}" 1 "${naca[@]}" -mode gradient -steady_initial "$work/naca-forward/run.h5" \
      -steady_adjoint_ksp_max_it $its -steady_adjoint_ksp_converged_maxits ${setups[s + 1]}
    report naca "${setups[s]}" forward
  done
fi
say "report: $report"
