# Shared by the SIGKILL tests (kill9.sh, kill9_optimize.sh, kill9_gradient.sh), sourced after the script has
# set mpiexec, np, adjsim and tag and the array `case` (the adjsim options of every run). It enters a fresh
# directory $tag and defines:
#   fail MESSAGE...        print "FAIL (tag): MESSAGE" and exit 1
#   run OPTIONS...         adjsim with the case's options and these, on np ranks
#   kill9_protect          remember the checksums of the earlier complete run file run.h5 and its XDMF
#   kill9_run_and_kill DELAY WHAT OPTIONS... -- TEST...
#                          start `run -output $PWD/run.h5 OPTIONS` in the background; once the command TEST holds
#                          (polled for 20 s; WHAT says what it waits for), wait DELAY seconds, SIGKILL every rank
#                          at once (no handler, no HDF5 close, no rename), and check that the earlier run file and
#                          its XDMF are byte for byte what kill9_protect saw
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
fail() {
  echo "FAIL ($tag): $*"
  exit 1
}
run() { $mpiexec -n "$np" --oversubscribe --bind-to none "$adjsim" "${case[@]}" "$@"; }
kill9_protect() {
  # md5sum fails (and prints less) when a file is missing: the comparison would then compare less or nothing
  kill9_sum=$(md5sum run.h5 ./*.xmf) || fail "no run.h5 or no XDMF file of the earlier run to protect"
}
kill9_run_and_kill() {
  local delay=$1 what=$2 opts=() launcher
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  touch started
  # The full path makes the ranks of this run (and not the launcher, nor other tests' ranks) findable.
  run -output "$PWD/run.h5" "${opts[@]}" >killed.log 2>&1 &
  launcher=$!
  for _ in $(seq 1 1000); do "$@" && break; sleep 0.02; done
  "$@" || { cat killed.log; fail "the run never got to $what"; }
  sleep "$delay"
  pkill -9 -f -- "^$adjsim .*-output $PWD/run.h5" ||
    { tail -n 5 killed.log; fail "no adjsim rank to kill: the run ended within $delay s of $what; make it longer"; }
  wait "$launcher"
  echo "killed $delay s after $what; files left: $(ls | tr '\n' ' ')"
  local sum
  sum=$(md5sum run.h5 ./*.xmf) || fail "the earlier run file or its XDMF is gone after kill -9"
  [ "$sum" = "$kill9_sum" ] || fail "the earlier run file or its XDMF changed after kill -9"
}
rm -rf "$tag" && mkdir "$tag" && cd "$tag" || fail "cannot create the directory $tag"
