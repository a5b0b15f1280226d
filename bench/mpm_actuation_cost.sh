#!/usr/bin/env bash
# Cost of soft-robot actuation in the MPM step (docs/mpm.md "Actuation", "Cost"): the active stress of the actuated
# particles is added to the model's stress inside the P2G kernel (one scatter), so with every particle actuated the
# P2G event should cost little more than without actuators, and without actuators nothing.
# Case: bench/mpm_perf.sh's big case on one rank (256 x 256 cells, an elastic block of 105800 particles settling on a
# slip floor, fixed-corotated, dt 1e-4 s, 50 steps), run
#   none:  without actuators;
#   all:   every particle actuated (one fibre actuator on label 0, fibre (0, 1), S = 1e4 Pa, a Fourier signal with
#          levels of about 0.5 .. 0.8);
# each as a forward run (-log_view: MPMP2G and MPMStep per call) and as a gradient run (-mode gradient, centre-of-
# mass objective, -adjoint_params E, -checkpoint_type all: MPMStepAdjoint per call).  With ADJSIM_BUILD_REF set (a
# second build, e.g. of the commit before a change), every run is repeated with it right after, so that the two
# builds see the same machine load, and the ratios new / reference are printed per pair and as medians.
#
# usage: bash bench/mpm_actuation_cost.sh [repeats, default 3]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), ADJSIM_BUILD_REF (optional, used as it is: not rebuilt),
#   BENCH_KEEP=1 keeps the work directory.
# Report: stdout and bench/results/mpm_actuation_cost-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repeats=${1:-3}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_actuation_cost time
bench_header "adjsim MPM actuation cost (repeats: $repeats, medians)"
builds=(new)
exe_new=$exe
if [ -n "${ADJSIM_BUILD_REF:-}" ]; then
  [ -x "$ADJSIM_BUILD_REF/adjsim" ] || { echo "mpm_actuation_cost: no $ADJSIM_BUILD_REF/adjsim" >&2; exit 1; }
  builds+=(ref)
  say "reference build: $ADJSIM_BUILD_REF (commit $(git -C "$ADJSIM_BUILD_REF/.." rev-parse --short=12 HEAD 2>/dev/null || echo unknown))"
fi

case_opts=(-problem mpm -mpm_wall_xlo sticky -mpm_wall_xhi sticky -mpm_wall_ylo slip -mpm_wall_yhi sticky
  -mpm_gravity 0,-9.81 -mpm_E 1e5 -mpm_nu 0.3 -mpm_rho 1000 -output_interval 1000000
  -mpm_grid 256,256 -mpm_body0 box:0.25,0.05,0.7,0.95 -mpm_dt 1e-4 -mpm_final_time 5e-3)
act_all=(-mpm_actuator0 label:0,fiber:0,1 -mpm_actuation_strength 1e4 -mpm_actuation_period 5e-3
  -mpm_actuation_coefficients 0.7,0.3,0.2,0.1,0.1)
grad=(-mode gradient -mpm_objective_com 0.5,0.2 -adjoint_params E -checkpoint_type all)

declare -A vals # vals[<build>-<act>-<figure>] = "v1 v2 ..." [ms per call]
# med <values...>: bench-lib's median with 3 decimals
med() { BENCH_DECIMALS=3 median "$@"; }
per_call() {    # per_call <run> <event>: ms per call
  local n t
  read -r n t < <(ev "$1" "$2")
  calc %.4f "($n > 0 ? 1000 * $t / $n : 0)"
}
for rep in $(seq 1 "$repeats"); do
  for act in none all; do
    opts=("${case_opts[@]}")
    [ $act = all ] && opts+=("${act_all[@]}")
    for b in "${builds[@]}"; do
      if [ $b = ref ]; then exe=$ADJSIM_BUILD_REF/adjsim; else exe=$exe_new; fi
      name=$b-$act-$rep
      run "fwd-$name" 1 "${opts[@]}" || continue
      run "grad-$name" 1 "${opts[@]}" "${grad[@]}" || continue
      p2g=$(per_call "fwd-$name" MPMP2G) step=$(per_call "fwd-$name" MPMStep)
      adj=$(per_call "grad-$name" MPMStepAdjoint)
      vals[$b-$act-p2g]+="$p2g " vals[$b-$act-step]+="$step " vals[$b-$act-adj]+="$adj "
      say "  #$rep $b, actuation $act (load $(cat "$work/fwd-$name/load.txt"), $(cat "$work/grad-$name/load.txt")):" \
        "P2G $p2g ms/call, MPMStep $step ms/call, MPMStepAdjoint $adj ms/call"
    done
  done
done
exe=$exe_new

say ""
say "medians [ms per call] (105800 particles, 1 rank):"
# shellcheck disable=SC2086
for b in "${builds[@]}"; do
  for act in none all; do
    say "  $b, actuation $act: P2G $(med ${vals[$b-$act-p2g]:-}), MPMStep $(med ${vals[$b-$act-step]:-})," \
      "MPMStepAdjoint $(med ${vals[$b-$act-adj]:-})"
  done
  for f in p2g step adj; do
    say "  $b: $f all / none = $(calc %.3f "$(med ${vals[$b-all-$f]:-}) / $(med ${vals[$b-none-$f]:-})")"
  done
done
if [ ${#builds[@]} = 2 ]; then
  for act in none all; do
    for f in p2g step adj; do
      # shellcheck disable=SC2206
      a=(${vals[new-$act-$f]:-}) r=(${vals[ref-$act-$f]:-}) ratios=()
      for i in "${!a[@]}"; do [ -n "${r[$i]:-}" ] && ratios+=("$(calc %.4f "${a[$i]} / ${r[$i]}")"); done
      say "  new / reference, actuation $act, $f: pairs ${ratios[*]:-none}, median $(med "${ratios[@]}")"
    done
  done
fi
say "report: $report"
