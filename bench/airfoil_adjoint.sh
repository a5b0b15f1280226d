#!/usr/bin/env bash
# The airfoil solver's adjoint (docs/airfoil.md, "The adjoint"): cost figures, one rank, from -log_view events of one
# run each (ratios within a run, so a shared machine's load affects both sides alike). Not a test.
#   step:   NACA 0012, Re 1000, alpha 5 at the deck's resolution (96 x 49 cells), 100 steps, gradient of C_L in alpha
#           and re with every state in RAM (no recomputation): time per step adjoint / time per forward step.
#   steady: the deck's steady state (-steady_tol 1e-4): the forward steady solve against the steady gradient
#           (-adjoint_steady: the same march, then GMRES on the step adjoint).
# usage: bench/airfoil_adjoint.sh [step] [steady]   (default: step; steady takes several minutes on 2 cores)
#        ADJSIM_BUILD=build bench/airfoil_adjoint.sh  reuses an existing build; report in bench/results/
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bench_setup airfoil_adjoint
bench_header "airfoil adjoint: step adjoint vs forward step; steady gradient vs steady forward solve"
deck=(-options_file "$root/inputs/airfoil_naca0012_re1000.yaml" -airfoil_quiet -output_interval 1000000)
grad=(-mode gradient -airfoil_objective_lift 1 -adjoint_params alpha,re)
cases=${*:-step}
per() { awk -v t="$2" -v n="$1" 'BEGIN { printf "%.3g", (n > 0 ? 1000 * t / n : 0) }'; }
if [[ " $cases " == *" step "* ]]; then
  run step 1 "${deck[@]}" "${grad[@]}" -steady_tol 0 -airfoil_final_time 0.345 -airfoil_steps 100 -checkpoint_ram 128
  read -r nf tf < <(ev step StepperStep)
  read -r na ta < <(ev step StepperStepAdj)
  say "step (96 x 49, 1 rank): forward $nf steps $(per "$nf" "$tf") ms/step, adjoint $na steps $(per "$na" "$ta")" \
    "ms/step, ratio $(awk -v a="$ta" -v na="$na" -v f="$tf" -v nf="$nf" 'BEGIN { printf "%.2f", (a / na) / (f / nf) }')" \
    "(load $(cat "$work/step/load.txt"))"
  say "  pressure solves (forward + transposed) $(ev step AfPressureSolve), velocity $(ev step AfVelocitySolve) [count, s]"
fi
if [[ " $cases " == *" steady "* ]]; then
  run steady-forward 1 "${deck[@]}" -mode forward
  run steady-gradient 1 "${deck[@]}" "${grad[@]}" -adjoint_steady
  for r in steady-forward steady-gradient; do
    say "$(printf '%-16s wall %8.1f s  forward steps %s  step adjoints %s  (load %s)' "$r" \
      "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$r/time.txt" | awk -F: '{ print $(NF-1) * 60 + $NF }')" \
      "$(ev $r StepperStep | cut -d' ' -f1)" "$(ev $r StepperStepAdj | cut -d' ' -f1)" "$(cat "$work/$r/load.txt")")"
  done
  say "  steady gradient: $(grep -h 'steady adjoint:' "$work/steady-gradient/out.txt" || true)"
fi
