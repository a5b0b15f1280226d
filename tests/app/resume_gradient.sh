#!/usr/bin/env bash
# A gradient run stopped several times (as by SIGUSR1: -gradient_test_stop_after lists after how many steps, in
# the forward sweep, the recomputations and the reverse sweep) and continued each time with -restart from the
# file it wrote ends with the gradient of an uninterrupted run bit for bit (/gradients, J).
# usage: resume_gradient.sh <mpiexec> <np> <adjsim> <python> <postprocess dir> <tag> <stops> <adjsim options...>
set -u -o pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpiexec=$1 np=$2 adjsim=$3 py=$4 post=$5 tag=$6 stops=$7
shift 7
fail() {
  echo "FAIL: $*"
  exit 1
}
run() { $mpiexec -n "$np" --oversubscribe --bind-to none "$adjsim" "$@" -mode gradient; }
mkdir -p "$tag" && cd "$tag" || fail "cannot enter $tag"
rm -f ref.h5* g.h5* g-restart.h5* ./*.log
run "$@" -output ref.h5 >ref.log 2>&1 || { cat ref.log; fail "the uninterrupted gradient failed"; }
nstops=$(($(tr -cd , <<<"$stops" | wc -c) + 1))
resume=() parts=0
while :; do
  run "$@" -output g.h5 -gradient_test_stop_after "$stops" "${resume[@]}" >part$parts.log 2>&1
  rc=$?
  parts=$((parts + 1))
  [ $rc -eq 0 ] && break
  [ $rc -eq 85 ] || { cat part$((parts - 1)).log; fail "part $parts: exit status $rc"; }
  grep -q "its state (checkpoints, adjoint, partial gradient) is in g-restart.h5" part$((parts - 1)).log ||
    fail "part $parts: no message naming the resume file"
  [ -f g-restart.h5 ] || fail "part $parts: no resume file g-restart.h5"
  [ $parts -le "$nstops" ] || fail "more stops than the $nstops asked for"
  resume=(-restart g-restart.h5)
done
[ $parts -eq $((nstops + 1)) ] || fail "$((parts - 1)) stops, expected $nstops (the run is shorter than the last stop?)"
grep -q "gradient continued from g-restart.h5" part1.log || fail "the second part did not say it continued"
jref=$(grep -o "gradient: J = [^ ]*" ref.log) jres=$(grep -o "gradient: J = [^ ]*" part$((parts - 1)).log)
[ -n "$jref" ] && [ "$jref" = "$jres" ] || fail "objective: '$jref' uninterrupted, '$jres' continued"
"$py" "$post/adjsim_compare.py" ref.h5 g.h5 --groups /gradients --exact || fail "/gradients differ"
echo "ok: $nstops stops ($stops steps), $jres, /gradients bit for bit"
