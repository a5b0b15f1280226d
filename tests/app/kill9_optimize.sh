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
mpiexec=$1 np=$2 adjsim=$3 python=$4 post=$5 tag=$6 truth=$7
shift 7
case=("$@")
source "$(dirname "$0")/kill9lib.sh"

"$adjsim" -options_file "$truth" -quiet >truth.log 2>&1 || { cat truth.log; fail "the truth run failed"; }
run -output ref.h5 >ref.log 2>&1 || { cat ref.log; fail "the uninterrupted optimization failed"; }
# The earlier, complete run of the same name (a shorter optimization).
run -output run.h5 -tao_max_it 1 >earlier.log 2>&1 || { cat earlier.log; fail "the earlier run failed"; }
kill9_protect

for delay in 0.02 0.12 0.3; do
  rm -f run-restart.h5
  kill9_run_and_kill "$delay" "iteration 2" -- grep -q "iteration   2 " killed.log
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
