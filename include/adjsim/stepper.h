/* AdjStepper: a time-stepping solver seen by adjsim's adjoint machinery (like PETSc's TS).
 *
 * A solver type (transport, fluid, mpm, ...) registers itself by name (AdjStepperRegister) and fills
 * an operations table (include/adjsim/stepperimpl.h).  Everything else calls the public functions
 * below, which check that the operation exists, log it, and enforce the adjoint contract; the driver
 * (AdjDriver) then gives any stepper revolve checkpointing, gradient checks and TAO optimization.
 *
 * Discrete model, with state x_k after step k, parameters p and n steps:
 *   x_0 = X0(p),   x_k = Phi_k(x_{k-1}, p)  (k = 1..n),   J = sum_{k=1..n} J_k(x_k, p) + R(p)
 * Adjoint, with lambda_k = dJ/dx_k:
 *   lambda_n = dJ_n/dx_n,  lambda_{k-1} = (dPhi_k/dx)^T lambda_k + dJ_{k-1}/dx_{k-1},
 *   dJ/dp = dR/dp + sum_k (dPhi_k/dp)^T lambda_k + sum_k dJ_k/dp + (dX0/dp)^T lambda_0.
 *
 * Contract, checked by AdjStepperStepAdjoint for every solver: the adjoint of step k follows the
 * forward step k with the same, unmodified input state, so a solver may reuse intermediates
 * (Runge-Kutta stages) from that call.  Parameter gradients are accumulated inside the solver
 * (AdjStepperZeroGradient, then the adjoint operations add to them) and packed into the design
 * gradient by AdjStepperGetGradient.
 *
 * Lifecycle: AdjStepperCreate, AdjStepperSetType (or -problem), AdjStepperSetOptionsPrefix,
 * AdjStepperSetFromOptions, AdjStepperSetUp, ..., AdjStepperDestroy.  With different prefixes two
 * steppers of the same type live side by side in one run (e.g. -a_fluid_re 100 -b_fluid_re 200). */
#pragma once

#include <adjsim/fields.h>
#include <adjsim/geometry.h>
#include <adjsim/params.h>
#include <petscviewer.h>

typedef struct _p_AdjStepper *AdjStepper;
typedef struct _p_AdjOutput  *AdjOutput;
typedef const char           *AdjStepperType;

/*@ AdjStepperRegister - adds a solver type: create(stepper) allocates the implementation and sets
    its operations (AdjStepperSetImplementation). Not collective. @*/
PetscErrorCode AdjStepperRegister(const char type[], const char description[], PetscErrorCode (*create)(AdjStepper));
/*@ AdjStepperRegisterAll - registers adjsim's solvers (transport, fluid, mpm); safe to call twice. @*/
PetscErrorCode AdjStepperRegisterAll(void);
/*@ AdjStepperGetRegistered - the i-th registered type and its description (NULL past the end). @*/
PetscErrorCode AdjStepperGetRegistered(PetscInt i, const char **type, const char **description);

/*@ AdjStepperCreate - an empty stepper on comm; give it a type. Collective. @*/
PetscErrorCode AdjStepperCreate(MPI_Comm comm, AdjStepper *stepper);
/*@ AdjStepperSetType - makes the stepper a solver of a registered type. Collective. @*/
PetscErrorCode AdjStepperSetType(AdjStepper stepper, AdjStepperType type);
PetscErrorCode AdjStepperGetType(AdjStepper stepper, AdjStepperType *type);
/*@ AdjStepperSetOptionsPrefix - prefix of every option the solver reads: with "a_", -fluid_re
    becomes -a_fluid_re (and -problem becomes -a_problem). Call before SetFromOptions. @*/
PetscErrorCode AdjStepperSetOptionsPrefix(AdjStepper stepper, const char prefix[]);
PetscErrorCode AdjStepperGetOptionsPrefix(AdjStepper stepper, const char *prefix[]);
/*@ AdjStepperSetFromOptions - the type from -problem (if not set; default transport), the
    solver's own options, and the parameter options (-adjoint_params, ...). Collective. @*/
PetscErrorCode AdjStepperSetFromOptions(AdjStepper stepper);
/*@ AdjStepperSetUp - checks the required operations and lays out the design vector; safe to call
    twice. Collective. @*/
PetscErrorCode AdjStepperSetUp(AdjStepper stepper);
/*@ AdjStepperView - type, prefix, steps, grid and parameter blocks. Collective. @*/
PetscErrorCode AdjStepperView(AdjStepper stepper, PetscViewer viewer);
PetscErrorCode AdjStepperDestroy(AdjStepper *stepper);

