/* Helpers shared by the MPM tests: build a stepper from option strings, run it, report. */
#pragma once

#include "mpm/mpmimpl.h"
#include <adjsim/io.h>

/* A stepper on comm from a fresh options database holding just the NULL-terminated "-name", "value"
 * pairs of base and extra (either may be NULL). */
static inline PetscErrorCode MPMTestCreate(MPI_Comm comm, const char *const base[], const char *const extra[],
                                           AdjStepper *st)
{
  PetscOptions opts;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  for (PetscInt i = 0; base && base[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, base[i], base[i + 1]));
  for (PetscInt i = 0; extra && extra[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, extra[i], extra[i + 1]));
  PetscCall(MPMCreate(comm, st));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*MPMTestMonitor)(AdjStepper, AdjStepIndex, Vec, void *);

/* x = the state after nsteps steps from the initial state (nsteps < 0: the whole run); monitor (may be
 * NULL) sees every state, from step 0. */
static inline PetscErrorCode MPMTestRun(AdjStepper st, AdjStepIndex nsteps, Vec x, MPMTestMonitor monitor, void *ctx)
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
  if (monitor) PetscCall(monitor(st, 0, x, ctx));
  for (AdjStepIndex k = 1; k <= n; k++) {
    PetscCall(ops->step(st, k, x, y));
    PetscCall(ops->checkstate(st, k, y));
    PetscCall(VecSwap(x, y));
    if (monitor) PetscCall(monitor(st, k, x, ctx));
  }
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Prints the check and counts a failure when value > tol (or NaN). */
static inline PetscErrorCode MPMTestReport(const char name[], PetscReal value, PetscReal tol, PetscInt *fail)
{
  const PetscBool ok = (PetscBool)(value <= tol);

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-64s %.3e (tolerance %.1e)  %s\n", name, (double)value, (double)tol,
                        ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
