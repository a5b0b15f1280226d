# shellcheck shell=bash
# Shared by the batch scripts in jobs/slurm/ and jobs/pbs/ (sourced, not run): find adjsim, launch it
# with srun or mpiexec, pass preemption signals on to it, resume from restart files, requeue.
#
#   adjsim_job_init                     MPI settings, checks that $ADJSIM_BIN runs
#   adjsim_job_path <path>              absolute path (relative to the submit directory, else to the repository)
#   adjsim_job_forward <run.h5> <opts>  a forward run that resumes from <stem>-restart.h5 when it exists;
#                                       returns 0 (done), 85 (stopped by a signal, restart file written) or
#                                       adjsim's error status
#   adjsim_job_optimize <run.h5> <opts> a gradient or optimize run; an optimization resumes from
#                                       <stem>-restart.h5 (design, iteration, history) when it exists
#   adjsim_job_launch <opts>            adjsim on all tasks of the job; signals are passed on (USR1)
#   adjsim_job_requeue                  put this job back in the queue after a graceful stop
#   adjsim_job_member <file> <outdir> <run file name>
#                                       job arrays: this task's line of a parameter file and its directory;
#                                       returns 3 when that member's run is already complete
#
# Environment (all optional):
#   ADJSIM_BIN           the adjsim executable (default <repository>/build/adjsim)
#   ADJSIM_LAUNCHER      srun | mpiexec (default: srun inside a Slurm allocation when srun exists, else mpiexec)
#   ADJSIM_SRUN_FLAGS    extra srun flags (default --mpi=pmix when this Slurm has the pmix plugin)
#   ADJSIM_MPIEXEC_FLAGS extra mpiexec flags (e.g. --hostfile $PBS_NODEFILE)
#   ADJSIM_NP            ranks for mpiexec outside a batch allocation (default 2)
#   ADJSIM_MAX_REQUEUES  give up requeueing after this many restarts of the job (default 20)

# shellcheck disable=SC1091
source "$ADJSIM_ROOT/jobs/lib/adjsim-env.sh"
ADJSIM_BIN=${ADJSIM_BIN:-$ADJSIM_BUILD/adjsim}
ADJSIM_EXIT_INTERRUPTED=85 # adjsim's exit status after a graceful stop on SIGUSR1/SIGTERM
ADJSIM_JOB_PID=""          # the running srun/mpiexec
ADJSIM_JOB_SIGNAL=""       # the last signal the batch shell received
ADJSIM_JOB_TRAPS=0         # how many signals it received

adjsim_job_log() { echo "adjsim job [$(date +%H:%M:%S)]: $*" >&2; }

adjsim_job_init() {
  # Open MPI refuses to run as root unless told (containers, test clusters); never needed otherwise.
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  if [ ! -x "$ADJSIM_BIN" ]; then
    adjsim_job_log "no adjsim executable at $ADJSIM_BIN: build it first (on a login node:" \
      "cmake -S $ADJSIM_ROOT -B $ADJSIM_ROOT/build && cmake --build $ADJSIM_ROOT/build -j) or set ADJSIM_BIN"
    return 1
  fi
  trap 'adjsim_job_signal USR1' USR1
  trap 'adjsim_job_signal TERM' TERM
  adjsim_job_log "job ${SLURM_JOB_ID:-${PBS_JOBID:-(none)}} restart ${SLURM_RESTART_COUNT:-0}" \
    "on ${SLURM_JOB_NUM_NODES:-1} node(s), ${SLURM_NTASKS:-${PBS_NP:-${ADJSIM_NP:-2}}} task(s); adjsim $ADJSIM_BIN; launcher $(adjsim_job_launcher)"
}

