/* AdjDriver: forward runs and checkpointed discrete-adjoint gradients for any AdjStepper. */
#include "driverimpl.h"
#include <adjsim/interrupt.h>
#include <adjsim/io.h>
#include <adjsim/tables.h>

static PetscLogEvent ADJ_Forward, ADJ_Gradient, ADJ_ReverseStep;

PetscErrorCode AdjDriverCreate(AdjStepper stepper, AdjDriver *drv)
{
  const AdjLogEvent events[] = {
      {"AdjForwardRun", &ADJ_Forward}, {"AdjGradient", &ADJ_Gradient}, {"AdjReverseStep", &ADJ_ReverseStep}};
  AdjDriver d;

  PetscFunctionBeginUser;
  PetscCall(AdjLogRegisterEvents("AdjDriver", ADJ_NUM_EVENTS(events), events));
  PetscCall(PetscNew(&d));
  d->stepper = stepper;
  PetscCall(AdjStepperGetComm(stepper, &d->comm));
  d->progress_interval = 5.0;
  d->taylor_levels     = 6;
  d->taylor_h0         = 0;
  d->fd_h              = 1e-6;
  d->interrupted_at    = -1;
  d->raise_at_reverse  = -1;
  d->steady_tol        = 0;
  d->final_step        = -1;
  d->fixed_steps       = -1;
  d->dx                = NULL;
  PetscCall(AdjStepperCreateState(stepper, &d->x));
  PetscCall(VecDuplicate(d->x, &d->y));
  PetscCall(VecDuplicate(d->x, &d->lam));
  PetscCall(VecDuplicate(d->x, &d->lamprev));
  PetscCall(AdjCheckpointCreate(d->comm, &d->ckpt));
  *drv = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSetFromOptions(AdjDriver drv)
{
  PetscFunctionBeginUser;
  PetscOptionsBegin(drv->comm, NULL, "Runs, gradients and gradient checks", "AdjDriver");
  PetscCall(PetscOptionsBool("-quiet", "Suppress progress lines", "", drv->quiet, &drv->quiet, NULL));
  PetscCall(PetscOptionsReal("-progress_interval", "Seconds of wall time between progress lines", "",
                             drv->progress_interval, &drv->progress_interval, NULL));
  PetscCall(PetscOptionsString(
      "-restart",
      "Continue from this restart file: a forward run from its state, an optimization from its last iterate", "",
      drv->restart, drv->restart, sizeof(drv->restart), NULL));
  PetscCall(PetscOptionsInt("-adjoint_taylor_levels", "Taylor test: number of step sizes h, halved each time", "",
                            drv->taylor_levels, &drv->taylor_levels, NULL));
  PetscCall(
      PetscOptionsReal("-adjoint_taylor_h0",
                       "Taylor test: first step size along the unit-RMS random direction (0: 1e-2 max(1, RMS of p))",
                       "", drv->taylor_h0, &drv->taylor_h0, NULL));
  PetscCall(
      PetscOptionsReal("-adjoint_fd_h", "Finite-difference check: relative step", "", drv->fd_h, &drv->fd_h, NULL));
  PetscCall(PetscOptionsReal(
      "-steady_tol",
      "Run to steady state: forward runs and gradients stop at the first step k with ||x_k - x_{k-1}||_inf / (dt "
      "max(||x_k||_inf, 1e-300)) < tol [1/s], infinity norms over the whole state vector; the time axis's steps "
      "become the maximum. The gradient is that of J for the final n reached (the stopping decision is not "
      "differentiated); -checkpoint_type online finds n in the gradient's own sweep, revolve and all run the "
      "forward model first; with -adjoint_steady the steady state's tolerance. 0: off",
      "", drv->steady_tol, &drv->steady_tol, NULL));
  drv->ntest_stops = 8;
  PetscCall(PetscOptionsIntArray("-gradient_test_stop_after",
                                 "For tests: a gradient run stops, as on SIGUSR1, after these many steps executed "
                                 "(forward, recomputed and reverse, counted over its resumed parts too)",
                                 "", drv->test_stops, &drv->ntest_stops, NULL));
  PetscOptionsEnd();
  PetscCheck(!PetscIsInfOrNanReal(drv->steady_tol) && drv->steady_tol >= 0, drv->comm, PETSC_ERR_USER_INPUT,
             "-steady_tol %g: must be a finite number >= 0 [1/s] (0: run all steps of the time axis)",
             (double)drv->steady_tol);
  PetscCheck(drv->taylor_levels >= 2, drv->comm, PETSC_ERR_USER_INPUT,
             "-adjoint_taylor_levels must be >= 2, got %" PetscInt_FMT, drv->taylor_levels);
  PetscCheck(drv->fd_h > 0, drv->comm, PETSC_ERR_USER_INPUT, "-adjoint_fd_h must be > 0, got %g", (double)drv->fd_h);
  PetscCheck(drv->progress_interval >= 0, drv->comm, PETSC_ERR_USER_INPUT, "-progress_interval must be >= 0");
  PetscCall(AdjCheckpointSetFromOptions(drv->ckpt));
  PetscCall(AdjDriverSteadySetFromOptions(drv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSetOutput(AdjDriver drv, AdjOutput out)
{
  char ckpt[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  drv->out = out;
  /* Disk checkpoints beside the run file, named after it: two runs in one directory never share them
     (two runs writing one run file are refused by its lock). */
  if (out) PetscCall(AdjOutputGetCompanionPath(out, "-checkpoints.h5", ckpt, sizeof(ckpt)));
  if (out) PetscCall(AdjCheckpointSetDiskFile(drv->ckpt, ckpt, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverGetCheckpoint(AdjDriver drv, AdjCheckpoint *ckpt)
{
  PetscFunctionBeginUser;
  *ckpt = drv->ckpt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverIsQuiet(AdjDriver drv, PetscBool *quiet)
{
  PetscFunctionBeginUser;
  *quiet = drv->quiet;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverSetInterruptible - forward runs with output then stop gracefully on SIGUSR1/SIGTERM:
    they finish the step, write the restart file and return; gradients stop between two steps and return
    without a gradient (nothing to resume from yet); see AdjDriverGetInterruptedStep. @*/
PetscErrorCode AdjDriverSetInterruptible(AdjDriver drv, PetscBool flag)
{
  PetscFunctionBeginUser;
  if (flag && !drv->interruptible) PetscCall(AdjInterruptInstall());
  drv->interruptible = flag;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverIsInterruptible - whether the driver stops on SIGUSR1/SIGTERM (AdjDriverSetInterruptible). Not
    collective. @*/
PetscErrorCode AdjDriverIsInterruptible(AdjDriver drv, PetscBool *flag)
{
  PetscFunctionBeginUser;
  *flag = drv->interruptible;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverSetTestInterruptAtReverse - for tests: the next AdjDriverGradient raises the interrupt flag
    (AdjInterruptRaise, as a signal would) just after the reverse sweep of step k, so that an interruptible
    gradient stops there, in the middle of its reverse sweep; k < 0: never. Not collective. @*/
PetscErrorCode AdjDriverSetTestInterruptAtReverse(AdjDriver drv, AdjStepIndex k)
{
  PetscFunctionBeginUser;
  drv->raise_at_reverse = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverSetGradientResumable - an interruptible gradient that stops writes its resume file (the restart path of
    the driver's output), and a gradient with -restart continues from one (gradient runs; not the gradients inside
    an optimization, which resumes by iterations). The stepper must declare its gradient accumulators
    (AdjStepperCanSaveGradient). Collective. @*/
PetscErrorCode AdjDriverSetGradientResumable(AdjDriver drv, PetscBool flag)
{
  PetscBool can = PETSC_TRUE;

  PetscFunctionBeginUser;
  if (flag) PetscCall(AdjStepperCanSaveGradient(drv->stepper, &can));
  drv->resumable = (PetscBool)(flag && can && !drv->steady.on); /* a steady gradient holds no sweep to save */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverIsGradientResumable - whether gradients stop with a resume file (AdjDriverSetGradientResumable and a
    stepper that can save its gradient). Not collective. @*/
PetscErrorCode AdjDriverIsGradientResumable(AdjDriver drv, PetscBool *flag)
{
  PetscFunctionBeginUser;
  *flag = drv->resumable;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverGetInterruptedStep(AdjDriver drv, AdjStepIndex *step)
{
  PetscFunctionBeginUser;
  *step = drv->interrupted_at;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverGetRestart - the -restart file ("" if none). @*/
PetscErrorCode AdjDriverGetRestart(AdjDriver drv, const char **path)
{
  PetscFunctionBeginUser;
  *path = drv->restart;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverSetRestart - sets or (NULL) clears the file forward runs continue from. @*/
PetscErrorCode AdjDriverSetRestart(AdjDriver drv, const char path[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(drv->restart, path ? path : "", sizeof(drv->restart)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverGetSteadyTol(AdjDriver drv, PetscReal *tol)
{
  PetscFunctionBeginUser;
  *tol = drv->steady_tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverGetFinalStep(AdjDriver drv, AdjStepIndex *n)
{
  PetscFunctionBeginUser;
  *n = drv->final_step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverSetFixedSteps(AdjDriver drv, AdjStepIndex n)
{
  PetscFunctionBeginUser;
  drv->fixed_steps = n > 0 ? n : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step count of the next run (the time axis's N, or the fixed count of the gradient checks) and dt. */
static PetscErrorCode AdjDriverGetSteps(AdjDriver drv, AdjStepIndex *n, PetscReal *dt)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetTimes(drv->stepper, n, dt));
  if (drv->fixed_steps > 0) *n = drv->fixed_steps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stopping test of -steady_tol after a step from xold = x_{k-1} to xnew = x_k:
 *   ||x_k - x_{k-1}||_inf < tol dt max(||x_k||_inf, 1e-300),
 * the relative rate of change [1/s] below tol, multiplied out so that no division can overflow. The norms are
 * global reductions, so every rank takes the same decision. Off without -steady_tol and with fixed steps. */
PetscErrorCode AdjDriverSteadyReached(AdjDriver drv, Vec xnew, Vec xold, PetscReal dt, PetscBool *stop)
{
  PetscReal dnorm, xnorm;

  PetscFunctionBeginUser;
  *stop = PETSC_FALSE;
  if (drv->steady_tol <= 0 || drv->fixed_steps > 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (!drv->dx) PetscCall(VecDuplicate(xnew, &drv->dx));
  PetscCall(VecWAXPY(drv->dx, -1.0, xold, xnew));
  PetscCall(VecNorm(drv->dx, NORM_INFINITY, &dnorm));
  PetscCall(VecNorm(xnew, NORM_INFINITY, &xnorm));
  *stop = (PetscBool)(dnorm < drv->steady_tol * dt * PetscMax(xnorm, (PetscReal)1e-300));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjDriverRecordFinalStep - with -steady_tol, the attributes final_step, final_time and stop_reason
    ("steady_tol" or "max_steps") on `group` of the run file: where the last run stopped. Collective. @*/
PetscErrorCode AdjDriverRecordFinalStep(AdjDriver drv, const char group[])
{
  AdjStepIndex N;
  PetscReal    dt;
  PetscInt     n = (PetscInt)drv->final_step;

  PetscFunctionBeginUser;
  if (!drv->out || drv->steady_tol <= 0 || drv->final_step < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperGetTimes(drv->stepper, &N, &dt));
  PetscCall(AdjOutputSetAttributeInts(drv->out, group, "final_step", 1, &n));
  PetscCall(AdjOutputSetAttributeReal(drv->out, group, "final_time", (PetscReal)n * dt));
  PetscCall(AdjOutputSetAttribute(drv->out, group, "stop_reason", drv->steady_stopped ? "steady_tol" : "max_steps"));
  PetscCall(AdjDriverSteadyRecord(drv, group));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverGetStepper(AdjDriver drv, AdjStepper *stepper)
{
  PetscFunctionBeginUser;
  *stepper = drv->stepper;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverDestroy(AdjDriver *drv)
{
  PetscFunctionBeginUser;
  if (!*drv) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDestroy(&(*drv)->x));
  PetscCall(VecDestroy(&(*drv)->y));
  PetscCall(VecDestroy(&(*drv)->lam));
  PetscCall(VecDestroy(&(*drv)->lamprev));
  PetscCall(VecDestroy(&(*drv)->dx));
  PetscCall(AdjCheckpointDestroy(&(*drv)->ckpt));
  PetscCall(AdjDriverSteadyDestroy(*drv));
  PetscCall(PetscFree(*drv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjProgressStart(AdjProgress *pr, PetscBool quiet, PetscReal interval)
{
  PetscFunctionBeginUser;
  PetscCall(PetscTime(&pr->start));
  pr->last     = pr->start;
  pr->interval = interval;
  pr->quiet    = quiet;
  pr->printed  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A line at most every `interval` seconds, and a closing line at k = n if any was printed (short
 * work stays silent).  PetscPrintf prints on rank 0 only, so ranks need not agree on the clock. */
PetscErrorCode AdjProgressUpdate(AdjProgress *pr, MPI_Comm comm, const char label[], AdjStepIndex k, AdjStepIndex n,
                                 PetscReal t)
{
  PetscLogDouble now;

  PetscFunctionBeginUser;
  if (pr->quiet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&now));
  if (now - pr->last < pr->interval && !(k == n && pr->printed)) PetscFunctionReturn(PETSC_SUCCESS);
  pr->last    = now;
  pr->printed = PETSC_TRUE;
  PetscCall(PetscPrintf(comm, "%s step %" PetscInt64_FMT "/%" PetscInt64_FMT "  t = %.6g s  wall %.1f s  eta %.1f s\n",
                        label, (PetscInt64)k, (PetscInt64)n, (double)t, now - pr->start,
                        k > 0 ? (now - pr->start) * (double)(n - k) / (double)k : 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Output for step k of a forward run: fields at output steps, a restart file at the restart interval. */
PetscErrorCode AdjDriverOutputStep(AdjDriver drv, AdjStepIndex k, AdjStepIndex n, PetscReal dt)
{
  PetscBool yes;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperMonitor(drv->stepper, drv->out, k, drv->x));
  PetscCall(AdjOutputIsOutputStep(drv->out, k, n, &yes));
  if (yes) {
    PetscCall(AdjOutputBeginStep(drv->out, k, k * dt));
    PetscCall(AdjStepperWriteFields(drv->stepper, drv->out, drv->x));
  }
  PetscCall(AdjOutputIsRestartStep(drv->out, k, &yes));
  if (yes) PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, k, drv->x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stops a forward run whose initial (or restarted) state x_k0 holds a NaN or an Inf, naming the first such
 * entry of the state vector. Every later state is checked by the solver's own AdjStepperCheckState, which
 * looks at every component (the fluid's pressure too), so every state the forward loop keeps is finite and
 * the "last good state" written when a step goes bad is finite (issue 16: a non-finite initial state was
 * once saved as the last good one). Once per run. Collective. */
PetscErrorCode AdjDriverCheckInitialFinite(AdjDriver drv, AdjStepIndex k0, Vec x)
{
  const PetscScalar *a;
  PetscInt           n, rstart;
  PetscInt64         mine = INT64_MAX, first;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(VecGetArrayRead(x, &a));
  first = AdjTableFirstNonFinite(a, n, NULL);
  PetscCall(VecRestoreArrayRead(x, &a));
  if (first >= 0) mine = rstart + first;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPIU_INT64, MPI_MIN, drv->comm));
  PetscCheck(first == INT64_MAX, drv->comm, PETSC_ERR_USER_INPUT,
             "The %s state (step %" PetscInt64_FMT ") holds a NaN or an Inf (entry %" PetscInt64_FMT
             " of the state vector) before any step was taken: check the options and files that define it (a "
             "number such as inf or 1e400 in an option is read as Inf); no restart file was written",
             k0 ? "restarted" : "initial", (PetscInt64)k0, first);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A run whose state went bad at step k + 1 (NaN, blow-up): the last good state x_k goes to the
 * run file (a field slice, unless step k already has one) and to the standalone restart file, which
 * is complete and valid, so the user can look at it and continue from it with a smaller step.
 * x_k is finite (AdjStepperCheckState passed at step k), so this file, written now, is the newest state a
 * user on a cluster can continue from; it replaces (atomically) the restart file of an earlier restart
 * step, which held an older good state. */
PetscErrorCode AdjDriverSaveLastGood(AdjDriver drv, AdjStepIndex k, AdjStepIndex n, PetscReal dt)
{
  PetscBool   yes;
  const char *path;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputIsOutputStep(drv->out, k, n, &yes));
  if (!yes) {
    PetscCall(AdjOutputBeginStep(drv->out, k, k * dt));
    PetscCall(AdjStepperWriteFields(drv->stepper, drv->out, drv->x));
  }
  PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, k, drv->x, PETSC_TRUE));
  PetscCall(AdjOutputGetRestartPath(drv->out, &path));
  PetscCall(PetscPrintf(drv->comm,
                        "adjsim: the last good state (step %" PetscInt64_FMT ", t = %g s) is in the restart file %s "
                        "(written now, every value finite; continue with -restart %s and a smaller time step)\n",
                        (PetscInt64)k, (double)(k * dt), path, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The first step after a restart went bad (NaN, Inf, blow-up): the likeliest cause is the restart file itself
 * (finite but absurd values pass the reader's finiteness check), so say which file and the largest magnitude it
 * holds before the solver's own message. Collective. */
static PetscErrorCode AdjDriverBlameRestart(AdjDriver drv, AdjStepIndex k0, Vec x)
{
  PetscReal xmax;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(x, NORM_INFINITY, &xmax));
  PetscCall(PetscPrintf(drv->comm,
                        "adjsim: the first step after the restart from %s (given by -restart, step %" PetscInt64_FMT
                        ") failed: check that file (its state reaches |value| = %g)\n",
                        drv->restart, (PetscInt64)k0, (double)xmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The objective of steps 1..k0 of a continued run, from its restart file: the run adds its own steps and
 * so reports the objective of the whole run, bit for bit (the same sum in the same order). A restart file
 * without it (written before adjsim recorded it) leaves J to the steps after k0, as the message says. */
static PetscErrorCode AdjDriverRestartObjective(AdjDriver drv, AdjStepIndex k0, PetscReal *J)
{
  PetscBool found;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadRestartObjective(drv->comm, drv->restart, J, &found));
  if (!found) {
    *J = 0;
    PetscCall(PetscPrintf(drv->comm,
                          "adjsim: note: %s does not record the objective of steps 1..%" PetscInt64_FMT
                          ": J below covers steps %" PetscInt64_FMT " and after only\n",
                          drv->restart, (PetscInt64)k0, (PetscInt64)k0 + 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A run whose length is decided while running (-steady_tol) evaluates the objective at steps 1..n only: the
 * solver must say that no objective term is tied to the time axis's last step N (a final-time target would be
 * missed, a window ending at N would average over other steps). Without an objective there is nothing to check. */
PetscErrorCode AdjDriverCheckSteadySupported(AdjDriver drv)
{
  PetscBool      has, known;
  const char    *term;
  AdjStepperType type;

  PetscFunctionBeginUser;
  if (drv->steady.on) PetscCall(AdjDriverSteadyCheck(drv)); /* the steady mode's own conditions (steady.c) */
  if (drv->steady.on) PetscFunctionReturn(PETSC_SUCCESS);
  if (drv->steady_tol <= 0 || drv->fixed_steps > 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperHasObjective(drv->stepper, &has));
  if (!has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperGetType(drv->stepper, &type));
  PetscCall(AdjStepperGetFinalStepObjective(drv->stepper, &known, &term));
  PetscCheck(known, drv->comm, PETSC_ERR_USER_INPUT,
             "-steady_tol %g cannot be used with -problem %s and an objective: the solver does not say whether its "
             "objective is tied to the last step of the time axis, which a run stopping early does not reach; run a "
             "fixed number of steps instead",
             (double)drv->steady_tol, type);
  PetscCheck(!term, drv->comm, PETSC_ERR_USER_INPUT,
             "-steady_tol %g cannot be used with %s: that term belongs to the last step of the time axis, which a run "
             "stopping at steady state does not reach; run a fixed number of steps instead",
             (double)drv->steady_tol, term);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With -steady_tol, one line saying where the run stopped and why. */
PetscErrorCode AdjDriverReportStop(AdjDriver drv, PetscReal dt)
{
  PetscFunctionBeginUser;
  if (drv->steady_tol <= 0 || drv->fixed_steps > 0 || drv->quiet) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(drv->comm, "adjsim: %s at step %" PetscInt64_FMT " (t = %g s)%s\n",
                        drv->steady_stopped ? "steady state (-steady_tol) reached" : "no steady state: the run ends",
                        (PetscInt64)drv->final_step, (double)(drv->final_step * dt),
                        drv->steady_stopped ? "" : ", the last step of the time axis"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjDriverForward(AdjDriver drv, Vec p, PetscBool write_output, PetscReal *J)
{
  AdjStepIndex    n, k0 = 0;
  PetscReal       dt, Jk, R;
  AdjProgress     pr;
  const PetscBool out = (PetscBool)(write_output && drv->out);

  PetscFunctionBeginUser;
  if (drv->steady.on) PetscCall(AdjDriverSteadyForward(drv, p, write_output, J)); /* -adjoint_steady (steady.c) */
  if (drv->steady.on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjDriverCheckSteadySupported(drv));
  PetscCall(PetscLogEventBegin(ADJ_Forward, 0, 0, 0, 0));
  PetscCall(AdjDriverGetSteps(drv, &n, &dt));
  PetscCall(AdjStepperSetParameters(drv->stepper, p));
  PetscCall(AdjStepperInitialState(drv->stepper, drv->x));
  drv->interrupted_at = -1;
  drv->final_step     = -1;
  drv->steady_stopped = PETSC_FALSE;
  if (write_output && drv->restart[0]) PetscCall(AdjStepperReadRestart(drv->stepper, drv->restart, drv->x, &k0));
  PetscCall(AdjDriverCheckInitialFinite(drv, k0, drv->x));
  *J = 0;
  if (k0 > 0) PetscCall(AdjDriverRestartObjective(drv, k0, J));
  if (out) PetscCall(AdjOutputSetRestartObjective(drv->out, *J));
  /* a run continued from its final state (a restart file of the last step) has no step left, but its run
     file still gets that state's fields, particles and history row */
  if (out && (k0 == 0 || k0 == n)) PetscCall(AdjDriverOutputStep(drv, k0, n, dt));
  PetscCall(AdjProgressStart(&pr, (PetscBool)(drv->quiet || !write_output), drv->progress_interval));
  for (AdjStepIndex k = k0 + 1; k <= n; k++) {
    PetscErrorCode bad;
    PetscCall(AdjStepperStep(drv->stepper, k, drv->x, drv->y));
    bad = AdjStepperCheckState(drv->stepper, k, drv->y); /* collective: the same code on every rank */
    if (bad && k0 > 0 && k == k0 + 1) PetscCall(AdjDriverBlameRestart(drv, k0, drv->x));
    if (bad && out) PetscCall(AdjDriverSaveLastGood(drv, k - 1, n, dt));
    PetscCall(bad);
    PetscCall(AdjDriverSteadyReached(drv, drv->y, drv->x, dt, &drv->steady_stopped));
    if (drv->steady_stopped) n = k; /* this step is the last: outputs and the restart file say so */
    AdjDriverSwapVecs(&drv->x, &drv->y);
    PetscCall(AdjStepperObjective(drv->stepper, k, drv->x, &Jk));
    *J += Jk;
    if (out) PetscCall(AdjOutputSetRestartObjective(drv->out, *J)); /* recorded by restart writes at step k */
    if (out) PetscCall(AdjDriverOutputStep(drv, k, n, dt));
    PetscCall(AdjProgressUpdate(&pr, drv->comm, "forward", k, n, k * dt));
    if (out && drv->interruptible && k < n) {
      PetscBool stop;
      PetscCall(AdjInterruptRequested(drv->comm, &stop));
      if (stop) {
        PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, k, drv->x, PETSC_TRUE));
        drv->interrupted_at = k;
        PetscCall(PetscLogEventEnd(ADJ_Forward, 0, 0, 0, 0));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  PetscCall(AdjStepperZeroGradient(drv->stepper));
  PetscCall(AdjStepperRegularization(drv->stepper, &R));
  *J += R;
  drv->final_step = n;
  if (out) PetscCall(AdjStepperWriteRestart(drv->stepper, drv->out, n, drv->x, PETSC_FALSE));
  if (out) PetscCall(AdjDriverRecordFinalStep(drv, "/"));
  if (write_output) PetscCall(AdjDriverReportStop(drv, dt));
  PetscCall(PetscLogEventEnd(ADJ_Forward, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* REVERSE of step k, current state x = x_{k-1}: recompute x_k, add its objective term and
 * dJ_k/dx_k to lambda_k, then lambda_{k-1} = (dPhi_k/dx)^T lambda_k. */
static PetscErrorCode AdjDriverReverseStep(AdjDriver drv, AdjStepIndex k, AdjStepIndex n, PetscReal *J)
{
  PetscReal Jk;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(ADJ_ReverseStep, 0, 0, 0, 0));
  PetscCall(AdjStepperStep(drv->stepper, k, drv->x, drv->y));
  PetscCall(AdjStepperCheckState(drv->stepper, k, drv->y));
  PetscCall(AdjStepperObjective(drv->stepper, k, drv->y, &Jk));
  *J += Jk;
  if (k == n) PetscCall(VecSet(drv->lam, 0.0));
  PetscCall(AdjStepperObjectiveAdjoint(drv->stepper, k, drv->y, drv->lam));
  PetscCall(AdjStepperStepAdjoint(drv->stepper, k, drv->x, drv->y, drv->lam, drv->lamprev));
  AdjDriverSwapVecs(&drv->lam, &drv->lamprev);
  PetscCall(PetscLogEventEnd(ADJ_ReverseStep, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* In an interruptible gradient run, whether SIGUSR1/SIGTERM asked it to stop (collective: one reduction per
 * step, as in forward runs); the step is kept for the message. */
static PetscErrorCode AdjDriverGradientStopRequested(AdjDriver drv, AdjStepIndex k, PetscBool *stop)
{
  PetscFunctionBeginUser;
  *stop = PETSC_FALSE;
  if (!drv->interruptible) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjInterruptRequested(drv->comm, stop));
  if (*stop) drv->interrupted_at = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step count of a gradient and the state of its stopping test. With -steady_tol and an offline schedule
 * (revolve, all), which needs n before it starts, a forward run without output finds n first (n more steps);
 * the online schedule finds it in its own forward sweep, so n is the maximum until then. */
static PetscErrorCode AdjDriverGradientSteps(AdjDriver drv, Vec p, PetscBool online, AdjStepIndex *n, PetscReal *dt)
{
  PetscFunctionBeginUser;
  drv->steady_stopped = PETSC_FALSE;
  PetscCall(AdjDriverGetSteps(drv, n, dt));
  if (!online && drv->steady_tol > 0 && drv->fixed_steps <= 0) {
    PetscReal Jforward;
    PetscCall(AdjDriverForward(drv, p, PETSC_FALSE, &Jforward));
    *n = drv->final_step;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ADVANCE from sw->advanced to sw->a.to of the gradient (sw->advanced is a.from, or where a stop within the action
 * left it). In the forward sweep of an online schedule (`sweeping`: one step per ADVANCE, n the maximum) each step is
 * tested: when it is the last (steady state or n reached) the schedule is stopped there, n becomes the final step,
 * and x keeps x_{n-1}, from which the schedule reverses step n next. */
static PetscErrorCode AdjDriverGradientAdvance(AdjDriver drv, AdjGradientSweep *sw, AdjProgress *pr, PetscBool *stop)
{
  PetscFunctionBeginUser;
  if (sw->sweeping)
    PetscCall(AdjProgressUpdate(pr, drv->comm, "forward (online, at most)", sw->a.to, sw->n, sw->a.to * sw->dt));
  for (AdjStepIndex k = sw->advanced + 1; k <= sw->a.to && !*stop; k++) {
    PetscCall(AdjStepperStep(drv->stepper, k, drv->x, drv->y));
    PetscCall(AdjStepperCheckState(drv->stepper, k, drv->y));
    if (sw->sweeping) {
      PetscCall(AdjDriverSteadyReached(drv, drv->y, drv->x, sw->dt, &drv->steady_stopped));
      if (drv->steady_stopped || k == sw->n) {
        PetscCall(AdjCheckpointStop(drv->ckpt));
        sw->n        = k;
        sw->sweeping = PETSC_FALSE;
        sw->advanced = sw->a.to;
        break;
      }
    }
    AdjDriverSwapVecs(&drv->x, &drv->y);
    sw->advanced = k;
    PetscCall(AdjDriverTestStopStep(drv));
    PetscCall(AdjDriverGradientStopRequested(drv, k, stop));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new gradient: its step count, parameters, zero gradient, initial state and schedule. */
static PetscErrorCode AdjDriverGradientBegin(AdjDriver drv, Vec p, PetscBool online, AdjGradientSweep *sw)
{
  PetscFunctionBeginUser;
  PetscCall(AdjDriverGradientSteps(drv, p, online, &sw->n, &sw->dt));
  PetscCall(AdjStepperSetParameters(drv->stepper, p));
  PetscCall(AdjStepperZeroGradient(drv->stepper));
  PetscCall(AdjStepperInitialState(drv->stepper, drv->x));
  PetscCall(AdjCheckpointSetUp(drv->ckpt, sw->n, drv->x));
  sw->nsetup      = sw->n;
  sw->sweeping    = online;
  sw->J           = 0;
  sw->a.type      = ADJ_REVOLVE_TERMINATE;
  drv->steps_done = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One action of the schedule (sw->a); *stop when a signal asked the run to stop. */
static PetscErrorCode AdjDriverGradientAction(AdjDriver drv, AdjGradientSweep *sw, AdjProgress *pr, PetscBool *stop)
{
  const AdjRevolveAction *a = &sw->a;

  PetscFunctionBeginUser;
  switch (a->type) {
  case ADJ_REVOLVE_TAKESHOT:
    PetscCall(AdjCheckpointStore(drv->ckpt, a, drv->x));
    break;
  case ADJ_REVOLVE_RESTORE:
    PetscCall(AdjCheckpointLoad(drv->ckpt, a, drv->x));
    break;
  case ADJ_REVOLVE_ADVANCE:
    PetscCall(AdjDriverGradientAdvance(drv, sw, pr, stop));
    break;
  case ADJ_REVOLVE_REVERSE:
    PetscCall(AdjDriverReverseStep(drv, a->to, sw->n, &sw->J));
    PetscCall(AdjProgressUpdate(pr, drv->comm, "adjoint", sw->n - a->to + 1, sw->n, (a->to - 1) * sw->dt));
    if (a->to == drv->raise_at_reverse) {
      drv->raise_at_reverse = -1;
      PetscCall(AdjInterruptRaise());
    }
    PetscCall(AdjDriverTestStopStep(drv));
    PetscCall(AdjDriverGradientStopRequested(drv, a->to, stop));
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gradient by revolve (or the online schedule). An interruptible driver (AdjDriverSetInterruptible) stops
 * between two steps on SIGUSR1/SIGTERM and returns without a gradient (AdjDriverGetInterruptedStep() >= 0); a
 * resumable one (AdjDriverSetGradientResumable, gradient runs) first writes what it needs to continue, and the
 * next run given that file with -restart continues to the same gradient bit for bit (resume.c). */
PetscErrorCode AdjDriverGradient(AdjDriver drv, Vec p, PetscReal *J, Vec g)
{
  AdjGradientSweep sw;
  PetscReal        R;
  AdjProgress      pr;
  PetscBool        stop = PETSC_FALSE, online, resume;

  PetscFunctionBeginUser;
  if (drv->steady.on) PetscCall(AdjDriverSteadyGradient(drv, p, J, g)); /* -adjoint_steady (steady.c) */
  if (drv->steady.on) PetscFunctionReturn(PETSC_SUCCESS);
  drv->interrupted_at = -1;
  drv->final_step     = -1;
  PetscCall(AdjDriverCheckSteadySupported(drv));
  PetscCall(PetscLogEventBegin(ADJ_Gradient, 0, 0, 0, 0));
  PetscCall(AdjCheckpointIsOnline(drv->ckpt, &online));
  resume = (PetscBool)(drv->resumable && drv->restart[0]);
  if (resume) {
    PetscCall(AdjDriverGradientResume(drv, p, &sw));
    PetscCall(AdjDriverSetRestart(drv, NULL)); /* the checks that follow start new gradients */
  } else
    PetscCall(AdjDriverGradientBegin(drv, p, online, &sw));
  PetscCall(AdjProgressStart(&pr, drv->quiet, drv->progress_interval));
  /* an ADVANCE that a stop interrupted goes on from where it was */
  if (resume && sw.a.type == ADJ_REVOLVE_ADVANCE && sw.advanced < sw.a.to)
    PetscCall(AdjDriverGradientAdvance(drv, &sw, &pr, &stop));
  while (!stop) {
    PetscCall(AdjCheckpointNext(drv->ckpt, &sw.a));
    if (sw.a.type == ADJ_REVOLVE_TERMINATE) break;
    sw.advanced = sw.a.from;
    PetscCall(AdjDriverGradientAction(drv, &sw, &pr, &stop));
  }
  if (stop) {
    if (drv->resumable && drv->out) PetscCall(AdjDriverGradientSave(drv, p, &sw));
    *J = PETSC_MAX_REAL; /* no gradient: the caller sees AdjDriverGetInterruptedStep() >= 0 */
    PetscCall(PetscLogEventEnd(ADJ_Gradient, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *J              = sw.J;
  drv->final_step = sw.n;
  PetscCall(AdjStepperInitialStateAdjoint(drv->stepper, drv->lam));
  PetscCall(AdjStepperRegularization(drv->stepper, &R));
  *J += R;
  PetscCall(AdjStepperGetGradient(drv->stepper, g));
  PetscCall(PetscLogEventEnd(ADJ_Gradient, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
