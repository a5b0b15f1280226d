#!/usr/bin/env bash
# Performance of adjsim's MPM solver (forward throughput, adjoint cost, parallel speedup, memory):
#  (a) forward throughput on one rank: particle-steps per second per core, from the MPMStep event of
#      -log_view (exchange, P2G, grid update, G2P) on a 256 x 256 grid with an elastic block of
#      about 1e5 particles (4 per cell) settling on a slip floor;
#  (b) one adjoint step relative to one forward step, from -log_view of gradient runs of the same
#      case (-mode gradient, centre-of-mass objective, -adjoint_params E, -checkpoint_type all):
#        kernel ratio  = MPMStepAdjoint time per call / MPMStep time per call (the adjoint step reuses
#                        the intermediates of the forward step just recomputed),
#        reverse ratio = (MPMStepAdjoint + the MPMStep recomputations of the reverse sweep) per
#                        adjoint step / MPMStep per call (aim <= 3);
#  (c) speedup of the forward step (MPMStep per call, max over ranks) from 1 to 2 ranks (aim >= 1.8);
#  (d) peak memory (max RSS, /usr/bin/time -v, one rank) of a 2000-step gradient with 10 revolve RAM
#      slots (-checkpoint_ram 10) against storing every step (-checkpoint_type all), on a smaller
#      case (64 x 64 grid, 2304 particles: 96 bytes of state per particle and step), with the
#      number of forward steps each gradient took.
# Every configuration runs REPEATS times and the best (smallest) time per call is used.  The
# machine may be shared: the load average is recorded before every run.
#
# usage: bash bench/mpm_perf.sh [repeats, default 1]
# Environment: ADJSIM_BUILD (default <repo>/build-bench; built with jobs/lib/adjsim-env.sh),
#   BENCH_KEEP=1 keeps the work directory.
# Report: stdout and bench/results/mpm_perf-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repeats=${1:-1}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup mpm_perf time
bench_header "adjsim MPM performance (repeats: $repeats, best of them)"

# The cases.  Big: 256 x 256 cells on the unit square, the block [0.25, 0.7) x [0.05, 0.95) at 2 x 2
# particles per cell (115 x 230 cells, 105800 particles), E 1e5 Pa, nu 0.3, rho 1000 kg/m^3, gravity,
# slip floor, sticky sides; dt 1e-4 s fixed (the CFL limit is 1.6e-4 s), 50 steps.  A particle is
# computed by the rank owning its nearest node, and on 2 ranks the node DMDA of a square grid is split
# along y: the block spans the height so that both ranks hold half of it (a block in the lower half
# would leave rank 1 idle).  Small (memory):
# 64 x 64 cells, the block [0.25, 0.625) x [0.1, 0.475) (2304 particles), dt 2.5e-4 s, 2000 steps.
common=(-problem mpm -mpm_wall_xlo sticky -mpm_wall_xhi sticky -mpm_wall_ylo slip -mpm_wall_yhi sticky
  -mpm_gravity 0,-9.81 -mpm_E 1e5 -mpm_nu 0.3 -mpm_rho 1000 -output_interval 1000000)
big=("${common[@]}" -mpm_grid 256,256 -mpm_body0 box:0.25,0.05,0.7,0.95 -mpm_dt 1e-4 -mpm_final_time 5e-3)
small=("${common[@]}" -mpm_grid 64,64 -mpm_body0 box:0.25,0.1,0.625,0.475 -mpm_dt 2.5e-4 -mpm_final_time 0.5)
grad=(-mode gradient -mpm_objective_com 0.5,0.2 -adjoint_params E)

