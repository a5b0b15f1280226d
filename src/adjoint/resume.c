/* Resumable gradient runs (issue 16): a gradient stopped by SIGUSR1/SIGTERM writes what it needs to continue,
   and the next job continues it with -restart to the same gradient bit for bit.

   What a stopped gradient holds between two actions of its schedule, and so what the resume file keeps
   (group /gradient_resume of the run's restart file, per-rank arrays: the same number of ranks continues):
   - where the sweep stands (AdjGradientSweep: n, dt, the action being executed and how far an ADVANCE got,
     the objective terms summed so far, the online sweep's flag) and the schedule's position (AdjCheckpoint:
     actions handed out, where an online schedule stopped), from which a fresh store replays its state;
   - the states of the slots the schedule may still restore, the current state x and the adjoint lambda;
   - the gradient accumulators the solver declared (AdjStepperWriteGradientAccumulators): the reverse sweep's
     partial sums, carried over exactly;
   - the design p, so that a run with other parameters (other options) is refused rather than mixed.
   The continued run sets up the same schedule, replays it (AdjCheckpointReplay), puts the states back and
   goes on from the action it stopped in: the same steps on the same states in the same order, hence the same
   gradient bit for bit. */
#include "driverimpl.h"
#include <adjsim/interrupt.h>
#include <adjsim/io.h>

#define RESUME_GROUP "/gradient_resume"

enum {
  INFO_VERSION,
  INFO_NSETUP,
  INFO_N,
  INFO_DT,
  INFO_SWEEPING,
  INFO_TYPE,
  INFO_FROM,
  INFO_TO,
  INFO_SLOT,
  INFO_ADVANCED,
  INFO_J,
  INFO_NACTIONS,
  INFO_STOPPED_AFTER,
  INFO_NHELD,
  INFO_ONLINE,
  INFO_STEPS_DONE,
  INFO_STEADY_STOPPED,
  INFO_NRAM,
  INFO_NDISK,
  INFO_COUNT
};

