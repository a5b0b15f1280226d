#!/usr/bin/env bash
# Plane-strain granular column collapse with Drucker-Prager sand (inputs/mpm_sand_column.yaml) for aspect ratios
# a = H0/L0 (default 0.5 1 2 3 4 6): the deposit's normalized runout (L_inf - L0)/L0 and final height H_inf/L0 against
# the experimental scalings of Lube et al. 2005 and Lajeunesse et al. 2005 (postprocess/adjsim_sand_column.py, docs/mpm.md
# "Granular column collapse").  Fixed cell h = 0.0125 m, 2 x 2 particles per cell; L0 = 0.1 m (8 cells) for a >= 1 and
# 0.2 m for a < 1 (so that the column is at least 8 cells high); the domain is 1 m wide and 4 cells above the column;
# 1.2 s of collapse.  Each run takes 5-60 s on 2 ranks.
#
# usage: bash bench/sand_column.sh [a ...]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), NP (ranks, default 2), BENCH_KEEP=1 keeps the run files,
#   SAND_ARGS (extra options for every run, e.g. "-mpm_yield_smoothing 0").
#   Report: stdout and bench/results/sand_column-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ADJSIM_BUILD=${ADJSIM_BUILD:-$root/build-bench}
# shellcheck source=../jobs/lib/adjsim-env.sh
source "$root/jobs/lib/adjsim-env.sh"
adjsim_ensure_packages
if ! adjsim_build; then
  [ -x "$ADJSIM_BUILD/adjsim" ] || { echo "sand_column: adjsim build failed" >&2; exit 1; }
  echo "sand_column: warning: rebuild failed, using the existing $ADJSIM_BUILD/adjsim" >&2
fi
adjsim_mpi_env
ratios=("$@")
[ ${#ratios[@]} -gt 0 ] || ratios=(0.5 1 2 3 4 6)
np=${NP:-2}
h=0.0125
x0=$(awk -v h=$h 'BEGIN { printf "%.17g", 2 * h }') # the walls act 2 nodes deep: back wall and floor at 2 h
mkdir -p "$root/bench/results"
report=$root/bench/results/sand_column-$(date +%Y%m%d-%H%M%S).txt
work=$(mktemp -d /tmp/sand_column.XXXXXX)
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
say() { echo "$*" | tee -a "$report"; }
say "== granular column collapse ($(date -Is), $(hostname), $np rank(s), commit $(git -C "$root" rev-parse --short=12 HEAD))"
say "   phi 30 deg, c 0, basal friction tan(30 deg), E 1e6 Pa, nu 0.3, rho 1600 kg/m^3, h $h m, extra: ${SAND_ARGS:-none}"
runs=()
for a in "${ratios[@]}"; do
  L0=$(awk -v a="$a" 'BEGIN { print (a < 1 ? 0.2 : 0.1) }')
  geo=$(awk -v a="$a" -v L0="$L0" -v h=$h -v x0="$x0" 'BEGIN {
    H0 = a * L0; ny = int((x0 + H0) / h + 0.5) + 4
    printf "-mpm_grid 80,%d -mpm_domain 1,%.17g -mpm_body0 box:%.17g,%.17g,%.17g,%.17g:0:0,0", ny, ny * h, x0, x0,
           x0 + L0, x0 + H0 }')
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  mpiexec -n "$np" --bind-to none "$ADJSIM_BUILD/adjsim" -options_file "$root/inputs/mpm_sand_column.yaml" $geo \
    -mpm_final_time 1.2 -output_interval 400 -output "$work/sand_a$a.h5" -quiet ${SAND_ARGS:-} >/dev/null
  say "a = $a: L0 = $L0 m, run $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
  runs+=("$a=$work/sand_a$a.h5")
done
"$ADJSIM_PYTHON" "$root/postprocess/adjsim_sand_column.py" "$x0" "$x0" "$(awk -v h=$h 'BEGIN { print h / 2 }')" "${runs[@]}" |
  tee -a "$report"
say "report: $report"