# cpu <name>: user + system CPU time [s] of the run, summed over all its processes (mpiexec reaps the ranks)
cpu() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$work/$1/time.txt"; }
wall() { sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$1/time.txt"; }
# npart <name>: the particle count of a run (from its /particles/position)
npart() { /usr/bin/python3 -c "import h5py; print(h5py.File('$work/$1/run.h5', 'r')['/particles/position'].shape[1])"; }

# --- (a), (b) forward throughput and adjoint / forward ----------------------------------------
say ""
say "(a) forward throughput and (b) adjoint step / forward step, 1 rank"
pf_all=() pa_all=() p0_all=()
for rep in $(seq 1 "$repeats"); do
  run "ab-fwd-$rep" 1 "${big[@]}" || continue
  run "ab-grad-$rep" 1 "${big[@]}" "${grad[@]}" -checkpoint_type all || continue
  read -r nf0 tf0 < <(ev "ab-fwd-$rep" MPMStep)
  read -r nf tf < <(ev "ab-grad-$rep" MPMStep)
  read -r na ta < <(ev "ab-grad-$rep" MPMStepAdjoint)
  [ "$na" -gt 0 ] && [ "$nf" -gt 0 ] && [ "$nf0" -gt 0 ] || { echo "mpm_perf: no MPMStep/MPMStepAdjoint events #$rep" >&2; continue; }
  [ -n "${N:-}" ] || { N=$(npart "ab-fwd-$rep"); say "  big case: $N particles on 256 x 256 cells, $nf0 steps of 1e-4 s"; }
  p0=$(calc %.6g "$tf0 / $nf0") pf=$(calc %.6g "$tf / $nf") pa=$(calc %.6g "$ta / $na")
  for e in MPMExchange MPMP2G MPMGrid MPMG2P; do
    read -r n t < <(ev "ab-fwd-$rep" $e)
    say "  forward #$rep: $e $n calls, $(calc %.2f "1000 * $t / ($n > 0 ? $n : 1)") ms/call"
  done
  say "  #$rep (load $(cat "$work/ab-fwd-$rep/load.txt"), $(cat "$work/ab-grad-$rep/load.txt")): forward run $nf0 steps," \
    "MPMStep $(calc %.2f "1000 * $p0") ms/step = $(calc %.3g "$N / $p0") particle-steps/s;" \
    "gradient run: MPMStep $nf calls $(calc %.2f "1000 * $pf") ms/call, MPMStepAdjoint $na calls $(calc %.2f "1000 * $pa") ms/call;" \
    "kernel ratio $(calc %.3f "$pa / $pf"), reverse ratio $(calc %.3f "($ta + $pf * ($nf - $na)) / ($na * $pf)")"
  pf_all+=("$pf") pa_all+=("$pa") p0_all+=("$p0")
  recompute=$(calc %.6g "($nf - $na) / $na")
done
if [ ${#pa_all[@]} -gt 0 ]; then
  pf=$(best "${pf_all[@]}") pa=$(best "${pa_all[@]}") p0=$(best "${p0_all[@]}")
  say "  => forward: $(calc %.3g "$N / $p0") particle-steps per second per core ($(calc %.3g "1e9 * $p0 / $N") ns per particle-step)"
  say "  => adjoint/forward = $(calc %.2f "$pa / $pf") (kernel), $(calc %.2f "$pa / $pf + $recompute")" \
    "(with the recomputed forward step; aim <= 3)"
fi

# --- (c) speedup 1 -> 2 ranks ---------------------------------------------------------------------
say ""
say "(c) forward step, 1 and 2 ranks (MPMStep time per call, max over ranks)"
t1=() t2=() c1=() c2=()
for rep in $(seq 1 "$repeats"); do
  for np in 1 2; do
    run "c-np$np-$rep" $np "${big[@]}" || continue
    read -r n t < <(ev "c-np$np-$rep" MPMStep)
    [ "$n" -gt 0 ] || continue
    p=$(calc %.6g "$t / $n")
    parts=""
    for e in MPMExchange MPMP2G MPMGrid MPMG2P; do
      ratio=$(awk -v e="$e" '$1 == e { print $5 }' "$work/c-np$np-$rep/logview.txt")
      read -r ne te < <(ev "c-np$np-$rep" $e)
      parts+=" $e $(calc %.2f "1000 * $te / $n") (max/min $ratio)"
    done
    say "  np $np #$rep (load $(cat "$work/c-np$np-$rep/load.txt")): $n steps, $(calc %.2f "1000 * $p") ms/step; per step [ms]:$parts;" \
      "whole run: wall $(wall "c-np$np-$rep"), CPU (user + sys, all ranks) $(cpu "c-np$np-$rep") s"
    if [ $np = 1 ]; then t1+=("$p") c1+=("$(cpu "c-np$np-$rep")"); else t2+=("$p") c2+=("$(cpu "c-np$np-$rep")"); fi
  done
done
if [ ${#t1[@]} -gt 0 ] && [ ${#t2[@]} -gt 0 ]; then
  b1=$(best "${t1[@]}") b2=$(best "${t2[@]}")
  say "  => best $(calc %.2f "1000 * $b1") ms/step on 1 rank, $(calc %.2f "1000 * $b2") ms/step on 2 ranks:" \
    "speedup $(calc %.2f "$b1 / $b2") (aim >= 1.8)"
  b1=$(best "${c1[@]}") b2=$(best "${c2[@]}")
  say "  => CPU time of the whole run (all ranks): $b1 s on 1 rank, $b2 s on 2 ranks (ratio $(calc %.2f "$b2 / $b1"));" \
    "it includes Open MPI's busy polling while a rank waits, so on a loaded machine it overstates the work"
fi

# --- (d) memory of a 2000-step gradient ---------------------------------------------------------
say ""
say "(d) peak RSS of a 2000-step gradient (64 x 64 cells, 2304 particles, 1 rank): 10 RAM slots vs every step"
run d-fwd 1 "${small[@]}" && say "  forward run: peak RSS $(rss d-fwd) kB, wall $(wall d-fwd)"
for ck in revolve all; do
  if [ $ck = revolve ]; then opts=(-checkpoint_type revolve -checkpoint_ram 10); else opts=(-checkpoint_type all); fi
  if run "d-$ck" 1 "${small[@]}" "${grad[@]}" "${opts[@]}"; then
    read -r nf tf < <(ev "d-$ck" MPMStep)
    say "  gradient, ${opts[*]}: peak RSS $(rss "d-$ck") kB, wall $(wall "d-$ck"), $nf forward steps ($(calc %.2f "$nf / 2000") per step of the run)"
  fi
done
say "  (state per step: 2304 particles x 12 doubles = $(calc %.0f "2304 * 96 / 1024") kB; 2000 steps = $(calc %.0f "2000 * 2304 * 96 / 1024") kB)"
say ""
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared with other work: timings are upper bounds)"
say "report: $report"
