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

if [ "$truth" != none ]; then
  "$adjsim" -options_file "$truth" -quiet >truth.log 2>&1 || { cat truth.log; fail "the truth run failed"; }
fi
run -output ref.h5 >ref.log 2>&1 || { cat ref.log; fail "the uninterrupted gradient run failed"; }
# The earlier, complete run of the same name (a forward run).
run -output run.h5 -mode forward >earlier.log 2>&1 || { cat earlier.log; fail "the earlier run failed"; }
sum_before=$(md5sum run.h5 ./*.xmf) || fail "no run.h5 or no XDMF file of the earlier run to protect"

for delay in 0 0.3 0.8; do
  touch started
  run -output "$PWD/run.h5" >killed.log 2>&1 &
  launcher=$!
  for _ in $(seq 1 600); do [ run-checkpoints.h5 -nt started ] && break; sleep 0.02; done
  [ run-checkpoints.h5 -nt started ] || { cat killed.log; fail "the run wrote no checkpoint file"; }
  sleep "$delay"
  pkill -9 -f -- "^$adjsim .*-output $PWD/run.h5" ||
    { tail -n 5 killed.log; fail "no adjsim rank to kill: the run ended within $delay s of its checkpoint file"; }
  wait "$launcher"
  echo "killed $delay s after the checkpoint file appeared; files left: $(ls | tr '\n' ' ')"
  sum_after=$(md5sum run.h5 ./*.xmf) || fail "the earlier run file or its XDMF is gone after kill -9"
  [ "$sum_after" = "$sum_before" ] || fail "the earlier run file or its XDMF changed after kill -9"
done

run -output run.h5 >again.log 2>&1 || { cat again.log; fail "the gradient run started again after kill -9 failed"; }
$python "$post/adjsim_compare.py" run.h5 ref.h5 --groups /gradients --exact ||
  fail "the gradient run after kill -9 differs from the uninterrupted one"
echo "ok: earlier output intact after 3 kills; the run started again gives the uninterrupted gradient bit for bit"
