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
 * Parameters are declared, not coded: setfromoptions adds each block to the stepper's AdjParams
 * (AdjStepperGetParams) with its storage or accessors, gradient units, bounds, regularization and
 * change hook (include/adjsim/params.h); packing, unpacking, gradients, /parameters and /gradients
 * output, reading and Tikhonov regularization are then generic.
 * Fields are declared too: setfromoptions describes each output field and each restart field once
 * (AdjStepperAddField, include/adjsim/fields.h), fieldvalues points them at their values, and the stepper
 * writes the datasets, the XDMF and the restart group and reads restart files back; restartstate (optional)
 * turns the restart fields just read into the state.
 * States: a solver whose states all share one layout gives a template vector (AdjStepperSetStateTemplate)
 * instead of a createstate operation, and one whose initial state is a stored vector (the values of an
 * initial-condition parameter block, say) gives that vector (AdjStepperSetInitialStateVec) instead of an
 * initialstate operation.
 * Required: createstate (or a state template), initialstate (or an initial-state vector), step, checkstate, objective,
 * zerogradient, and fieldvalues for a solver that describes fields (it should: without them it writes no run file and
 * cannot restart).  The adjoint set (stepadjoint, objectiveadjoint, initialstateadjoint, hasobjective) is all or
 * nothing.  Optional: setup, view, regularization, monitor, restartstate, writeparameters, writegradient,
 * readparameters (the last three for what lies beyond the parameter blocks), setsteady (-adjoint_steady). */
#pragma once

#include <adjsim/stepper.h>
#include <adjsim/fields.h>
#include <adjsim/geometry.h>

typedef struct {
  PetscErrorCode (*setfromoptions)(AdjStepper);    /* read the solver's options (prefixed) and build */
  PetscErrorCode (*setup)(AdjStepper);             /* optional: after the parameter options are read */
  PetscErrorCode (*view)(AdjStepper, PetscViewer); /* optional */
  PetscErrorCode (*destroy)(AdjStepper);           /* frees ctx */
  PetscErrorCode (*createstate)(void *ctx, Vec *);
  PetscErrorCode (*initialstate)(void *ctx, Vec);            /* x0 = X0(p) */
  PetscErrorCode (*initialstateadjoint)(void *ctx, Vec);     /* grad += (dX0/dp)^T lambda0 */
  PetscErrorCode (*step)(void *ctx, AdjStepIndex, Vec, Vec); /* (k, x_{k-1}, x_k) */
  PetscErrorCode (*stepadjoint)(void *ctx, AdjStepIndex, Vec, Vec, Vec,
                                Vec); /* (k, x_{k-1}, x_k, lambda_k, lambda_{k-1}) */
  PetscErrorCode (*objective)(void *ctx, AdjStepIndex, Vec, PetscReal *); /* J_k(x_k) */
  PetscErrorCode (*objectiveadjoint)(void *ctx, AdjStepIndex, Vec, Vec);  /* lambda_k += dJ_k/dx_k, grad += dJ_k/dp */
  PetscErrorCode (*regularization)(void *ctx, AdjParams, PetscReal *);    /* optional: R(p), grad += dR/dp
                                                                             beyond the blocks' Tikhonov terms */
  PetscErrorCode (*hasobjective)(void *ctx, PetscBool *);                 /* any objective term configured? */
  PetscErrorCode (*zerogradient)(void *ctx);
  PetscErrorCode (*checkstate)(void *ctx, AdjStepIndex, Vec);                 /* NaN/Inf and blow-up guard */
  PetscErrorCode (*fieldvalues)(void *ctx, AdjFieldSet, Vec, AdjFieldValues); /* point each described field of
                                                                              the set at its values at state x */
  PetscErrorCode (*monitor)(void *ctx, AdjOutput, AdjStepIndex, Vec);         /* optional: after every step of a run
                                                                                 with output (per-step histories) */
  PetscErrorCode (*writeparameters)(void *ctx, AdjParams, AdjOutput); /* optional: /parameters besides the blocks */
  PetscErrorCode (*writegradient)(void *ctx, AdjParams, AdjOutput);   /* optional: sensitivity maps besides the
                                                                         blocks' gradients */
  PetscErrorCode (*restartstate)(void *ctx, AdjFieldValues, Vec);     /* optional: the state x from the restart
                                                                         fields just read (absent: they are x) */
  PetscErrorCode (*readparameters)(void *ctx, const char[]);          /* optional: after the blocks are read from a
                                                                         run file's /parameters */
  PetscErrorCode (*objectivefinalstep)(void *ctx, const char **term); /* optional: a description of an objective
     term tied to the time axis's last step N (a final-time target...), or NULL if none; a run whose length is
     decided while running (-steady_tol) needs this op and no such term */
  PetscErrorCode (*setsteady)(void *ctx, AdjSteadyInfo *info);        /* optional: what a steady state means for this
            solver (include/adjsim/stepper.h): the step of its steady objective, and what has no steady meaning; switches the
            objective to its steady form (idempotent); without it -adjoint_steady is refused */
  /* Design constraints (src/optim/constraints.c), both optional: */
  PetscErrorCode (*selectobjective)(void *ctx, const char *name, PetscBool *known);  /* the objective becomes the
      output functional `name` alone ("lift", "drag", "lift_to_drag": C_L, C_D, C_L/C_D over the objective's time
      window), *known false if the solver has no such functional; name NULL restores the configured objective */
  PetscErrorCode (*getshape)(void *ctx, const AdjShape **shape, const char **block); /* the body's shape (NULL if
     none) at the current parameters, and the name of the parameter block holding its last entries p[np - n..np),
     n the block's size (the fluid: p[3..np), past the position x0, y0 and the angle alpha; the airfoil:
     p[4..np), past the chord too) */
} AdjStepperOps;

