#!/usr/bin/env bash
# Two runs at once must never write one file:
#  1. a second run with the -output of a live run is refused before any work, and the live run goes on;
#  2. after that run is killed with SIGKILL (its lock dies with it), a new run with the same -output works;
#  3. two gradient runs with disk checkpoints in one directory at once (default checkpoint file names) both
#     get the gradient of a run alone, bit for bit: their default checkpoint files are distinct (they once
#     shared adjsim-checkpoints.h5 and got gradients off by up to 34% with exit 0);
#  4. a second gradient run naming the -checkpoint_disk_file of a live one is refused.
# usage: concurrent.sh <mpiexec> <np> <adjsim> <python> <postprocess dir> <tag> <adjsim options...>
set -u -o pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpiexec=$1 np=$2 adjsim=$3 python=$4 post=$5 tag=$6
shift 6
case=("$@")
fail() {
  echo "FAIL: $*"
  pkill -9 -f -- "^$adjsim .*$PWD/" 2>/dev/null
  exit 1
}
rm -rf "$tag" && mkdir "$tag" && cd "$tag" || fail "cannot create the directory $tag"
run() { $mpiexec -n "$np" --oversubscribe --bind-to none "$adjsim" "${case[@]}" "$@"; }
# Wait (up to 60 s) until a file exists.
await() {
  for _ in $(seq 1 1200); do [ -e "$1" ] && return 0; sleep 0.05; done
  return 1
}
# The ranks of a background run are found by the full path of a file they write.
alive() { pgrep -f -- "^$adjsim .*$1" >/dev/null; }

# 1. A long run holds same.h5; a second run with the same -output must be refused at once.
run -transport_steps 2000000 -output "$PWD/same.h5" >long.log 2>&1 &
long=$!
await same.h5.partial || { cat long.log; fail "the long run wrote no same.h5.partial"; }
run -output "$PWD/same.h5" >second.log 2>&1 && { cat second.log; fail "a second run writing the -output of a live run exited 0"; }
grep -q "another adjsim run is writing it" second.log || { cat second.log; fail "the refusal does not say that another run writes the file"; }
alive "$PWD/same.h5" || { cat long.log; fail "the long run ended before the second run was tried: test inconclusive, make it longer"; }

# 2. SIGKILL: the stale lock file stays, but the kernel dropped the lock, so a new run may write same.h5.
pkill -9 -f -- "^$adjsim .*-output $PWD/same.h5" || fail "no rank of the long run to kill"
wait "$long"
[ -e same.h5.lock ] || echo "note: no lock file left by the killed run"
run -output "$PWD/same.h5" >third.log 2>&1 || { cat third.log; fail "a run after the killed one could not write same.h5"; }
[ -f same.h5 ] && [ ! -e same.h5.lock ] || fail "after a complete run same.h5 must exist and same.h5.lock be gone"

# 3. Two gradient runs with disk checkpoints at once, and one alone, must give the same gradient bit for bit.
grad=(-mode gradient -checkpoint_ram 1 -checkpoint_disk 3 -transport_steps 1200)
run "${grad[@]}" -output alone.h5 >alone.log 2>&1 || { cat alone.log; fail "the gradient run alone failed"; }
run "${grad[@]}" -output "$PWD/a.h5" >a.log 2>&1 &
pa=$!
run "${grad[@]}" -output "$PWD/b.h5" >b.log 2>&1 &
pb=$!
wait "$pa" || { cat a.log; fail "gradient run a failed"; }
wait "$pb" || { cat b.log; fail "gradient run b failed"; }
grep -q "disk file: .*a-checkpoints.h5" a.log && grep -q "disk file: .*b-checkpoints.h5" b.log ||
  { cat a.log b.log; fail "the default checkpoint files are not named after the run files"; }
for r in a b; do
  $python "$post/adjsim_compare.py" alone.h5 $r.h5 --groups /gradients --exact ||
    fail "gradient run $r, run at the same time as another, differs from the run alone"
done
ls ./*checkpoints* 2>/dev/null && fail "checkpoint files left behind by complete runs"

# 4. A live gradient run holds its checkpoint file; another run naming it is refused.
run "${grad[@]}" -transport_steps 400000 -checkpoint_disk_file "$PWD/shared.h5" -output "$PWD/c.h5" >c.log 2>&1 &
pc=$!
await shared.h5 || { cat c.log; fail "the long gradient run created no shared.h5"; }
run "${grad[@]}" -checkpoint_disk_file "$PWD/shared.h5" -output d.h5 >d.log 2>&1 &&
  { cat d.log; fail "a second run sharing the checkpoint file of a live run exited 0"; }
grep -q "another adjsim run is writing it" d.log || { cat d.log; fail "the refusal does not name the live run"; }
alive "$PWD/c.h5" || { cat c.log; fail "the long gradient run ended before the second was tried: test inconclusive"; }
pkill -9 -f -- "^$adjsim .*-output $PWD/c.h5"
wait "$pc"
echo "ok: a live run's output and checkpoint file are refused to a second run; a killed run blocks nothing;" \
  "concurrent gradient runs equal the run alone bit for bit"
