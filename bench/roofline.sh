#!/usr/bin/env bash
# Memory roofline of the fluid step and the transport step (issue 16, "Performance goals, with the
# physical limit"): bytes moved per cell-step, from a traffic model of the kernels, against this
# machine's memory bandwidth measured by a STREAM-like triad (bench/stream_triad.c) in the same run.
#
# Cases (1 rank, 1 thread, a grid much larger than the caches: 2048^2 by default, 100 MB per fluid
# state of 3 doubles per cell and 34 MB per scalar field, against a 32 MiB last-level cache):
#   fluid:     inputs/fluid_taylor_green.yaml (periodic box, the default FFTW pressure path: on one
#              rank the fused projection FluidProjectRows with FFTW's serial 2D r2c/c2r plans,
#              FFTW_ESTIMATE), -fluid_grid G,G, dt = 5e-6 (2048/G)^2 s (0.67 x the viscous limit);
#   transport: inputs/transport_truth.yaml (periodic, solid-body rotation, uniform kappa, explicit
#              SSP-RK3), -transport_grid G,G, dt = 1e-5 (2048/G)^2 s.
# Time per step: the -log_view events (FlStep, TrStep and the kernels' events) of two runs with
# different step counts, differenced: (T(n2) - T(n1)) / (n2 - n1) per event.  The difference removes
# the set-up, the initial projection and the first touch of the freshly allocated vectors (page
# faults: the first step of a run writes ~1 GB of new pages), which a single run would charge to
# its steps.  Output writes are outside the step events.
#
# Traffic model: bytes per cell for each pass over the grid, 8 bytes per double, each array read
# from or written to memory once per pass (neighbour rows of a stencil stay in cache: a row of the
# fluid state is 48 kB).  "WA" is the write-allocate read of every written array that is not in
# cache (gcc emits no non-temporal stores here): counted separately, and compared with the triad
# counted with its own write-allocate (32 bytes per element instead of STREAM's 24).
#
# Fluid step (src/fluid/step.c FluidStepRK3: 3 SSP-RK3 stages; on one rank a periodic box takes
# FluidPeriodicHalo and FluidProjectRows; no body, so FluidBodyPenalizeStage does nothing; the
# state is one array of {u, v, p} per cell, 24 bytes, read whole even where only u, v are used):
#   pass (event)                    reads                       writes          B/cell  +WA  calls
#   halo  (FluidPeriodicHalo, in    x (24)                      xloc (24)          48   24    3
#          FlStep, no event: FlStep minus the kernels' events)
#   momentum (FlMomentum)           xloc (24), x0 = xin (24)    c (24)             72   24    3
#   divergence (FlDivergence)       c (24)                      FFT rows (8)       32    8    3
#   pressure solve (FlPoisson)      FFT rows, in place: forward r2c 2D transform 2 x (8 R + 8 W), the
#                                   mode scaling 8 R + 4 R (factors) + 8 W, backward c2r 2 x (8 R + 8 W)
#                                                                                  84    0    3
#   correction (FlCorrect)          FFT rows (8), c (24)        y (24)             56   24    2
#                                   + s1, s2 (48: the stage pressures summed in the last stage)
#                                                                                 104   24    1
#   step                                                                          924  240
# FFTW's passes: a 2D transform of N^2 data needs at least two read+write passes over it for N^2
# beyond the cache (rows, then columns: 2048 columns of 2048 points with a 16 kB stride cannot be
# done in one sweep without a transpose); assumed exactly two per transform (a lower bound: a plan
# that splits the column transforms into several radix passes moves more), on the in-place array
# of N x (N + 2) doubles (8 bytes per cell); the factors are N (N/2 + 1) doubles (4 bytes per cell).
# Not in the step event (and not counted): the driver's finite-state check after each step
# (FluidMaxVelocity, 24 bytes per cell) and the swap of the state vectors (pointers only).
#
# Transport step (src/transport/step.c TransportStepRK3; uniform kappa: no kappa field read; the
# source field is zero and therefore not read (TransportStageVec skips a zero source); the face velocities are
# stored, (G+1) G per direction):
#   pass (event)                    reads                       writes          B/cell  +WA  calls
#   halo  (DMGlobalToLocal:         c (8)                       cloc (8)           16    8    3
#          VecScatterBegin+End)
#   stage 1 (TrStage)               cloc, u, v (24)             s1 (8)             32    8    1
#   stages 2, 3 (TrStage)           cloc, c0, u, v (32)         s2 / c' (8)        40    8    2
#   step                                                                          160   48
# PETSc's one-rank halo (PetscSF) may read its index arrays too (4-byte indices, up to 8 bytes per
# cell); not counted.
#
# Printed per solver: time per step, cells, modelled bytes per cell-step, achieved bandwidth =
# bytes x cells / time and its fraction of the triad's (aim: at least 50%), and per kernel the same.
# The triad runs right before each solver's pair of runs (best of its repetitions; the median is
# printed too); every round repeats the triad-fluid-triad-transport sequence, to show the spread.
# The machine is shared: the load average and each run's CPU share (/usr/bin/time) are recorded, and
# the step is also timed by the process's CPU time (user + sys of the two runs, differenced), which
# leaves out the time the process waited for a core (the event times are wall times), against the
# triad timed by its thread's CPU time.  The per-kernel lines are wall times against the wall-time triad.
#
# usage: bash bench/roofline.sh [rounds, default 2] [grid, default 2048]
# Environment: ADJSIM_BUILD (default <repo>/build-bench), BENCH_KEEP=1 keeps the work directory,
#   ROOFLINE_FLUID_STEPS (default "1 5") and ROOFLINE_TRANSPORT_STEPS (default "2 22"): n1 n2,
#   ROOFLINE_STREAM_N (doubles per triad array, default 33554432 = 256 MiB), ROOFLINE_STREAM_REPS (10).
# Report: stdout and bench/results/roofline-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=${1:-2}
g=${2:-2048}
read -r fn1 fn2 <<<"${ROOFLINE_FLUID_STEPS:-1 5}"
read -r tn1 tn2 <<<"${ROOFLINE_TRANSPORT_STEPS:-2 22}"
sn=${ROOFLINE_STREAM_N:-33554432}
sreps=${ROOFLINE_STREAM_REPS:-10}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup roofline time
bench_header "adjsim memory roofline: fluid and transport steps on ${g}^2, 1 rank (rounds: $rounds)"

