/* Helpers shared by the fluid tests: build a stepper from option strings, run it, compare states. */
#pragma once

#include "fluid/fluidimpl.h"
#include <adjsim/io.h>

#include "steppertest.h"

/* A fluid stepper on comm from a fresh options database holding just the given options
 * (NULL-terminated "-name", "value" lists; extra may be NULL). */
static inline PetscErrorCode FluidTestCreate(MPI_Comm comm, const char *const base[], const char *const extra[],
                                             AdjStepper *st)
{
  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperCreate(comm, "fluid", base, extra, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = the state after `nsteps` steps from the initial state (nsteps < 0: the whole run). */
static inline PetscErrorCode FluidTestRun(AdjStepper st, AdjStepIndex nsteps, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperRun(st, nsteps, x, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max over the velocity components (u, v) of |a - b|, and of |a| (p is not compared). */
static inline PetscErrorCode FluidTestVelocityDiff(Vec a, Vec b, PetscReal *diff, PetscReal *scale)
{
  const PetscScalar *pa, *pb;
  PetscInt           n;
  PetscReal          l[2] = {0, 0}, g[2];

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &pa));
  PetscCall(VecGetArrayRead(b, &pb));
  for (PetscInt i = 0; i < n; i++) {
    if (i % 3 == 2) continue;
    l[0] = PetscMax(l[0], PetscAbsScalar(pa[i] - pb[i]));
    l[1] = PetscMax(l[1], PetscAbsScalar(pa[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(b, &pb));
  PetscCallMPI(MPI_Allreduce(l, g, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *diff = g[0];
  if (scale) *scale = g[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
