#!/usr/bin/env bash
# Cost of the MPM particle exchange (src/mpm/exchange.c), as issue 16 measured it, in one sitting:
#  (a) the 180-particle inverse demo (inputs/mpm_inverse.yaml, 30 L-BFGS iterations of 250 steps, every state
#      stored) on 1 and 2 ranks: whole-run wall time and the MPMExchange event (max over ranks) of -log_view;
#  (b) the 1 -> 2 rank speedup of the forward step with about 1e5 particles (the big case of bench/mpm_perf.sh:
#      256 x 256 cells, 105800 particles, 50 steps; MPMStep time per call, max over ranks).
# Each configuration runs in two variants, alternated A B A B ... so that both see the same machine:
#   A: the exchange as built (rebuild decided from the owner records, owners keep their particles between steps);
#   B: with -mpm_exchange_reduce_always (one global reduction per set-up and the whole home -> owner transfer at
#      every step: the exchange as it was, up to its second reduction per set-up), or, when ADJSIM_BUILD_B names
#      another build (e.g. of the main branch), that build's adjsim without the option.
# Medians over the repeats, and the median of the per-pair ratios A/B (the machine may be shared: the load average
# is printed with every run).
#
# usage: bash bench/mpm_exchange.sh [repeats, default 3]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), ADJSIM_BUILD_B (optional reference build), BENCH_KEEP=1.
# Report: stdout and bench/results/mpm_exchange-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repeats=${1:-3}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_exchange time
exe_a=$exe
if [ -n "${ADJSIM_BUILD_B:-}" ]; then
  exe_b=$ADJSIM_BUILD_B/adjsim opt_b=() label_b="build $ADJSIM_BUILD_B"
else
  exe_b=$exe opt_b=(-mpm_exchange_reduce_always) label_b="-mpm_exchange_reduce_always"
fi
bench_header "adjsim MPM particle exchange: A = as built, B = $label_b (repeats: $repeats, medians)"

# runv <name> <A|B> <np> <options...>: run() with the variant's executable and options
runv() {
  local name=$1 v=$2 np=$3
  shift 3
  if [ "$v" = A ]; then exe=$exe_a run "$name" "$np" "$@"; else exe=$exe_b run "$name" "$np" "$@" "${opt_b[@]}"; fi
}
wall_s() { awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = 60 * s + t[i]; print s }' "$work/$1/time.txt"; }
ratios() { paste -d' ' <(printf '%s\n' "$1") <(printf '%s\n' "$2") | awk '$2 > 0 { print $1 / $2 }' | tr '\n' ' '; }

# --- (a) the inverse demo ------------------------------------------------------------------------------------------
say ""
say "(a) inputs/mpm_inverse.yaml (180 particles, checkpoint type all, 30 iterations at most)"
mkdir -p "$work/truth"
(cd "$work/truth" && mpiexec -n 1 "$exe_a" -options_file "$root/inputs/mpm_inverse_truth.yaml" -quiet >/dev/null)
demo=(-options_file "$root/inputs/mpm_inverse.yaml" -mpm_obs_file "$work/truth/mpm_inverse_truth.h5")
for np in 1 2; do
  declare -A W=() X=()
  for rep in $(seq 1 "$repeats"); do
    for v in A B; do
      runv "a-np$np-$v-$rep" $v $np "${demo[@]}" || continue
      read -r _ x < <(ev "a-np$np-$v-$rep" MPMExchange)
      w=$(wall_s "a-np$np-$v-$rep")
      W[$v]+="$w " X[$v]+="$x "
      say "  np $np $v #$rep (load $(cat "$work/a-np$np-$v-$rep/load.txt")): wall $w s, MPMExchange $x s"
    done
  done
  # shellcheck disable=SC2086
  say "  => np $np: A wall $(median ${W[A]}) s, exchange $(median ${X[A]}) s;" \
    "B wall $(median ${W[B]}) s, exchange $(median ${X[B]}) s;" \
    "A/B wall per pair: median $(median $(ratios "$(echo ${W[A]} | tr ' ' '\n')" "$(echo ${W[B]} | tr ' ' '\n')"))"
  unset W X
done

# --- (b) 1e5 particles, 1 -> 2 ranks ---------------------------------------------------------------------------------
say ""
say "(b) forward step, 256 x 256 cells, 105800 particles, 50 steps (MPMStep per call, max over ranks)"
big=(-problem mpm -mpm_wall_xlo sticky -mpm_wall_xhi sticky -mpm_wall_ylo slip -mpm_wall_yhi sticky
  -mpm_gravity 0,-9.81 -mpm_E 1e5 -mpm_nu 0.3 -mpm_rho 1000 -output_interval 1000000
  -mpm_grid 256,256 -mpm_body0 box:0.25,0.05,0.7,0.95 -mpm_dt 1e-4 -mpm_final_time 5e-3)
declare -A S1=() S2=() SP=()
for rep in $(seq 1 "$repeats"); do
  for v in A B; do
    for np in 1 2; do
      runv "b-np$np-$v-$rep" $v $np "${big[@]}" || continue
      read -r n t < <(ev "b-np$np-$v-$rep" MPMStep)
      read -r _ x < <(ev "b-np$np-$v-$rep" MPMExchange)
      p=$(calc %.6f "1000 * $t / ($n > 0 ? $n : 1)")
      if [ $np = 1 ]; then S1[$v]+="$p " p1=$p; else S2[$v]+="$p " SP[$v]+="$(calc %.4f "$p1 / $p") "; fi
      say "  $v np $np #$rep (load $(cat "$work/b-np$np-$v-$rep/load.txt")): $p ms/step, MPMExchange $x s in all"
    done
  done
done
# shellcheck disable=SC2086
for v in A B; do
  say "  => $v: $(median ${S1[$v]}) ms/step on 1 rank, $(median ${S2[$v]}) on 2 ranks; speedup per pair: median" \
    "$(median ${SP[$v]}) (runs: ${SP[$v]}; aim >= 1.8)"
done
say ""
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared with other work: timings are upper bounds)"
say "report: $report"
