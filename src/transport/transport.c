/* Scalar transport as an AdjStepper: the ops that connect the physics to the adjoint driver. */
#include "transportimpl.h"
#include <adjsim/stepperimpl.h>
#include <adjsim/io.h>
#include <adjsim/regularization.h>

PetscLogEvent TRANSPORT_Ghosts, TRANSPORT_GhostsAdj, TRANSPORT_Advect, TRANSPORT_AdvectAdj, TRANSPORT_Diffuse,
    TRANSPORT_DiffuseAdj, TRANSPORT_Stage, TRANSPORT_StageAdj, TRANSPORT_Step, TRANSPORT_StepAdj, TRANSPORT_Misfit,
    TRANSPORT_MisfitAdj;

/* Log events of the class Transport, registered once by the create function. */
static const AdjLogEvent TransportEvents[] = {
    {"TrGhosts", &TRANSPORT_Ghosts},   {"TrGhostsAdj", &TRANSPORT_GhostsAdj},
    {"TrAdvect", &TRANSPORT_Advect},   {"TrAdvectAdj", &TRANSPORT_AdvectAdj},
    {"TrDiffuse", &TRANSPORT_Diffuse}, {"TrDiffuseAdj", &TRANSPORT_DiffuseAdj},
    {"TrStage", &TRANSPORT_Stage},     {"TrStageAdj", &TRANSPORT_StageAdj},
    {"TrStep", &TRANSPORT_Step},       {"TrStepAdj", &TRANSPORT_StepAdj},
    {"TrMisfit", &TRANSPORT_Misfit},   {"TrMisfitAdj", &TRANSPORT_MisfitAdj}};