# The traffic model (bytes per cell; see the table above): per call, and write-allocate per call.
declare -A B=([halo]=48 [momentum]=72 [divergence]=32 [poisson]=84 [correct]=72
  [trhalo]=16 [stage]=37.333333)                                             # correct, stage: mean of the calls
declare -A W=([halo]=24 [momentum]=24 [divergence]=8 [poisson]=0 [correct]=24 [trhalo]=8 [stage]=8)
fluid_bytes=924 fluid_wa=240 transport_bytes=160 transport_wa=48
cells=$((g * g))

# The triad, compiled as adjsim's Release build compiles (-O3)
${CC:-cc} -O3 -o "$work/stream_triad" "$root/bench/stream_triad.c"
# stream <tag>: runs it; sets tri (GB/s, STREAM bytes), triwa (with write-allocate), trimed (median, STREAM
# bytes), tricpu (STREAM bytes over the best repetition's CPU time)
stream() {
  /usr/bin/time -v -o "$work/$1.time" "$work/stream_triad" "$sn" "$sreps" >"$work/$1.txt"
  read -r tri triwa _ tmed tricpu < <(awk '$1 == "triad" { print $2, $3, $4, $5, $6 }' "$work/$1.txt")
  trimed=$(calc %.3f "24 * $sn / $tmed * 1e-9")
  say "  triad ($1, load $(load), CPU $(cpu_share "$work/$1.time")): best $tri GB/s (STREAM's 24 B/element)," \
    "$triwa GB/s with write-allocate (32 B); median $trimed GB/s; by CPU time $tricpu GB/s;" \
    "copy $(awk '$1 == "copy" { print $2 }' "$work/$1.txt"), read-only sum $(awk '$1 == "sum" { print $2 }' "$work/$1.txt") GB/s"
}
cpu_share() { sed -n 's/.*Percent of CPU this job got: //p' "$1"; }
# cpu_step <name1> <name2> <n1> <n2>: process CPU time (user + sys, /usr/bin/time) per step, differenced:
# the step's time while it had a core (the machine is shared), with the driver's per-step state check
cpu_secs() { awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/$1/time.txt"; }
cpu_step() { calc %.6g "($(cpu_secs "$2") - $(cpu_secs "$1")) / ($4 - $3)"; }
# per_call <name1> <name2> <event>: (T2 - T1) / (n2 - n1), the time of one call in the steady state
per_call() {
  local n1 t1 n2 t2
  read -r n1 t1 < <(ev "$1" "$3")
  read -r n2 t2 < <(ev "$2" "$3")
  [ "$n2" -gt "$n1" ] || { echo 0; return; }
  calc %.6g "($t2 - $t1) / ($n2 - $n1)"
}
# line <label> <seconds per call> <bytes per cell> <WA bytes per cell> <triad> <triad with WA>
line() {
  say "$(awk -v l="$1" -v t="$2" -v b="$3" -v w="$4" -v s="$5" -v sw="$6" -v c="$cells" 'BEGIN {
    if (t <= 0) { printf "    %-12s (no time: too noisy or missing event)", l; exit }
    bw = b * c / t * 1e-9; bww = (b + w) * c / t * 1e-9
    printf "    %-12s %8.2f ms  %6.1f B/cell (+%4.1f WA)  %6.2f GB/s = %3.0f%% of triad  (with WA %6.2f GB/s = %3.0f%%)",
      l, 1000 * t, b, w, bw, 100 * bw / s, bww, 100 * bww / sw }')"
}

