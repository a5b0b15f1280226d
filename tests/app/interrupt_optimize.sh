#!/usr/bin/env bash
# An optimization stopped by SIGUSR1 must exit with status 85 after writing its restart file;
# resumed with -restart it must start at the iteration where it stopped with the same objective,
# finish normally, and its run file must hold the whole history without gaps (adjsim_summary.py
# --expect-decrease checks that the iterations are 0, 1, 2, ... and that the objective fell).
# usage: interrupt_optimize.sh <mpiexec> <np> <adjsim> <python> <inputs dir> <postprocess dir>
# pipefail: a failing command in a pipeline (adjsim_summary.py | tail) fails the pipeline.  Every number taken from a
# log is checked to be one before it is compared: two empty strings compare equal, and the check would test nothing.
set -uo pipefail
mpiexec=$1; np=$2; adjsim=$3; python=$4; inputs=$5; post=$6
tag=intopt_np$np
rm -rf $tag && mkdir $tag && cd $tag
$adjsim -options_file $inputs/transport_truth.yaml -quiet > /dev/null || { echo "FAIL: truth run"; exit 1; }
opts="-options_file $inputs/transport_inverse.yaml -tao_max_it 8 -output inv.h5"  # 8: stop at 3, resume, 5 more
$mpiexec -n $np --oversubscribe $adjsim $opts > a.log 2>&1 &
pid=$!
for i in $(seq 1 600); do grep -q "iteration   3 " a.log && break; sleep 0.05; done
kill -USR1 $pid
wait $pid; rc=$?
grep -E "iteration|stopped" a.log
[ $rc -eq 85 ] || { echo "FAIL: interrupted optimization exited $rc, expected 85"; exit 1; }
[ -e inv-restart.h5 ] || { echo "FAIL: no restart file"; exit 1; }
int='^[0-9]+$' real='^[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$' # finite numbers only: "nan" = "nan" must not pass
last=$(grep -E "^optimize: iteration" a.log | tail -1)
stop_it=$(echo "$last" | awk '{print $3}'); stop_J=$(echo "$last" | awk '{print $6}')
[[ $stop_it =~ $int && $stop_J =~ $real ]] ||
  { echo "FAIL: no 'optimize: iteration <n> J = <number>' line in the interrupted run's log (got '$last')"; exit 1; }
$mpiexec -n $np --oversubscribe $adjsim $opts -restart inv-restart.h5 > b.log 2>&1 || { cat b.log; echo "FAIL: resumed run failed"; exit 1; }
resumed=$(grep "resumed at iteration" b.log) || { cat b.log; echo "FAIL: the resumed run printed no 'resumed at iteration'"; exit 1; }
echo "$resumed"
res_it=$(echo "$resumed" | awk '{print $5}'); res_J=$(echo "$resumed" | awk '{print $8}')
[[ $res_it =~ $int && $res_J =~ $real ]] ||
  { echo "FAIL: no iteration and objective in the resumed run's line '$resumed'"; exit 1; }
[ "$res_it" = "$stop_it" ] || { echo "FAIL: resumed at iteration $res_it, not $stop_it"; exit 1; }
[ "$res_J" = "$stop_J" ] || { echo "FAIL: resumed objective $res_J differs from $stop_J"; exit 1; }
$python $post/adjsim_summary.py inv.h5 --expect-decrease 1e-3 | tail -1 || { echo "FAIL: adjsim_summary.py"; exit 1; }
echo "ok: stopped at iteration $stop_it (J = $stop_J), resumed there and finished"
