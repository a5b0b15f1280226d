#!/usr/bin/env bash
# The periodic fluid step and its FFT share (issue 16): a 256 x 256 periodic Taylor-Green box, 100
# steps, one rank, with an old build (ADJSIM_BASE) against this one, timed from -log_view:
#   FlStep    the forward step (three RK3 stages, a pressure projection each),
#   FlPoisson the pressure solves inside it (the FFTs, the division by the symbol, the copies),
# in three configurations run in turn, pair after pair (old, new, new with -fluid_fftw_measure, old,
# ...), so that the ratios old / new are taken run by run on a machine whose speed drifts; the median
# of the pairs is the figure to quote (min and max show the spread).  The measured configuration
# plans with FFTW_MEASURE once, in a warm-up run that writes the wisdom file; every timed run then
# imports it (the same plans, the same bits, as a restart would).
#
# usage: ADJSIM_BASE=<old build dir or adjsim executable> bash bench/fluid_fft.sh [pairs, default 7] [grid, default 256]
#   e.g. git worktree add /tmp/adjsim-old <old commit> && cmake -S /tmp/adjsim-old -B /tmp/adjsim-old/build
#        -DCMAKE_BUILD_TYPE=Release && make -C /tmp/adjsim-old/build adjsim, then ADJSIM_BASE=/tmp/adjsim-old/build
# Environment: ADJSIM_BUILD (the new build; default <repo>/build-bench, built with jobs/lib/adjsim-env.sh),
#   BENCH_KEEP=1 keeps the work directory.
# Report: stdout and bench/results/fluid_fft-<date>.txt.
set -euo pipefail
pairs=${1:-7}
grid=${2:-256}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
base=${ADJSIM_BASE:-}
[ -n "$base" ] || { echo "fluid_fft: set ADJSIM_BASE to the old build directory (or its adjsim executable)" >&2; exit 2; }
[ -d "$base" ] && base=$base/adjsim
[ -x "$base" ] || { echo "fluid_fft: ADJSIM_BASE: no executable $base" >&2; exit 2; }
bench_setup fluid_fft time
new=$exe
bench_header "adjsim periodic fluid step and FFT share: ${grid}x${grid} Taylor-Green, 100 steps, 1 rank, $pairs rounds"
say "old: $base"
say "new: $new"

tgv=(-problem fluid -fluid_initial taylor-green -fluid_nu 0.01 -fluid_grid "$grid,$grid" -fluid_steps 100
  -fluid_final_time 0.01 -fluid_poisson fftw)
wisdom=$work/fftw.wisdom

# one <name> <exe> <options...>: a run with -log_view in $work/<name>/
one() {
  local name=$1 x=$2 d=$work/$1
  shift 2
  mkdir -p "$d"
  load >"$d/load.txt"
  if ! (cd "$d" && mpiexec -n 1 --bind-to none "$x" "${tgv[@]}" "$@" -quiet -output "$d/run.h5" \
    -log_view ":$d/logview.txt" >"$d/out.txt" 2>&1); then
    echo "fluid_fft: run $name failed: $(tail -3 "$d/out.txt")" >&2
    return 1
  fi
}
# step <name>: "<FlStep s> <FlPoisson s> <FlPoisson count>"
step() {
  local s p
  read -r _ s < <(ev "$1" FlStep)
  read -r n p < <(ev "$1" FlPoisson)
  echo "$s $p $n"
}
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "median %.3f (min %.3f, max %.3f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

one warmup-wisdom "$new" -fluid_fftw_measure -fluid_fftw_wisdom "$wisdom" # plans measured once, wisdom written
declare -a r_new=() r_meas=() sh_old=() sh_new=() sh_meas=() ms_old=() ms_new=() ms_meas=() so=() sn=() sm=()
for k in $(seq 1 "$pairs"); do
  one "old-$k" "$base" || continue
  one "new-$k" "$new" || continue
  one "meas-$k" "$new" -fluid_fftw_measure -fluid_fftw_wisdom "$wisdom" || continue
  read -r to po no < <(step "old-$k")
  read -r tn pn nn < <(step "new-$k")
  read -r tm pm nm < <(step "meas-$k")
  say "  round $k (load $(cat "$work/old-$k/load.txt")): FlStep old $(calc %.3f "$to") s, new $(calc %.3f "$tn") s," \
    "new+measure $(calc %.3f "$tm") s; FlPoisson share $(calc %.0f "100 * $po / $to")%, $(calc %.0f "100 * $pn / $tn")%," \
    "$(calc %.0f "100 * $pm / $tm")%; per solve $(calc %.3f "1000 * $po / $no"), $(calc %.3f "1000 * $pn / $nn")," \
    "$(calc %.3f "1000 * $pm / $nm") ms"
  r_new+=("$(calc %.6g "$to / $tn")") r_meas+=("$(calc %.6g "$to / $tm")")
  sh_old+=("$(calc %.6g "100 * $po / $to")") sh_new+=("$(calc %.6g "100 * $pn / $tn")") sh_meas+=("$(calc %.6g "100 * $pm / $tm")")
  ms_old+=("$(calc %.6g "1000 * $po / $no")") ms_new+=("$(calc %.6g "1000 * $pn / $nn")") ms_meas+=("$(calc %.6g "1000 * $pm / $nm")")
  so+=("$to") sn+=("$tn") sm+=("$tm")
done
[ ${#r_new[@]} -gt 0 ] || { echo "fluid_fft: no complete round" >&2; exit 1; }
say ""
say "FlStep, 100 steps [s]: old $(stats "${so[@]}"); new $(stats "${sn[@]}"); new + measure $(stats "${sm[@]}")"
say "speed-up old / new (pair by pair):           $(stats "${r_new[@]}")"
say "speed-up old / new + measure (pair by pair): $(stats "${r_meas[@]}")"
say "FFT share (FlPoisson / FlStep) [%]: old $(stats "${sh_old[@]}"); new $(stats "${sh_new[@]}"); new + measure $(stats "${sh_meas[@]}")"
say "per pressure solve [ms]: old $(stats "${ms_old[@]}"); new $(stats "${ms_new[@]}"); new + measure $(stats "${ms_meas[@]}")"
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores, possibly shared)"
say "report: $report"
