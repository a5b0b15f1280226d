/* Helpers shared by the fluid tests: build a stepper from option strings, run it, compare states. */
#pragma once

#include "fluid/fluidimpl.h"
#include <adjsim/io.h>

/* Sets "-name value" pairs (a NULL-terminated list) in the options database. */
static inline PetscErrorCode FluidTestSetOptions(const char *const kv[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; kv[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, kv[i], kv[i + 1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A stepper on comm from a fresh options database holding just the given options (NULL-terminated
 * "-name", "value" lists; extra may be NULL). */
static inline PetscErrorCode FluidTestCreate(MPI_Comm comm, const char *const base[], const char *const extra[],
                                             AdjStepper *st)
{
  PetscOptions opts;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  PetscCall(FluidTestSetOptions(base));
  if (extra) PetscCall(FluidTestSetOptions(extra));
  PetscCall(FluidCreate(comm, st));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = the state after `nsteps` steps from the initial state (nsteps < 0: the whole run). */
static inline PetscErrorCode FluidTestRun(AdjStepper st, AdjStepIndex nsteps, Vec x)
{
  const AdjStepperOps *ops;
  AdjStepIndex         n;
  PetscReal            dt;
  Vec                  y;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetOps(st, &ops));
  PetscCall(AdjStepperGetTimes(st, &n, &dt));
  if (nsteps >= 0) n = nsteps;
  PetscCall(VecDuplicate(x, &y));
  PetscCall(ops->initialstate(st, x));
  for (AdjStepIndex k = 1; k <= n; k++) {
    PetscCall(ops->step(st, k, x, y));
    PetscCall(ops->checkstate(st, k, y));
    PetscCall(VecSwap(x, y));
  }
  PetscCall(VecDestroy(&y));
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
