#!/usr/bin/env bash
# An optimization interrupted and resumed (once or several times) must give the same iterates, bit for bit,
# as the same optimization run without interruption on the same rank count: the run file of the last
# resumed run must equal the uninterrupted run's in /optimization (iteration, objective, gradient norm and
# design of every iteration), /parameters (the final design) and /gradients (at the optimum), compared by
# adjsim_compare.py --exact.
#
# usage: optimize_resume_exact.sh <mpiexec> <np> <adjsim> <python> <postprocess dir> <tag> <truth options|none>
#                                 <stops> <adjsim options...>
#   truth options: a forward run (1 rank) that writes obs.h5, which the options then read ("none": no such run)
#   stops: comma-separated interruption points, one per interrupted run, each run resuming from the last:
#     after:N   stop after evaluation N of J and its gradient (-optimize_interrupt_after_evaluations N)
#     ls        stop inside the first line search of the uninterrupted run that takes 2 or more evaluations,
#               after its first one (found in that run's log; the test fails if it has no such line search)
#     in:N      a signal during evaluation N, in its forward sweep (-optimize_interrupt_in_evaluation N)
#     rev:N     a signal during evaluation N, in the middle of its reverse sweep (... -optimize_interrupt_in_reverse)
#     signal:N  a real SIGUSR1 sent when the log shows iteration N (lands wherever the run is then)
# Every number taken from a log is checked to be one before it is used (two empty strings compare equal).
set -uo pipefail
mpiexec=$1; np=$2; adjsim=$3; python=$4; post=$5; tag=$6; truth=$7; stops=$8; shift 8
int='^[0-9]+$'
fail() { echo "FAIL ($tag): $*"; exit 1; }
rm -rf "$tag" && mkdir "$tag" && cd "$tag" || exit 1
run() { $mpiexec -n "$np" --oversubscribe "$adjsim" "$@" -quiet false; }
if [ "$truth" != none ]; then
  # shellcheck disable=SC2086 # the truth options are a word list
  $adjsim $truth -output obs.h5 -quiet > truth.log 2>&1 || { cat truth.log; fail "truth run"; }
fi
run "$@" -output ref.h5 > ref.log 2>&1 || { cat ref.log; fail "uninterrupted run"; }
grep -E "^optimize: iteration" ref.log
# cumulative evaluation counts at the end of each iteration of the uninterrupted run
mapfile -t evals < <(grep -E "^optimize: iteration" ref.log | awk '{print $NF}')
[ ${#evals[@]} -ge 3 ] || fail "the uninterrupted run has fewer than 3 iterations: nothing to interrupt"
restart=()
IFS=, read -ra points <<< "$stops"
k=0
for p in "${points[@]}"; do
  k=$((k + 1)); kind=${p%%:*}; n=${p#*:}; opts=()
  case $kind in
  ls)
    n=
    for ((i = 1; i < ${#evals[@]}; i++)); do
      if [ $((evals[i] - evals[i - 1])) -ge 2 ]; then n=$((evals[i - 1] + 1)); break; fi
    done
    [[ $n =~ $int ]] || fail "no iteration of the uninterrupted run takes 2 or more evaluations (no line search to interrupt)"
    echo "stop $k: inside the line search of iteration $i (evaluations $((evals[i - 1] + 1))..${evals[i]}), after evaluation $n"
    opts=(-optimize_interrupt_after_evaluations "$n") ;;
  after) opts=(-optimize_interrupt_after_evaluations "$n") ;;
  in) opts=(-optimize_interrupt_in_evaluation "$n") ;;
  rev) opts=(-optimize_interrupt_in_evaluation "$n" -optimize_interrupt_in_reverse) ;;
  signal) ;;
  *) fail "unknown stop '$p'" ;;
  esac
  [[ $n =~ $int ]] || fail "stop '$p' has no evaluation or iteration number"
  if [ "$kind" = signal ]; then
    # mpiexec itself in the background (not the shell function: the signal must reach mpiexec, which forwards it)
    $mpiexec -n "$np" --oversubscribe "$adjsim" "$@" "${restart[@]}" -output run.h5 -quiet false > run$k.log 2>&1 &
    pid=$!
    for _ in $(seq 1 1200); do grep -q "iteration *$n " run$k.log && break; kill -0 $pid 2> /dev/null || break; sleep 0.05; done
    kill -USR1 $pid 2> /dev/null
    wait $pid; rc=$?
  else
    run "$@" "${restart[@]}" "${opts[@]}" -output run.h5 > run$k.log 2>&1; rc=$?
  fi
  grep -E "^optimize: (resumed|evaluation|STOPPED)" run$k.log
  [ $rc -eq 85 ] || { cat run$k.log; fail "run $k (stop '$p') exited $rc, expected 85"; }
  case $kind in
  ls | after) grep -qE "^optimize: STOPPED_BY_SIGNAL after [0-9]+ iterations, $n gradient evaluations" run$k.log ||
    fail "run $k did not stop after evaluation $n" ;;
  in | rev) grep -qE "^optimize: evaluation $n stopped by a signal at step [0-9]+" run$k.log ||
    fail "run $k: evaluation $n was not interrupted during its sweep" ;;
  esac
  [ -e run-restart.h5 ] || fail "run $k wrote no restart file"
  cp run-restart.h5 resume.h5
  if [ $k -gt 1 ]; then grep -q "evaluations replayed from resume.h5" run$k.log || fail "run $k did not replay the log"; fi
  restart=(-restart resume.h5)
done
run "$@" "${restart[@]}" -output run.h5 > final.log 2>&1 || { cat final.log; fail "the last resumed run failed"; }
grep -E "^optimize: resumed" final.log || fail "the last run did not resume from the restart file's log"
$python "$post/adjsim_compare.py" --exact --groups /optimization /parameters /gradients -- ref.h5 run.h5 | tail -1 ||
  { $python "$post/adjsim_compare.py" --exact --groups /optimization /parameters /gradients -- ref.h5 run.h5; fail "the resumed optimization differs from the uninterrupted one"; }
echo "ok ($tag): $k interruption(s) ($stops), resumed, same iterates bit for bit as the uninterrupted run"