static PetscErrorCode TransportInitialStateAdjoint(void *ctx, Vec lambda0)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecAXPY(tr->gc0, 1.0, lambda0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportStep(void *ctx, AdjStepIndex k, Vec xin, Vec xout)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportVelocityAtStep(tr, k));
  PetscCall(TransportStepAdvance(tr, xin, xout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportStepAdjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportVelocityAtStep(tr, k));
  PetscCall(TransportStepAdvanceAdjoint(tr, xin, lout, lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportHasObjective(void *ctx, PetscBool *has)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(tr->obj.nobs > 0 || tr->obj.target);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final-time target is evaluated at the time axis's last step N: a run stopping earlier (-steady_tol) misses it. */
static PetscErrorCode TransportObjectiveFinalStep(void *ctx, const char **term)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  *term = tr->obj.target ? "the final-time target (-transport_target_file)" : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The steady objective (-adjoint_steady): the final-time target at the last step, as it is. Observations are
   snapshots of a transient at particular steps; a velocity interpolated in time between a fluid run's output steps
   makes the step depend on k. The initial field only sets the initial state. */
static PetscErrorCode TransportSetSteady(void *ctx, AdjSteadyInfo *info)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  info->k          = tr->nsteps;
  info->objective  = tr->obj.nobs > 0 ? "the misfit to observations at particular steps (-transport_obs_file)" : NULL;
  info->nosteady   = tr->unsteady.n ? "the velocity changes with time (-transport_velocity_unsteady)" : NULL;
  info->initial[0] = "initial";
  info->initial[1] = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stops a run whose state holds NaN or Inf, naming the step, time and the first bad cell. */
static PetscErrorCode TransportCheckState(void *ctx, AdjStepIndex k, Vec x)
{
  Transport          tr = (Transport)ctx;
  const PetscScalar *a;
  PetscInt           n, rstart, bad = PETSC_MAX_INT, gbad;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(VecGetArrayRead(x, &a));
  {
    /* x - x is 0 for every finite x and NaN for NaN or Inf: one vectorizable pass, and the
     * search for the first bad cell only when there is one */
    PetscScalar probe = 0;
    for (PetscInt i = 0; i < n; i++) probe += a[i] - a[i];
    if (probe != 0 || PetscIsInfOrNanScalar(probe))
      for (PetscInt i = 0; i < n; i++)
        if (PetscIsInfOrNanScalar(a[i])) {
          bad = rstart + i;
          break;
        }
  }
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCallMPI(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_MIN, tr->comm));
  if (gbad != PETSC_MAX_INT) {
    AO       ao;
    PetscInt nat = gbad;
    PetscCall(DMDAGetAO(tr->da, &ao));
    PetscCall(AOPetscToApplication(ao, 1, &nat));
    SETERRQ(tr->comm, PETSC_ERR_FP,
            "Scalar field became NaN/Inf at step %" PetscInt64_FMT " (t = %g s), first at cell (i,j) = (%" PetscInt_FMT
            ",%" PetscInt_FMT "); check the time step, the diffusivity and the input fields",
            (PetscInt64)k, (double)(k * tr->dt), nat % tr->grid.M[0], nat / tr->grid.M[0]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The output and the restart state are the concentration c itself. */
static const AdjFieldDesc TransportFieldC = {.name = "c", .units = "1", .location = ADJ_FIELD_CELL, .ncomp = 1};

static PetscErrorCode TransportFieldValues(void *ctx, AdjFieldSet set, Vec x, AdjFieldValues values)
{
  PetscFunctionBeginUser;
  PetscCall(AdjFieldValuesSetVec(values, "c", x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Besides the parameter blocks, /parameters holds the prescribed velocity (cell-centred components). */
static PetscErrorCode TransportWriteVelocity(void *ctx, AdjParams params, AdjOutput out)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteBlockField(out, ADJ_OUTPUT_PARAMETERS, "velocity_u", "m/s", tr->vel_u));
  PetscCall(AdjOutputWriteBlockField(out, ADJ_OUTPUT_PARAMETERS, "velocity_v", "m/s", tr->vel_v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportDestroy(AdjStepper st)
{
  Transport tr;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &tr));
  PetscCall(TransportObjectiveDestroy(tr));
  PetscCall(TransportImplicitDestroy(tr));
  PetscCall(PetscFree2(tr->vel.u, tr->vel.v));
  PetscCall(PetscFree2(tr->unsteady.u, tr->unsteady.v));
  PetscCall(PetscFree(tr->unsteady.times));
  PetscCall(VecDestroy(&tr->c0));
  PetscCall(VecDestroy(&tr->kappa));
  PetscCall(VecDestroy(&tr->source));
  PetscCall(VecDestroy(&tr->gc0));
  PetscCall(VecDestroy(&tr->gkappa));
  PetscCall(VecDestroy(&tr->gsource));
  PetscCall(VecDestroy(&tr->vel_u));
  PetscCall(VecDestroy(&tr->vel_v));
  PetscCall(VecDestroy(&tr->cloc));
  PetscCall(VecDestroy(&tr->kloc));
  PetscCall(VecDestroy(&tr->lloc));
  PetscCall(VecDestroy(&tr->klloc));
  PetscCall(VecDestroy(&tr->rhs));
  PetscCall(VecDestroy(&tr->rbar));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(VecDestroy(&tr->stage[s]));
    PetscCall(VecDestroy(&tr->lstage[s]));
  }
  for (PetscInt s = 0; s < 3; s++) PetscCall(VecDestroy(&tr->sloc[s]));
  PetscCall(DMDestroy(&tr->da));
  PetscCall(PetscFree(tr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportCreateWork(Transport tr)
{
  PetscFunctionBeginUser;
  PetscCall(DMCreateLocalVector(tr->da, &tr->cloc));
  PetscCall(VecDuplicate(tr->cloc, &tr->kloc));
  PetscCall(VecDuplicate(tr->cloc, &tr->lloc));
  PetscCall(VecDuplicate(tr->cloc, &tr->klloc));
  PetscCall(VecSet(tr->cloc, 0.0)); /* corner ghosts are never read but keep them defined */
  PetscCall(VecSet(tr->kloc, 0.0));
  PetscCall(DMCreateGlobalVector(tr->da, &tr->rhs));
  PetscCall(VecDuplicate(tr->rhs, &tr->rbar));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(VecDuplicate(tr->rhs, &tr->stage[s]));
    PetscCall(VecDuplicate(tr->rhs, &tr->lstage[s]));
  }
  for (PetscInt s = 0; s < 3; s++) {
    PetscCall(VecDuplicate(tr->cloc, &tr->sloc[s]));
    PetscCall(VecSet(tr->sloc[s], 0.0)); /* corner ghosts are never read but keep them defined */
  }
  tr->need_gkappa  = PETSC_TRUE; /* until parameters say otherwise: every gradient */
  tr->need_gsource = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A constant diffusivity is one number: the value of the uniform field kappa; its gradient sums the
 * field gradient and the uniform-path partial sums (TransportKappaGradientConstant). */
static PetscErrorCode TransportKappaGet(void *ctx, PetscReal v[])
{
  Transport   tr = (Transport)ctx;
  PetscScalar kappa;

  PetscFunctionBeginUser;
  PetscCall(VecMax(tr->kappa, NULL, &kappa));
  v[0] = kappa;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportKappaSet(void *ctx, PetscReal v[])
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecSet(tr->kappa, v[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportKappaGradient(void *ctx, PetscReal g[])
{
  Transport   tr = (Transport)ctx;
  PetscScalar gk;

  PetscFunctionBeginUser;
  PetscCall(TransportKappaGradientConstant(tr, &gk));
  g[0] = gk;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New diffusivities: face values and the Crank-Nicolson operator follow. */
static PetscErrorCode TransportKappaChanged(void *ctx)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(TransportImplicitUpdateKappa(tr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A field block on the grid with its storage, gradient units and Tikhonov weights. */
static PetscErrorCode TransportAddField(Transport tr, AdjParams params, PetscInt b, const char name[],
                                        const char units[], const char gunits[], Vec value, Vec gradient)
{
  const PetscReal h[2] = {tr->grid.h[0], tr->grid.h[1]};

  PetscFunctionBeginUser;
  PetscCall(AdjParamsAddField(params, name, units, tr->da));
  PetscCall(AdjParamsSetFieldStorage(params, name, value, gradient));
  PetscCall(AdjParamsSetGradientUnits(params, name, gunits));
  PetscCall(AdjParamsSetFieldSpacing(params, name, h));
  PetscCall(AdjParamsSetRegularization(params, name, tr->obj.reg_alpha[b], tr->obj.reg_beta[b]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameter blocks this solver offers: initial field, diffusivity (a field or one constant),
 * source field; scales default to typical magnitudes so the optimizer sees design variables of
 * order one. */
static PetscErrorCode TransportRegisterParameters(Transport tr, AdjStepper st)
{
  AdjParams params;
  PetscReal kmax;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(TransportAddField(tr, params, 0, "initial", "1", "1/1", tr->c0, tr->gc0));
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  if (tr->kappa_is_field)
    PetscCall(TransportAddField(tr, params, 1, "kappa", "m^2/s", "s/m^2", tr->kappa, tr->gkappa));
  else {
    PetscCall(AdjParamsAddArray(params, "kappa", "m^2/s", 1));
    PetscCall(
        AdjParamsSetArrayAccess(params, "kappa", TransportKappaGet, TransportKappaSet, TransportKappaGradient, tr));
    PetscCall(AdjParamsSetGradientUnits(params, "kappa", "s/m^2"));
  }
  PetscCall(AdjParamsSetChangeHook(params, "kappa", TransportKappaChanged, tr));
  if (kmax > 0) PetscCall(AdjParamsSetScale(params, "kappa", kmax));
  PetscCall(AdjParamsSetBounds(params, "kappa", 0.0, PETSC_INFINITY));
  PetscCall(TransportAddField(tr, params, 2, "source", "1/s", "s", tr->source, tr->gsource));
  /* what the adjoint adds to: zeroed before each gradient, saved when a gradient run stops */
  PetscCall(AdjStepperAddGradientVec(st, "initial", tr->gc0));
  PetscCall(AdjStepperAddGradientVec(st, "kappa", tr->gkappa));
  PetscCall(AdjStepperAddGradientArray(st, "kappa_uniform", &tr->gkappa_uniform, 1));
  PetscCall(AdjStepperAddGradientVec(st, "source", tr->gsource));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gradients are computed only for the active blocks. */
static PetscErrorCode TransportSetUp(AdjStepper st)
{
  Transport tr;
  AdjParams params;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &tr));
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjParamsIsActive(params, "source", &tr->need_gsource));
  PetscCall(AdjParamsIsActive(params, "kappa", &tr->need_gkappa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the case from the options database (with the stepper's prefix) and builds the solver. */
static PetscErrorCode TransportSetFromOptions(AdjStepper st)
{
  Transport tr;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &tr));
  PetscCall(AdjStepperGetOptionsPrefix(st, &tr->prefix));
  PetscCall(TransportSetUpGrid(tr));
  PetscCall(TransportSetUpVelocity(tr));
  PetscCall(TransportSetUpParameters(tr));
  PetscCall(TransportCreateWork(tr));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(TransportImplicitSetFromOptions(tr));
  PetscCall(TransportSetUpTime(tr));
  PetscCall(TransportCheckBoundaryPeclet(tr));
  PetscCall(TransportObjectiveSetUp(tr));
  PetscCall(AdjStepperSetTimes(st, tr->nsteps, tr->dt));
  PetscCall(AdjStepperSetStateTemplate(st, tr->c0, "c"));
  PetscCall(AdjStepperSetInitialStateVec(st, tr->c0));
  {
    const PetscReal lower[2] = {0, 0}, upper[2] = {tr->grid.L[0], tr->grid.L[1]};
    PetscCall(AdjStepperSetGrid(st, tr->da, lower, upper));
  }
  PetscCall(TransportRegisterParameters(tr, st));
  PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &TransportFieldC));
  PetscCall(AdjStepperAddField(st, ADJ_FIELDS_RESTART, &TransportFieldC));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps TransportOps = {
    .setfromoptions      = TransportSetFromOptions,
    .setup               = TransportSetUp,
    .destroy             = TransportDestroy,
    .initialstateadjoint = TransportInitialStateAdjoint,
    .step                = TransportStep,
    .stepadjoint         = TransportStepAdjoint,
    .objective           = TransportMisfit,
    .objectiveadjoint    = TransportMisfitAdjoint,
    .hasobjective        = TransportHasObjective,
    .objectivefinalstep  = TransportObjectiveFinalStep,
    .setsteady           = TransportSetSteady,
    .checkstate          = TransportCheckState,
    .fieldvalues         = TransportFieldValues,
    .writeparameters     = TransportWriteVelocity,
};

PetscErrorCode AdjStepperCreate_Transport(AdjStepper st)
{
  Transport tr;

  PetscFunctionBeginUser;
  PetscCall(AdjLogRegisterEvents("Transport", ADJ_NUM_EVENTS(TransportEvents), TransportEvents));
  PetscCall(PetscNew(&tr));
  PetscCall(AdjStepperGetComm(st, &tr->comm));
  PetscCall(AdjStepperSetImplementation(st, tr, &TransportOps));
  /* the adjoint recomputes the velocity of step k and reads only xin: test steady_adjoint_transport */
  PetscCall(AdjStepperSetAdjointKeepsStep(st, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
