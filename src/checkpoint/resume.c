/* Stopping a gradient run's schedule and continuing it in another job (issue 16: resumable gradient runs).

   A schedule (revolve or online) is a deterministic function of the actions handed out: the same
   configuration, n and number of AdjCheckpointNext calls (plus, online, where AdjCheckpointStop came) give the
   same internal state. So a stopped run records its position (AdjCheckpointGetPosition) and the states of the
   slots it still needs (AdjCheckpointGetHeld, AdjCheckpointGetSlotState); the continuing run sets up the same
   store, replays the position without executing anything (AdjCheckpointReplay: TAKESHOTs mark their slots and
   the counters advance as they did) and puts the recorded states back (AdjCheckpointSetSlotState). From then
   on it hands out exactly the actions the uninterrupted run would have, and its restores return the same
   states bit for bit. The disk byte counters count the continuing job's own traffic. */
#include "checkpointimpl.h"

PetscErrorCode AdjCheckpointGetPosition(AdjCheckpoint ckpt, AdjCheckpointPosition *pos)
{
  PetscFunctionBeginUser;
  pos->nactions      = ckpt->nactions;
  pos->stopped_after = ckpt->stopped_after;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A slot is needed while it holds a step the sweep has not passed: a snapshot of step s is dead once step
   s + 1 is reversed (next_reverse <= s). Revolve's free positions above its stack top may still be marked;
   they are kept too (never restored, a few states at most within the slot budget). */
static PetscBool CheckpointSlotNeeded(AdjCheckpoint ckpt, PetscInt pos)
{
  return (PetscBool)(ckpt->slot_step[pos] >= 0 && ckpt->slot_step[pos] < ckpt->next_reverse);
}

PetscErrorCode AdjCheckpointGetHeld(AdjCheckpoint ckpt, PetscInt *nheld, PetscInt **slots, AdjStepIndex **steps)
{
  PetscInt n = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ckpt->nslots; k++) n += CheckpointSlotNeeded(ckpt, k) ? 1 : 0;
  PetscCall(PetscMalloc1(n, slots));
  PetscCall(PetscMalloc1(n, steps));
  n = 0;
  for (PetscInt k = 0; k < ckpt->nslots; k++) {
    if (!CheckpointSlotNeeded(ckpt, k)) continue;
    (*slots)[n]   = k;
    (*steps)[n++] = ckpt->slot_step[k];
  }
  *nheld = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckpointCheckSlot(AdjCheckpoint ckpt, PetscInt slot, const char *caller)
{
  PetscFunctionBeginUser;
  PetscCheck(ckpt->slot_step && slot >= 0 && slot < ckpt->nslots && ckpt->slot_step[slot] >= 0, ckpt->comm,
             PETSC_ERR_ARG_OUTOFRANGE,
             "%s: slot %" PetscInt_FMT " holds no state (the store has %" PetscInt_FMT " slots)", caller, slot,
             ckpt->nslots);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointGetSlotState(AdjCheckpoint ckpt, PetscInt slot, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(CheckpointCheckSlot(ckpt, slot, "AdjCheckpointGetSlotState"));
  if (slot < ckpt->ndisk)
    PetscCall(AdjCheckpointDiskRead(ckpt, slot, x));
  else
    PetscCall(VecCopy(ckpt->ramvecs[slot - ckpt->ndisk], x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointReplay(AdjCheckpoint ckpt, const AdjCheckpointPosition *pos, AdjRevolveAction *last)
{
  PetscBool monitor = ckpt->monitor;

  PetscFunctionBeginUser;
  PetscCheck(ckpt->slot_step && ckpt->nactions == 0, ckpt->comm, PETSC_ERR_ORDER,
             "AdjCheckpointReplay: call it right after AdjCheckpointSetUp");
  PetscCheck(pos->nactions >= 1 && (pos->stopped_after < 0 || (ckpt->online && pos->stopped_after <= pos->nactions)),
             ckpt->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "AdjCheckpointReplay: position of %" PRId64 " actions (stopped after %" PRId64
             ") does not fit this %s schedule",
             pos->nactions, pos->stopped_after, ckpt->online ? "online" : "offline");
  ckpt->monitor = PETSC_FALSE; /* nothing is executed: the monitor would print actions that do not happen */
  while (ckpt->nactions < pos->nactions) {
    AdjRevolveAction a;
    PetscCall(AdjCheckpointNext(ckpt, &a));
    PetscCheck(a.type != ADJ_REVOLVE_TERMINATE, ckpt->comm, PETSC_ERR_ARG_WRONG,
               "AdjCheckpointReplay: the schedule ends after %" PRId64 " actions, before the recorded position %" PRId64
               " (another configuration or number of steps than the stopped run's?)",
               ckpt->nactions, pos->nactions);
    if (a.type == ADJ_REVOLVE_TAKESHOT) PetscCall(AdjCheckpointMarkShot(ckpt, a.slot, a.from));
    if (a.type == ADJ_REVOLVE_RESTORE) ckpt->stats.restores++;
    if (ckpt->nactions == pos->stopped_after) PetscCall(AdjCheckpointStop(ckpt));
  }
  ckpt->monitor = monitor;
  *last         = ckpt->last;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointSetSlotState(AdjCheckpoint ckpt, PetscInt slot, AdjStepIndex step, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(CheckpointCheckSlot(ckpt, slot, "AdjCheckpointSetSlotState"));
  PetscCheck(ckpt->slot_step[slot] == step, ckpt->comm, PETSC_ERR_ARG_WRONG,
             "AdjCheckpointSetSlotState: the replayed schedule keeps step %" PRId64 " in slot %" PetscInt_FMT
             ", not step %" PRId64 " (a resume file of another schedule?)",
             (int64_t)ckpt->slot_step[slot], slot, (int64_t)step);
  PetscCall(AdjCheckpointWriteSlot(ckpt, slot, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckpointGetSlotCounts(AdjCheckpoint ckpt, PetscInt *nram, PetscInt *ndisk)
{
  PetscFunctionBeginUser;
  *nram  = ckpt->nram;
  *ndisk = ckpt->ndisk;
  PetscFunctionReturn(PETSC_SUCCESS);
}
