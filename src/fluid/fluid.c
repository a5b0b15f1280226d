/* The fluid solver as an AdjStepper: the ops that connect the physics to the driver (forward
 * step, its exact discrete adjoint, objectives, parameters nu, u0, v0, output and restart). */
#include "fluidimpl.h"
#include <adjsim/io.h>
#include <adjsim/stepperimpl.h>

PetscLogEvent FLUID_Boundary, FLUID_Momentum, FLUID_Divergence, FLUID_Poisson, FLUID_Correct, FLUID_Step;
PetscLogEvent FLUID_MomentumAdj, FLUID_DivergenceAdj, FLUID_CorrectAdj, FLUID_StepAdj, FLUID_Objective,
    FLUID_ObjectiveAdj;

/* Log events of the class Fluid, registered once by the create function. */
static const AdjLogEvent FluidEvents[] = {
    {"FlBoundary", &FLUID_Boundary},       {"FlMomentum", &FLUID_Momentum},
    {"FlDivergence", &FLUID_Divergence},   {"FlPoisson", &FLUID_Poisson},
    {"FlCorrect", &FLUID_Correct},         {"FlStep", &FLUID_Step},
    {"FlMomentumAdj", &FLUID_MomentumAdj}, {"FlDivergenceAdj", &FLUID_DivergenceAdj},
    {"FlCorrectAdj", &FLUID_CorrectAdj},   {"FlStepAdj", &FLUID_StepAdj},
    {"FlObjective", &FLUID_Objective},     {"FlObjectiveAdj", &FLUID_ObjectiveAdj}};

/* The shape parameters of an immersed body in three blocks: position (x0, y0), angle of attack,
 * and the rest (sizes, NACA digits, CST coefficients). */
static const char *const FluidBodyBlocks[3]     = {"body_position", "body_alpha", "body_shape"};
static const PetscInt    FluidBodyBlockStart[3] = {0, 2, 3};

static PetscInt FluidBodyBlockSize(Fluid fl, PetscInt b)
{
  return b < 2 ? 2 - b : fl->body.shape.np - 3;
}

/* Default optimization bounds of the shape entries, inside the range AdjShapeSetUp accepts, so an
 * optimizer's line search cannot ask for an impossible body: sizes > 1e-3 of their value; NACA
 * m in [0, 0.19], p in [0.05, 0.95], t in [0.01, 0.45]; CST coefficients free (crossing surfaces
 * are refused).  -adjoint_lower_body_shape / -adjoint_upper_body_shape override them. */
