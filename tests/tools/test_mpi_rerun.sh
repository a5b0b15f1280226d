#!/usr/bin/env bash
# Checks tests/tools/mpi-rerun.sh without MPI: a fake launcher that fails with Open MPI's PID-0 race message is
# rerun once (and its second result counts); a failure with a real PID, a test's own failure and a pass are not
# rerun; a race on the rerun too is final. Exits nonzero on the first wrong outcome.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rerun="$here/mpi-rerun.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fake launcher: fake.sh MODE COUNTFILE; MODE race-then-pass | race-always | realpid | fail | pass
cat > "$work/fake.sh" <<'FAKE'
#!/usr/bin/env bash
n=$(( $(cat "$2" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$2"
race() { echo "mpiexec has exited due to process rank 3 with PID 0 on"; echo "node x exiting improperly."; exit 1; }
case $1 in
  race-then-pass) [ "$n" -eq 1 ] && race; echo PASS; exit 0 ;;
  race-always) race ;;
  realpid) echo "mpiexec has exited due to process rank 3 with PID 4242 on"; echo "node x exiting improperly."; exit 1 ;;
  fail) echo "test failed"; exit 3 ;;
  pass) echo PASS; exit 0 ;;
esac
FAKE
fails=0
check() { # MODE EXPECTED_RC EXPECTED_RUNS
  local c="$work/count.$1" rc runs
  bash "$rerun" bash "$work/fake.sh" "$1" "$c" > "$work/out.$1" 2>&1; rc=$?
  runs=$(cat "$c")
  if [ "$rc" -ne "$2" ] || [ "$runs" -ne "$3" ]; then
    echo "FAIL $1: exit $rc (want $2), runs $runs (want $3)"; cat "$work/out.$1"; fails=1
  else
    echo "ok   $1: exit $rc, runs $runs"
  fi
}
check race-then-pass 0 2
check race-always 1 2
check realpid 1 1
check fail 3 1
check pass 0 1
grep -q "running the test once more" "$work/out.race-then-pass" || { echo "FAIL: the rerun is not announced"; fails=1; }
exit $fails
