#!/usr/bin/env bash
# Cost of the MPM constitutive models against the elastic ones (issue 15: plasticity at most 1.5x the elastic
# step, its adjoint at most 3x its forward step), one rank:
#   forward:  MPMStep time per call of a forward run, and that time relative to fixed-corotated's;
#   adjoint:  MPMStepAdjoint per call / MPMStep per call of a gradient run (-checkpoint_type all, -adjoint_params E,
#             centre-of-mass objective): the adjoint kernel against the forward step just recomputed.
# The case: 128 x 128 cells on the unit square, the block [0.25, 0.7) x [0.05, 0.95) at 2 x 2 particles per cell
# (26450 particles), E 1e5 Pa, nu 0.3, rho 1000 kg/m^3, gravity, slip floor, sticky sides, dt 1e-4 s, 40 steps.
# The plastic models are set to yield everywhere (J2: sigma_y 1 Pa, H 0; Drucker-Prager: friction angle 30 degrees,
# no cohesion: a settling block sits on the cone or at the apex), so that every particle takes the plastic branch:
# the return mapping's worst case.  The models alternate within each repeat (A B C D A B C D ...) so that they
# share the machine's load alike; the best time per call over the repeats is used.
# usage: bash bench/mpm_models.sh [repeats, default 3]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), BENCH_KEEP=1 keeps the work directory.
# Report: stdout and bench/results/mpm_models-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repeats=${1:-3}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_models time
bench_header "adjsim MPM constitutive models: step and adjoint cost (repeats: $repeats, best of them)"

case_opts=(-problem mpm -mpm_wall_xlo sticky -mpm_wall_xhi sticky -mpm_wall_ylo slip -mpm_wall_yhi sticky
  -mpm_gravity 0,-9.81 -mpm_E 1e5 -mpm_nu 0.3 -mpm_rho 1000 -output_interval 1000000 -mpm_grid 128,128
  -mpm_body0 box:0.25,0.05,0.7,0.95 -mpm_dt 1e-4 -mpm_final_time 4e-3)
grad=(-mode gradient -mpm_objective_com 0.5,0.2 -adjoint_params E -checkpoint_type all)
models=(fixed-corotated neo-hookean j2 drucker-prager)
model_opts() {
  case $1 in
  j2) echo "-mpm_model j2 -mpm_sigma_y 1 -mpm_H 0" ;;
  drucker-prager) echo "-mpm_model drucker-prager -mpm_friction_angle 30 -mpm_cohesion 0" ;;
  *) echo "-mpm_model $1" ;;
  esac
}

declare -A fwd adj rec
for rep in $(seq 1 "$repeats"); do
  for m in "${models[@]}"; do
    # shellcheck disable=SC2046
    run "f-$m-$rep" 1 "${case_opts[@]}" $(model_opts "$m") || continue
    # shellcheck disable=SC2046
    run "g-$m-$rep" 1 "${case_opts[@]}" $(model_opts "$m") "${grad[@]}" || continue
    read -r n0 t0 < <(ev "f-$m-$rep" MPMStep)
    read -r nf tf < <(ev "g-$m-$rep" MPMStep)
    read -r na ta < <(ev "g-$m-$rep" MPMStepAdjoint)
    [ "$n0" -gt 0 ] && [ "$nf" -gt 0 ] && [ "$na" -gt 0 ] || { echo "mpm_models: no events for $m #$rep" >&2; continue; }
    p0=$(calc %.6g "$t0 / $n0") pf=$(calc %.6g "$tf / $nf") pa=$(calc %.6g "$ta / $na")
    say "  #$rep $m (load $(cat "$work/f-$m-$rep/load.txt")): forward $(calc %.3f "1000 * $p0") ms/step;" \
      "gradient run: MPMStep $(calc %.3f "1000 * $pf") ms/call, MPMStepAdjoint $(calc %.3f "1000 * $pa") ms/call"
    fwd[$m]+=" $p0" adj[$m]+=" $pa" rec[$m]+=" $pf"
  done
done
N=$(/usr/bin/python3 -c "import h5py; print(h5py.File('$work/f-fixed-corotated-1/run.h5', 'r')['/particles/position'].shape[1])" 2>/dev/null || echo '?')
say ""
say "best of $repeats, $N particles, 1 rank:"
say "$(printf '%-16s %12s %14s %18s %14s %16s' model 'fwd ms/step' 'particle-st/s' 'fwd / elastic' 'adj ms/call' 'adj / fwd (kernel)')"
# shellcheck disable=SC2086
e0=$(best ${fwd[fixed-corotated]:-0})
for m in "${models[@]}"; do
  [ -n "${fwd[$m]:-}" ] || continue
  # shellcheck disable=SC2086
  f=$(best ${fwd[$m]}) a=$(best ${adj[$m]}) r=$(best ${rec[$m]})
  say "$(printf '%-16s %12.3f %14.3g %18.2f %14.3f %16.2f' "$m" "$(calc %.6f "1000 * $f")" "$(calc %.6g "${N/\?/0} / $f")" \
    "$(calc %.4f "$f / $e0")" "$(calc %.6f "1000 * $a")" "$(calc %.4f "$a / $r")")"
done
say "aims (issue 15): plastic forward <= 1.5x the elastic step; adjoint <= 3x the forward step"
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared with other work: timings are upper bounds)"
say "report: $report"
