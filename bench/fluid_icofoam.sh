#!/usr/bin/env bash
# adjsim's fluid solver side by side with OpenFOAM's icoFoam on the same lid-driven cavity:
# 128 x 128 cells, Re 100 (lid speed 1 m/s, L = 1 m, nu = 0.01 m^2/s), the same time step and end
# time, the same rank counts.  Reported per solver and rank count:
#   - throughput in cell-steps per second: cells x steps / wall time of the time loop only
#       adjsim:  the FlStep event of -log_view (all time steps; excludes set-up, the initial
#                projection and output),
#       icoFoam: ClockTime of the last time step minus ClockTime of the first one, for steps - 1
#                steps (excludes mesh/field reading and the first step; ClockTime has 1 s resolution,
#                so the runs should last well over 100 s),
#     and, because the machine may be shared, also per CPU second (cells x steps / CPU time per rank:
#     adjsim: user + sys of the whole run (/usr/bin/time) / ranks; icoFoam: ExecutionTime of the
#     master rank over the same steps as above); MPI ranks waiting for messages spin, so CPU time
#     includes communication waits in both,
#   - the maximum centreline error against Ghia, Ghia & Shin (1982), Re 100 (tests/fluid/
#     ghia1982_cavity.csv): postprocess/adjsim_ghia_compare.py (adjsim run file) and
#     postprocess/adjsim_foam_ghia.py (icoFoam's cell-centre field U, reconstructed).
#
# usage: bash bench/fluid_icofoam.sh [end time [s], default 5] [steps, default 3000]
#                                    [rank counts, default "1 2"] [repeats, default 1]
#   dt = end time / steps (default 1/600 s = 0.87 x adjsim's stability limit 1.92e-3 s on 128^2,
#   icoFoam Courant number <= 0.21).  Steady state needs about 20 s; the default end time is
#   shorter to keep the script under ~30 minutes on 2 cores (both solvers stop at the same time,
#   so the accuracy comparison is like for like, but the Ghia errors include the distance from
#   steady state).  With repeats > 1 every configuration runs that many times (interleaved) and
#   the best throughput is reported.
# Environment: ADJSIM_EXTRA_ARGS (more adjsim options, e.g. -fluid_fftw_measure), ADJSIM_BUILD (default <repo>/build-bench; built with jobs/lib/adjsim-env.sh),
#   BENCH_KEEP=1 keeps the work directory.
# Needs (installed with apt-get when run as root on Debian 12): adjsim's packages, openfoam, time.
# The OpenFOAM case is bench/openfoam/cavity128 (the v1912 icoFoam tutorial cavity, scaled to
# L = 1 m and 128 x 128 cells; the numerical set-up - Euler, Gauss linear, PISO with 2
# correctors, PCG/DIC for p, symGaussSeidel for U - is the tutorial's).
# Report: stdout and bench/results/fluid_icofoam-<date>.txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tend=${1:-5}
steps=${2:-3000}
ranks=${3:-"1 2"}
repeats=${4:-1}
# shellcheck source=bench-lib.sh
source "$root/bench/bench-lib.sh"
bench_setup fluid_icofoam openfoam time
py=$ADJSIM_PYTHON
M=128
cells=$((M * M))
ghia=$root/tests/fluid/ghia1982_cavity.csv
case_src=$root/bench/openfoam/cavity128

# Debian's OpenFOAM binaries find their etc/ files through WM_PROJECT_DIR (no bashrc needed).
export WM_PROJECT_DIR=${WM_PROJECT_DIR:-/usr/share/openfoam}