PetscErrorCode AdjStepperGetComm(AdjStepper stepper, MPI_Comm *comm);
PetscErrorCode AdjStepperGetParams(AdjStepper stepper, AdjParams *params);
PetscErrorCode AdjStepperSetTimes(AdjStepper stepper, AdjStepIndex nsteps, PetscReal dt);
PetscErrorCode AdjStepperGetTimes(AdjStepper stepper, AdjStepIndex *nsteps, PetscReal *dt);
/* The grid the solver's fields live on, and its box [lower, upper] in metres (for output). */
PetscErrorCode AdjStepperSetGrid(AdjStepper stepper, DM da, const PetscReal lower[], const PetscReal upper[]);
PetscErrorCode AdjStepperGetGrid(AdjStepper stepper, DM *da, const PetscReal **lower, const PetscReal **upper);
/*@ AdjStepperGetContext - the implementation's own data (for tests and tools of that solver). @*/
PetscErrorCode AdjStepperGetContext(AdjStepper stepper, void *ctx);
/*@ AdjStepperHasAdjoint - whether the solver has the adjoint operations (gradient and optimize modes). @*/
PetscErrorCode AdjStepperHasAdjoint(AdjStepper stepper, PetscBool *has);

/* The operations (all collective on the stepper's communicator). */
PetscErrorCode AdjStepperCreateState(AdjStepper stepper, Vec *x);
/*@ AdjStepperGetParameters - packs the current values of the active blocks into the design p. @*/
PetscErrorCode AdjStepperGetParameters(AdjStepper stepper, Vec p);
/*@ AdjStepperSetParameters - unpacks the design p into the solver. @*/
PetscErrorCode AdjStepperSetParameters(AdjStepper stepper, Vec p);
PetscErrorCode AdjStepperInitialState(AdjStepper stepper, Vec x0);             /* x0 = X0(p) */
PetscErrorCode AdjStepperInitialStateAdjoint(AdjStepper stepper, Vec lambda0); /* grad += (dX0/dp)^T lambda0 */
/*@ AdjStepperStep - x_k = Phi_k(x_{k-1}). @*/
PetscErrorCode AdjStepperStep(AdjStepper stepper, AdjStepIndex k, Vec xin, Vec xout);
/*@ AdjStepperStepAdjoint - lambda_{k-1} = (dPhi_k/dx)^T lambda_k, grad += (dPhi_k/dp)^T lambda_k;
    must follow AdjStepperStep for the same k and the same unmodified xin (an error otherwise). @*/
PetscErrorCode AdjStepperStepAdjoint(AdjStepper stepper, AdjStepIndex k, Vec xin, Vec xout, Vec lambda_k,
                                     Vec lambda_km1);
/*@ AdjStepperIsStepCurrent - whether a step adjoint of step k on xin may follow now without retaking the step:
    the last forward step was k on this unmodified xin, and no step adjoint has spent its intermediates since (a type
    whose adjoint keeps them: AdjStepperSetAdjointKeepsStep). Not collective. @*/
PetscErrorCode AdjStepperIsStepCurrent(AdjStepper stepper, AdjStepIndex k, Vec xin, PetscBool *current);
PetscErrorCode AdjStepperObjective(AdjStepper stepper, AdjStepIndex k, Vec x, PetscReal *J); /* J_k(x_k) */
/*@ AdjStepperObjectiveAdjoint - lambda_k += dJ_k/dx_k, grad += dJ_k/dp. @*/
PetscErrorCode AdjStepperObjectiveAdjoint(AdjStepper stepper, AdjStepIndex k, Vec x, Vec lambda);
PetscErrorCode AdjStepperRegularization(AdjStepper stepper, PetscReal *R); /* R(p), grad += dR/dp */
PetscErrorCode AdjStepperHasObjective(AdjStepper stepper, PetscBool *has);
/*@ AdjStepperGetFinalStepObjective - whether the solver says if its objective is tied to the time axis's last
    step (*known), and if so the description of such a term (*term, NULL if none). Runs that stop early
    (-steady_tol) need *known and no such term. Not collective. @*/
PetscErrorCode AdjStepperGetFinalStepObjective(AdjStepper stepper, PetscBool *known, const char **term);
/* What a steady state x* = Phi_k(x*) means for a solver (-adjoint_steady, src/adjoint/steady.c, docs/steady.md),
   given by its optional operation setsteady, which also switches its objective to the steady form:
     J_steady(p) = J_k(Phi_k(x*, p), p) + R(p),
   the objective of a run that sits at x* for ever, as one step's term (a final-time term as it is; a term averaged
   over a window of steps is then taken at one step of the window with the weight of the whole average). */