# Absolute path of a file or directory named relative to the submit directory (the batch script's
# working directory) or, failing that, to the repository (so inputs/<deck>.yaml works from anywhere).
adjsim_job_path() {
  case $1 in
    /*) echo "$1" ;;
    *) if [ -e "$1" ] || [ ! -e "$ADJSIM_ROOT/$1" ]; then echo "$PWD/$1"; else echo "$ADJSIM_ROOT/$1"; fi ;;
  esac
}

adjsim_job_launcher() {
  if [ -n "${ADJSIM_LAUNCHER:-}" ]; then echo "$ADJSIM_LAUNCHER"
  elif [ -n "${SLURM_JOB_ID:-}" ] && command -v srun >/dev/null 2>&1; then echo srun
  else echo mpiexec; fi
}

# The batch shell got a signal (Slurm: --signal=B:USR1@120 before the time limit, SIGTERM on preemption
# or scancel). adjsim stops gracefully on USR1 and on TERM; USR1 is what srun and Open MPI's mpiexec
# both pass on to every rank (mpiexec would kill the ranks after a few seconds on TERM).
adjsim_job_signal() {
  ADJSIM_JOB_SIGNAL=$1
  ADJSIM_JOB_TRAPS=$((ADJSIM_JOB_TRAPS + 1))
  if [ -n "$ADJSIM_JOB_PID" ] && kill -0 "$ADJSIM_JOB_PID" 2>/dev/null; then
    adjsim_job_log "got SIG$1: asking adjsim (pid $ADJSIM_JOB_PID) to finish its step and write its restart file"
    kill -USR1 "$ADJSIM_JOB_PID" 2>/dev/null || true
  else
    adjsim_job_log "got SIG$1 between runs"
  fi
}

# Runs adjsim <options> on every task of the allocation, in the background so that the traps above run
# while it works; returns its exit status.
adjsim_job_launch() {
  local launcher rc
  launcher=$(adjsim_job_launcher)
  if [ "$launcher" = srun ]; then
    local flags=${ADJSIM_SRUN_FLAGS-}
    # Debian's Open MPI (and most) start under srun through PMIx; without it every rank would be a
    # separate one-rank run.  Sites whose MpiDefault is right can set ADJSIM_SRUN_FLAGS="".
    if [ -z "${ADJSIM_SRUN_FLAGS+set}" ]; then
      case $(srun --mpi=list 2>&1 || true) in *pmix*) flags=--mpi=pmix ;; esac
    fi
    # shellcheck disable=SC2086
    srun $flags "$ADJSIM_BIN" "$@" &
  else
    local np=${SLURM_NTASKS:-${PBS_NP:-${ADJSIM_NP:-2}}}
    # shellcheck disable=SC2086
    mpiexec -n "$np" ${ADJSIM_MPIEXEC_FLAGS-} "$ADJSIM_BIN" "$@" &
  fi
  ADJSIM_JOB_PID=$!
  while :; do
    local traps=$ADJSIM_JOB_TRAPS again
    rc=0
    wait "$ADJSIM_JOB_PID" || rc=$?
    [ "$traps" = "$ADJSIM_JOB_TRAPS" ] && break
    # A trapped signal ends wait early (status > 128): wait again for adjsim's own status.
    kill -0 "$ADJSIM_JOB_PID" 2>/dev/null && continue
    again=0
    wait "$ADJSIM_JOB_PID" 2>/dev/null || again=$?
    [ "$again" -ne 127 ] && rc=$again
    break
  done
  ADJSIM_JOB_PID=""
  return "$rc"
}

# A forward run writing <run.h5>, continued from <stem>-restart.h5 when that file exists (a previous
# run of this job stopped by a signal).  The earlier part of the run, left as <run.h5>.partial, is kept
# as <stem>-segment<N>.h5 (its /fields hold the output steps before the stop).  After a complete run the
# restart file is removed: the final state is in <run.h5>:/restart.
adjsim_job_forward() {
  local out=$1
  shift
  local stem=${out%.h5}
  local restart=$stem-restart.h5 resume=() n
  if [ -f "$restart" ]; then
    if [ -f "$out.partial" ]; then
      n=1
      while [ -e "$stem-segment$n.h5" ]; do n=$((n + 1)); done
      mv -f "$out.partial" "$stem-segment$n.h5"
      adjsim_job_log "kept the interrupted part of the run as $stem-segment$n.h5"
    fi
    resume=(-restart "$restart")
    adjsim_job_log "resuming $out from $restart"
  fi
  adjsim_job_run_resumable "$restart" "$@" -output "$out" "${resume[@]}"
}

# A gradient or optimize run writing <run.h5>.  An optimization stopped by a signal leaves
# <stem>-restart.h5 (the last iterate, the iteration count and the history); when that file exists the
# run continues from it at the same iteration.  After a complete run the restart file is removed.
adjsim_job_optimize() {
  local out=$1
  shift
  local restart=${out%.h5}-restart.h5 resume=()
  if [ -f "$restart" ]; then
    resume=(-restart "$restart")
    adjsim_job_log "resuming the optimization from $restart"
  fi
  adjsim_job_run_resumable "$restart" "$@" -output "$out" "${resume[@]}"
}

# Job arrays (ensemble.sbatch, design-sweep.sbatch): member i = array index i (SLURM_ARRAY_TASK_ID, else
# ADJSIM_MEMBER) = the i-th line of <parameter file> that is neither blank nor a # comment. Sets
# ADJSIM_MEMBER_LINE (that line), ADJSIM_MEMBER_COUNT (the number of lines), ADJSIM_MEMBER_NAME (member-<i, 4
# digits>) and ADJSIM_MEMBER_DIR (<outdir>/<name>), creates that directory, cd's into it and writes the line to
# options.txt for a fresh member. Returns 2 (after saying why) for a bad index or file, 3 when <run file> there is
# complete for the same line (no restart file left; ADJSIM_FORCE=1 runs it again), so that resubmitting an
# array fills in only the members that failed.
adjsim_job_member() {
  local params=$1 outdir=$2 run=$3 index=${SLURM_ARRAY_TASK_ID:-${ADJSIM_MEMBER:-}}
  [ -n "$index" ] || { adjsim_job_log "not an array job: submit with sbatch --array=0-<N-1> (or set ADJSIM_MEMBER=<i>)"; return 2; }
  [ -r "$params" ] || { adjsim_job_log "cannot read the parameter file $params"; return 2; }
  ADJSIM_MEMBER_LINE=$(grep -vE '^[[:space:]]*(#|$)' "$params" | sed -n "$((index + 1))p")
  ADJSIM_MEMBER_COUNT=$(grep -cvE '^[[:space:]]*(#|$)' "$params" || true)
  if [ -z "$ADJSIM_MEMBER_LINE" ]; then
    adjsim_job_log "array index $index: $params has only $ADJSIM_MEMBER_COUNT member line(s)" \
      "(indices 0-$((ADJSIM_MEMBER_COUNT - 1)))"
    return 2
  fi
  ADJSIM_MEMBER_NAME=$(printf 'member-%04d' "$index")
  ADJSIM_MEMBER_DIR=$outdir/$ADJSIM_MEMBER_NAME
  mkdir -p "$ADJSIM_MEMBER_DIR" && cd "$ADJSIM_MEMBER_DIR" || return 2
  local restart=${run%.h5}-restart.h5
  if [ -z "${ADJSIM_FORCE:-}" ] && [ -f "$run" ] && [ ! -f "$restart" ] && [ -f options.txt ] &&
    [ "$(cat options.txt)" = "$ADJSIM_MEMBER_LINE" ]; then
    adjsim_job_log "$ADJSIM_MEMBER_NAME ($ADJSIM_MEMBER_LINE): $ADJSIM_MEMBER_DIR/$run is complete, not run again" \
      "(ADJSIM_FORCE=1 to rerun)"
    return 3
  fi
  if [ ! -f "$restart" ]; then
    # A fresh member: no segments of an earlier run with other options.
    rm -f "${run%.h5}"-segment*.h5
    printf '%s\n' "$ADJSIM_MEMBER_LINE" >options.txt
  fi
  return 0
}

# adjsim <options> -restart_file <restart>; the restart file is removed after a complete run and kept
# after a graceful stop (status 85).  Returns adjsim's status.
adjsim_job_run_resumable() {
  local restart=$1 rc=0
  shift
  adjsim_job_launch "$@" -restart_file "$restart" || rc=$?
  case $rc in
    0) rm -f "$restart" ;;
    "$ADJSIM_EXIT_INTERRUPTED") adjsim_job_log "adjsim stopped gracefully; restart file $restart" ;;
    *) adjsim_job_log "adjsim failed with status $rc${ADJSIM_JOB_SIGNAL:+ (after SIG$ADJSIM_JOB_SIGNAL)}" ;;
  esac
  return "$rc"
}

# Puts this Slurm job back in the queue (same job id, same output directory); it starts again after
# Slurm's requeue delay (AuthInfo cred_expire, 120 s by default) and resumes from the restart file.
# Returns 1 when that is not possible (no Slurm, too many restarts, job cancelled).
adjsim_job_requeue() {
  local restarts=${SLURM_RESTART_COUNT:-0} max=${ADJSIM_MAX_REQUEUES:-20}
  if [ -z "${SLURM_JOB_ID:-}" ]; then
    adjsim_job_log "not in a Slurm job: run the same command again to continue"
    return 1
  fi
  if [ "$restarts" -ge "$max" ]; then
    adjsim_job_log "job already restarted $restarts times (ADJSIM_MAX_REQUEUES=$max): not requeueing;" \
      "submit the same command again to continue"
    return 1
  fi
  adjsim_job_log "requeueing job $SLURM_JOB_ID (restart $((restarts + 1)))"
  if ! scontrol requeue "$SLURM_JOB_ID"; then
    adjsim_job_log "scontrol requeue $SLURM_JOB_ID failed: submit the same command again to continue"
    return 1
  fi
  return 0
}

# Ends the batch script after a step that returned <status>: requeue after a graceful stop
# (or, with a second argument "any", after any stop caused by a signal), else exit with the status.
adjsim_job_finish() {
  local rc=$1 mode=${2:-}
  if [ "$rc" -eq "$ADJSIM_EXIT_INTERRUPTED" ] || { [ "$mode" = any ] && [ "$rc" -ne 0 ] && [ -n "$ADJSIM_JOB_SIGNAL" ]; }; then
    if adjsim_job_requeue; then
      # Slurm now ends this run of the job (and signals this shell); leave quietly.
      trap - USR1 TERM
      exit 0
    fi
    exit "$ADJSIM_EXIT_INTERRUPTED"
  fi
  exit "$rc"
}
