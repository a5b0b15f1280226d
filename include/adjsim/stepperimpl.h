/* For solver authors: the operations table of an AdjStepper type.
 *
 * A solver writes one create function, registered by name with AdjStepperRegister:
 *
 *   static const AdjStepperOps MyOps = {.setfromoptions = MySetFromOptions, .step = MyStep, ...};
 *   PetscErrorCode AdjStepperCreate_My(AdjStepper st)
 *   {
 *     My my;
 *     PetscCall(PetscNew(&my));
 *     PetscCall(AdjStepperSetImplementation(st, my, &MyOps));
 *   }
 *
 * The lifecycle operations (setfromoptions, setup, view, destroy) receive the stepper, so they can
 * read its prefix, register parameter blocks and set its times and grid.  Every other operation
 * receives the implementation's own data `ctx` directly (the pointer given to
 * AdjStepperSetImplementation), so a solver's functions are its operations, with no wrappers.
 * Required: createstate, initialstate, step, checkstate, objective, getparameters, setparameters,
 * zerogradient, writefields, writeparameters, writerestart, readrestart.  The adjoint set
 * (stepadjoint, objectiveadjoint, initialstateadjoint, getgradient, hasobjective, writegradient) is
 * all or nothing.  Optional: regularization (R = 0 without), monitor, readparameters, setup, view. */
#pragma once

#include <adjsim/stepper.h>

typedef struct {
  PetscErrorCode (*setfromoptions)(AdjStepper);    /* read the solver's options (prefixed) and build */
  PetscErrorCode (*setup)(AdjStepper);             /* optional: after the parameter options are read */
  PetscErrorCode (*view)(AdjStepper, PetscViewer); /* optional */
  PetscErrorCode (*destroy)(AdjStepper);           /* frees ctx */
  PetscErrorCode (*createstate)(void *ctx, Vec *);
  PetscErrorCode (*getparameters)(void *ctx, AdjParams, Vec); /* pack current values of active blocks */
  PetscErrorCode (*setparameters)(void *ctx, AdjParams, Vec); /* unpack active blocks */
  PetscErrorCode (*initialstate)(void *ctx, Vec);             /* x0 = X0(p) */
  PetscErrorCode (*initialstateadjoint)(void *ctx, Vec);      /* grad += (dX0/dp)^T lambda0 */
  PetscErrorCode (*step)(void *ctx, AdjStepIndex, Vec, Vec);  /* (k, x_{k-1}, x_k) */
  PetscErrorCode (*stepadjoint)(void *ctx, AdjStepIndex, Vec, Vec, Vec,
                                Vec); /* (k, x_{k-1}, x_k, lambda_k, lambda_{k-1}) */
  PetscErrorCode (*objective)(void *ctx, AdjStepIndex, Vec, PetscReal *); /* J_k(x_k) */
  PetscErrorCode (*objectiveadjoint)(void *ctx, AdjStepIndex, Vec, Vec);  /* lambda_k += dJ_k/dx_k, grad += dJ_k/dp */
  PetscErrorCode (*regularization)(void *ctx, AdjParams, PetscReal *);    /* R(p), grad += dR/dp */
  PetscErrorCode (*hasobjective)(void *ctx, PetscBool *);                 /* any objective term configured? */
  PetscErrorCode (*zerogradient)(void *ctx);
  PetscErrorCode (*getgradient)(void *ctx, AdjParams, Vec);
  PetscErrorCode (*checkstate)(void *ctx, AdjStepIndex, Vec);         /* NaN/Inf and blow-up guard */
  PetscErrorCode (*writefields)(void *ctx, AdjOutput, Vec);           /* state fields at an output step */
  PetscErrorCode (*monitor)(void *ctx, AdjOutput, AdjStepIndex, Vec); /* optional: after every step of a run
                                                                         with output (per-step histories) */
  PetscErrorCode (*writeparameters)(void *ctx, AdjParams, AdjOutput);
  PetscErrorCode (*writegradient)(void *ctx, AdjParams, AdjOutput);
  PetscErrorCode (*writerestart)(void *ctx, AdjOutput, AdjStepIndex, Vec, PetscBool); /* PETSC_TRUE: standalone */
  PetscErrorCode (*readrestart)(void *ctx, const char[], Vec, AdjStepIndex *);
  PetscErrorCode (*readparameters)(void *ctx, const char[]); /* values from a run file's /parameters */
} AdjStepperOps;

/*@ AdjStepperSetImplementation - called by a type's create function: its data and operations
    (the table is copied). Not collective. @*/
PetscErrorCode AdjStepperSetImplementation(AdjStepper stepper, void *ctx, const AdjStepperOps *ops);
