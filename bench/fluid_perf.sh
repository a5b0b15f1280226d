#!/usr/bin/env bash
# Performance of adjsim's fluid solver (forward, adjoint, memory, parallel speedup):
#  (a) one adjoint step relative to one forward step (aim <= 2.5), from -log_view of gradient runs
#      (-mode gradient -fluid_objective_kinetic_energy 1 -adjoint_params nu -checkpoint_type all):
#        kernel ratio   = FlStepAdj time per call / FlStep time per call,
#        reverse ratio  = (FlStepAdj + the FlStep recomputations of the reverse sweep) per adjoint
#                         step / FlStep per call (FluidStepRK3Adjoint reuses the stages of the step
#                         just recomputed, so checkpoint "all" still recomputes each step once),
#        gradient/forward = whole gradient run (FlStep + FlStepAdj) / forward steps alone,
#      on a 256 x 256 cavity (walls, CG + GAMG, -fluid_ksp_rtol 1e-10) and a 256 x 256 periodic
#      Taylor-Green vortex (FFTW);
#  (b) memory per cell: peak RSS (/usr/bin/time -v, one rank) of forward runs and of gradient runs
#      (checkpoint all) on two grid sizes of the cavity, differences divided by the cell-count
#      difference; and per stored state: two gradient runs with different step counts on one grid,
#      RSS difference / (step difference x cells);
#  (c) speedup from 1 to 2 ranks of the forward step (FlStep time per call) on 512 x 512: cavity
#      with KSP, with FFTW (the default: x transforms and tridiagonal solves along y) and with the 2D
#      FFTW transforms (-fluid_fftw_y transform), and the periodic Taylor-Green vortex (FFTW; 2D
#      transforms, as y is periodic) (aim >= 1.8); and, from the same runs, the speedup of a pure
#      streaming vector swap (VecSwap: the driver exchanges each step's input and output), the
#      memory-bandwidth ceiling of this machine; the median speedup of the back-to-back pairs
#      (1 rank, then 2 ranks), less sensitive than the best times to the host's slow and fast
#      spells; and two independent 1-rank runs started at once, whose time per step against a run
#      alone is what the two cores give this workload without any parallel overhead.
# Every timed configuration runs REPEATS times (interleaved) and the best (smallest) time per call is
# used; all ratios come from the same invocation of this script.  The machine may be shared: the
# load average is recorded at the start and the end.
#
# usage: bash bench/fluid_perf.sh [repeats, default 2] [sections, default "a b c"]
# Environment: ADJSIM_BUILD (default <repo>/build-bench; built with jobs/lib/adjsim-env.sh),
#   BENCH_KEEP=1 keeps the work directory.
# Report: stdout and bench/results/fluid_perf-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repeats=${1:-2}
sections=${2:-"a b c"}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup fluid_perf time
bench_header "adjsim fluid performance (repeats: $repeats, best of them)"

# The two cases (the final time sets the step count; dt = 0.8 x the stability limit, which on
# these grids is the viscous one: 3.8e-4 s on 256^2, 9.6e-5 s on 512^2).
cavity=(-options_file "$root/inputs/fluid_cavity_re100.yaml" -fluid_cfl 0.8 -fluid_poisson ksp)
cavity_fftw=(-options_file "$root/inputs/fluid_cavity_re100.yaml" -fluid_cfl 0.8 -fluid_poisson fftw)
tgv=(-problem fluid -fluid_initial taylor-green -fluid_nu 0.01 -fluid_cfl 0.8)
grad=(-mode gradient -fluid_objective_kinetic_energy 1 -adjoint_params nu -checkpoint_type all)


section() { [[ " $sections " == *" $1 "* ]]; }

