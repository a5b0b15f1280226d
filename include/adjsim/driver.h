/* AdjDriver: forward runs, checkpointed discrete-adjoint gradients and gradient checks for any
 * AdjStepper.  Options: -quiet, -progress_interval, -restart, -steady_tol, -adjoint_taylor_*, -adjoint_fd_*,
 * and the -checkpoint_* options of AdjCheckpoint.
 *
 * Run length decided while running (-steady_tol TOL > 0): forward runs and gradients stop at the first step k
 * with  ||x_k - x_{k-1}||_inf / (dt max(||x_k||_inf, 1e-300)) < TOL,  the norms over the whole state vector of
 * the solver (every component it holds: for the fluid velocities and pressure, for transport the scalar, for mpm
 * the particle records); the time axis's step count N is then the maximum (reached: the run ends there). The
 * gradient is the one of J for the final n reached; the stopping decision itself is not differentiated. With
 * -checkpoint_type online the gradient decides n during its own forward sweep; with revolve or all it first runs
 * the forward model to find n (n more steps), then reverses with that n. */
#pragma once

#include <adjsim/stepper.h>
#include <adjsim/checkpoint.h>

typedef struct _p_AdjDriver *AdjDriver;

PetscErrorCode AdjDriverCreate(AdjStepper stepper, AdjDriver *drv);
PetscErrorCode AdjDriverSetFromOptions(AdjDriver drv);
PetscErrorCode AdjDriverSetOutput(AdjDriver drv, AdjOutput out);
PetscErrorCode AdjDriverDestroy(AdjDriver *drv);
PetscErrorCode AdjDriverGetCheckpoint(AdjDriver drv, AdjCheckpoint *ckpt);
PetscErrorCode AdjDriverIsQuiet(AdjDriver drv, PetscBool *quiet);
PetscErrorCode AdjDriverGetStepper(AdjDriver drv, AdjStepper *stepper);
PetscErrorCode AdjDriverGetRestart(AdjDriver drv, const char **path);
PetscErrorCode AdjDriverSetRestart(AdjDriver drv, const char path[]);
PetscErrorCode AdjDriverSetInterruptible(AdjDriver drv, PetscBool flag);
PetscErrorCode AdjDriverIsInterruptible(AdjDriver drv, PetscBool *flag);
PetscErrorCode AdjDriverGetInterruptedStep(AdjDriver drv, AdjStepIndex *step);
PetscErrorCode AdjDriverSetTestInterruptAtReverse(AdjDriver drv, AdjStepIndex k);
PetscErrorCode AdjDriverSetGradientResumable(AdjDriver drv, PetscBool flag);
PetscErrorCode AdjDriverIsGradientResumable(AdjDriver drv, PetscBool *flag);
/*@ AdjDriverGetSteadyTol - the -steady_tol tolerance (0: off). Not collective. @*/
PetscErrorCode AdjDriverGetSteadyTol(AdjDriver drv, PetscReal *tol);
/*@ AdjDriverGetFinalStep - the step the last forward run or gradient ended at (N without -steady_tol; -1 before
    any run). Not collective. @*/
PetscErrorCode AdjDriverGetFinalStep(AdjDriver drv, AdjStepIndex *n);
/*@ AdjDriverSetFixedSteps - forward runs and gradients run exactly n steps, with no stopping test (n < 0: back to
    the time axis and -steady_tol). The gradient checks use it to hold n at the value reached at p, since the
    stopping decision is not differentiated. Not collective. @*/
PetscErrorCode AdjDriverSetFixedSteps(AdjDriver drv, AdjStepIndex n);
/*@ AdjDriverCheckSteadySupported - with -steady_tol and an objective, refuses (PETSC_ERR_USER_INPUT, naming the
    option) a solver that does not declare whether its objective is tied to the last step of the time axis, or
    whose objective is (a final-time target...). Forward runs and gradients call it; call it before opening files
    to refuse early. Collective. @*/
PetscErrorCode AdjDriverCheckSteadySupported(AdjDriver drv);
/*@ AdjDriverRecordFinalStep - with -steady_tol and a run file: attributes final_step (int64), final_time [s] and
    stop_reason ("steady_tol" or "max_steps") on `group` ("/" for forward runs, "/gradients"), saying where the
    last run stopped. Collective. @*/
PetscErrorCode AdjDriverRecordFinalStep(AdjDriver drv, const char group[]);