dt=$(awk -v t="$tend" -v n="$steps" 'BEGIN { printf "%.15g", t / n }')
bench_header "adjsim vs OpenFOAM icoFoam: lid-driven cavity ${M}x${M}, Re 100, dt = $dt s, $steps steps, t_end = $tend s"
say "adjsim: inputs/fluid_cavity_re100.yaml, its pressure solver ($(sed -n 's/^ *poisson: *\([a-z]*\).*/\1/p' "$root/inputs/fluid_cavity_re100.yaml" | head -1 || true)${ADJSIM_EXTRA_ARGS:+; extra options $ADJSIM_EXTRA_ARGS})"
say "OpenFOAM: Debian package openfoam $(dpkg-query -W -f='${Version}' openfoam 2>/dev/null || echo '?')" \
  "(OpenFOAM $(sed -n 's/^export WM_PROJECT_VERSION=//p' "$WM_PROJECT_DIR/etc/bashrc" 2>/dev/null | head -1)), case bench/openfoam/cavity128 (PISO 2 correctors, p: PCG+DIC tol 1e-6)"

# --- one adjsim run: prints "<cell-steps/s> <FlStep s> <steps> <error> <cell-steps per CPU s> <Poisson share>"
run_adjsim() {
  local np=$1 tag=$2 d=$work/adjsim-np$1-$2
  mkdir -p "$d"
  (cd "$d" && /usr/bin/time -f "%U %S" -o "$d/cpu.txt" mpiexec -n "$np" --bind-to none "$ADJSIM_BUILD/adjsim" -options_file "$root/inputs/fluid_cavity_re100.yaml" \
    -fluid_grid $M,$M -fluid_final_time "$tend" -fluid_steps "$steps" -output "$d/run.h5" -quiet ${ADJSIM_EXTRA_ARGS:-} \
    -log_view ":$d/logview.txt" >"$d/out.txt" 2>&1) || { echo "adjsim run failed (np $np): $(tail -3 "$d/out.txt")" >&2; return 1; }
  local n t tp cpu err
  read -r n t < <(awk '$1 == "FlStep" { print $2, $4 }' "$d/logview.txt")
  tp=$(awk '$1 == "FlPoisson" { print $4 }' "$d/logview.txt")
  cpu=$(awk -v np="$np" 'NF == 2 { c = ($1 + $2) / np } END { print c }' "$d/cpu.txt")
  "$py" "$root/postprocess/adjsim_ghia_compare.py" "$d/run.h5" --table "$ghia" --re 100 >"$d/ghia.txt"
  err=$(sed -n 's/.*max \([0-9.e+-]*\)$/\1/p' "$d/ghia.txt")
  awk -v c=$cells -v n="$n" -v t="$t" -v e="$err" -v cpu="$cpu" -v tp="$tp" \
    'BEGIN { printf "%.6g %.4f %d %s %.6g %.0f%%\n", c * n / t, t, n, e, c * n / cpu, 100 * tp / t }'
}

# --- one icoFoam run ---------------------------------------------------------------------------
run_foam() {
  local np=$1 tag=$2 d=$work/foam-np$1-$2
  cp -r "$case_src" "$d"
  (
    cd "$d"
    foamDictionary -entry endTime -set "$tend" system/controlDict >/dev/null
    foamDictionary -entry writeInterval -set "$tend" system/controlDict >/dev/null
    foamDictionary -entry deltaT -set "$dt" system/controlDict >/dev/null
    blockMesh >log.blockMesh 2>&1
    if [ "$np" -gt 1 ]; then
      foamDictionary -entry numberOfSubdomains -set "$np" system/decomposeParDict >/dev/null
      foamDictionary -entry coeffs.n -set "(1 $np 1)" system/decomposeParDict >/dev/null
      decomposePar -force >log.decomposePar 2>&1
      mpiexec -n "$np" --bind-to none icoFoam -parallel >log.icoFoam 2>&1
      reconstructPar -latestTime >log.reconstructPar 2>&1
    else
      icoFoam >log.icoFoam 2>&1
    fi
  ) || { echo "icoFoam run failed (np $np): see $d (BENCH_KEEP=1 keeps it)" >&2; return 1; }
  local n t cpu
  n=$(grep -c '^Time = ' "$d/log.icoFoam")
  t=$(awk '/^ExecutionTime =/ { c = $7; if (first == "") first = c } END { print c - first }' "$d/log.icoFoam")
  cpu=$(awk '/^ExecutionTime =/ { c = $3; if (first == "") first = c } END { print c - first }' "$d/log.icoFoam")
  local err
  "$py" "$root/postprocess/adjsim_foam_ghia.py" "$d" --cells $M,$M --table "$ghia" --re 100 >"$d/ghia.txt"
  err=$(sed -n 's/.*max \([0-9.e+-]*\)$/\1/p' "$d/ghia.txt")
  awk -v c=$cells -v n="$n" -v t="$t" -v e="$err" -v cpu="$cpu" \
    'BEGIN { if (t <= 0) t = 1e-9; if (cpu <= 0) cpu = 1e-9; printf "%.6g %.4f %d %s %.6g -\n", c * (n - 1) / t, t, n - 1, e, c * (n - 1) / cpu }'
}

