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
  /* resumable gradient runs (resume.c) */
  PetscBool  resumable;     /* a stopped gradient writes its resume file (AdjDriverSetGradientResumable) */
  PetscInt64 steps_done;    /* steps executed by this gradient (forward, recomputed, reverse), resumes too */
  PetscInt   test_stops[8]; /* tests: raise the interrupt flag after these many steps executed */
  PetscInt   ntest_stops;
};

/* Where a gradient's sweep stands between two actions of its schedule: what a stop saves besides the store's
   position and held states, the state x, the adjoint lambda and the gradient accumulators. */
typedef struct {
  AdjStepIndex     nsetup;   /* the n the schedule was set up with (online: the maximum) */
  AdjStepIndex     n;        /* the number of steps (online: the maximum until the sweep stops) */
  PetscReal        dt;       /* time step */
  PetscBool        sweeping; /* online forward sweep in progress */
  AdjRevolveAction a;        /* the action being executed */
  AdjStepIndex     advanced; /* ADVANCE: the step x holds (< a.to when a stop came within the action) */
  PetscReal        J;        /* objective terms so far */
} AdjGradientSweep;

PETSC_INTERN PetscErrorCode AdjDriverGradientSave(AdjDriver drv, Vec p, const AdjGradientSweep *sw);
PETSC_INTERN PetscErrorCode AdjDriverGradientResume(AdjDriver drv, Vec p, AdjGradientSweep *sw);
PETSC_INTERN PetscErrorCode AdjDriverTestStopStep(AdjDriver drv);
