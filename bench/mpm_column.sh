#!/usr/bin/env bash
# Settling elastic column: refinement study of the time-averaged vertical stress against the static
# solution sigma_yy = -rho g (H - Y) (inputs/mpm_column.yaml, postprocess/adjsim_mpm_column.py).
# M cells over the height H = 1 m (M = 16, 32, 64, 128 by default), 2 x 2 particles per cell (the
# particle spacing is refined with the grid), width 0.25 m, walls and floor at 2 h, the output
# interval M/2 steps (16 slices per period of 0.04 s), 10 periods.
#
# usage: bash bench/mpm_column.sh [M ...]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), NP (ranks, default 1), BENCH_KEEP=1 keeps
#   the run files.  Report: stdout and bench/results/mpm_column-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ADJSIM_BUILD=${ADJSIM_BUILD:-$root/build-bench}
# shellcheck source=../jobs/lib/adjsim-env.sh
source "$root/jobs/lib/adjsim-env.sh"
adjsim_ensure_packages
if ! adjsim_build; then
  [ -x "$ADJSIM_BUILD/adjsim" ] || { echo "mpm_column: adjsim build failed" >&2; exit 1; }
  echo "mpm_column: warning: rebuild failed, using the existing $ADJSIM_BUILD/adjsim" >&2
fi
adjsim_mpi_env
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(16 32 64 128)
np=${NP:-1}
mkdir -p "$root/bench/results"
report=$root/bench/results/mpm_column-$(date +%Y%m%d-%H%M%S).txt
work=$(mktemp -d /tmp/mpm_column.XXXXXX)
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
say() { echo "$*" | tee -a "$report"; }
say "== settling column, refinement study ($(date -Is), $(hostname), $np rank(s), commit $(git -C "$root" rev-parse --short=12 HEAD))"
files=()
for M in "${levels[@]}"; do
  h=$(awk -v M="$M" 'BEGIN { printf "%.17g", 1.0 / M }')
  geo=$(awk -v h="$h" 'BEGIN { printf "-mpm_domain %.17g,%.17g -mpm_body0 box:%.17g,%.17g,%.17g,%.17g",
                                      0.25 + 4 * h, 1 + 4 * h, 2 * h, 2 * h, 0.25 + 2 * h, 1 + 2 * h }')
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  mpiexec -n "$np" --bind-to none "$ADJSIM_BUILD/adjsim" -options_file "$root/inputs/mpm_column.yaml" \
    -mpm_grid $((M / 4 + 4)),$((M + 4)) $geo -output_interval $((M / 2)) -output "$work/column$M.h5" -quiet >/dev/null
  say "M = $M: run $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
  files+=("$work/column$M.h5")
done
/usr/bin/python3 "$root/postprocess/adjsim_mpm_column.py" "${files[@]}" --decreasing | sed "s|$work/||g" | tee -a "$report"
