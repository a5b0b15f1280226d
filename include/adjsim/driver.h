/* AdjDriver: forward runs, checkpointed discrete-adjoint gradients and gradient checks for any
 * AdjStepper.  Options: -quiet, -progress_interval, -restart, -adjoint_taylor_*, -adjoint_fd_*,
 * and the -checkpoint_* options of AdjCheckpoint. */
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
PetscErrorCode AdjDriverGetInterruptedStep(AdjDriver drv, AdjStepIndex *step);
PetscErrorCode AdjDriverSetTestInterruptAtReverse(AdjDriver drv, AdjStepIndex k);

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
