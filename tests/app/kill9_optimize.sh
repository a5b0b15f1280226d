#!/usr/bin/env bash
# SIGKILL during an optimization must not damage earlier output, and the optimizer's restart file on disk is
# always a whole one from which the optimization resumes bit for bit: an earlier complete run file of the same
# name stays byte for byte what it was, and the run resumed from the restart file the last kill left ends with
# the same iterates, final design and gradient as an uninterrupted run (adjsim_compare.py --exact on
# /optimization, /parameters, /gradients).
#
# The killed runs write their restart file after every iteration (the optimizer's default); the kills land at
# several delays after the log shows iteration 2, so in an evaluation, in a line search or in a restart write.
# usage: kill9_optimize.sh <mpiexec> <np> <adjsim> <python> <postprocess dir> <tag> <truth deck> <adjsim options...>
#   (the truth deck writes the observation file the options read)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpiexec=$1 np=$2 adjsim=$3 python=$4 post=$5 tag=$6 truth=$7
shift 7
case=("$@")
fail() {
  echo "FAIL ($tag): $*"
  exit 1
}
rm -rf "$tag" && mkdir "$tag" && cd "$tag" || fail "cannot create the directory $tag"
run() { $mpiexec -n "$np" --oversubscribe --bind-to none "$adjsim" "${case[@]}" "$@"; }

"$adjsim" -options_file "$truth" -quiet >truth.log 2>&1 || { cat truth.log; fail "the truth run failed"; }
run -output ref.h5 >ref.log 2>&1 || { cat ref.log; fail "the uninterrupted optimization failed"; }
# The earlier, complete run of the same name (a shorter optimization).
run -output run.h5 -tao_max_it 1 >earlier.log 2>&1 || { cat earlier.log; fail "the earlier run failed"; }
sum_before=$(md5sum run.h5 ./*.xmf) || fail "no run.h5 or no XDMF file of the earlier run to protect"

for delay in 0.05 0.2 0.45; do
  rm -f run-restart.h5
  run -output "$PWD/run.h5" >killed.log 2>&1 &
  launcher=$!
  for _ in $(seq 1 600); do grep -q "iteration   2 " killed.log && break; sleep 0.02; done
  grep -q "iteration   2 " killed.log || { cat killed.log; fail "the run never reached iteration 2"; }
  sleep "$delay"
  # SIGKILL to every rank at once: no handler, no HDF5 close, no rename.
  pkill -9 -f -- "^$adjsim .*-output $PWD/run.h5" ||
    { tail -n 5 killed.log; fail "no adjsim rank to kill: the run ended within $delay s of iteration 2; make it longer"; }
  wait "$launcher"
  echo "killed $delay s after iteration 2 (last line: $(grep -E '^optimize: iteration' killed.log | tail -1))"
  sum_after=$(md5sum run.h5 ./*.xmf) || fail "the earlier run file or its XDMF is gone after kill -9"
  [ "$sum_after" = "$sum_before" ] || fail "the earlier run file or its XDMF changed after kill -9"
  [ -f run-restart.h5 ] || fail "no optimizer restart file after kill -9 at $delay s"
  $python "$post/adjsim_compare.py" run-restart.h5 run-restart.h5 --groups /optimization --exact >/dev/null ||
    fail "the restart file left by kill -9 (after $delay s) cannot be read"
done

run -output continued.h5 -restart run-restart.h5 >continued.log 2>&1 ||
  { cat continued.log; fail "the optimization resumed from the restart file left by kill -9 failed"; }
grep -E "resumed at iteration" continued.log || fail "the continued run did not resume"
$python "$post/adjsim_compare.py" continued.h5 ref.h5 --groups /optimization /parameters /gradients --exact ||
  fail "the optimization resumed after kill -9 differs from the uninterrupted one"
echo "ok: earlier output intact after 3 kills; the optimization resumed from the last restart file bit for bit"