static PetscErrorCode FluidBodyShapeBounds(Fluid fl, AdjParams params)
{
  const AdjShape *sh = &fl->body.shape;
  const PetscInt  n  = sh->np - 3;
  PetscReal       lo[ADJ_SHAPE_MAX_PARAMS], hi[ADJ_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) lo[i] = PETSC_NINFINITY, hi[i] = PETSC_INFINITY;
  if (sh->type != ADJ_SHAPE_CST)
    for (PetscInt i = 0; i < (sh->type == ADJ_SHAPE_NACA4 ? 1 : n); i++) lo[i] = 1e-3 * sh->p[3 + i];
  else
    lo[0] = 1e-3 * sh->p[3];
  if (sh->type == ADJ_SHAPE_NACA4) {
    lo[1] = 0, hi[1] = 0.19;
    lo[2] = 0.05, hi[2] = 0.95;
    lo[3] = 0.01, hi[3] = 0.45;
  }
  PetscCall(AdjParamsSetBoundsArray(params, "body_shape", lo, hi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new shape: checked (impossible shapes are refused) and the mask recomputed. */
static PetscErrorCode FluidBodyChanged(void *ctx)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjShapeSetUp(fl->comm, &fl->body.shape));
  PetscCall(FluidBodyMask(fl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The side velocities xlo, xhi, ylo, yhi (inflow speed, wall speed). */
static PetscErrorCode FluidBoundaryVelocitiesGet(void *ctx, PetscReal v[])
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < 4; q++) v[q] = fl->grid.bc[q / 2][q % 2].velocity;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New side velocities; the time step must stay within the stability limit of the fastest
 * boundary speed. */
static PetscErrorCode FluidBoundaryVelocitiesSet(void *ctx, PetscReal v[])
{
  Fluid     fl   = (Fluid)ctx;
  PetscReal umax = fl->uscale, limit;

  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < 4; q++) {
    PetscCheck(PetscIsNormalReal(v[q]) || v[q] == 0, fl->comm, PETSC_ERR_USER_INPUT,
               "Boundary velocity %g is not finite", (double)v[q]);
    umax =
        PetscMax(umax, (fl->grid.bc[q / 2][q % 2].profile == FLUID_PROFILE_PARABOLIC ? 1.5 : 1.0) * PetscAbsReal(v[q]));
  }
  PetscCall(FluidStabilityLimit(&fl->grid, fl->nu, umax, umax, &limit));
  PetscCheck(fl->dt <= limit, fl->comm, PETSC_ERR_USER_INPUT,
             "Boundary velocities up to %g m/s make the time step %g s exceed the stability limit %g s", (double)umax,
             (double)fl->dt, (double)limit);
  for (PetscInt q = 0; q < 4; q++) fl->grid.bc[q / 2][q % 2].velocity = v[q];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new viscosity must still satisfy the stability limit of the chosen time step. */
static PetscErrorCode FluidViscosityChanged(void *ctx)
{
  Fluid     fl = (Fluid)ctx;
  PetscReal limit;

  PetscFunctionBeginUser;
  PetscCheck(fl->nu >= 0, fl->comm, PETSC_ERR_USER_INPUT, "Viscosity parameter nu = %g m^2/s is negative",
             (double)fl->nu);
  PetscCall(FluidStabilityLimit(&fl->grid, fl->nu, fl->uscale, fl->uscale, &limit));
  PetscCheck(fl->dt <= limit, fl->comm, PETSC_ERR_USER_INPUT,
             "Viscosity nu = %g m^2/s makes the time step %g s exceed the stability limit %g s", (double)fl->nu,
             (double)fl->dt, (double)limit);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before gradients are packed or written: the rank-local partial sums of dJ/dnu and dJ/d(side
 * velocity) summed over ranks, and the shape gradient (chain rule through the mask). */
static PetscErrorCode FluidGradientSums(void *ctx)
{
  Fluid       fl = (Fluid)ctx;
  PetscScalar gnu;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&fl->gnu_local, &gnu, 1, MPIU_SCALAR, MPIU_SUM, fl->comm));
  fl->gnu = gnu;
  PetscCallMPI(MPI_Allreduce(&fl->gbc_local[0][0], fl->gbc, 4, MPIU_SCALAR, MPIU_SUM, fl->comm));
  if (fl->body.on) PetscCall(FluidBodyShapeGradient(fl, fl->gshape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x0 = P(sampled initial field); p keeps the sampled pressure. */
static PetscErrorCode FluidInitialState(void *ctx, Vec x0)
{
  Fluid fl = (Fluid)ctx;
  Vec   p;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(fl->pda, &p));
  PetscCall(VecStrideGather(fl->x0sample, 2, p, INSERT_VALUES));
  PetscCall(FluidProject(fl, 0.0, fl->x0sample, x0));
  PetscCall(VecStrideScatter(p, 2, x0, INSERT_VALUES));
  PetscCall(DMRestoreGlobalVector(fl->pda, &p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (du0, dv0) += P^T lambda0 (the sampled pressure is not a parameter). */
static PetscErrorCode FluidInitialStateAdjoint(void *ctx, Vec lambda0)
{
  Fluid fl = (Fluid)ctx;
  Vec   c;

  PetscFunctionBeginUser;
  PetscCall(FluidProjectAdjoint(fl, 0.0, lambda0, fl->cbar));
  PetscCall(DMGetGlobalVector(fl->pda, &c));
  PetscCall(VecStrideGather(fl->cbar, 0, c, INSERT_VALUES));
  PetscCall(VecAXPY(fl->gu0, 1.0, c));
  PetscCall(VecStrideGather(fl->cbar, 1, c, INSERT_VALUES));
  PetscCall(VecAXPY(fl->gv0, 1.0, c));
  PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidHasObjective(void *ctx, PetscBool *has)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(fl->obj.w_energy != 0 || fl->obj.w_enstrophy != 0 || fl->obj.nobs > 0 ||
                     FluidObjectiveHasForceWeights(&fl->obj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The energy, enstrophy and force terms are averaged over the window's steps kfirst..klast, clipped at the time
   axis's last step N (and the final step alone without a window): a window reaching N is tied to it, and a run
   stopping earlier (-steady_tol) would average over a different set. Observations are per step. */
static PetscErrorCode FluidObjectiveFinalStep(void *ctx, const char **term)
{
  Fluid     fl = (Fluid)ctx;
  PetscBool averaged =
      (PetscBool)(fl->obj.w_energy != 0 || fl->obj.w_enstrophy != 0 || FluidObjectiveHasForceWeights(&fl->obj));

  PetscFunctionBeginUser;
  *term = averaged && fl->obj.klast == fl->nsteps
              ? "the energy/enstrophy/force objective, averaged over a window that ends at the last step "
                "(-fluid_objective_window t0,t1 with t1 >= the final time, or no window: the final step alone)"
              : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The steady objective (-adjoint_steady): the step is time-invariant, and the energy, enstrophy and force terms
   are averaged over the window's steps (or taken at the final step alone), so at a steady state the average is the
   term of any one step: the window collapses to its last step, klast, with weight 1 (idempotent). Observations are
   snapshots of a transient at particular steps, with no steady meaning. u0, v0 only set the initial state. */
static PetscErrorCode FluidSetSteady(void *ctx, AdjSteadyInfo *info)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  fl->obj.kfirst  = fl->obj.klast;
  fl->obj.nwindow = 1;
  info->k         = fl->obj.klast;
  info->objective = fl->obj.nobs > 0 ? "the misfit to observed velocities at particular steps (-fluid_obs_file)" : NULL;
  info->nosteady  = NULL;
  info->initial[0] = "u0";
  info->initial[1] = "v0";
  info->initial[2] = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Besides the block gradients: the mask sensitivity maps dJ/dchi on u- and v-faces of a body. */
static PetscErrorCode FluidWriteMaskSensitivity(void *ctx, AdjParams params, AdjOutput out)
{
  Fluid fl = (Fluid)ctx;
  Vec   c;

  PetscFunctionBeginUser;
  if (!fl->body.on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMGetGlobalVector(fl->pda, &c));
  for (PetscInt f = 0; f < 2; f++) {
    PetscCall(VecStrideGather(fl->body.chibar, f, c, INSERT_VALUES));
    PetscCall(
        AdjOutputWriteBlockField(out, ADJ_OUTPUT_GRADIENTS, f ? "mask_v" : "mask_u", "objective per unit mask", c));
  }
  PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest face speed with its location (x, y of the face centre), the same on every rank. */
static PetscErrorCode FluidLocateMaxVelocity(Fluid fl, Vec x, PetscReal *vmax, PetscReal loc[2], PetscBool *nan)
{
  const FluidGrid  *g = &fl->grid;
  const FluidCell **a;
  struct {
    double val;
    int    rank;
  } lmax = {-1, 0}, gmax;
  PetscMPIInt rank;
  PetscReal   where[3] = {0, 0, 0};
  PetscInt    lnan     = 0, gnan;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(fl->comm, &rank));
  lmax.rank = rank;
  PetscCall(DMDAVecGetArrayRead(fl->da, x, &a));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++)
      for (PetscInt c = 0; c < 2; c++) {
        const PetscReal s = PetscAbsScalar(c ? a[j][i].v : a[j][i].u);
        if (PetscIsInfOrNanReal(s) && !lnan) {
          lnan = 1, lmax.val = PETSC_MAX_REAL;
          where[0] = c ? (i + 0.5) * g->h[0] : i * g->h[0], where[1] = c ? j * g->h[1] : (j + 0.5) * g->h[1];
        } else if (!lnan && s > lmax.val) {
          lmax.val = s;
          where[0] = c ? (i + 0.5) * g->h[0] : i * g->h[0], where[1] = c ? j * g->h[1] : (j + 0.5) * g->h[1];
        }
      }
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x, &a));
  PetscCallMPI(MPI_Allreduce(&lnan, &gnan, 1, MPIU_INT, MPI_MAX, fl->comm));
  PetscCallMPI(MPI_Allreduce(&lmax, &gmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, fl->comm));
  PetscCallMPI(MPI_Bcast(where, 2, MPIU_REAL, gmax.rank, fl->comm));
  *vmax  = gmax.val;
  loc[0] = where[0], loc[1] = where[1];
  *nan = (PetscBool)(gnan != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stops a run whose state holds NaN/Inf (velocity or pressure) or whose Courant number exceeds
 * -fluid_blowup_cfl, naming the step, the time and the location of the largest velocity. */
static PetscErrorCode FluidCheckState(void *ctx, AdjStepIndex k, Vec x)
{
  Fluid     fl = (Fluid)ctx;
  PetscReal umax, vmax, smax, loc[2], cfl;
  PetscBool nan;

  PetscFunctionBeginUser;
  PetscCall(FluidMaxVelocity(fl, x, &umax, &vmax));
  cfl = fl->dt * (umax / fl->grid.h[0] + vmax / fl->grid.h[1]);
  if (!PetscIsInfOrNanReal(cfl) && cfl <= fl->blowup_cfl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FluidLocateMaxVelocity(fl, x, &smax, loc, &nan));
  PetscCheck(!nan, fl->comm, PETSC_ERR_FP,
             "Fluid velocity became NaN/Inf at step %" PetscInt64_FMT
             " (t = %g s), first at the face at (x, y) = (%g, %g) m; "
             "reduce -fluid_dt or -fluid_cfl, or refine the grid",
             (PetscInt64)k, (double)(k * fl->dt), (double)loc[0], (double)loc[1]);
  SETERRQ(fl->comm, PETSC_ERR_FP,
          "Fluid velocity blew up at step %" PetscInt64_FMT
          " (t = %g s): largest speed %g m/s at the face at (x, y) = (%g, %g) m, "
          "Courant number %g > -fluid_blowup_cfl %g; reduce -fluid_dt or raise -fluid_velocity_scale",
          (PetscInt64)k, (double)(k * fl->dt), (double)smax, (double)loc[0], (double)loc[1], (double)cfl,
          (double)fl->blowup_cfl);
}

/* Output: u, v at cell centres, the pressure, the vorticity (dof-1 fields on the run's grid), the body's
 * mask, and with -fluid_output_faces the face velocities themselves (what a transport run in this flow
 * needs).  Restart: the face velocities and the pressure, bit for bit. */
static const AdjFieldDesc FluidOutputFields[] = {
    {.name = "u", .units = "m/s", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "v", .units = "m/s", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "p", .units = "m^2/s^2", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "vorticity", .units = "1/s", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "mask", .units = "1", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "u_face", .units = "m/s", .location = ADJ_FIELD_FACE_X, .ncomp = 1},
    {.name = "v_face", .units = "m/s", .location = ADJ_FIELD_FACE_Y, .ncomp = 1}};
static const AdjFieldDesc FluidRestartFields[] = {
    {.name = "u", .units = "m/s", .location = ADJ_FIELD_FACE_X, .ncomp = 1},
    {.name = "v", .units = "m/s", .location = ADJ_FIELD_FACE_Y, .ncomp = 1},
    {.name = "p", .units = "m^2/s^2", .location = ADJ_FIELD_CELL, .ncomp = 1}};

static PetscErrorCode FluidDescribeFields(Fluid fl, AdjStepper st)
{
  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < 4; f++) PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &FluidOutputFields[f]));
  if (fl->body.on) PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &FluidOutputFields[4]));
  for (PetscInt f = 5; f < 7 && fl->output_faces; f++)
    PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &FluidOutputFields[f]));
  for (PetscInt f = 0; f < 3; f++) PetscCall(AdjStepperAddField(st, ADJ_FIELDS_RESTART, &FluidRestartFields[f]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cell-centre fields of state x in out[0..3] (one pass over the grid). */
static PetscErrorCode FluidCellCentreFields(Fluid fl, Vec x)
{
  const FluidCell **xa;
  PetscScalar     **f[4];

  PetscFunctionBeginUser;
  PetscCall(FluidGlobalToLocalFilled(fl, x, fl->xloc));
  PetscCall(DMDAVecGetArrayRead(fl->da, fl->xloc, &xa));
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMDAVecGetArray(fl->pda, fl->out[c], &f[c]));
  PetscCall(FluidCellCentre(&fl->grid, xa, f[0], f[1], f[2], f[3]));
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMDAVecRestoreArray(fl->pda, fl->out[c], &f[c]));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, fl->xloc, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidFieldValues(void *ctx, AdjFieldSet set, Vec x, AdjFieldValues values)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  if (set == ADJ_FIELDS_RESTART) {
    for (PetscInt c = 0; c < 3; c++) {
      PetscCall(VecStrideGather(x, c, fl->out[c], INSERT_VALUES));
      PetscCall(AdjFieldValuesSetVec(values, FluidRestartFields[c].name, fl->out[c]));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FluidCellCentreFields(fl, x));
  for (PetscInt c = 0; c < 4; c++) PetscCall(AdjFieldValuesSetVec(values, FluidOutputFields[c].name, fl->out[c]));
  if (fl->body.on) PetscCall(AdjFieldValuesSetVec(values, "mask", fl->body.maskc));
  for (PetscInt c = 0; c < 2 && fl->output_faces; c++) {
    PetscCall(VecStrideGather(x, c, fl->out[4 + c], INSERT_VALUES));
    PetscCall(AdjFieldValuesSetVec(values, FluidOutputFields[5 + c].name, fl->out[4 + c]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state from the restart fields u, v, p just read into out[0..2]. */
static PetscErrorCode FluidRestartState(void *ctx, AdjFieldValues values, Vec x)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecStrideScatter(fl->out[c], c, x, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidDestroy(AdjStepper st)
{
  Fluid fl;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &fl));
  PetscCall(FluidPoissonDestroy(fl));
  PetscCall(FluidObjectiveDestroy(fl));
  PetscCall(FluidBodyDestroy(fl));
  PetscCall(VecDestroy(&fl->xloc));
  PetscCall(VecDestroy(&fl->xbloc));
  PetscCall(VecDestroy(&fl->sbar));
  PetscCall(VecDestroy(&fl->cbar));
  PetscCall(VecDestroy(&fl->x0sample));
  PetscCall(VecDestroy(&fl->gu0));
  PetscCall(VecDestroy(&fl->gv0));
  PetscCall(VecDestroy(&fl->combo));
  for (PetscInt s = 0; s < 2; s++) PetscCall(VecDestroy(&fl->stage[s]));
  for (PetscInt s = 0; s < 3; s++) PetscCall(VecDestroy(&fl->stageloc[s]));
  for (PetscInt c = 0; c < 6; c++) PetscCall(VecDestroy(&fl->out[c]));
  PetscCall(DMDestroy(&fl->pda));
  PetscCall(DMDestroy(&fl->da));
  PetscCall(PetscFree(fl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidCreateWork(Fluid fl)
{
  PetscFunctionBeginUser;
  PetscCall(DMCreateLocalVector(fl->da, &fl->xloc));
  PetscCall(VecSet(fl->xloc, 0.0));
  PetscCall(DMCreateGlobalVector(fl->da, &fl->combo));
  for (PetscInt s = 0; s < 2; s++) PetscCall(VecDuplicate(fl->combo, &fl->stage[s]));
  /* ghosts outside the box that no rule fills stay 0 (the momentum adjoint multiplies them by 0) */
  for (PetscInt s = 0; s < 3; s++) {
    PetscCall(VecDuplicate(fl->xloc, &fl->stageloc[s]));
    PetscCall(VecSet(fl->stageloc[s], 0.0));
  }
  for (PetscInt c = 0; c < (fl->output_faces ? 6 : 4); c++) PetscCall(DMCreateGlobalVector(fl->pda, &fl->out[c]));
  PetscCall(DMCreateLocalVector(fl->da, &fl->xbloc));
  PetscCall(VecDuplicate(fl->combo, &fl->sbar));
  PetscCall(VecDuplicate(fl->combo, &fl->cbar));
  PetscCall(VecDuplicate(fl->combo, &fl->x0sample));
  PetscCall(DMCreateGlobalVector(fl->pda, &fl->gu0));
  PetscCall(VecDuplicate(fl->gu0, &fl->gv0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameter blocks: nu, bc_velocity (xlo, xhi, ylo, yhi: inflow or wall speed), the initial
 * face velocities u0 and v0 (fields, with Tikhonov regularization on request), and a body's
 * position, angle of attack and shape. */
static PetscErrorCode FluidRegisterParameters(Fluid fl, AdjParams params)
{
  const Vec grad[2] = {fl->gu0, fl->gv0};

  PetscFunctionBeginUser;
  PetscCall(AdjParamsAddArray(params, "nu", "m^2/s", 1));
  PetscCall(AdjParamsSetArrayStorage(params, "nu", &fl->nu, &fl->gnu));
  PetscCall(AdjParamsSetGradientUnits(params, "nu", "objective per m^2/s"));
  PetscCall(AdjParamsSetChangeHook(params, "nu", FluidViscosityChanged, fl));
  if (fl->nu > 0) PetscCall(AdjParamsSetScale(params, "nu", fl->nu));
  PetscCall(AdjParamsSetBounds(params, "nu", 0.0, PETSC_INFINITY));
  PetscCall(AdjParamsAddArray(params, "bc_velocity", "m/s", 4));
  PetscCall(
      AdjParamsSetArrayAccess(params, "bc_velocity", FluidBoundaryVelocitiesGet, FluidBoundaryVelocitiesSet, NULL, fl));
  PetscCall(AdjParamsSetArrayStorage(params, "bc_velocity", NULL, fl->gbc));
  PetscCall(AdjParamsSetGradientUnits(params, "bc_velocity", "objective per m/s"));
  PetscCall(AdjParamsSetScale(params, "bc_velocity", fl->uscale));
  for (PetscInt f = 0; f < 2; f++) {
    const char *name = f ? "v0" : "u0";
    PetscCall(AdjParamsAddField(params, name, "m/s", fl->pda));
    /* u0, v0: the face velocities of the sampled initial state (components 0 and 1: each cell's left
     * x-face, bottom y-face) before the projection */
    PetscCall(AdjParamsSetFieldStride(params, name, fl->x0sample, f, grad[f]));
    PetscCall(AdjParamsSetGradientUnits(params, name, "m s^-1 per (m/s)"));
    PetscCall(AdjParamsSetFieldSpacing(params, name, fl->grid.h));
    PetscCall(AdjParamsSetScale(params, name, fl->uscale));
  }
  for (PetscInt b = 0; b < 3 && fl->body.on; b++) {
    const char *name = FluidBodyBlocks[b];
    PetscCall(AdjParamsAddArray(params, name, b == 1 ? "deg" : "m or 1", FluidBodyBlockSize(fl, b)));
    PetscCall(AdjParamsSetArrayStorage(params, name, fl->body.shape.p + FluidBodyBlockStart[b],
                                       fl->gshape + FluidBodyBlockStart[b]));
    PetscCall(AdjParamsSetGradientUnits(params, name, "objective per parameter unit"));
    PetscCall(AdjParamsSetChangeHook(params, name, FluidBodyChanged, fl));
    if (b == 0) PetscCall(AdjParamsSetScale(params, name, fl->body.lref));
  }
  if (fl->body.on) PetscCall(FluidBodyShapeBounds(fl, params));
  PetscCall(AdjParamsSetGradientHook(params, FluidGradientSums, fl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the case from the options database (with the stepper's prefix) and builds the solver. */
static PetscErrorCode FluidSetFromOptions(AdjStepper st)
{
  Fluid     fl;
  AdjParams params;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &fl));
  PetscCall(AdjStepperGetOptionsPrefix(st, &fl->prefix));
  PetscCall(FluidSetUpGrid(fl));
  PetscCall(FluidSetUpPhysics(fl));
  PetscCall(FluidCreateWork(fl));
  PetscCall(FluidSetUpTime(fl));
  PetscCall(FluidPoissonSetUp(fl));
  PetscCall(FluidFillInitial(fl, fl->x0sample));
  PetscCall(FluidBodySetUp(fl));
  PetscCall(FluidObjectiveSetUp(fl));
  PetscCall(AdjStepperSetTimes(st, fl->nsteps, fl->dt));
  PetscCall(AdjStepperSetStateTemplate(st, fl->x0sample, "fluid_state"));
  {
    const PetscReal lower[2] = {0, 0}, upper[2] = {fl->grid.L[0], fl->grid.L[1]};
    PetscCall(AdjStepperSetGrid(st, fl->pda, lower, upper));
  }
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(FluidRegisterParameters(fl, params));
  /* what the adjoint adds to: zeroed before each gradient, saved when a gradient run stops */
  PetscCall(AdjStepperAddGradientArray(st, "nu", &fl->gnu_local, 1));
  PetscCall(AdjStepperAddGradientArray(st, "bc_velocity", &fl->gbc_local[0][0], 4));
  PetscCall(AdjStepperAddGradientVec(st, "u0", fl->gu0));
  PetscCall(AdjStepperAddGradientVec(st, "v0", fl->gv0));
  if (fl->body.on) PetscCall(AdjStepperAddGradientVec(st, "mask", fl->body.chibar));
  PetscCall(FluidDescribeFields(fl, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The immersed body for geometric design constraints: its shape entries past x0, y0, alpha are "body_shape". */
static PetscErrorCode FluidGetShape(void *ctx, const AdjShape **shape, const char **block)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  *shape = fl->body.on ? &fl->body.shape : NULL;
  *block = FluidBodyBlocks[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps FluidOps = {
    .setfromoptions      = FluidSetFromOptions,
    .destroy             = FluidDestroy,
    .initialstate        = FluidInitialState,
    .initialstateadjoint = FluidInitialStateAdjoint,
    .step                = FluidStepRK3,
    .stepadjoint         = FluidStepRK3Adjoint,
    .objective           = FluidObjectiveEvaluate,
    .objectiveadjoint    = FluidObjectiveAdjoint,
    .hasobjective        = FluidHasObjective,
    .objectivefinalstep  = FluidObjectiveFinalStep,
    .setsteady           = FluidSetSteady,
    .checkstate          = FluidCheckState,
    .fieldvalues         = FluidFieldValues,
    .restartstate        = FluidRestartState,
    .monitor             = FluidBodyMonitor,
    .writegradient       = FluidWriteMaskSensitivity,
    .selectobjective     = FluidObjectiveSelect,
    .getshape            = FluidGetShape,
};

PetscErrorCode AdjStepperCreate_Fluid(AdjStepper st)
{
  Fluid fl;

  PetscFunctionBeginUser;
  PetscCall(AdjLogRegisterEvents("Fluid", ADJ_NUM_EVENTS(FluidEvents), FluidEvents));
  PetscCall(PetscNew(&fl));
  PetscCall(AdjStepperGetComm(st, &fl->comm));
  PetscCall(AdjStepperSetImplementation(st, fl, &FluidOps));
  /* the RK3 adjoint reads the stages and masks the step stored and writes only its own work vectors (the force
     weights it resets are the objective's, not the step's): test steady_adjoint_fluid */
  PetscCall(AdjStepperSetAdjointKeepsStep(st, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FluidGetStateDM(AdjStepper stepper, DM *da)
{
  Fluid fl;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(stepper, &fl));
  *da = fl->da;
  PetscFunctionReturn(PETSC_SUCCESS);
}