# --- (a) adjoint step / forward step ----------------------------------------------------------
if section a; then
say ""
say "(a) one adjoint step / one forward step: gradient runs, -checkpoint_type all, 1 rank"
for c in cavity cavityfftw tgv; do
  if [ $c = cavity ]; then
    args=("${cavity[@]}" -fluid_grid 256,256 -fluid_ksp_rtol 1e-10 -fluid_final_time 0.006)
    label="cavity 256x256 (KSP CG+GAMG, rtol 1e-10)"
  elif [ $c = cavityfftw ]; then
    args=("${cavity_fftw[@]}" -fluid_grid 256,256 -fluid_final_time 0.006)
    label="cavity 256x256 (FFTW: DCT in x, tridiagonal in y)"
  else
    args=("${tgv[@]}" -fluid_grid 256,256 -fluid_final_time 0.02)
    label="Taylor-Green 256x256 periodic (FFTW)"
  fi
  tf_all=() ta_all=() tfwd_all=()
  for rep in $(seq 1 "$repeats"); do
    run "a-$c-fwd-$rep" 1 "${args[@]}" || continue
    run "a-$c-grad-$rep" 1 "${args[@]}" "${grad[@]}" || continue
    read -r nf0 tf0 < <(ev "a-$c-fwd-$rep" FlStep)
    read -r nf tf < <(ev "a-$c-grad-$rep" FlStep)
    read -r na ta < <(ev "a-$c-grad-$rep" FlStepAdj)
    [ "$na" -gt 0 ] && [ "$nf" -gt 0 ] && [ "$nf0" -gt 0 ] || { echo "fluid_perf: no FlStep/FlStepAdj events in $c #$rep" >&2; continue; }
    pf=$(calc %.6g "$tf / $nf") pa=$(calc %.6g "$ta / $na") p0=$(calc %.6g "$tf0 / $nf0")
    say "  $label #$rep (load $(cat "$work/a-$c-fwd-$rep/load.txt"), $(cat "$work/a-$c-grad-$rep/load.txt")): forward run $nf0 steps, FlStep $(calc %.2f "1000 * $p0") ms/step;" \
      "gradient run: FlStep $nf calls $(calc %.2f "1000 * $pf") ms/call, FlStepAdj $na calls $(calc %.2f "1000 * $pa") ms/call;" \
      "kernel ratio $(calc %.3f "$pa / $pf"), reverse ratio $(calc %.3f "($ta + $pf * ($nf - $na)) / ($na * $pf)")," \
      "gradient run / forward run (step events) $(calc %.3f "($tf + $ta) / $tf0")"
    tf_all+=("$pf") ta_all+=("$pa") tfwd_all+=("$p0")
    recompute=$(calc %.6g "($nf - $na) / $na")
  done
  if [ ${#ta_all[@]} -gt 0 ]; then
    pf=$(best "${tf_all[@]}") pa=$(best "${ta_all[@]}") p0=$(best "${tfwd_all[@]}")
    say "  => $label: best FlStep $(calc %.2f "1000 * $pf") ms/call (forward-only run $(calc %.2f "1000 * $p0") ms/step)," \
      "best FlStepAdj $(calc %.2f "1000 * $pa") ms/call: adjoint/forward = $(calc %.2f "$pa / $pf") (kernel)," \
      "$(calc %.2f "$pa / $pf + $recompute") (with the recomputed forward step; aim <= 2.5)"
  fi
done

fi

# --- (b) memory per cell ------------------------------------------------------------------------
if section b; then
say ""
say "(b) memory: peak RSS (/usr/bin/time -v, 1 rank, cavity with KSP), forward and gradient (-checkpoint_type all)"
# The same number of steps on both grids (-fluid_steps), so that the gradient runs store as many states.
n1=10 n2=30
declare -A R
for g in 128 256; do
  run "b-fwd-$g" 1 "${cavity[@]}" -fluid_grid $g,$g -fluid_steps $n1 -fluid_final_time 0.002 && R[fwd-$g]=$(rss "b-fwd-$g")
  run "b-grad-$g" 1 "${cavity[@]}" -fluid_grid $g,$g -fluid_steps $n1 -fluid_final_time 0.002 -fluid_ksp_rtol 1e-10 "${grad[@]}" &&
    R[grad-$g]=$(rss "b-grad-$g")
done
run "b-grad-256-n2" 1 "${cavity[@]}" -fluid_grid 256,256 -fluid_steps $n2 -fluid_final_time 0.006 -fluid_ksp_rtol 1e-10 "${grad[@]}" &&
  R[grad-256-n2]=$(rss "b-grad-256-n2")
c1=$((128 * 128)) c2=$((256 * 256))
for k in fwd-128 fwd-256 grad-128 grad-256 grad-256-n2; do
  say "  peak RSS $k$([ $k = grad-256-n2 ] && echo " ($n2 steps)" || echo " ($n1 steps)"): ${R[$k]:-failed} kB"
done
if [ -n "${R[fwd-128]:-}" ] && [ -n "${R[fwd-256]:-}" ]; then
  say "  => forward: $(calc %.0f "1024 * (${R[fwd-256]} - ${R[fwd-128]}) / ($c2 - $c1)") bytes/cell" \
    "(RSS difference 256^2 - 128^2 over $((c2 - c1)) cells; 1 double = 8 bytes)"
fi
if [ -n "${R[grad-128]:-}" ] && [ -n "${R[grad-256]:-}" ]; then
  say "  => gradient, $n1 steps stored: $(calc %.0f "1024 * (${R[grad-256]} - ${R[grad-128]}) / ($c2 - $c1)") bytes/cell"
fi
if [ -n "${R[grad-256]:-}" ] && [ -n "${R[grad-256-n2]:-}" ]; then
  say "  => per stored state: $(calc %.1f "1024 * (${R[grad-256-n2]} - ${R[grad-256]}) / (($n2 - $n1) * $c2)") bytes/cell" \
    "(256^2, $n2 vs $n1 steps; u, v, p = 24 bytes/cell)"
fi

fi

# --- (c) speedup 1 -> 2 ranks ---------------------------------------------------------------------
if section c; then
say ""
say "(c) forward step on 512x512, 1 and 2 ranks (FlStep time per call, max over ranks)"
for c in cavity cavityfftw cavityfftw2d tgv; do
  if [ $c = cavity ]; then
    args=("${cavity[@]}" -fluid_grid 512,512 -fluid_final_time 0.001)
    label="cavity 512x512 (KSP CG+GAMG)"
  elif [ $c = cavityfftw ]; then
    args=("${cavity_fftw[@]}" -fluid_grid 512,512 -fluid_final_time 0.003)
    label="cavity 512x512 (FFTW: DCT in x, tridiagonal in y)"
  elif [ $c = cavityfftw2d ]; then
    args=("${cavity_fftw[@]}" -fluid_grid 512,512 -fluid_final_time 0.003 -fluid_fftw_y transform)
    label="cavity 512x512 (FFTW: 2D DCT)"
  else
    args=("${tgv[@]}" -fluid_grid 512,512 -fluid_final_time 0.003)
    label="Taylor-Green 512x512 (FFTW)"
  fi
  t1=() t2=() v1=() v2=() pair=() duo=()
  for rep in $(seq 1 "$repeats"); do
    for np in 1 2; do
      run "c-$c-np$np-$rep" $np "${args[@]}" || continue
      read -r n t < <(ev "c-$c-np$np-$rep" FlStep)
      read -r nv tv < <(ev "c-$c-np$np-$rep" VecSwap)
      [ "$n" -gt 0 ] || continue
      p=$(calc %.6g "$t / $n")
      say "  $label np $np #$rep (load $(cat "$work/c-$c-np$np-$rep/load.txt")): $n steps, $(calc %.2f "1000 * $p") ms/step"
      if [ $np = 1 ]; then t1+=("$p"); else t2+=("$p") pair+=("$(calc %.6g "${t1[-1]:-0} / $p")"); fi
      if [ "$nv" -gt 0 ]; then
        if [ $np = 1 ]; then v1+=("$(calc %.6g "$tv / $nv")"); else v2+=("$(calc %.6g "$tv / $nv")"); fi
      fi
    done
    # two independent 1-rank runs at once: what the two cores give this workload with no parallel
    # overhead at all (each run's time against a run alone is the machine's own scaling)
    run "c-$c-duoA-$rep" 1 "${args[@]}" &
    run "c-$c-duoB-$rep" 1 "${args[@]}"
    wait
    read -r na ta < <(ev "c-$c-duoA-$rep" FlStep)
    read -r nb tb < <(ev "c-$c-duoB-$rep" FlStep)
    if [ "$na" -gt 0 ] && [ "$nb" -gt 0 ]; then
      duo+=("$(calc %.6g "($ta / $na + $tb / $nb) / 2")")
      say "  $label two 1-rank runs at once #$rep: $(calc %.2f "1000 * $ta / $na") and $(calc %.2f "1000 * $tb / $nb") ms/step"
    fi
  done
  if [ ${#t1[@]} -gt 0 ] && [ ${#t2[@]} -gt 0 ]; then
    b1=$(best "${t1[@]}") b2=$(best "${t2[@]}")
    say "  => $label: best $(calc %.2f "1000 * $b1") ms/step on 1 rank, $(calc %.2f "1000 * $b2") ms/step on 2 ranks:" \
      "speedup $(calc %.2f "$b1 / $b2") (aim >= 1.8); median of the $(printf '%s\n' "${pair[@]}" | grep -vc '^0$') back-to-back pairs $(median "${pair[@]}")"
    if [ ${#duo[@]} -gt 0 ]; then
      say "     two independent 1-rank runs at once: best $(calc %.2f "1000 * $(best "${duo[@]}")") ms/step each: the machine's" \
        "own speedup for this workload $(calc %.2f "2 * $b1 / $(best "${duo[@]}")") (2 x alone / together; the ceiling of any 2-rank run)"
    fi
  fi
  if [ ${#v1[@]} -gt 0 ] && [ ${#v2[@]} -gt 0 ]; then
    # x <-> y over the state (BLAS swap): no flops, only memory traffic.  Its speedup is
    # what this machine's memory bandwidth allows a streaming kernel, the ceiling of a step whose
    # kernels are memory-bound at 512^2 (6 MB per state vector: beyond the caches).
    b1=$(best "${v1[@]}") b2=$(best "${v2[@]}")
    say "     the same runs' streaming vector swap (VecSwap): $(calc %.3f "1000 * $b1") ms on 1 rank," \
      "$(calc %.3f "1000 * $b2") ms on 2: speedup $(calc %.2f "$b1 / $b2") (memory-bandwidth ceiling)"
  fi
done
fi
say ""
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, possibly shared: timings are upper bounds)"
say "report: $report"