declare -A best_rate best_err best_time best_n best_cpu
for np in $ranks; do
  for rep in $(seq 1 "$repeats"); do
    for solver in adjsim foam; do
      line=$("run_$solver" "$np" "$rep") || continue
      read -r rate t n err cpurate pshare <<<"$line"
      say "  run: $solver np $np #$rep: $n steps in $t s (time loop) = $rate cell-steps/s ($cpurate per CPU s" \
        "per rank$([ "$pshare" != - ] && echo "; Poisson $pshare of the step")); max centreline error vs Ghia $err"
      k=$solver-$np
      if [ -z "${best_rate[$k]:-}" ] || awk -v a="$rate" -v b="${best_rate[$k]}" 'BEGIN { exit !(a > b) }'; then
        best_rate[$k]=$rate best_err[$k]=$err best_time[$k]=$t best_n[$k]=$n
      fi
      if [ -z "${best_cpu[$k]:-}" ] || awk -v a="$cpurate" -v b="${best_cpu[$k]}" 'BEGIN { exit !(a > b) }'; then
        best_cpu[$k]=$cpurate
      fi
    done
  done
done

say ""
say "Results (best of $repeats; cell-steps/s = $cells cells x steps / time-loop wall time):"
say "$(printf '  %-6s %-8s %14s %10s %13s %12s %15s' ranks solver cell-steps/s 'ms/step' 'per CPU s' 'Ghia max err' 'adjsim/icoFoam')"
for np in $ranks; do
  for solver in adjsim foam; do
    k=$solver-$np
    [ -n "${best_rate[$k]:-}" ] || { say "  $np      $solver: failed"; continue; }
    ms=$(awk -v t="${best_time[$k]}" -v n="${best_n[$k]}" 'BEGIN { printf "%.2f", 1000 * t / n }')
    ratio=""
    if [ "$solver" = adjsim ] && [ -n "${best_rate[foam-$np]:-}" ]; then
      ratio=$(awk -v a="${best_rate[$k]}" -v b="${best_rate[foam-$np]}" -v ac="${best_cpu[$k]}" -v bc="${best_cpu[foam-$np]}" \
        'BEGIN { printf "%.3gx (CPU %.3gx)", a / b, ac / bc }')
    fi
    say "$(printf '  %-6s %-8s %14s %10s %13s %12s %15s' "$np" "$([ $solver = foam ] && echo icoFoam || echo adjsim)" \
      "${best_rate[$k]}" "$ms" "${best_cpu[$k]}" "${best_err[$k]}" "$ratio")"
  done
done
say "Aim (issue): adjsim throughput >= 30x icoFoam's at no worse accuracy (lower or equal Ghia error)."
say "Ghia errors are at t = $tend s$(awk -v t="$tend" 'BEGIN { if (t < 20) print " (not yet steady: steady state needs ~20 s)" }')."
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (shared machine: timings are upper bounds of the undisturbed ones)"
say "report: $report"
