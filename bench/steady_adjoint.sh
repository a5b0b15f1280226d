#!/usr/bin/env bash
# Steady-state adjoints (-adjoint_steady, docs/steady.md): cost of the steady gradient against the forward steady
# solve and against the ordinary unsteady revolve gradient of the same run (same dt, the same n steps the steady
# march took, the objective at the last step), on one rank. Figures: wall time, forward steps and step-adjoint
# applications (-log_view events StepperStep and StepperStepAdj), peak memory. Not a test.
# usage: bench/steady_adjoint.sh [cases]   (cylinder transport by default; a few minutes on 2 cores;
#        report in bench/results/steady_adjoint-*.txt)
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bench_setup steady_adjoint
bench_header "steady-state adjoints: steady gradient vs forward steady solve vs unsteady revolve gradient"
say "columns: case, run, wall [s], forward steps, step-adjoint applications, KSP iterations, peak RSS [MB], load"

# one case: name, physics, steady tolerance, T and N of the time axis (the step budget), options...
bench_case() {
  local c=$1 phys=$2 tol=$3 T=$4 N=$5 n dt Tn its
  shift 5
  run $c-forward 1 "$@" -mode forward -${phys}_final_time "$T" -${phys}_steps "$N" -adjoint_steady -steady_tol "$tol"
  n=$(/usr/bin/python3 -c "import h5py; print(int(h5py.File('$work/$c-forward/run.h5')['/'].attrs['final_step'][0]))")
  dt=$(calc "%.17g" "$T / $N")
  Tn=$(calc "%.17g" "$n * $dt")
  for ksp in gmres bcgs richardson; do
    run $c-steady-$ksp 1 "$@" -mode gradient -${phys}_final_time "$T" -${phys}_steps "$N" -adjoint_steady \
      -steady_tol "$tol" -steady_adjoint_ksp_type $ksp
  done
  run $c-revolve 1 "$@" -mode gradient -${phys}_final_time "$Tn" -${phys}_steps "$n" -checkpoint_ram 32
  for r in forward steady-gmres steady-bcgs steady-richardson revolve; do
    its=$(/usr/bin/python3 -c "
import h5py
a = h5py.File('$work/$c-$r/run.h5')['/gradients'].attrs if '$r' != 'forward' else {}
print(int(a['steady_adjoint_iterations'][0]) if 'steady_adjoint_iterations' in a else '-')")
    say "$(printf '%-9s %-18s %8.2f %8s %8s %6s %8.1f  %s' "$c" "$r" \
      "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$c-$r/time.txt" | awk -F: '{ print $(NF-1) * 60 + $NF }')" \
      "$(ev $c-$r StepperStep | cut -d' ' -f1)" "$(ev $c-$r StepperStepAdj | cut -d' ' -f1)" "$its" \
      "$(calc %.1f "$(rss $c-$r) / 1024")" "$(cat "$work/$c-$r/load.txt")")"
  done
  say "$c: steady state at step $n of at most $N (dt $dt s, -steady_tol $tol)"
}

cyl=$root/tests/adjoint/steady_cylinder.yaml
tr=$root/tests/app/small.yaml
cases=${*:-cylinder transport}
# Brinkman cylinder, Re 20, drag, 16 cells per diameter (64 x 32)
[[ " $cases " == *" cylinder "* ]] && bench_case cylinder fluid 1e-8 20 1024 -options_file "$cyl" -fluid_grid 64,32
# advection-diffusion with a source (Dirichlet and Neumann walls), final-time target = its own steady state at
# another source
[[ " $cases " == *" transport "* ]] && run transport-target 1 -options_file "$tr" -transport_kappa 0.05 -transport_source gaussian \
  -transport_source_blobs 0.6,0.5,0.2,0.3 -transport_final_time 40 -adjoint_steady -steady_tol 1e-6
[[ " $cases " == *" transport "* ]] && bench_case transport transport 1e-8 80 5661 -options_file "$tr" -transport_kappa 0.05 -transport_source gaussian \
  -transport_source_blobs 0.4,0.6,0.1,0.5 -transport_target_file "$work/transport-target/run.h5" \
  -adjoint_params kappa,source
say "report: $report"
