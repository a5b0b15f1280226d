/* Private data of AdjDriver, shared by driver.c and checks.c. */
#pragma once

#include <adjsim/driver.h>
#include <petscksp.h>

/* The steady mode (-adjoint_steady, steady.c): the fixed-point adjoint solver and what the last runs reported. */
typedef struct {
  PetscBool          on;         /* -adjoint_steady */
  KSP                ksp;        /* (I - (dPhi/dx)^T) mu = b, options prefix -steady_adjoint_ */
  Mat                op;         /* its MatShell, made on first use */
  Vec                b, mu;      /* right-hand side and solution */
  AdjSteadyInfo      info;       /* the solver's steady objective, read by the last run */
  PetscReal          residual;   /* ||Phi_k(x*) - x*||_inf / (dt max(||x*||_inf, 1e-300)) [1/s] of the last run */
  PetscBool          solved;     /* a steady gradient was computed (its figures below are valid) */
  PetscInt           iterations; /* of the last adjoint solve */
  PetscReal          rnorm, bnorm;
  KSPConvergedReason reason;
  PetscInt64         applications; /* step-adjoint applications of the last gradient (operator and final one) */
  PetscInt64         steps;        /* forward steps retaken at x* by the last gradient (its march not counted) */
  PetscBool          retake;       /* -steady_adjoint_retake_step: retake the step before every application */
  PetscInt           sweeps;       /* -steady_adjoint_sweeps k: preconditioner sum_{j<k} (A^T)^j (1: none) */
  PetscInt           monitor;      /* -steady_monitor N: print the march's change rate every N steps (0: off) */
  char               initial[PETSC_MAX_PATH_LEN]; /* -steady_initial FILE: march from this restart file's state */
} AdjDriverSteady;

struct _p_AdjDriver {
  MPI_Comm        comm;
  AdjStepper      stepper;
  AdjCheckpoint   ckpt;
  AdjOutput       out;
  Vec             x, y, lam, lamprev; /* working state, next state, adjoints */
  PetscBool       quiet;
  PetscReal       progress_interval;
  char            restart[PETSC_MAX_PATH_LEN];
  PetscInt        taylor_levels;
  PetscBool       interruptible;    /* forward runs stop gracefully on SIGUSR1/SIGTERM */
  AdjStepIndex    interrupted_at;   /* step at which a signal stopped the last forward run, or -1 */
  AdjStepIndex    raise_at_reverse; /* tests: the next gradient raises the interrupt flag at this reverse step, or -1 */
  PetscReal       taylor_h0, fd_h;
  PetscReal       steady_tol;     /* -steady_tol: stop at the first step whose relative change is below it; 0: off */
  AdjStepIndex    final_step;     /* step the last run ended at, -1 before any */
  PetscBool       steady_stopped; /* the last run ended by the -steady_tol test (not at the maximum) */
  AdjStepIndex    fixed_steps;    /* > 0: run exactly this many steps, no stopping test (gradient checks) */
  Vec             dx;             /* work vector of the stopping test, made on first use */
  AdjDriverSteady steady;         /* -adjoint_steady (steady.c) */
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

/* driver.c, shared with steady.c */
PetscErrorCode AdjDriverSteadyReached(AdjDriver drv, Vec xnew, Vec xold, PetscReal dt, PetscBool *stop);
PetscErrorCode AdjDriverOutputStep(AdjDriver drv, AdjStepIndex k, AdjStepIndex n, PetscReal dt);
PetscErrorCode AdjDriverCheckInitialFinite(AdjDriver drv, AdjStepIndex k0, Vec x);
PetscErrorCode AdjDriverSaveLastGood(AdjDriver drv, AdjStepIndex k, AdjStepIndex n, PetscReal dt);
PetscErrorCode AdjDriverReportStop(AdjDriver drv, PetscReal dt);

/* steady.c: the steady mode behind AdjDriverSetFromOptions, AdjDriverForward, AdjDriverGradient,
   AdjDriverCheckSteadySupported, AdjDriverRecordFinalStep and AdjDriverDestroy */
PetscErrorCode AdjDriverSteadySetFromOptions(AdjDriver drv);
PetscErrorCode AdjDriverSteadyCheck(AdjDriver drv);
PetscErrorCode AdjDriverSteadyForward(AdjDriver drv, Vec p, PetscBool write_output, PetscReal *J);
PetscErrorCode AdjDriverSteadyGradient(AdjDriver drv, Vec p, PetscReal *J, Vec g);
PetscErrorCode AdjDriverSteadyRecord(AdjDriver drv, const char group[]);
PetscErrorCode AdjDriverSteadyDestroy(AdjDriver drv);

/* x <-> y by exchanging the handles, not the values (PETSc's VecSwap copies both arrays: four streams of the state per
 * step, about 15% of a memory-bound transport step at 2048^2).  Every user of the driver's state vectors takes them
 * from drv after the swap, and the stepper's adjoint contract follows the handle it was given. */
static inline void AdjDriverSwapVecs(Vec *a, Vec *b)
{
  Vec t = *a;

  *a = *b;
  *b = t;
}
