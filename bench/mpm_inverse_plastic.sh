#!/usr/bin/env bash
# Plastic and granular inverse problems (issue 15): recover material parameters from a deformed shape (the grid
# mass at the final step, -mpm_objective_mass_file) made by a run with the true values, from a wrong guess, with
# TAO (at most 30 iterations) and the discrete adjoint (docs/mpm.md, "Inverse problems"):
#   sand      friction angle and cohesion of a collapsing column from its deposit (inputs/mpm_sand_inverse*.yaml),
#   sand-hi   the same from a guess on the other side (35 deg, 200 Pa: a column that would stand),
#   sand-dry  a cohesionless truth (c = 0): is the cohesion identifiable from a dry-looking deposit?
#   clay      yield stress and hardening of a j2 block after its impact on the floor (inputs/mpm_clay_inverse*.yaml),
#   clay-hi   the same from a guess on the other side (13 kPa, 30 kPa): a local minimum of the final-shape misfit,
#   clay-hi-markers  the same with the trajectories of all particles (10 snapshots) added to the final shape.
# Each sand optimization takes 1-2 min (5 min at load average 16), each clay one 5-30 s, on 2 ranks.
#
# usage: bash bench/mpm_inverse_plastic.sh [case ...]      (default: all six)
# Environment: ADJSIM_BUILD (default <repo>/build-bench), NP (ranks, default 2), BENCH_KEEP=1 keeps the run files.
#   Report: stdout and bench/results/mpm_inverse_plastic-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ADJSIM_BUILD=${ADJSIM_BUILD:-$root/build-bench}
# shellcheck source=../jobs/lib/adjsim-env.sh
source "$root/jobs/lib/adjsim-env.sh"
adjsim_ensure_packages
if ! adjsim_build; then
  [ -x "$ADJSIM_BUILD/adjsim" ] || { echo "mpm_inverse_plastic: adjsim build failed" >&2; exit 1; }
  echo "mpm_inverse_plastic: warning: rebuild failed, using the existing $ADJSIM_BUILD/adjsim" >&2
fi
adjsim_mpi_env
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(sand sand-hi sand-dry clay clay-hi clay-hi-markers)
np=${NP:-2}
mkdir -p "$root/bench/results"
report=$root/bench/results/mpm_inverse_plastic-$(date +%Y%m%d-%H%M%S).txt
work=$(mktemp -d /tmp/mpm_inverse_plastic.XXXXXX)
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
say() { echo "$*" | tee -a "$report"; }
run() { mpiexec -n "$np" --bind-to none "$ADJSIM_BUILD/adjsim" -quiet "$@"; }
elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }
say "== plastic inverse problems ($(date -Is), $(hostname), $np rank(s), commit $(git -C "$root" rev-parse --short=12 HEAD))"
for c in "${cases[@]}"; do
  case $c in
    sand) deck=sand; truth=(); guess=(-mpm_friction_angle 25 -mpm_cohesion 50); names=(friction_angle=25 cohesion=50) ;;
    sand-hi) deck=sand; truth=(); guess=(-mpm_friction_angle 35 -mpm_cohesion 200); names=(friction_angle=35 cohesion=200) ;;
    sand-dry) deck=sand; truth=(-mpm_cohesion 0); guess=(-mpm_friction_angle 25 -mpm_cohesion 50)
      names=(friction_angle=25 cohesion=50) ;;
    clay) deck=clay; truth=(); guess=(-mpm_sigma_y 7e3 -mpm_H 1e4); names=(sigma_y=7e3 H=1e4) ;;
    clay-hi) deck=clay; truth=(); guess=(-mpm_sigma_y 1.3e4 -mpm_H 3e4); names=(sigma_y=1.3e4 H=3e4) ;;
    clay-hi-markers) deck=clay; truth=(-output_interval 60)
      guess=(-mpm_sigma_y 1.3e4 -mpm_H 3e4 -mpm_obs_file "$work/$c-truth.h5" -mpm_obs_weight 1e2)
      names=(sigma_y=1.3e4 H=3e4) ;;
    *) echo "mpm_inverse_plastic: unknown case $c" >&2; exit 2 ;;
  esac
  start=$(date +%s.%N)
  run -options_file "$root/inputs/mpm_${deck}_inverse_truth.yaml" "${truth[@]}" -output "$work/$c-truth.h5" >/dev/null
  run -options_file "$root/inputs/mpm_${deck}_inverse.yaml" "${guess[@]}" -mpm_objective_mass_file "$work/$c-truth.h5" \
    -output "$work/$c.h5" >"$work/$c.log" 2>&1 || { cat "$work/$c.log" >&2; exit 1; }
  say "-- $c: truth run and optimization $(elapsed "$start") s"
  "$ADJSIM_PYTHON" "$root/postprocess/adjsim_mpm_inverse_plastic.py" "$c" "$work/$c.h5" "$work/$c-truth.h5" "${names[@]}" |
    tee -a "$report"
done
say "report: $report"
