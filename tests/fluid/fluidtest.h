/* Helpers shared by the fluid tests: build a stepper from option strings, run it, compare states. */
#pragma once

#include "fluid/fluidimpl.h"
#include <adjsim/io.h>

#include "steppertest.h"
#include "adjtest.h"

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
    l[0] = AdjTestMax(l[0], PetscAbsScalar(pa[i] - pb[i])); /* keeps a NaN, unlike PetscMax */
    l[1] = AdjTestMax(l[1], PetscAbsScalar(pa[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &pa));
  PetscCall(VecRestoreArrayRead(b, &pb));
  for (PetscInt k = 0; k < 2; k++) PetscCall(AdjTestGlobalMax(PetscObjectComm((PetscObject)a), l[k], &g[k]));
  /* two zero states compare equal: such a comparison tests nothing, so it reports an infinite difference */
  *diff = g[1] > 0 ? g[0] : (g[1] == 0 ? PETSC_INFINITY : g[1]);
  if (scale) *scale = g[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