static PetscErrorCode ResumeWriteVec(AdjOutput r, const char name[], Vec v)
{
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(AdjOutputWriteRankArray(r, RESUME_GROUP, name, n, a));
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ResumeReadVec(AdjDriver drv, const char name[], Vec v)
{
  PetscScalar *a;
  PetscInt     n;
  char         dataset[128];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(dataset, sizeof(dataset), "%s/%s", RESUME_GROUP, name));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArray(v, &a));
  PetscCall(AdjInputReadRankArray(drv->comm, drv->restart, "-restart", dataset, n, a));
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The small numbers of the sweep and the schedule, the same on every rank. */
static PetscErrorCode ResumeInfo(AdjDriver drv, const AdjGradientSweep *sw, PetscInt nheld, PetscReal info[])
{
  AdjCheckpointPosition pos;
  PetscBool             online;
  PetscInt              nram, ndisk;

  PetscFunctionBeginUser;
  PetscCall(AdjCheckpointGetPosition(drv->ckpt, &pos));
  PetscCall(AdjCheckpointIsOnline(drv->ckpt, &online));
  PetscCall(AdjCheckpointGetSlotCounts(drv->ckpt, &nram, &ndisk));
  info[INFO_VERSION]        = 1;
  info[INFO_NSETUP]         = (PetscReal)sw->nsetup;
  info[INFO_N]              = (PetscReal)sw->n;
  info[INFO_DT]             = sw->dt;
  info[INFO_SWEEPING]       = sw->sweeping;
  info[INFO_TYPE]           = sw->a.type;
  info[INFO_FROM]           = (PetscReal)sw->a.from;
  info[INFO_TO]             = (PetscReal)sw->a.to;
  info[INFO_SLOT]           = sw->a.slot;
  info[INFO_ADVANCED]       = (PetscReal)sw->advanced;
  info[INFO_J]              = sw->J;
  info[INFO_NACTIONS]       = (PetscReal)pos.nactions;
  info[INFO_STOPPED_AFTER]  = (PetscReal)pos.stopped_after;
  info[INFO_NHELD]          = nheld;
  info[INFO_ONLINE]         = online;
  info[INFO_STEPS_DONE]     = (PetscReal)drv->steps_done;
  info[INFO_STEADY_STOPPED] = drv->steady_stopped;
  info[INFO_NRAM]           = nram;
  info[INFO_NDISK]          = ndisk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes the resume file next to the run file (its restart path) as <path>.new, renamed over <path> when
   complete, so a valid file always exists. Collective. */
PetscErrorCode AdjDriverGradientSave(AdjDriver drv, Vec p, const AdjGradientSweep *sw)
{
  AdjOutput        r;
  DM               da;
  const PetscReal *lower, *upper;
  const char      *path;
  char             tmp[PETSC_MAX_PATH_LEN + 8], name[32];
  PetscReal        info[INFO_COUNT], *held;
  PetscInt         nheld, *slots;
  AdjStepIndex    *steps;
  PetscMPIInt      rank;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputGetRestartPath(drv->out, &path));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.new", path));
  PetscCall(AdjCheckpointGetHeld(drv->ckpt, &nheld, &slots, &steps));
  PetscCall(ResumeInfo(drv, sw, nheld, info));
  PetscCall(AdjStepperGetGrid(drv->stepper, &da, &lower, &upper));
  PetscCall(AdjOutputCreate(drv->comm, &r));
  PetscCall(AdjOutputSetPath(r, tmp));
  PetscCall(AdjOutputSetXdmf(r, PETSC_FALSE));
  PetscCall(AdjOutputSetGrid(r, da, lower, upper, "m"));
  PetscCall(AdjOutputOpen(r));
  PetscCall(AdjStepperWriteParameters(drv->stepper, r)); /* readable design; "design" below is the exact one */
  PetscCall(AdjOutputWriteRankArray(r, RESUME_GROUP, "info", INFO_COUNT, info));
  PetscCall(PetscMalloc1(2 * nheld + 1, &held));
  for (PetscInt i = 0; i < nheld; i++) {
    held[2 * i]     = slots[i];
    held[2 * i + 1] = (PetscReal)steps[i];
  }
  PetscCall(AdjOutputWriteRankArray(r, RESUME_GROUP, "held", 2 * nheld, held));
  for (PetscInt i = 0; i < nheld; i++) {
    PetscCall(AdjCheckpointGetSlotState(drv->ckpt, slots[i], drv->y));
    PetscCall(PetscSNPrintf(name, sizeof(name), "slot_%" PetscInt_FMT, slots[i]));
    PetscCall(ResumeWriteVec(r, name, drv->y));
  }
  PetscCall(ResumeWriteVec(r, "design", p));
  PetscCall(ResumeWriteVec(r, "x", drv->x));
  PetscCall(ResumeWriteVec(r, "lambda", drv->lam));
  PetscCall(AdjStepperWriteGradientAccumulators(drv->stepper, r, RESUME_GROUP "/accumulators"));
  PetscCall(AdjOutputSetAttribute(r, RESUME_GROUP, "content",
                                  "a stopped gradient run: continue it with -restart on the same number of ranks"));
  PetscCall(AdjOutputClose(r));
  PetscCall(AdjOutputDestroy(&r));
  PetscCallMPI(MPI_Comm_rank(drv->comm, &rank));
  if (!rank)
    PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s", tmp, path);
  PetscCallMPI(MPI_Barrier(drv->comm));
  PetscCall(PetscFree(held));
  PetscCall(PetscFree(slots));
  PetscCall(PetscFree(steps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The continued run must be the stopped one: the same design and schedule. */
static PetscErrorCode ResumeCheck(AdjDriver drv, Vec p, const PetscReal info[])
{
  Vec       saved;
  PetscBool same, online;
  PetscInt  nram, ndisk;

  PetscFunctionBeginUser;
  PetscCheck(info[INFO_VERSION] == 1, drv->comm, PETSC_ERR_USER_INPUT,
             "Cannot use %s (given by -restart): its gradient resume data has version %g, this adjsim reads 1",
             drv->restart, (double)info[INFO_VERSION]);
  PetscCall(VecDuplicate(p, &saved));
  PetscCall(ResumeReadVec(drv, "design", saved));
  PetscCall(VecEqual(saved, p, &same));
  PetscCall(VecDestroy(&saved));
  PetscCheck(same, drv->comm, PETSC_ERR_USER_INPUT,
             "Cannot continue the gradient of %s (given by -restart): this run's parameters differ from the stopped "
             "run's; continue it with the same options and input files",
             drv->restart);
  PetscCall(AdjCheckpointIsOnline(drv->ckpt, &online));
  PetscCheck(online == (PetscBool)(info[INFO_ONLINE] != 0), drv->comm, PETSC_ERR_USER_INPUT,
             "Cannot continue the gradient of %s (given by -restart): it ran with -checkpoint_type %s, this run has "
             "-checkpoint_type %s",
             drv->restart, info[INFO_ONLINE] != 0 ? "online" : "revolve or all", online ? "online" : "revolve or all");
  PetscCall(AdjCheckpointGetSlotCounts(drv->ckpt, &nram, &ndisk));
  PetscCheck(
      nram == (PetscInt)info[INFO_NRAM] && ndisk == (PetscInt)info[INFO_NDISK], drv->comm, PETSC_ERR_USER_INPUT,
      "Cannot continue the gradient of %s (given by -restart): it used %g RAM and %g disk checkpoint slots, this "
      "run %" PetscInt_FMT " and %" PetscInt_FMT "; continue it with the same -checkpoint_ram, -checkpoint_disk "
      "and -checkpoint_type",
      drv->restart, (double)info[INFO_NRAM], (double)info[INFO_NDISK], nram, ndisk);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sets the schedule, states, adjoint and accumulators to where the stopped run was; sw receives its sweep. */
PetscErrorCode AdjDriverGradientResume(AdjDriver drv, Vec p, AdjGradientSweep *sw)
{
  PetscReal             info[INFO_COUNT], *held;
  AdjCheckpointPosition pos;
  AdjRevolveAction      last;
  char                  dataset[128], name[32];
  PetscInt              nheld;
  PetscBool             has;

  PetscFunctionBeginUser;
  PetscCall(AdjInputHasDataset(drv->comm, drv->restart, RESUME_GROUP "/info", &has));
  PetscCheck(
      has, drv->comm, PETSC_ERR_USER_INPUT,
      "Cannot continue a gradient from %s (given by -restart): it holds no stopped gradient run (a forward run's "
      "or an optimization's restart file?); -mode gradient continues only from the file a stopped gradient "
      "run wrote",
      drv->restart);
  PetscCall(AdjInputReadRankArray(drv->comm, drv->restart, "-restart", RESUME_GROUP "/info", INFO_COUNT, info));
  PetscCall(AdjStepperSetParameters(drv->stepper, p));
  PetscCall(AdjStepperInitialState(drv->stepper, drv->x)); /* as a new gradient does (x is read below) */
  PetscCall(AdjCheckpointSetUp(drv->ckpt, (AdjStepIndex)info[INFO_NSETUP], drv->x));
  PetscCall(ResumeCheck(drv, p, info));
  pos.nactions      = (int64_t)info[INFO_NACTIONS];
  pos.stopped_after = (int64_t)info[INFO_STOPPED_AFTER];
  PetscCall(AdjCheckpointReplay(drv->ckpt, &pos, &last));
  nheld = (PetscInt)info[INFO_NHELD];
  PetscCall(PetscMalloc1(2 * nheld + 1, &held));
  PetscCall(PetscSNPrintf(dataset, sizeof(dataset), "%s/held", RESUME_GROUP));
  PetscCall(AdjInputReadRankArray(drv->comm, drv->restart, "-restart", dataset, 2 * nheld, held));
  for (PetscInt i = 0; i < nheld; i++) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "slot_%" PetscInt_FMT, (PetscInt)held[2 * i]));
    PetscCall(ResumeReadVec(drv, name, drv->y));
    PetscCall(AdjCheckpointSetSlotState(drv->ckpt, (PetscInt)held[2 * i], (AdjStepIndex)held[2 * i + 1], drv->y));
  }
  PetscCall(PetscFree(held));
  PetscCall(ResumeReadVec(drv, "x", drv->x));
  PetscCall(ResumeReadVec(drv, "lambda", drv->lam));
  PetscCall(AdjStepperZeroGradient(drv->stepper));
  PetscCall(AdjStepperReadGradientAccumulators(drv->stepper, drv->restart, "-restart", RESUME_GROUP "/accumulators"));
  sw->nsetup          = (AdjStepIndex)info[INFO_NSETUP];
  sw->n               = (AdjStepIndex)info[INFO_N];
  sw->dt              = info[INFO_DT];
  sw->sweeping        = (PetscBool)(info[INFO_SWEEPING] != 0);
  sw->a               = last;
  sw->advanced        = (AdjStepIndex)info[INFO_ADVANCED];
  sw->J               = info[INFO_J];
  drv->steps_done     = (PetscInt64)info[INFO_STEPS_DONE];
  drv->steady_stopped = (PetscBool)(info[INFO_STEADY_STOPPED] != 0);
  PetscCheck(last.type == (AdjRevolveActionType)info[INFO_TYPE] && last.from == (AdjStepIndex)info[INFO_FROM] &&
                 last.to == (AdjStepIndex)info[INFO_TO],
             drv->comm, PETSC_ERR_USER_INPUT,
             "Cannot continue the gradient of %s (given by -restart): the replayed schedule does not reach the action "
             "the stopped run was in (other checkpoint options?)",
             drv->restart);
  PetscCall(PetscPrintf(drv->comm,
                        "adjsim: gradient continued from %s: %" PetscInt64_FMT
                        " steps of this gradient were done before the stop, the schedule at action %" PRId64 "\n",
                        drv->restart, drv->steps_done, pos.nactions));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tests (-gradient_test_stop_after): raise the interrupt flag, as a signal would, after these many steps. */
PetscErrorCode AdjDriverTestStopStep(AdjDriver drv)
{
  PetscFunctionBeginUser;
  drv->steps_done++;
  for (PetscInt i = 0; i < drv->ntest_stops; i++)
    if (drv->steps_done == (PetscInt64)drv->test_stops[i]) PetscCall(AdjInterruptRaise());
  PetscFunctionReturn(PETSC_SUCCESS);
}
