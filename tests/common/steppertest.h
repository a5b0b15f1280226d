/* Helpers shared by the solver tests: a stepper of a registered type from option strings, and a
 * forward run through the public AdjStepper operations. */
#pragma once

#include <adjsim/stepper.h>

/* A stepper of `type` from the options database as it stands (the test's command line). */
static inline PetscErrorCode AdjTestStepperFromOptions(MPI_Comm comm, const char type[], AdjStepper *st)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperCreate(comm, st));
  PetscCall(AdjStepperSetType(*st, type));
  PetscCall(AdjStepperSetFromOptions(*st));
  PetscCall(AdjStepperSetUp(*st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A stepper of `type` on comm, configured from a fresh options database holding just the
 * NULL-terminated "-name", "value" pairs of base and extra (either may be NULL), set up. */
static inline PetscErrorCode AdjTestStepperCreate(MPI_Comm comm, const char type[], const char *const base[],
                                                  const char *const extra[], AdjStepper *st)
{
  PetscOptions opts;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsPush(opts));
  for (PetscInt i = 0; base && base[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, base[i], base[i + 1]));
  for (PetscInt i = 0; extra && extra[i]; i += 2) PetscCall(PetscOptionsSetValue(NULL, extra[i], extra[i + 1]));
  PetscCall(AdjTestStepperFromOptions(comm, type, st));
  PetscCall(PetscOptionsPop());
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}


typedef PetscErrorCode (*AdjTestMonitor)(AdjStepper, AdjStepIndex, Vec, void *);

/* x = the state after nsteps steps from the initial state (nsteps < 0: the whole run); monitor (may be
 * NULL) sees every state, from step 0. */
static inline PetscErrorCode AdjTestStepperRun(AdjStepper st, AdjStepIndex nsteps, Vec x, AdjTestMonitor monitor,
                                               void *ctx)
{
  AdjStepIndex n;
  Vec          y;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetTimes(st, &n, NULL));
  if (nsteps >= 0) n = nsteps;
  PetscCall(VecDuplicate(x, &y));
  PetscCall(AdjStepperInitialState(st, x));
  if (monitor) PetscCall(monitor(st, 0, x, ctx));
  for (AdjStepIndex k = 1; k <= n; k++) {
    PetscCall(AdjStepperStep(st, k, x, y));
    PetscCall(AdjStepperCheckState(st, k, y));
    PetscCall(VecSwap(x, y));
    if (monitor) PetscCall(monitor(st, k, x, ctx));
  }
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