/*@ AdjDriverGetSteadyAdjoint - whether -adjoint_steady is on. Not collective. @*/
PetscErrorCode AdjDriverGetSteadyAdjoint(AdjDriver drv, PetscBool *on);
/*@ AdjDriverCheckSteadyGradient - with -adjoint_steady, refuses (PETSC_ERR_USER_INPUT, naming the option) what a
    steady gradient cannot do: no -steady_tol, a solver without a steady state or with an objective term tied to
    particular steps, an active parameter block that only sets the initial state. No-op without -adjoint_steady.
    Collective. @*/
PetscErrorCode AdjDriverCheckSteadyGradient(AdjDriver drv);

/*@ AdjDriverForward - runs the model at design p, J = objective. With an output set, writes fields
    at output steps, restart files at the restart interval and the final state; honours -restart.
    Collective. @*/
PetscErrorCode AdjDriverForward(AdjDriver drv, Vec p, PetscBool write_output, PetscReal *J);

/*@ AdjDriverGradient - J and its gradient g = dJ/dp by the discrete adjoint under revolve
    checkpointing. Collective. @*/
PetscErrorCode AdjDriverGradient(AdjDriver drv, Vec p, PetscReal *J, Vec g);

/*@ AdjDriverTaylorTest - remainders |J(p+hd)-J(p)| and |J(p+hd)-J(p)-h g.d| for h halved `levels`
    times along a random direction; returns the smallest observed second-order rate. Collective. @*/
PetscErrorCode AdjDriverTaylorTest(AdjDriver drv, Vec p, PetscReal *min_rate2);

/*@ AdjDriverHoldFinalStep - with -steady_tol, hold (PETSC_TRUE) the run length at the n the last run reached, as
    the gradient checks do after the gradient at p (the stopping decision is not differentiated); PETSC_FALSE
    releases it. No-op without -steady_tol. Collective. @*/
PetscErrorCode AdjDriverHoldFinalStep(AdjDriver drv, PetscBool hold);

/* A scalar function of the design for AdjTaylorSweep: *v = f(q), by forward runs. Collective. */
typedef PetscErrorCode (*AdjTaylorFunction)(void *ctx, Vec q, PetscReal *v);
/* The seed of the random direction of the driver's and the multipoint objective's tests (the constraints' test keeps
 * the direction it always had, seed 12345). */
#define ADJ_TAYLOR_SEED 20261129UL
typedef struct {
  const char   *title;  /* follows "Taylor test" in the heading: "" or " of constraint lift" */
  const char   *symbol; /* the function's name in the table: "J", "v" */
  PetscReal     h0;     /* first step (0: 1e-2 max(1, RMS(p))) */
  PetscInt      levels; /* step sizes, halved each time */
  unsigned long seed;   /* of the random direction */
} AdjTaylorSettings;
/*@ AdjTaylorSweep - the Taylor test shared by every gradient check (the driver's objective, the constraints, the
    multipoint objective): v(p) = f(p), then for h = h0, h0/2, ... along a random unit-RMS direction d the remainders
    r1 = |v(p+hd) - v(p)| and r2 = |v(p+hd) - v(p) - h g.d| and their observed rates, one table line each,
    "(round-off)" where r2 < 1e3 eps |v(p)| (those levels do not count). *min_rate2: the smallest counted
    second-order rate, PETSC_MAX_REAL if none counted (v linear along d at this precision, or h0 too small). g: the
    gradient at p, computed by the caller (who holds the run length first with AdjDriverHoldFinalStep).
    Collective. @*/
PetscErrorCode AdjTaylorSweep(const AdjTaylorSettings *ts, AdjTaylorFunction f, void *ctx, Vec p, Vec g,
                              PetscReal *min_rate2);

/*@ AdjDriverFDCheck - compares gradient components with central differences; returns the largest
    error relative to max|g|. Collective. @*/
PetscErrorCode AdjDriverFDCheck(AdjDriver drv, Vec p, PetscInt ncomp, PetscReal *max_rel_err);

/* Progress lines on long work: "label k/n  t = ..  wall ..  eta ..", at most every interval. */
typedef struct {
  PetscLogDouble start, last;
  PetscReal      interval;
  PetscBool      quiet, printed;
} AdjProgress;
PetscErrorCode AdjProgressStart(AdjProgress *pr, PetscBool quiet, PetscReal interval);
PetscErrorCode AdjProgressUpdate(AdjProgress *pr, MPI_Comm comm, const char label[], AdjStepIndex k, AdjStepIndex n,
                                 PetscReal t);