/*@ AdjStepperSetImplementation - called by a type's create function: its data and operations
    (the table is copied). Not collective. @*/
PetscErrorCode AdjStepperSetImplementation(AdjStepper stepper, void *ctx, const AdjStepperOps *ops);

/*@ AdjStepperSetStateTemplate - states of this stepper are duplicates of x (same layout and DM), named
    name; the type then needs no createstate operation. x is referenced, not copied. Not collective. @*/
PetscErrorCode AdjStepperSetStateTemplate(AdjStepper stepper, Vec x, const char name[]);

/*@ AdjStepperSetInitialStateVec - the initial state is a copy of x0's values at the time it is asked for
    (x0 may be the storage of an initial-condition parameter block); the type then needs no initialstate
    operation. x0 is referenced, not copied. Not collective. @*/
PetscErrorCode AdjStepperSetInitialStateVec(AdjStepper stepper, Vec x0);

/*@ AdjStepperSetAdjointKeepsStep - declare that the type's stepadjoint leaves the intermediates of the forward step
    it follows intact, so that several step adjoints of step k (with different lambda_k) may follow one forward step
    (AdjStepperIsStepCurrent; the steady adjoint applies dPhi^T many times at one x*). Only declare it for an adjoint
    that reads, and never overwrites, what step stored (a test must show the repeated adjoints equal to ones after a
    retaken step, bit for bit: -steady_adjoint_retake_step in tests/adjoint/steady_adjoint.sh). Not collective. @*/
PetscErrorCode AdjStepperSetAdjointKeepsStep(AdjStepper stepper, PetscBool flag);

/*@ AdjStepperAddGradientVec - declare one of the type's gradient accumulators: a vector the adjoint operations add
    to (the gradient of a field block, a sensitivity map). The stepper zeroes it before every gradient, and writes
    and reads it when a gradient run stops on a signal and continues in a later job (its values are this run's
    partial sums, so only a run on the same ranks can read them). A type that declares all its accumulators
    needs no zerogradient operation. v is referenced. Not collective. @*/
PetscErrorCode AdjStepperAddGradientVec(AdjStepper stepper, const char name[], Vec v);

/*@ AdjStepperAddGradientArray - the same for n reals of this rank at a (partial sums over this rank's part, which
    the parameter blocks' gradient hook adds over ranks): the storage must live as long as the stepper. Not
    collective. @*/
PetscErrorCode AdjStepperAddGradientArray(AdjStepper stepper, const char name[], PetscScalar a[], PetscInt n);

/*@ AdjStepperAddField - describe one field of the output (ADJ_FIELDS_OUTPUT) or of the restart state
    (ADJ_FIELDS_RESTART: grid fields, or one particle table whose values are the state vector); called by a
    type's setfromoptions, in the order the fields are written. The description is copied. @*/
PetscErrorCode AdjStepperAddField(AdjStepper stepper, AdjFieldSet set, const AdjFieldDesc *desc);

/*@ AdjStepperCreate_Composite - the composite type (src/stepper/composite.c): two solvers with a
    coupling operator and its adjoint.  Not registered as a -problem yet; register it with
    AdjStepperRegister("composite", ..., AdjStepperCreate_Composite) to use it. @*/
PetscErrorCode AdjStepperCreate_Composite(AdjStepper stepper);
