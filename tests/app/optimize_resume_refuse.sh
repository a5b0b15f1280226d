#!/usr/bin/env bash
# What a resumed optimization does when its restart file cannot be replayed bit for bit (docs/output-format.md,
# "Restart file of an optimization"), from one file written on 2 ranks after 6 evaluations:
#   - another TAO option that changes the iterates (L-BFGS history size): refused, the replay names the mismatch;
#   - another -tao_type: refused, naming both methods;
#   - another rank count (1): a warning, then it resumes at the last iterate with a fresh quasi-Newton memory;
#   - a file without the evaluation log (as older versions wrote it): the same warning path, and the run file
#     holds the whole history without gaps (iterations 0, 1, 2, ...); stopped again, it resumes so again.
# usage: optimize_resume_refuse.sh <mpiexec> <adjsim> <python> <inputs dir> <postprocess dir>
set -uo pipefail
mpiexec=$1; adjsim=$2; python=$3; inputs=$4; post=$5
tag=optimize_resume_refuse
fail() { echo "FAIL ($tag): $*"; exit 1; }
rm -rf $tag && mkdir $tag && cd $tag || exit 1
size="-transport_grid 24,24 -transport_steps 32 -transport_final_time 0.125"
# shellcheck disable=SC2086 # word lists
$adjsim -options_file "$inputs/transport_truth.yaml" $size -output obs.h5 -quiet > truth.log 2>&1 || fail "truth run"
opts=(-options_file "$inputs/transport_inverse.yaml" $size -transport_obs_file obs.h5 -checkpoint_ram 4 -tao_max_it 12
  -quiet false)
run() { local np=$1; shift; $mpiexec -n "$np" --oversubscribe "$adjsim" "${opts[@]}" "$@"; }
run 2 -output a.h5 -optimize_interrupt_after_evaluations 6 > a.log 2>&1
rc=$?; [ $rc -eq 85 ] || { cat a.log; fail "the interrupted run exited $rc, expected 85"; }
cp a-restart.h5 keep.h5
expect_refused() { # name message options...
  local name=$1 msg=$2; shift 2
  run 2 -output $name.h5 -restart keep.h5 "$@" > $name.log 2>&1 && { cat $name.log; fail "$name: resumed, expected a refusal"; }
  grep -q -- "$msg" $name.log || { cat $name.log; fail "$name: no message '$msg'"; }
  echo "ok: $name refused: $(grep -m1 -o -- "$msg.*" $name.log | cut -c1-160)"
}
expect_refused hist "TAO asks for another design than the interrupted run did" -tao_blmvm_mat_lmvm_hist_size 2
expect_refused type "was written by an optimization with -tao_type blmvm; this run has -tao_type lmvm" -tao_type lmvm
stop_it=$(grep -E "^optimize: iteration" a.log | tail -1 | awk '{print $3}')
[[ $stop_it =~ ^[0-9]+$ ]] || fail "no iteration line in the interrupted run's log"
resumes_warned() { # name np warning restart-file
  local name=$1 np=$2 msg=$3 file=$4
  run "$np" -output $name.h5 -restart "$file" > $name.log 2>&1 || { cat $name.log; fail "$name: the resumed run failed"; }
  grep -q -- "$msg" $name.log || { cat $name.log; fail "$name: no warning '$msg'"; }
  grep -qE "^optimize: resumed at iteration +$stop_it " $name.log || { cat $name.log; fail "$name: did not resume at iteration $stop_it"; }
  $python "$post/adjsim_summary.py" $name.h5 --expect-decrease 1e-3 | tail -1 || fail "$name: adjsim_summary.py"
  echo "ok: $name resumed at iteration $stop_it with the warning"
}
resumes_warned ranks 1 "was written on 2 ranks, this run has 1" keep.h5
cp keep.h5 old.h5
$python - old.h5 << 'EOF' || fail "could not strip the evaluation log"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for name in ("evaluation_info", "evaluation_objective", "evaluation_design", "evaluation_gradient"):
        del f["/optimization/" + name]
EOF
resumes_warned nolog 2 "holds no evaluation log" old.h5
# that run stopped again: its log starts at its own resume, so the next resume is also at the last iterate
run 2 -output again.h5 -restart old.h5 -optimize_interrupt_after_evaluations 3 > again.log 2>&1
rc=$?; [ $rc -eq 85 ] || { cat again.log; fail "the run resumed from old.h5 and stopped again exited $rc, expected 85"; }
stop_it=$(grep -E "^optimize: iteration" again.log | tail -1 | awk '{print $3}')
[[ $stop_it =~ ^[0-9]+$ ]] || fail "no iteration line in again.log"
cp again-restart.h5 again-keep.h5
resumes_warned again 2 "was itself resumed from a restart file without evaluation log" again-keep.h5