# step_report <solver> <bytes> <WA bytes> <run1> <run2> <n1> <n2>: the step's bandwidth by wall time ($tstep) and
# by CPU time, against the triads of the round; sets frac and cfrac (fractions of the triad)
step_report() {
  local name=$1 bytes=$2 wa=$3 bw cstep
  bw=$(calc %.4f "$bytes * $cells / $tstep * 1e-9")
  frac=$(calc %.4f "$bw / $tri")
  say "  $name (load $(cat "$work/$5/load.txt"), CPU $(cpu_share "$work/$4/time.txt"), $(cpu_share "$work/$5/time.txt")):" \
    "$(calc %.1f "1000 * $tstep") ms/step, $bytes B/cell-step: $bw GB/s = $(calc %.0f "100 * $bw / $tri")% of the triad" \
    "(with write-allocate $(calc %.2f "($bytes + $wa) * $cells / $tstep * 1e-9") GB/s =" \
    "$(calc %.0f "100 * ($bytes + $wa) * $cells / $tstep * 1e-9 / $triwa")% of the triad's $triwa)"
  cstep=$(cpu_step "$4" "$5" "$6" "$7")
  cfrac=$(calc %.4f "$bytes * $cells / $cstep * 1e-9 / $tricpu")
  say "    by CPU time (user + sys per step, differenced): $(calc %.1f "1000 * $cstep") ms/step," \
    "$(calc %.2f "$bytes * $cells / $cstep * 1e-9") GB/s = $(calc %.0f "100 * $cfrac")% of the triad by CPU time"
}

