#!/usr/bin/env bash
# SIGKILL during a gradient run with disk checkpoints must not damage earlier output nor poison the next run:
# an earlier complete run file of the same name stays byte for byte what it was, and the run started again in
# the same directory (the killed run's checkpoint file left behind, with its lock released by the kernel) gives
# the gradient of an uninterrupted run bit for bit (adjsim_compare.py --exact on /gradients).
#
# The killed runs hold most of their checkpoints on disk, so the kills (at several delays after the
# checkpoint file appears) land in the forward sweep, in checkpoint writes and reads, or in the reverse sweep.
# usage: kill9_gradient.sh <mpiexec> <np> <adjsim> <python> <postprocess dir> <tag> <truth deck> <adjsim options...>
#   (the truth deck writes the observation file the options read; "none": no such run)
set -u
mpiexec=$1 np=$2 adjsim=$3 python=$4 post=$5 tag=$6 truth=$7
shift 7
case=("$@")
source "$(dirname "$0")/kill9lib.sh"

if [ "$truth" != none ]; then
  "$adjsim" -options_file "$truth" -quiet >truth.log 2>&1 || { cat truth.log; fail "the truth run failed"; }
fi
run -output ref.h5 >ref.log 2>&1 || { cat ref.log; fail "the uninterrupted gradient run failed"; }
# The earlier, complete run of the same name (a forward run).
run -output run.h5 -mode forward >earlier.log 2>&1 || { cat earlier.log; fail "the earlier run failed"; }
kill9_protect

for delay in 0 0.3 0.8; do
  kill9_run_and_kill "$delay" "its checkpoint file" -- test run-checkpoints.h5 -nt started
done

run -output run.h5 >again.log 2>&1 || { cat again.log; fail "the gradient run started again after kill -9 failed"; }
$python "$post/adjsim_compare.py" run.h5 ref.h5 --groups /gradients --exact ||
  fail "the gradient run after kill -9 differs from the uninterrupted one"
echo "ok: earlier output intact after 3 kills; the run started again gives the uninterrupted gradient bit for bit"
