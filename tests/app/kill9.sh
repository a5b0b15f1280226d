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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpiexec=$1 np=$2 adjsim=$3 python=$4 post=$5 tag=$6
shift 6
case=("$@")
fail() {
  echo "FAIL: $*"
  exit 1
}
rm -rf "$tag" && mkdir "$tag" && cd "$tag" || fail "cannot create the directory $tag"
run() { $mpiexec -n "$np" --oversubscribe --bind-to none "$adjsim" "${case[@]}" "$@"; }

# The earlier, complete run of the same name.
run -output run.h5 -output_interval 50 -restart_interval 0 >earlier.log 2>&1 ||
  { cat earlier.log; fail "the earlier run failed"; }
$python "$post/adjsim_check_run.py" run.h5 >/dev/null || fail "the earlier run file is not valid"
# md5sum fails (and prints less) when a file is missing: the comparison below would then compare less or nothing
sum_before=$(md5sum run.h5 ./*.xmf) || fail "no run.h5 or no XDMF file of the earlier run to protect"

for delay in 0.3 0.9 1.7; do
  # The full path makes the ranks of this run (and not the launcher, nor other tests' ranks) findable.
  touch started
  run -output "$PWD/run.h5" -output_interval 2 -restart_interval 1 >killed.log 2>&1 &
  launcher=$!
  for _ in $(seq 1 400); do [ run-restart.h5 -nt started ] && break; sleep 0.05; done
  [ run-restart.h5 -nt started ] || { cat killed.log; fail "the run wrote no restart file"; }
  sleep "$delay"
  # SIGKILL to every rank at once: no handler, no HDF5 close, no rename.
  pkill -9 -f -- "^$adjsim .*-output $PWD/run.h5" ||
    { tail -n 5 killed.log; fail "no adjsim rank to kill: the run ended within $delay s of its first restart file; make it longer"; }
  wait "$launcher"
  echo "[${SECONDS}s] killed $delay s after the first restart file; files left: $(ls | tr '\n' ' ')"
  # Byte for byte as before, so still the valid file adjsim_check_run.py passed above.
  sum_after=$(md5sum run.h5 ./*.xmf) || fail "the earlier run file or its XDMF is gone after kill -9"
  [ "$sum_after" = "$sum_before" ] || fail "the earlier run file or its XDMF changed after kill -9"
  $python "$post/adjsim_compare.py" run-restart.h5 run-restart.h5 --groups /restart --exact >/dev/null ||
    fail "the restart file left by kill -9 (after $delay s) cannot be read"
done

echo "[${SECONDS}s] continuing from the restart file"
# Continue from the restart file the last kill left; compare with an uninterrupted run.
run -output continued.h5 -output_interval 50 -restart run-restart.h5 >continued.log 2>&1 ||
  { cat continued.log; fail "the continuation from the restart file left by kill -9 failed"; }
run -output reference.h5 -output_interval 50 -restart_interval 0 >reference.log 2>&1 || { cat reference.log; fail "the reference run failed"; }
$python "$post/adjsim_compare.py" continued.h5 reference.h5 --groups /restart --exact ||
  fail "the run continued after kill -9 differs from the uninterrupted run"
echo "ok: earlier output intact after 3 kills; the last restart file continued bit for bit"
