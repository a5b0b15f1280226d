/* AdjStepper: the generic interface between a time-stepping solver and adjsim's adjoint machinery.
 *
 * A solver (scalar transport, fluid, MPM) fills an ops table.  The driver (AdjDriver) then gives it
 * revolve checkpointing, gradient output, gradient checks and TAO optimization, whatever its physics.
 *
 * Discrete model, with state x_k after step k, parameters p and n steps:
 *   x_0 = X0(p),   x_k = Phi_k(x_{k-1}, p)  (k = 1..n),   J = sum_{k=1..n} J_k(x_k, p) + R(p)
 * Adjoint, with lambda_k = dJ/dx_k:
 *   lambda_n = dJ_n/dx_n,  lambda_{k-1} = (dPhi_k/dx)^T lambda_k + dJ_{k-1}/dx_{k-1},
 *   dJ/dp = dR/dp + sum_k (dPhi_k/dp)^T lambda_k + sum_k dJ_k/dp + (dX0/dp)^T lambda_0.
 *
 * Contract: `stepadjoint` for step k is always called right after `step` for the same k with the
 * same input state, so a solver may reuse intermediates (Runge-Kutta stages) from that call.
 * Parameter gradients are accumulated inside the solver (zerogradient, then the adjoint ops add to
 * them) and packed into the design gradient by `getgradient`. */
#pragma once

#include <adjsim/params.h>

typedef struct _p_AdjStepper *AdjStepper;
typedef struct _p_AdjOutput  *AdjOutput;

typedef struct {
  PetscErrorCode (*createstate)(AdjStepper, Vec *);
  PetscErrorCode (*getparameters)(AdjStepper, AdjParams, Vec); /* pack current values of active blocks */
  PetscErrorCode (*setparameters)(AdjStepper, AdjParams, Vec); /* unpack active blocks */
  PetscErrorCode (*initialstate)(AdjStepper, Vec);             /* x0 = X0(p) */
  PetscErrorCode (*initialstateadjoint)(AdjStepper, Vec);      /* grad += (dX0/dp)^T lambda0 */
  PetscErrorCode (*step)(AdjStepper, AdjStepIndex, Vec, Vec);  /* (k, x_{k-1}, x_k) */
  PetscErrorCode (*stepadjoint)(AdjStepper, AdjStepIndex, Vec, Vec, Vec,
                                Vec); /* (k, x_{k-1}, x_k, lambda_k, lambda_{k-1}) */
  PetscErrorCode (*objective)(AdjStepper, AdjStepIndex, Vec, PetscReal *); /* J_k(x_k) */
  PetscErrorCode (*objectiveadjoint)(AdjStepper, AdjStepIndex, Vec, Vec);  /* lambda_k += dJ_k/dx_k, grad += dJ_k/dp */
  PetscErrorCode (*regularization)(AdjStepper, PetscReal *);               /* R(p), grad += dR/dp */
  PetscErrorCode (*hasobjective)(AdjStepper, PetscBool *);                 /* any objective term configured? */
  PetscErrorCode (*zerogradient)(AdjStepper);
  PetscErrorCode (*getgradient)(AdjStepper, AdjParams, Vec);
  PetscErrorCode (*checkstate)(AdjStepper, AdjStepIndex, Vec);         /* NaN/Inf and blow-up guard */
  PetscErrorCode (*writefields)(AdjStepper, AdjOutput, Vec);           /* state fields at an output step */
  PetscErrorCode (*monitor)(AdjStepper, AdjOutput, AdjStepIndex, Vec); /* optional: after every step of a run with
                                                                          output (per-step histories) */
  PetscErrorCode (*writeparameters)(AdjStepper, AdjOutput);
  PetscErrorCode (*writegradient)(AdjStepper, AdjOutput);
  PetscErrorCode (*writerestart)(AdjStepper, AdjOutput, AdjStepIndex, Vec, PetscBool); /* PETSC_TRUE: standalone file */
  PetscErrorCode (*readrestart)(AdjStepper, const char[], Vec, AdjStepIndex *);
  PetscErrorCode (*readparameters)(AdjStepper, const char[]); /* values from a run file's /parameters */
  PetscErrorCode (*destroy)(AdjStepper);
} AdjStepperOps;

PetscErrorCode AdjStepperCreate(MPI_Comm comm, AdjStepper *stepper);
PetscErrorCode AdjStepperDestroy(AdjStepper *stepper);
PetscErrorCode AdjStepperSetContext(AdjStepper stepper, const char name[], void *ctx, const AdjStepperOps *ops);
PetscErrorCode AdjStepperGetContext(AdjStepper stepper, void *ctx);
PetscErrorCode AdjStepperSetTimes(AdjStepper stepper, AdjStepIndex nsteps, PetscReal dt);
PetscErrorCode AdjStepperGetTimes(AdjStepper stepper, AdjStepIndex *nsteps, PetscReal *dt);
PetscErrorCode AdjStepperGetName(AdjStepper stepper, const char **name);
PetscErrorCode AdjStepperGetParams(AdjStepper stepper, AdjParams *params);
PetscErrorCode AdjStepperGetComm(AdjStepper stepper, MPI_Comm *comm);
PetscErrorCode AdjStepperGetOps(AdjStepper stepper, const AdjStepperOps **ops);
/* The grid the solver's fields live on, and its box [lower, upper] in metres (for output). */
PetscErrorCode AdjStepperSetGrid(AdjStepper stepper, DM da, const PetscReal lower[], const PetscReal upper[]);
PetscErrorCode AdjStepperGetGrid(AdjStepper stepper, DM *da, const PetscReal **lower, const PetscReal **upper);