typedef struct {
  AdjStepIndex k;         /* the step whose objective term is the steady objective */
  const char  *objective; /* NULL, or an objective term with no steady meaning (tied to particular steps): refused */
  const char  *nosteady;  /* NULL, or why the step has no steady state (forcing that depends on time, no damping):
                             refused */
  const char *initial[4]; /* names of the parameter blocks that only set the initial state (NULL-terminated): a
                             unique steady state does not depend on them, so steady gradients refuse them */
} AdjSteadyInfo;
/*@ AdjStepperSetSteady - *known: whether the solver says what a steady state means for it (operation setsteady);
    if so it switches its objective to the steady form (idempotent; for the rest of its life) and fills info as
    above. Not collective. @*/
PetscErrorCode AdjStepperSetSteady(AdjStepper stepper, PetscBool *known, AdjSteadyInfo *info);
/*@ AdjStepperSelectObjective - the objective becomes the solver's output functional `name` alone (flow
    constraints: "lift", "drag", "lift_to_drag"); *known is false (and nothing changes) when the solver has none
    of that name or no such operation; name NULL restores the configured objective. Collective. @*/
PetscErrorCode AdjStepperSelectObjective(AdjStepper stepper, const char name[], PetscBool *known);
/*@ AdjStepperGetShape - the solver's body shape at the current parameters (NULL if it has none or does not
    say) and the parameter block holding the shape's last entries p[np - n..np), n the block's size (the fluid:
    p[3..np), with the chord; the airfoil: p[4..np)). Not collective. @*/
PetscErrorCode AdjStepperGetShape(AdjStepper stepper, const AdjShape **shape, const char **block);
PetscErrorCode AdjStepperZeroGradient(AdjStepper stepper);
PetscErrorCode AdjStepperGetGradient(AdjStepper stepper, Vec g);
/*@ AdjStepperCanSaveGradient - whether a gradient in progress can be saved and continued: the type declares all
    its gradient accumulators (AdjStepperAddGradientVec/Array) and has no zerogradient operation. Collective. @*/
PetscErrorCode AdjStepperCanSaveGradient(AdjStepper stepper, PetscBool *can);
/*@ AdjStepperWriteGradientAccumulators - the declared accumulators as they stand, per rank, under `group` of an
    open output (a stopped gradient run's resume data). Collective. @*/
PetscErrorCode AdjStepperWriteGradientAccumulators(AdjStepper stepper, AdjOutput out, const char group[]);
/*@ AdjStepperReadGradientAccumulators - the accumulators back from `group` of the file path (given by `option`),
    written on the same ranks. Collective. @*/
PetscErrorCode AdjStepperReadGradientAccumulators(AdjStepper stepper, const char path[], const char option[],
                                                  const char group[]);
PetscErrorCode AdjStepperCheckState(AdjStepper stepper, AdjStepIndex k, Vec x); /* NaN/Inf and blow-up guard */
PetscErrorCode AdjStepperWriteFields(AdjStepper stepper, AdjOutput out, Vec x); /* the described output fields */
PetscErrorCode AdjStepperMonitor(AdjStepper stepper, AdjOutput out, AdjStepIndex k, Vec x); /* no-op if absent */
PetscErrorCode AdjStepperWriteParameters(AdjStepper stepper, AdjOutput out);
PetscErrorCode AdjStepperWriteGradient(AdjStepper stepper, AdjOutput out);
/*@ AdjStepperWriteRestart - the state x at step k: standalone PETSC_TRUE writes the restart file,
    PETSC_FALSE the /restart group of the run file. @*/
PetscErrorCode AdjStepperWriteRestart(AdjStepper stepper, AdjOutput out, AdjStepIndex k, Vec x, PetscBool standalone);
PetscErrorCode AdjStepperReadRestart(AdjStepper stepper, const char path[], Vec x, AdjStepIndex *k);
PetscErrorCode AdjStepperReadParameters(AdjStepper stepper, const char path[]); /* a run file's /parameters */
/*@ AdjStepperGetFields - the n described fields of one set (desc may be NULL; else room for n). @*/
PetscErrorCode AdjStepperGetFields(AdjStepper stepper, AdjFieldSet set, PetscInt *n, const AdjFieldDesc **desc);
