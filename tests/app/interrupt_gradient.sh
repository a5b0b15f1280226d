#!/usr/bin/env bash
# A gradient run stopped by SIGUSR1 (in its forward sweep, then in its reverse sweep) must stop between two
# steps with a message saying where and how to continue (-restart with its resume file, or run again for a solver
# that cannot save its gradient), exit with status 85 (the job scripts
# requeue it), leave its run file as .partial and remove its checkpoint file. (It once died of signal 10
# with no message.)
# usage: interrupt_gradient.sh <mpiexec> <np> <adjsim> <tag> <adjsim options...>
set -u -o pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpiexec=$1 np=$2 adjsim=$3 tag=$4
shift 4
case=("$@")
fail() {
  echo "FAIL: $*"
  exit 1
}
rm -rf "$tag" && mkdir "$tag" && cd "$tag" || fail "cannot create the directory $tag"
# $1: label; $2: a shell test that holds once the run is where the signal should reach it (forward sweep:
# the checkpoint file exists; reverse sweep: a progress line "adjoint step 2/n" was printed)
stop_at() {
  rm -f g.h5* g-checkpoints.h5 g-restart.h5 g.log
  $mpiexec -n "$np" --oversubscribe --bind-to none "$adjsim" "${case[@]}" -mode gradient -output g.h5 \
    -checkpoint_ram 2 -checkpoint_disk 2 -progress_interval 0 -quiet false >g.log 2>&1 &
  local pid=$! rc
  for _ in $(seq 1 1200); do eval "$2" && break; sleep 0.05; done
  eval "$2" || { kill -9 "$pid"; cat g.log; fail "$1: the run never reached the point: $2"; }
  kill -USR1 "$pid"
  wait "$pid"
  rc=$?
  grep -v "^adjoint step\|^forward step" g.log | tail -n 5
  [ "$rc" -eq 85 ] || fail "$1: exit status $rc, expected 85"
  grep -Eq "gradient run stopped by a signal at step [0-9]*; .*(run it again|continue with -restart g-restart.h5)" g.log ||
    fail "$1: no message"
  if grep -q "continue with -restart" g.log; then [ -f g-restart.h5 ] || fail "$1: no resume file g-restart.h5"; fi
  [ -e g.h5 ] && fail "$1: an interrupted gradient run left a complete-looking g.h5"
  [ -e g-checkpoints.h5 ] && fail "$1: the checkpoint file was left behind"
  [ -e g.h5.partial ] || fail "$1: no g.h5.partial"
  echo "ok: $1: $(grep -o 'stopped by a signal at step [0-9]*' g.log)"
}
stop_at "forward sweep" "[ -e g-checkpoints.h5 ]"
grep -q "^adjoint step" g.log && fail "forward sweep: the signal came after the forward sweep; make the run longer"
stop_at "reverse sweep" "grep -q 'adjoint step 2/' g.log"
