#!/usr/bin/env bash
# End-to-end test of the Slurm job scripts (jobs/slurm/) on a one-node Slurm cluster that this script
# starts on this machine (munged, slurmctld, slurmd as root, everything in a temporary directory):
#   1. forward run (srun), inverse demo (mpiexec launcher), 3-member ensemble array + gather;
#   2. fluid simulation, MPM inverse-material campaign, fluid airfoil optimization preempted with USR1
#      (requeued, resumed at the iteration where it stopped, with the same objective);
#   3. preemption: USR1 to the batch shell of a running forward job; the job must requeue itself,
#      resume from its restart file and end bit for bit where an uninterrupted run ends.
# Fails, saying why, when Slurm cannot start or any check fails; stops every daemon it started.
#
# usage: test_slurm_jobs.sh <adjsim executable> [python with h5py]
# Needs root and the Debian packages slurm-wlm and munge (tests/run.sh installs them).
# ADJSIM_SLURM_TEST_KEEP=1 keeps the temporary directory (logs, runs) after a pass too.
set -uo pipefail

ADJ=${1:?usage: test_slurm_jobs.sh <adjsim executable> [python]}
PY=${2:-/usr/bin/python3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ADJ=$(cd "$(dirname "$ADJ")" && pwd)/$(basename "$ADJ")
T=""
STARTED=() # pid files of the daemons this script started
OK=0

say() { echo "[$(date +%H:%M:%S) +$((SECONDS))s] $*"; }
fail() {
  echo "FAIL: $*"
  exit 1
}

cleanup() {
  local rc=$? pidfile pid jobs=""
  trap - EXIT
  if [ ${#STARTED[@]} -gt 0 ]; then
    # Jobs first (their steps are children of slurmd), then the daemons, by the pids they wrote.
    [ -f "$T/slurmctld.pid" ] && jobs=$(SLURM_CONF=$T/slurm.conf timeout 10 squeue -h -o %i 2>/dev/null | tr '\n' ' ')
    if [ -n "${jobs// /}" ]; then
      export SLURM_CONF=$T/slurm.conf
      timeout 10 scancel --full $jobs 2>/dev/null
      for _ in $(seq 1 20); do [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
    fi
    for pidfile in "${STARTED[@]}"; do
      pid=$(cat "$pidfile" 2>/dev/null) || continue
      [ -n "$pid" ] && kill "$pid" 2>/dev/null
    done
    for pidfile in "${STARTED[@]}"; do
      pid=$(cat "$pidfile" 2>/dev/null) || continue
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
      rm -f "$pidfile"
    done
  fi
  if [ "$OK" = 1 ] && [ "$rc" -eq 0 ]; then
    [ -n "${ADJSIM_SLURM_TEST_KEEP:-}" ] && echo "(files kept in $T)" || rm -rf "$T"
    say "PASS: Slurm job scripts (all daemons stopped)"
  elif [ -n "$T" ]; then
    for f in "$T"/log/slurmctld.log "$T"/log/slurmd.log "$T"/munge/munged.log; do
      [ -f "$f" ] && { echo "---- last lines of $f"; tail -n 15 "$f"; }
    done
    echo "(files kept in $T)"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'fail "interrupted"' INT TERM

# ---------------------------------------------------------------- prerequisites
[ "$(id -u)" -eq 0 ] || fail "this test starts munged, slurmctld and slurmd itself and must run as root"
for c in munged mungekey slurmctld slurmd sbatch scontrol squeue scancel srun; do
  command -v "$c" >/dev/null || fail "$c not found: install the Debian packages slurm-wlm and munge (tests/run.sh does)"
done
[ -x "$ADJ" ] || fail "adjsim executable $ADJ not found"
"$PY" "$ROOT/postprocess/adjsim_check_jobs.py" --help >/dev/null 2>&1 || fail "$PY cannot run postprocess/adjsim_check_jobs.py (needs h5py and numpy)"
id munge >/dev/null 2>&1 || fail "no munge user: reinstall the munge package"

# The munge key every daemon shares; a fresh package install normally creates it.
if [ ! -s /etc/munge/munge.key ]; then
  say "creating /etc/munge/munge.key"
  mkdir -p /etc/munge
  mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null ||
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none || fail "cannot create /etc/munge/munge.key"
fi
chown munge:munge /etc/munge /etc/munge/munge.key && chmod 700 /etc/munge && chmod 400 /etc/munge/munge.key ||
  fail "cannot set the owner and mode of /etc/munge/munge.key"

# ---------------------------------------------------------------- the cluster
T=$(mktemp -d /tmp/adjsim-slurm-test.XXXXXX) || fail "mktemp failed"
chmod 755 "$T" # munged needs a path everyone can traverse to its socket
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/runs" "$T/tmp" && chown munge:munge "$T/munge" && chmod 755 "$T/munge"

# Should this script be killed without running its EXIT trap (a ctest timeout sends SIGKILL), a
# watchdog outside its process group stops the daemons it started.
setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done
  for f in "$2/slurmd.pid" "$2/slurmctld.pid" "$2/munge/munged.pid"; do
    p=$(cat "$f" 2>/dev/null) && grep -qxE "slurmd|slurmctld|munged" "/proc/$p/comm" 2>/dev/null && kill "$p"
  done' watchdog $$ "$T" </dev/null >/dev/null 2>&1 &

say "starting munged (socket $T/munge/munge.socket)"
runuser -u munge -- munged --socket="$T/munge/munge.socket" --log-file="$T/munge/munged.log" \
  --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" ||
  fail "munged did not start: $(tail -n 3 "$T/munge/munged.log" 2>/dev/null)"
STARTED+=("$T/munge/munged.pid")
munge -S "$T/munge/munge.socket" -n </dev/null | unmunge -S "$T/munge/munge.socket" >/dev/null ||
  fail "munge credentials do not round-trip through $T/munge/munge.socket"

read -r ctld_port slurmd_port < <("$PY" "$ROOT/postprocess/adjsim_check_jobs.py" free-ports 2)
first_job=$((RANDOM * 16 + 1000))
mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
[ -n "$mem" ] || fail "slurmd -C does not report the memory of this machine: $(slurmd -C 2>&1 | head -n 3)"
cat >"$T/slurm.conf" <<EOF
# One-node test cluster of tests/slurm/test_slurm_jobs.sh (daemons as root, no cgroups, no accounting).
ClusterName=adjsimtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job may start again after this many seconds (default 120)
AuthInfo=socket=$T/munge/munge.socket,cred_expire=10
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
# job temporary files (PMIx directories) here, not in /tmp: another test cluster may run the same job ids
TmpFS=$T/tmp
FirstJobId=$first_job
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=1
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf

say "starting slurmctld (port $ctld_port) and slurmd (port $slurmd_port)"
slurmctld -i || fail "slurmctld did not start: $(tail -n 5 "$T/log/slurmctld.log" 2>/dev/null)"
STARTED+=("$T/slurmctld.pid")
for _ in $(seq 1 40); do [ -s "$T/slurmctld.pid" ] && break; sleep 0.25; done
slurmd -N localhost || fail "slurmd did not start: $(tail -n 5 "$T/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 1 40); do [ -s "$T/slurmd.pid" ] && break; sleep 0.25; done
STARTED+=("$T/slurmd.pid")
state=""
for _ in $(seq 1 60); do
  state=$(timeout 5 sinfo -h -n localhost -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail "the Slurm node did not become idle (state '${state:-no answer}'); see the logs below"
say "cluster up: $(sinfo -h -o '%P %D %T %c CPUs')"

# ---------------------------------------------------------------- helpers
# Jobs start with a clean MPI environment: the job scripts must set what they need themselves.
# Prints the job id; fails unless sbatch gave one (an empty id would make "scontrol show job" list every job).
submit() {
  local id
  id=$(env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -u OMPI_MCA_rmaps_base_oversubscribe \
    ADJSIM_BIN="$ADJ" sbatch --parsable --time=10 --mem-per-cpu=100M "$@" | cut -d';' -f1) || return 1
  [[ $id =~ ^[0-9]+$ ]] || { echo "sbatch printed '$id', not a job id" >&2; return 1; }
  echo "$id"
}
# "<JobId> <JobState> <ExitCode> <Restarts>" for the job (every task of an array).
job_states() {
  scontrol show job -o "$1" 2>/dev/null | sed -E 's/.*JobId=([0-9]+) .*JobState=([A-Z_]+) .*Restarts=([0-9]+) .*ExitCode=([0-9:]+) .*/\1 \2 \4 \3/'
}
# Waits until none of the jobs is queued or running, at most $1 seconds.
wait_jobs() {
  local limit=$1 t0=$SECONDS
  shift
  while :; do
    local busy=0 id
    for id in "$@"; do
      job_states "$id" | grep -qE ' (PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|REQUEUE_HOLD|REQUEUE_FED|SUSPENDED|RESIZING|SIGNALING|STAGE_OUT) ' && busy=1
      [ -z "$(job_states "$id")" ] && busy=1
    done
    [ "$busy" = 0 ] && return 0
    if [ $((SECONDS - t0)) -ge "$limit" ]; then
      echo "jobs still busy after ${limit}s:"
      for id in "$@"; do job_states "$id"; done
      return 1
    fi
    sleep 1
  done
}
# Every task of the job COMPLETED with exit code 0:0, else fail showing its log.
expect_completed() {
  local id=$1 log=$2 states
  states=$(job_states "$id")
  if echo "$states" | grep -vqE '^[0-9]+ COMPLETED 0:0 '; then
    echo "$states"
    for f in $log; do [ -f "$f" ] && { echo "---- $f"; tail -n 30 "$f"; }; done
    fail "job $id did not complete with exit code 0"
  fi
}
check() { "$PY" "$@" || fail "check failed: $*"; }

SMALL=$ROOT/tests/app/small.yaml
R=$T/runs
L=$T/log

# ---------------------------------------------------------------- 1. forward, inverse, ensemble
say "submitting the forward run (srun, 2 tasks), the inverse demo (mpiexec, 2 tasks) and a 3-member ensemble"
t_jobs=$SECONDS
fwd=$(submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/forward-%j.out" "$ROOT/jobs/slurm/transport-forward.sbatch" \
  "$SMALL" "$R/forward" -output_interval 3) || fail "sbatch of transport-forward.sbatch failed"
inv=$(ADJSIM_LAUNCHER=mpiexec ADJSIM_ARGS="-transport_grid 24,24 -transport_steps 48 -quiet" \
  ADJSIM_INVERSE_ARGS="-tao_max_it 6" submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/inverse-%j.out" \
  "$ROOT/jobs/slurm/transport-inverse.sbatch" "$R/inverse") || fail "sbatch of transport-inverse.sbatch failed"
cat >"$T/params.txt" <<'EOF'
# kappa sweep (comment and blank lines do not count)
-transport_kappa 1e-3

-transport_kappa 2e-3
-transport_kappa 3e-3 -transport_rotation_omega 2.0
EOF
ens=$(ADJSIM_ARGS="-output_interval 3" submit --array=0-2 -n 1 -o "$L/ensemble-%A_%a.out" \
  "$ROOT/jobs/slurm/ensemble.sbatch" "$T/params.txt" "$SMALL" "$R/ensemble") || fail "sbatch of ensemble.sbatch failed"
say "jobs $fwd (forward), $inv (inverse), $ens (ensemble array)"
wait_jobs 120 "$fwd" "$inv" "$ens" || fail "the jobs did not finish within 120 s"
say "jobs finished in $((SECONDS - t_jobs)) s"

expect_completed "$fwd" "$L/forward-$fwd.out"
[ -f "$R/forward/small.h5" ] || fail "forward: $R/forward/small.h5 missing"
check "$ROOT/postprocess/adjsim_check_run.py" "$R/forward/small.h5"
check "$ROOT/postprocess/adjsim_check_jobs.py" run "$R/forward/small.h5" --nranks 2 --min-steps 3
[ ! -e "$R/forward/small-restart.h5" ] || fail "forward: a restart file was left after a complete run"
say "forward: ok"

expect_completed "$inv" "$L/inverse-$inv.out"
for f in demo-observations.h5 demo-inverse.h5; do [ -f "$R/inverse/$f" ] || fail "inverse: $R/inverse/$f missing"; done
check "$ROOT/postprocess/adjsim_summary.py" "$R/inverse/demo-inverse.h5" --truth "$R/inverse/demo-observations.h5" \
  --expect-decrease 0.5 >"$T/inverse-summary.txt"
grep -q "parameters against the truth" "$L/inverse-$inv.out" || fail "inverse: the job log has no summary"
"$PY" "$ROOT/postprocess/adjsim_check_jobs.py" run "$R/inverse/demo-inverse.h5" --nranks 2 ||
  fail "inverse: mpiexec launcher did not start 2 ranks"
say "inverse: ok ($(grep -m1 -o 'objective .*' "$T/inverse-summary.txt"))"

expect_completed "$ens" "$L/ensemble-${ens}_0.out $L/ensemble-${ens}_1.out $L/ensemble-${ens}_2.out"
[ "$(job_states "$ens" | wc -l)" -eq 3 ] || fail "ensemble: expected 3 array tasks, got: $(job_states "$ens")"
for i in 0 1 2; do [ -f "$R/ensemble/member-000$i/run.h5" ] || fail "ensemble: member $i has no run.h5"; done
check "$ROOT/postprocess/adjsim_gather_ensemble.py" "$R/ensemble" -o "$T/pairs.h5"
check "$ROOT/postprocess/adjsim_check_jobs.py" pairs "$R/ensemble" "$T/pairs.h5" \
  --param transport_kappa=1e-3,2e-3,3e-3 --param transport_rotation_omega=nan,nan,2.0
say "ensemble: ok"

# ---------------------------------------------------------------- 2. fluid and MPM campaigns
# A fluid simulation (cylinder, coarse), an MPM inverse-material campaign (3 iterations), and a fluid
# airfoil optimization (about 1 s per gradient on 2 idle cores: iteration 2 after 5 gradients, the
# 6 iterations take about 20, so USR1 arrives well before the end) preempted at its third iteration: it must requeue and resume at the iteration
# where it stopped, with the same objective, and finish the history without gaps.
say "submitting fluid-forward.sbatch, mpm-inverse.sbatch and fluid-optimize.sbatch (2 tasks each)"
t_sol=$SECONDS
ffwd=$(ADJSIM_ARGS="-fluid_grid 60,40 -fluid_final_time 3 -quiet" submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/fluid-forward-%j.out" \
  "$ROOT/jobs/slurm/fluid-forward.sbatch" "" "$R/cylinder") || fail "sbatch of fluid-forward.sbatch failed"
minv=$(ADJSIM_ARGS="-quiet" ADJSIM_INVERSE_ARGS="-tao_max_it 3" submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/mpm-inverse-%j.out" \
  "$ROOT/jobs/slurm/mpm-inverse.sbatch" "$R/mpm-inverse") || fail "sbatch of mpm-inverse.sbatch failed"
fopt=$(submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/fluid-optimize-%j.out" "$ROOT/jobs/slurm/fluid-optimize.sbatch" \
  inputs/fluid_airfoil_optimize.yaml "$R/airfoil" -fluid_grid 192,96 -fluid_final_time 1 \
  -fluid_objective_window 0.5,1 -tao_max_it 6) || fail "sbatch of fluid-optimize.sbatch failed"
say "jobs $ffwd (fluid forward), $minv (MPM inverse), $fopt (fluid optimization)"
for _ in $(seq 1 240); do
  grep -q "iteration   2 " "$L/fluid-optimize-$fopt.out" 2>/dev/null && break
  job_states "$fopt" | grep -qE ' (COMPLETED|FAILED|CANCELLED|TIMEOUT) ' && break
  sleep 0.5
done
grep -q "iteration   2 " "$L/fluid-optimize-$fopt.out" 2>/dev/null ||
  { tail -n 20 "$L/fluid-optimize-$fopt.out"; fail "fluid optimization: no iteration 2 in its log (state $(job_states "$fopt"))"; }
scancel --signal=USR1 --batch "$fopt" || fail "scancel --signal=USR1 --batch $fopt failed"
wait_jobs 200 "$ffwd" "$minv" "$fopt" || fail "the fluid and MPM jobs did not finish within 200 s"
say "fluid and MPM jobs finished in $((SECONDS - t_sol)) s"

expect_completed "$ffwd" "$L/fluid-forward-$ffwd.out"
run=$R/cylinder/fluid_cylinder_re100.h5 # the default deck
[ -f "$run" ] || fail "fluid forward: $run missing"
check "$ROOT/postprocess/adjsim_check_run.py" "$run"
check "$ROOT/postprocess/adjsim_check_jobs.py" run "$run" --nranks 2 --min-steps 2
check "$ROOT/postprocess/adjsim_forces.py" "$run" >"$T/forces.txt"
say "fluid forward: ok ($(grep -m1 -i "mean" "$T/forces.txt"))"

expect_completed "$minv" "$L/mpm-inverse-$minv.out"
check "$ROOT/postprocess/adjsim_check_run.py" "$R/mpm-inverse/demo-observations.h5" "$R/mpm-inverse/demo-inverse.h5"
check "$ROOT/postprocess/adjsim_summary.py" "$R/mpm-inverse/demo-inverse.h5" --truth "$R/mpm-inverse/demo-observations.h5" \
  --expect-decrease 0.5 >"$T/mpm-summary.txt"
check "$ROOT/postprocess/adjsim_check_jobs.py" run "$R/mpm-inverse/demo-inverse.h5" --nranks 2
say "MPM inverse: ok ($(grep -m1 -o 'optimization: .*' "$T/mpm-summary.txt"))"

flog=$L/fluid-optimize-$fopt.out
read -r _ _ _ frestarts <<<"$(job_states "$fopt")"
[ "${frestarts:-0}" -ge 1 ] || { tail -n 25 "$flog"; fail "fluid optimization: job $fopt was not requeued"; }
expect_completed "$fopt" "$flog"
stopped=$(sed -n '1,/stopped by a signal/p' "$flog" | grep -E "^optimize: iteration" | tail -n 1)
resumed=$(grep -m1 "resumed at iteration" "$flog") || { tail -n 25 "$flog"; fail "fluid optimization: the requeued job did not resume"; }
say "fluid optimization: stopped after '$stopped'; '$resumed'"
# Numbers first: two empty fields (no line found, another format) would compare equal and prove nothing.
int='^[0-9]+$' real='^[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$'
stop_it=$(echo "$stopped" | awk '{print $3}') stop_J=$(echo "$stopped" | awk '{print $6}')
res_it=$(echo "$resumed" | awk '{print $5}') res_J=$(echo "$resumed" | awk '{print $8}')
[[ $stop_it =~ $int && $stop_J =~ $real ]] ||
  { tail -n 25 "$flog"; fail "fluid optimization: no 'optimize: iteration <n> J = <number>' line before the stop"; }
[[ $res_it =~ $int && $res_J =~ $real ]] || fail "fluid optimization: no iteration and objective in '$resumed'"
[ "$res_it" = "$stop_it" ] ||
  fail "fluid optimization: resumed at iteration $res_it, not at $stop_it where it stopped"
[ "$res_J" = "$stop_J" ] ||
  fail "fluid optimization: resumed with objective $res_J, not $stop_J where it stopped"
check "$ROOT/postprocess/adjsim_summary.py" "$R/airfoil/fluid_airfoil_optimize.h5" --expect-decrease 1e-6 >"$T/opt-summary.txt"
check "$ROOT/postprocess/adjsim_check_run.py" "$R/airfoil/fluid_airfoil_optimize.h5"
[ ! -e "$R/airfoil/fluid_airfoil_optimize-restart.h5" ] || fail "fluid optimization: restart file left after completion"
say "fluid optimization: preempted, requeued, resumed at the same iteration and objective: ok"

# ---------------------------------------------------------------- 3. preemption and requeue
# A forward run long enough to be caught mid-way (several seconds on 2 idle cores); the same run uninterrupted
# is the reference.
# shellcheck disable=SC2054
LONG=(-transport_grid 192,160 -transport_final_time 45 -transport_steps 12000 -output_interval 2000 -quiet false
  -progress_interval 1)
say "preemption: submitting a long forward run"
t_pre=$SECONDS
pre=$(submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/preempt-%j.out" "$ROOT/jobs/slurm/transport-forward.sbatch" \
  "$SMALL" "$R/preempt" "${LONG[@]}") || fail "sbatch of the preemption run failed"
for _ in $(seq 1 60); do
  grep -q "forward step" "$L/preempt-$pre.out" 2>/dev/null && break
  job_states "$pre" | grep -qE ' (COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) ' && break
  sleep 0.5
done
grep -q "forward step" "$L/preempt-$pre.out" 2>/dev/null ||
  { tail -n 20 "$L/preempt-$pre.out" 2>/dev/null; fail "preemption: the long run did not start stepping (state: $(job_states "$pre"))"; }
say "preemption: job $pre is stepping; scancel --signal=USR1 --batch $pre"
scancel --signal=USR1 --batch "$pre" || fail "scancel --signal=USR1 --batch $pre failed"
ref=$(submit -N 1 -n 2 --ntasks-per-node=2 -o "$L/reference-%j.out" "$ROOT/jobs/slurm/transport-forward.sbatch" \
  "$SMALL" "$R/reference" "${LONG[@]}") || fail "sbatch of the reference run failed"
wait_jobs 120 "$pre" "$ref" || fail "preemption: the jobs did not finish in time"
say "preemption: jobs finished in $((SECONDS - t_pre)) s; the preempted job's log:"
grep -E "^adjsim job|adjsim: (stopped|forward run)" "$L/preempt-$pre.out" | sed 's/^/    /'
expect_completed "$ref" "$L/reference-$ref.out"
read -r _ pstate pexit prestarts <<<"$(job_states "$pre")"
if [ "${prestarts:-0}" -lt 1 ]; then
  tail -n 25 "$L/preempt-$pre.out"
  if grep -q "adjsim failed with status" "$L/preempt-$pre.out"; then
    fail "preemption: adjsim did not stop gracefully on SIGUSR1 ($(grep -m1 -o 'adjsim failed with status.*' "$L/preempt-$pre.out"));" \
      "expected exit status 85 after writing its restart file: the adjsim preemption feature" \
      "(src/app/main.c, include/adjsim/interrupt.h) is missing or broken"
  fi
  grep -q "got SIGUSR1" "$L/preempt-$pre.out" || fail "preemption: the batch script never received SIGUSR1 (state $pstate $pexit)"
  fail "preemption: job $pre was not requeued (state $pstate, exit $pexit, restarts ${prestarts:-?})"
fi
expect_completed "$pre" "$L/preempt-$pre.out"
grep -q "resuming .* from .*small-restart.h5" "$L/preempt-$pre.out" || fail "preemption: the requeued job did not resume from its restart file"
grep -q "stopped by a signal" "$L/preempt-$pre.out" || fail "preemption: adjsim did not report a graceful stop"
ls "$R/preempt"/small-segment1.h5 >/dev/null 2>&1 || fail "preemption: the interrupted part was not kept as small-segment1.h5"
[ ! -e "$R/preempt/small-restart.h5" ] || fail "preemption: the restart file was left after the run completed"
check "$ROOT/postprocess/adjsim_compare.py" "$R/preempt/small.h5" "$R/reference/small.h5" --groups /restart --exact
# The segment and the continued run together hold every output step of the uninterrupted run, bit for bit.
check "$ROOT/postprocess/adjsim_check_jobs.py" segments "$R/preempt" "$R/reference/small.h5" --stem small
say "preemption: requeued $prestarts time(s), resumed, same final state as the uninterrupted run: ok"
OK=1
