/* Private data of AdjDriver, shared by driver.c and checks.c. */
#pragma once

#include <adjsim/driver.h>

struct _p_AdjDriver {
  MPI_Comm      comm;
  AdjStepper    stepper;
  AdjCheckpoint ckpt;
  AdjOutput     out;
  Vec           x, y, lam, lamprev; /* working state, next state, adjoints */
  PetscBool     quiet;
  PetscReal     progress_interval;
  char          restart[PETSC_MAX_PATH_LEN];
  PetscInt      taylor_levels;
  PetscBool     interruptible;    /* forward runs stop gracefully on SIGUSR1/SIGTERM */
  AdjStepIndex  interrupted_at;   /* step at which a signal stopped the last forward run, or -1 */
  AdjStepIndex  raise_at_reverse; /* tests: the next gradient raises the interrupt flag at this reverse step, or -1 */
  PetscReal     taylor_h0, fd_h;
  PetscReal     steady_tol;     /* -steady_tol: stop at the first step whose relative change is below it; 0: off */
  AdjStepIndex  final_step;     /* step the last run ended at, -1 before any */
  PetscBool     steady_stopped; /* the last run ended by the -steady_tol test (not at the maximum) */
  AdjStepIndex  fixed_steps;    /* > 0: run exactly this many steps, no stopping test (gradient checks) */
  Vec           dx;             /* work vector of the stopping test, made on first use */
};
