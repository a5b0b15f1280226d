#!/usr/bin/env bash
# J2 validation with a known answer: a plane-strain strip of von Mises material with linear hardening
# (-mpm_model j2, E 1e6 Pa, nu 0.3, sigma_y 1e4 Pa, H 1e5 Pa, yield smoothing 0) pulled in tension to about 5.5 yield
# strains at a slow rate (0.155 1/s: the loading lasts 30 transits of the P wave along the strip), lateral faces free.
# The gauge section's mean Cauchy sigma_xx against its extensometer strain is compared with the reference curve of
# the model's conventions (postprocess/adjsim_j2_tension.py; derivation in docs/mpm.md, "J2 validation") at two
# resolutions, h = 0.0125 m (8 cells across the strip) and h/2.  About 2 s and 20 s on 2 ranks.
#
# usage: bash bench/j2_tension.sh [levels]     (levels: 1 = h only, 2 = h and h/2 (default))
# Environment: ADJSIM_BUILD (default <repo>/build-bench), NP (ranks, default 2), BENCH_KEEP=1 keeps the run files.
#   Report: stdout and bench/results/j2_tension-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ADJSIM_BUILD=${ADJSIM_BUILD:-$root/build-bench}
# shellcheck source=../jobs/lib/adjsim-env.sh
source "$root/jobs/lib/adjsim-env.sh"
adjsim_ensure_packages
if ! adjsim_build; then
  [ -x "$ADJSIM_BUILD/adjsim" ] || { echo "j2_tension: adjsim build failed" >&2; exit 1; }
  echo "j2_tension: warning: rebuild failed, using the existing $ADJSIM_BUILD/adjsim" >&2
fi
adjsim_mpi_env
levels=${1:-2}
np=${NP:-2}
py=$root/postprocess/adjsim_j2_tension.py
mkdir -p "$root/bench/results"
report=$root/bench/results/j2_tension-$(date +%Y%m%d-%H%M%S).txt
work=$(mktemp -d /tmp/j2_tension.XXXXXX)
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
say() { echo "$*" | tee -a "$report"; }
say "== J2 plane-strain tension ($(date -Is), $(hostname), $np rank(s), commit $(git -C "$root" rev-parse --short=12 HEAD))"
# Strip [0.0125, 0.4125] x [0.05, 0.15] m; the slip wall (xlo) holds the nodes x <= 0.025 m (the symmetry plane);
# the grip (label 1, rho 1e9 kg/m^3: it slows by 1e-6 of its speed) [0.4125, 0.5125] x [0.05, 0.15] moves at 0.06 m/s.
for level in $(seq 1 "$levels"); do
  h=$(awk -v l="$level" 'BEGIN { printf "%.17g", 0.0125 / 2 ^ (l - 1) }')
  mx=$((48 * 2 ** (level - 1))) my=$((16 * 2 ** (level - 1))) ww=$((2 * 2 ** (level - 1) + 1))
  "$ADJSIM_PYTHON" "$py" setup "$work/bar$level.h5" --x0 0.0125 --xfix 0.025 --y0 0.05 --length 0.4 --width 0.1 \
    --h "$h" --speed 0.06 >/dev/null
  start=$(date +%s.%N)
  mpiexec -n "$np" --bind-to none "$ADJSIM_BUILD/adjsim" -problem mpm -quiet -mpm_grid $mx,$my -mpm_domain 0.6,0.2 \
    -mpm_wall_xlo slip -mpm_wall_width $ww -mpm_gravity 0,0 -mpm_model j2,neo-hookean -mpm_E 1e6,1e7 \
    -mpm_nu 0.3,0.3 -mpm_rho 1000,1e9 -mpm_sigma_y 1e4 -mpm_H 1e5 -mpm_yield_smoothing 0 \
    -mpm_body0 "file:$work/bar$level.h5:0" -mpm_body1 "box:0.4125,0.05,0.5125,0.15:1:0.06,0" -mpm_final_time 0.33 \
    -output_interval $((40 * 2 ** (level - 1))) -output "$work/tension$level.h5" >/dev/null
  say "-- h = $h m ($mx x $my cells, wall width $ww nodes), run $(awk -v s="$start" -v e="$(date +%s.%N)" \
    'BEGIN { printf "%.1f", e - s }') s"
  "$ADJSIM_PYTHON" "$py" check "$work/tension$level.h5" --x0 0.0125 --length 0.4 --show | tee -a "$report"
done
say "report: $report"
