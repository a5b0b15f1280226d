/* Helpers shared by the MPM tests: build a stepper from option strings, run it, report. */
#pragma once

#include "mpm/mpmimpl.h"
#include <adjsim/io.h>

#include "steppertest.h"
#include "adjtest.h"

/* An MPM stepper on comm from a fresh options database holding just the NULL-terminated "-name",
 * "value" pairs of base and extra (either may be NULL). */
static inline PetscErrorCode MPMTestCreate(MPI_Comm comm, const char *const base[], const char *const extra[],
                                           AdjStepper *st)
{
  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperCreate(comm, "mpm", base, extra, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef AdjTestMonitor MPMTestMonitor;

/* x = the state after nsteps steps from the initial state (nsteps < 0: the whole run); monitor (may be
 * NULL) sees every state, from step 0. */
static inline PetscErrorCode MPMTestRun(AdjStepper st, AdjStepIndex nsteps, Vec x, MPMTestMonitor monitor, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperRun(st, nsteps, x, monitor, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Prints the check and counts a failure when value > tol, NaN or infinite (-inf too: a running minimum or
 * maximum that never saw a value, e.g. hi - lo = -inf, must not pass). */
static inline PetscErrorCode MPMTestReport(const char name[], PetscReal value, PetscReal tol, PetscInt *fail)
{
  const PetscBool finite = (PetscBool)!PetscIsInfOrNanReal(value);
  const PetscBool ok     = (PetscBool)(finite && value <= tol);

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-64s %.3e (tolerance %.1e)  %s\n", name, (double)value, (double)tol,
                        ok ? "ok" : (finite ? "FAIL" : "FAIL (not finite)")));
  if (!ok) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A draw uniform in [lo, hi) from r (a test's random inputs). */
static inline PetscReal MPMTestUniform(PetscRandom r, PetscReal lo, PetscReal hi)
{
  PetscReal v;
  PetscCallAbort(PETSC_COMM_SELF, PetscRandomGetValueReal(r, &v));
  return lo + (hi - lo) * v;
}

/* A generator on PETSC_COMM_SELF seeded with seed: the same stream on every rank. */
static inline PetscErrorCode MPMTestRandomCreate(PetscInt seed, PetscRandom *r)
{
  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, r));
  PetscCall(PetscRandomSetSeed(*r, (unsigned long)seed));
  PetscCall(PetscRandomSeed(*r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The check of a test's tangent-linear model against central differences of the forward kernel: rel, the largest
 * gap relative to the largest tangent entry, must be below 1e-6 (NaN fails). */
static inline PetscErrorCode MPMTestTangentReport(const char what[], PetscReal rel, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s tangent vs central differences: rel %.2e  %s\n", what, (double)rel,
                        rel < 1e-6 ? "ok" : "FAIL"));
  if (!(rel < 1e-6)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}
