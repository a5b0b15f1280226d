/* Scalar transport as an AdjStepper: the ops that connect the physics to the adjoint driver. */
#include "transportimpl.h"
#include <adjsim/stepperimpl.h>
#include <adjsim/io.h>
#include <adjsim/regularization.h>

PetscLogEvent TRANSPORT_Ghosts, TRANSPORT_GhostsAdj, TRANSPORT_Advect, TRANSPORT_AdvectAdj, TRANSPORT_Diffuse,
    TRANSPORT_DiffuseAdj, TRANSPORT_Stage, TRANSPORT_StageAdj, TRANSPORT_Step, TRANSPORT_StepAdj, TRANSPORT_Misfit,
    TRANSPORT_MisfitAdj;

PetscErrorCode TransportRegisterEvents(void)
{
  static PetscBool registered = PETSC_FALSE;
  PetscClassId     id;

  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  registered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("Transport", &id));
  PetscCall(PetscLogEventRegister("TrGhosts", id, &TRANSPORT_Ghosts));
  PetscCall(PetscLogEventRegister("TrGhostsAdj", id, &TRANSPORT_GhostsAdj));
  PetscCall(PetscLogEventRegister("TrAdvect", id, &TRANSPORT_Advect));
  PetscCall(PetscLogEventRegister("TrAdvectAdj", id, &TRANSPORT_AdvectAdj));
  PetscCall(PetscLogEventRegister("TrDiffuse", id, &TRANSPORT_Diffuse));
  PetscCall(PetscLogEventRegister("TrDiffuseAdj", id, &TRANSPORT_DiffuseAdj));
  PetscCall(PetscLogEventRegister("TrStage", id, &TRANSPORT_Stage));
  PetscCall(PetscLogEventRegister("TrStageAdj", id, &TRANSPORT_StageAdj));
  PetscCall(PetscLogEventRegister("TrStep", id, &TRANSPORT_Step));
  PetscCall(PetscLogEventRegister("TrStepAdj", id, &TRANSPORT_StepAdj));
  PetscCall(PetscLogEventRegister("TrMisfit", id, &TRANSPORT_Misfit));
  PetscCall(PetscLogEventRegister("TrMisfitAdj", id, &TRANSPORT_MisfitAdj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportCreateState(void *ctx, Vec *x)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, x));
  PetscCall(PetscObjectSetName((PetscObject)*x, "c"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Packs the active parameter values (gradient = PETSC_FALSE) or their gradients dJ/dvalue
 * (PETSC_TRUE) into a design-space vector.  A constant diffusivity is one number; its gradient sums
 * the field gradient and the uniform-path partial sums (TransportKappaGradientConstant). */
static PetscErrorCode TransportPack(Transport tr, AdjParams params, PetscBool gradient, Vec out)
{
  PetscErrorCode (*field)(AdjParams, const char[], Vec, Vec) =
      gradient ? AdjParamsPackGradientField : AdjParamsPackField;
  PetscErrorCode (*array)(AdjParams, const char[], const PetscReal[], Vec) =
      gradient ? AdjParamsPackGradientArray : AdjParamsPackArray;
  PetscScalar kappa;

  PetscFunctionBeginUser;
  PetscCall(field(params, "initial", gradient ? tr->gc0 : tr->c0, out));
  PetscCall(field(params, "source", gradient ? tr->gsource : tr->source, out));
  if (tr->kappa_is_field)
    PetscCall(field(params, "kappa", gradient ? tr->gkappa : tr->kappa, out));
  else {
    if (gradient)
      PetscCall(TransportKappaGradientConstant(tr, &kappa));
    else
      PetscCall(VecMax(tr->kappa, NULL, &kappa));
    PetscCall(array(params, "kappa", &kappa, out));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportGetParameters(void *ctx, AdjParams params, Vec p)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportPack(tr, params, PETSC_FALSE, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportSetParameters(void *ctx, AdjParams params, Vec p)
{
  Transport tr = (Transport)ctx;
  PetscBool active;
  PetscReal kappa;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsUnpackField(params, "initial", p, tr->c0));
  PetscCall(AdjParamsUnpackField(params, "source", p, tr->source));
  PetscCall(AdjParamsIsActive(params, "source", &tr->need_gsource));
  PetscCall(AdjParamsIsActive(params, "kappa", &active));
  tr->need_gkappa = active;
  if (tr->kappa_is_field)
    PetscCall(AdjParamsUnpackField(params, "kappa", p, tr->kappa));
  else if (active) {
    PetscCall(AdjParamsUnpackArray(params, "kappa", p, &kappa));
    PetscCall(VecSet(tr->kappa, kappa));
  }
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(TransportImplicitUpdateKappa(tr)); /* reassembles the Crank-Nicolson operator */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportInitialState(void *ctx, Vec x0)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecCopy(tr->c0, x0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

static PetscErrorCode TransportObjective(void *ctx, AdjStepIndex k, Vec x, PetscReal *J)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportMisfit(tr, k, x, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportMisfitAdjoint(tr, k, x, lambda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tikhonov terms of the active field parameters. */
static PetscErrorCode TransportRegularization(void *ctx, AdjParams params, PetscReal *R)
{
  Transport tr = (Transport)ctx;
  PetscBool active[3];
  Vec       value[3], grad[3];

  PetscFunctionBeginUser;
  PetscCall(AdjParamsIsActive(params, "initial", &active[0]));
  PetscCall(AdjParamsIsActive(params, "kappa", &active[1]));
  PetscCall(AdjParamsIsActive(params, "source", &active[2]));
  active[1] = (PetscBool)(active[1] && tr->kappa_is_field);
  value[0] = tr->c0, value[1] = tr->kappa, value[2] = tr->source;
  grad[0] = tr->gc0, grad[1] = tr->gkappa, grad[2] = tr->gsource;
  *R = 0;
  for (PetscInt b = 0; b < 3; b++)
    if (active[b])
      PetscCall(AdjTikhonovField(tr->da, tr->grid.h, tr->obj.reg_alpha[b], tr->obj.reg_beta[b], value[b], R, grad[b]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportHasObjective(void *ctx, PetscBool *has)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(tr->obj.nobs > 0 || tr->obj.target);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportZeroGradient(void *ctx)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecSet(tr->gc0, 0.0));
  PetscCall(VecSet(tr->gkappa, 0.0));
  PetscCall(VecSet(tr->gsource, 0.0));
  tr->gkappa_uniform = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportGetGradient(void *ctx, AdjParams params, Vec g)
{
  Transport tr = (Transport)ctx;

  PetscFunctionBeginUser;
  PetscCall(TransportPack(tr, params, PETSC_TRUE, g));
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

static PetscErrorCode TransportWriteFields(void *ctx, AdjOutput out, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteField(out, "c", "1", x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportWriteParameters(void *ctx, AdjParams params, AdjOutput out)
{
  Transport tr = (Transport)ctx;
  PetscReal kappa;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteParameterField(out, "initial", "1", tr->c0));
  PetscCall(AdjOutputWriteParameterField(out, "source", "1/s", tr->source));
  PetscCall(AdjOutputWriteParameterField(out, "velocity_u", "m/s", tr->vel_u));
  PetscCall(AdjOutputWriteParameterField(out, "velocity_v", "m/s", tr->vel_v));
  if (tr->kappa_is_field)
    PetscCall(AdjOutputWriteParameterField(out, "kappa", "m^2/s", tr->kappa));
  else {
    PetscCall(VecMax(tr->kappa, NULL, &kappa));
    PetscCall(AdjOutputWriteParameterArray(out, "kappa", "m^2/s", 1, &kappa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gradients dJ/dvalue (physical units, not scaled) of the active parameters. */
static PetscErrorCode TransportWriteGradient(void *ctx, AdjParams params, AdjOutput out)
{
  Transport   tr = (Transport)ctx;
  PetscBool   active;
  PetscScalar gk;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsIsActive(params, "initial", &active));
  if (active) PetscCall(AdjOutputWriteGradientField(out, "initial", "1/1", tr->gc0));
  PetscCall(AdjParamsIsActive(params, "source", &active));
  if (active) PetscCall(AdjOutputWriteGradientField(out, "source", "s", tr->gsource));
  PetscCall(AdjParamsIsActive(params, "kappa", &active));
  if (active && tr->kappa_is_field)
    PetscCall(AdjOutputWriteGradientField(out, "kappa", "s/m^2", tr->gkappa));
  else if (active) {
    PetscCall(TransportKappaGradientConstant(tr, &gk));
    PetscCall(AdjOutputWriteGradientArray(out, "kappa", "s/m^2", 1, &gk));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportWriteRestart(void *ctx, AdjOutput out, AdjStepIndex k, Vec x, PetscBool standalone)
{
  Transport   tr       = (Transport)ctx;
  const char *names[1] = {"c"};

  PetscFunctionBeginUser;
  if (standalone)
    PetscCall(AdjOutputWriteRestartFile(out, "transport", k, k * tr->dt, 1, names, &x));
  else
    PetscCall(AdjOutputWriteRestart(out, "transport", k, k * tr->dt, 1, names, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TransportReadRestart(void *ctx, const char path[], Vec x, AdjStepIndex *k)
{
  Transport   tr       = (Transport)ctx;
  const char *names[1] = {"c"};
  PetscReal   t;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadRestart(tr->comm, path, "transport", tr->da, 1, names, &x, k, &t));
  PetscCheck(*k >= 0 && *k <= tr->nsteps, tr->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s is at step %" PetscInt64_FMT ", outside 0..%" PetscInt64_FMT " of this run", path,
             (PetscInt64)*k, (PetscInt64)tr->nsteps);
  PetscCheck(PetscAbsReal(t - *k * tr->dt) <= 1e-9 * tr->final_time, tr->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s: step %" PetscInt64_FMT
             " is at time %.12g s there but %.12g s in this run (time step differs)",
             path, (PetscInt64)*k, (double)t, (double)(*k * tr->dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Parameter values from the /parameters group of a run file (e.g. to resume an optimization). */
static PetscErrorCode TransportReadParameters(void *ctx, const char path[])
{
  Transport  tr = (Transport)ctx;
  PetscInt   n;
  PetscReal *kappa;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadField(tr->comm, path, "/parameters/initial", tr->da, tr->c0));
  PetscCall(AdjInputReadField(tr->comm, path, "/parameters/source", tr->da, tr->source));
  if (tr->kappa_is_field)
    PetscCall(AdjInputReadField(tr->comm, path, "/parameters/kappa", tr->da, tr->kappa));
  else {
    PetscCall(AdjInputReadArray(tr->comm, path, "/parameters/kappa", &n, &kappa));
    PetscCheck(n == 1, tr->comm, PETSC_ERR_USER_INPUT,
               "%s: /parameters/kappa holds %" PetscInt_FMT
               " values; this run has a constant diffusivity (give -transport_kappa_file for a field)",
               path, n);
    PetscCall(VecSet(tr->kappa, kappa[0]));
    PetscCall(PetscFree(kappa));
  }
  PetscCall(TransportPrepareKappa(tr));
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

/* The parameter blocks this solver offers; scales default to typical magnitudes so the
 * optimizer sees design variables of order one. */
static PetscErrorCode TransportRegisterParameters(Transport tr, AdjStepper st)
{
  AdjParams params;
  PetscReal kmax;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjParamsAddField(params, "initial", "1", tr->da));
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  if (tr->kappa_is_field)
    PetscCall(AdjParamsAddField(params, "kappa", "m^2/s", tr->da));
  else
    PetscCall(AdjParamsAddArray(params, "kappa", "m^2/s", 1));
  if (kmax > 0) PetscCall(AdjParamsSetScale(params, "kappa", kmax));
  PetscCall(AdjParamsSetBounds(params, "kappa", 0.0, PETSC_INFINITY));
  PetscCall(AdjParamsAddField(params, "source", "1/s", tr->da));
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
  {
    const PetscReal lower[2] = {0, 0}, upper[2] = {tr->grid.L[0], tr->grid.L[1]};
    PetscCall(AdjStepperSetGrid(st, tr->da, lower, upper));
  }
  PetscCall(TransportRegisterParameters(tr, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps TransportOps = {.setfromoptions      = TransportSetFromOptions,
                                           .destroy             = TransportDestroy,
                                           .createstate         = TransportCreateState,
                                           .getparameters       = TransportGetParameters,
                                           .setparameters       = TransportSetParameters,
                                           .initialstate        = TransportInitialState,
                                           .initialstateadjoint = TransportInitialStateAdjoint,
                                           .step                = TransportStep,
                                           .stepadjoint         = TransportStepAdjoint,
                                           .objective           = TransportObjective,
                                           .objectiveadjoint    = TransportObjectiveAdjoint,
                                           .regularization      = TransportRegularization,
                                           .hasobjective        = TransportHasObjective,
                                           .zerogradient        = TransportZeroGradient,
                                           .getgradient         = TransportGetGradient,
                                           .checkstate          = TransportCheckState,
                                           .writefields         = TransportWriteFields,
                                           .writeparameters     = TransportWriteParameters,
                                           .writegradient       = TransportWriteGradient,
                                           .writerestart        = TransportWriteRestart,
                                           .readrestart         = TransportReadRestart,
                                           .readparameters      = TransportReadParameters};

PetscErrorCode AdjStepperCreate_Transport(AdjStepper st)
{
  Transport tr;

  PetscFunctionBeginUser;
  PetscCall(TransportRegisterEvents());
  PetscCall(PetscNew(&tr));
  PetscCall(AdjStepperGetComm(st, &tr->comm));
  PetscCall(AdjStepperSetImplementation(st, tr, &TransportOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TransportGetDM(AdjStepper stepper, DM *da)
{
  Transport tr;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(stepper, &tr));
  *da = tr->da;
  PetscFunctionReturn(PETSC_SUCCESS);
}
