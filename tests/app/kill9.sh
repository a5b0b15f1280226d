#!/usr/bin/env bash
# SIGKILL in the middle of writing must not damage earlier output: a complete run file of an earlier
# run with the same name stays byte for byte what it was, the restart file on disk is always a whole
# one (the previous or the new one, never half of one), and a continuation from it ends bit for bit
# where an uninterrupted run ends.
#
# The killed run writes its run file every 2 steps and its restart file every step, so most of its time
# is spent writing and the kills (at several delays) land in or near a write; the other runs write
# little, to keep the test short.
# usage: kill9.sh <mpiexec> <np> <adjsim> <python> <postprocess dir> <tag> <adjsim options...>
set -u
mpiexec=$1 np=$2 adjsim=$3 python=$4 post=$5 tag=$6
shift 6
case=("$@")
source "$(dirname "$0")/kill9lib.sh"

# The earlier, complete run of the same name.
run -output run.h5 -output_interval 50 -restart_interval 0 >earlier.log 2>&1 ||
  { cat earlier.log; fail "the earlier run failed"; }
$python "$post/adjsim_check_run.py" run.h5 >/dev/null || fail "the earlier run file is not valid"
kill9_protect

for delay in 0.3 0.9 1.7; do
  kill9_run_and_kill "$delay" "the first restart file" -output_interval 2 -restart_interval 1 -- test run-restart.h5 -nt started
  $python "$post/adjsim_compare.py" run-restart.h5 run-restart.h5 --groups /restart --exact >/dev/null ||
    fail "the restart file left by kill -9 (after $delay s) cannot be read"
done

echo "continuing from the restart file"
# Continue from the restart file the last kill left; compare with an uninterrupted run.
run -output continued.h5 -output_interval 50 -restart run-restart.h5 >continued.log 2>&1 ||
  { cat continued.log; fail "the continuation from the restart file left by kill -9 failed"; }
run -output reference.h5 -output_interval 50 -restart_interval 0 >reference.log 2>&1 || { cat reference.log; fail "the reference run failed"; }
$python "$post/adjsim_compare.py" continued.h5 reference.h5 --groups /restart --exact ||
  fail "the run continued after kill -9 differs from the uninterrupted run"
echo "ok: earlier output intact after 3 kills; the last restart file continued bit for bit"