dtf=$(calc %.6g "5e-6 * (2048 / $g)^2")
dtt=$(calc %.6g "1e-5 * (2048 / $g)^2")
fluid=(-options_file "$root/inputs/fluid_taylor_green.yaml" -fluid_grid "$g,$g" -output_interval 0)
transport=(-options_file "$root/inputs/transport_truth.yaml" -transport_grid "$g,$g" -output_interval 0)
say "fluid: ${fluid[*]} (dt $dtf s; steps $fn1 and $fn2, differenced)"
say "transport: ${transport[*]} (dt $dtt s; steps $tn1 and $tn2, differenced)"
say "cells: $cells; model: fluid $fluid_bytes B/cell-step (+$fluid_wa write-allocate), transport $transport_bytes (+$transport_wa)"
declare -a fl_frac=() tr_frac=() fl_cfrac=() tr_cfrac=()
for r in $(seq 1 "$rounds"); do
  say ""
  say "round $r"
  # --- fluid ---
  stream "triad-fl-$r"
  for n in $fn1 $fn2; do
    run "fl-$r-$n" 1 "${fluid[@]}" -fluid_steps "$n" -fluid_final_time "$(calc %.6g "$n * $dtf")"
  done
  a="fl-$r-$fn1" b="fl-$r-$fn2"
  tstep=$(per_call "$a" "$b" FlStep)
  tm=$(per_call "$a" "$b" FlMomentum) td=$(per_call "$a" "$b" FlDivergence)
  tp=$(per_call "$a" "$b" FlPoisson) tc=$(per_call "$a" "$b" FlCorrect)
  th=$(calc %.6g "($tstep - 3 * ($tm + $td + $tp + $tc)) / 3")
  step_report fluid "$fluid_bytes" "$fluid_wa" "$a" "$b" "$fn1" "$fn2"
  fl_frac+=("$frac") fl_cfrac+=("$cfrac")
  line "halo" "$th" "${B[halo]}" "${W[halo]}" "$tri" "$triwa"
  line "momentum" "$tm" "${B[momentum]}" "${W[momentum]}" "$tri" "$triwa"
  line "divergence" "$td" "${B[divergence]}" "${W[divergence]}" "$tri" "$triwa"
  line "poisson(FFT)" "$tp" "${B[poisson]}" "${W[poisson]}" "$tri" "$triwa"
  line "correction" "$tc" "${B[correct]}" "${W[correct]}" "$tri" "$triwa"
  say "    FFT share of the step: $(calc %.0f "300 * $tp / $tstep")%; FFT flop rate (FFTW's 2.5 N log2 N per real" \
    "transform, two per solve): $(calc %.2f "2 * 2.5 * $cells * log($cells) / log(2) / $tp * 1e-9") GFlop/s"
  # --- transport ---
  stream "triad-tr-$r"
  for n in $tn1 $tn2; do
    run "tr-$r-$n" 1 "${transport[@]}" -transport_steps "$n" -transport_final_time "$(calc %.6g "$n * $dtt")"
  done
  a="tr-$r-$tn1" b="tr-$r-$tn2"
  tstep=$(per_call "$a" "$b" TrStep)
  ts=$(per_call "$a" "$b" TrStage)
  thb=$(per_call "$a" "$b" VecScatterBegin) the=$(per_call "$a" "$b" VecScatterEnd)
  step_report transport "$transport_bytes" "$transport_wa" "$a" "$b" "$tn1" "$tn2"
  tr_frac+=("$frac") tr_cfrac+=("$cfrac")
  line "halo" "$(calc %.6g "$thb + $the")" "${B[trhalo]}" "${W[trhalo]}" "$tri" "$triwa"
  line "stage" "$ts" "${B[stage]}" "${W[stage]}" "$tri" "$triwa"
  say "    rest of the step (event bookkeeping, ghost rules): $(calc %.2f "1000 * ($tstep - 3 * ($thb + $the + $ts))") ms"
done
say ""
say "summary over $rounds rounds (achieved bandwidth / triad bandwidth of the same round, STREAM bytes; aim >= 0.5):"
say "  fluid step:     ${fl_frac[*]}  (median $(median "${fl_frac[@]}"))"
say "  transport step: ${tr_frac[*]}  (median $(median "${tr_frac[@]}"))"
say "  by CPU time (against the triad by CPU time): fluid ${fl_cfrac[*]}  (median $(median "${fl_cfrac[@]}")), transport ${tr_cfrac[*]}  (median $(median "${tr_cfrac[@]}"))"
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared: every figure is a lower bound of the idle machine's)"
say "report: $report"
