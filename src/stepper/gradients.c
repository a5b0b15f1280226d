/* Declared gradient accumulators: what the adjoint operations of a stepper type add to.

   Declaring them (AdjStepperAddGradientVec / AdjStepperAddGradientArray) instead of coding a zerogradient
   operation lets the stepper zero them before every gradient and write and read them when a gradient run stops
   on a signal and continues in a later job: a partial sum of a reverse sweep is then carried over exactly, so
   the continued run ends with the same gradient bit for bit. The values are this run's partial sums (a rank's
   own part of a field, or its part of a sum the gradient hook adds over ranks at the end), so they are written
   per rank (AdjOutputWriteRankArray) and only a run on the same ranks can read them back. */
#include "stepperimpl.h"
#include <adjsim/io.h>

static PetscErrorCode AdjStepperAddGradient(AdjStepper st, const char name[], Vec v, PetscScalar a[], PetscInt n)
{
  AdjStepperGradient *g;

  PetscFunctionBeginUser;
  PetscCheck(st->ngradients < ADJ_STEPPER_MAX_GRADIENTS, st->comm, PETSC_ERR_SUP,
             "Stepper type %s declares more than %d gradient accumulators", st->type, ADJ_STEPPER_MAX_GRADIENTS);
  for (PetscInt i = 0; i < st->ngradients; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(st->gradients[i].name, name, &same));
    PetscCheck(!same, st->comm, PETSC_ERR_ARG_WRONG, "Stepper type %s declares the gradient accumulator %s twice",
               st->type, name);
  }
  g = &st->gradients[st->ngradients++];
  PetscCall(PetscStrncpy(g->name, name, sizeof(g->name)));
  if (v) PetscCall(PetscObjectReference((PetscObject)v));
  g->v = v;
  g->a = a;
  g->n = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperAddGradientVec(AdjStepper st, const char name[], Vec v)
{
  PetscFunctionBeginUser;
  PetscCheck(v, st->comm, PETSC_ERR_ARG_NULL, "AdjStepperAddGradientVec(%s): no vector", name);
  PetscCall(AdjStepperAddGradient(st, name, v, NULL, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperAddGradientArray(AdjStepper st, const char name[], PetscScalar a[], PetscInt n)
{
  PetscFunctionBeginUser;
  PetscCheck(a && n > 0, st->comm, PETSC_ERR_ARG_NULL, "AdjStepperAddGradientArray(%s): need n > 0 reals", name);
  PetscCall(AdjStepperAddGradient(st, name, NULL, a, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperZeroGradientAccumulators(AdjStepper st)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < st->ngradients; i++) {
    if (st->gradients[i].v)
      PetscCall(VecZeroEntries(st->gradients[i].v));
    else
      PetscCall(PetscArrayzero(st->gradients[i].a, st->gradients[i].n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperCanSaveGradient(AdjStepper st, PetscBool *can)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperSetUp(st));
  *can = (PetscBool)(st->hasadjoint && !st->ops.zerogradient && st->ngradients > 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperWriteGradientAccumulators(AdjStepper st, AdjOutput out, const char group[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < st->ngradients; i++) {
    const AdjStepperGradient *g = &st->gradients[i];
    if (g->v) {
      const PetscScalar *a;
      PetscInt           n;
      PetscCall(VecGetLocalSize(g->v, &n));
      PetscCall(VecGetArrayRead(g->v, &a));
      PetscCall(AdjOutputWriteRankArray(out, group, g->name, n, a));
      PetscCall(VecRestoreArrayRead(g->v, &a));
    } else
      PetscCall(AdjOutputWriteRankArray(out, group, g->name, g->n, g->a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperReadGradientAccumulators(AdjStepper st, const char path[], const char option[],
                                                  const char group[])
{
  char dataset[256];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < st->ngradients; i++) {
    const AdjStepperGradient *g = &st->gradients[i];
    PetscCall(PetscSNPrintf(dataset, sizeof(dataset), "%s/%s", group, g->name));
    if (g->v) {
      PetscScalar *a;
      PetscInt     n;
      PetscCall(VecGetLocalSize(g->v, &n));
      PetscCall(VecGetArray(g->v, &a));
      PetscCall(AdjInputReadRankArray(st->comm, path, option, dataset, n, a));
      PetscCall(VecRestoreArray(g->v, &a));
    } else
      PetscCall(AdjInputReadRankArray(st->comm, path, option, dataset, g->n, g->a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
