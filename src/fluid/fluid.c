/* The fluid solver as an AdjStepper: the ops that connect the physics to the driver (forward
 * step, its exact discrete adjoint, objectives, parameters nu, u0, v0, output and restart). */
#include "fluidimpl.h"
#include <adjsim/io.h>
#include <adjsim/stepperimpl.h>

PetscLogEvent FLUID_Boundary, FLUID_Momentum, FLUID_Divergence, FLUID_Poisson, FLUID_Correct, FLUID_Step;
PetscLogEvent FLUID_MomentumAdj, FLUID_DivergenceAdj, FLUID_CorrectAdj, FLUID_StepAdj, FLUID_Objective,
    FLUID_ObjectiveAdj;

PetscErrorCode FluidRegisterEvents(void)
{
  static PetscBool registered = PETSC_FALSE;
  PetscClassId     id;

  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  registered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("Fluid", &id));
  PetscCall(PetscLogEventRegister("FlBoundary", id, &FLUID_Boundary));
  PetscCall(PetscLogEventRegister("FlMomentum", id, &FLUID_Momentum));
  PetscCall(PetscLogEventRegister("FlDivergence", id, &FLUID_Divergence));
  PetscCall(PetscLogEventRegister("FlPoisson", id, &FLUID_Poisson));
  PetscCall(PetscLogEventRegister("FlCorrect", id, &FLUID_Correct));
  PetscCall(PetscLogEventRegister("FlStep", id, &FLUID_Step));
  PetscCall(PetscLogEventRegister("FlMomentumAdj", id, &FLUID_MomentumAdj));
  PetscCall(PetscLogEventRegister("FlDivergenceAdj", id, &FLUID_DivergenceAdj));
  PetscCall(PetscLogEventRegister("FlCorrectAdj", id, &FLUID_CorrectAdj));
  PetscCall(PetscLogEventRegister("FlStepAdj", id, &FLUID_StepAdj));
  PetscCall(PetscLogEventRegister("FlObjective", id, &FLUID_Objective));
  PetscCall(PetscLogEventRegister("FlObjectiveAdj", id, &FLUID_ObjectiveAdj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidCreateState(void *ctx, Vec *x)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(fl->da, x));
  PetscCall(PetscObjectSetName((PetscObject)*x, "fluid_state"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
static PetscErrorCode FluidBodyUnpack(Fluid fl, AdjParams params, Vec p)
{
  PetscBool any = PETSC_FALSE, active;

  PetscFunctionBeginUser;
  if (!fl->body.on) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < 3; b++) {
    PetscCall(AdjParamsIsActive(params, FluidBodyBlocks[b], &active));
    if (active)
      PetscCall(AdjParamsUnpackArray(params, FluidBodyBlocks[b], p, fl->body.shape.p + FluidBodyBlockStart[b]));
    any = (PetscBool)(any || active);
  }
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjShapeSetUp(fl->comm, &fl->body.shape));
  PetscCall(FluidBodyMask(fl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dJ/d(side velocity) for xlo, xhi, ylo, yhi (the same on every rank). */
static PetscErrorCode FluidBoundaryGradient(Fluid fl, PetscScalar g[4])
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&fl->gbc_local[0][0], g, 4, MPIU_SCALAR, MPIU_SUM, fl->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New side velocities (inflow speed, wall speed); the time step must stay within the stability
 * limit of the fastest boundary speed. */
static PetscErrorCode FluidSetBoundaryVelocities(Fluid fl, const PetscReal v[4])
{
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

/* Parameter blocks: "nu" (one value), "u0" and "v0" (the initial face velocities before the
 * projection, fields laid out like the state: u of each cell's left face, v of its bottom face). */
static PetscErrorCode FluidPack(Fluid fl, AdjParams params, PetscBool gradient, Vec p)
{
  PetscScalar gnu, gbc[4];
  PetscReal   bcv[4];
  Vec         c;

  PetscFunctionBeginUser;
  if (gradient) {
    PetscCallMPI(MPI_Allreduce(&fl->gnu_local, &gnu, 1, MPIU_SCALAR, MPIU_SUM, fl->comm));
    PetscCall(AdjParamsPackGradientArray(params, "nu", &gnu, p));
    PetscCall(FluidBoundaryGradient(fl, gbc));
    PetscCall(AdjParamsPackGradientArray(params, "bc_velocity", gbc, p));
    PetscCall(AdjParamsPackGradientField(params, "u0", fl->gu0, p));
    PetscCall(AdjParamsPackGradientField(params, "v0", fl->gv0, p));
    if (fl->body.on) {
      PetscReal gs[ADJ_SHAPE_MAX_PARAMS];
      PetscCall(FluidBodyShapeGradient(fl, gs));
      for (PetscInt b = 0; b < 3; b++)
        PetscCall(AdjParamsPackGradientArray(params, FluidBodyBlocks[b], gs + FluidBodyBlockStart[b], p));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (fl->body.on)
    for (PetscInt b = 0; b < 3; b++)
      PetscCall(AdjParamsPackArray(params, FluidBodyBlocks[b], fl->body.shape.p + FluidBodyBlockStart[b], p));
  PetscCall(AdjParamsPackArray(params, "nu", &fl->nu, p));
  for (PetscInt q = 0; q < 4; q++) bcv[q] = fl->grid.bc[q / 2][q % 2].velocity;
  PetscCall(AdjParamsPackArray(params, "bc_velocity", bcv, p));
  PetscCall(DMGetGlobalVector(fl->pda, &c));
  for (PetscInt f = 0; f < 2; f++) {
    PetscCall(VecStrideGather(fl->x0sample, f, c, INSERT_VALUES));
    PetscCall(AdjParamsPackField(params, f ? "v0" : "u0", c, p));
  }
  PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidGetParameters(void *ctx, AdjParams params, Vec p)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidPack(fl, params, PETSC_FALSE, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new viscosity must still satisfy the stability limit of the chosen time step. */
static PetscErrorCode FluidSetViscosity(Fluid fl, PetscReal nu)
{
  PetscReal limit;

  PetscFunctionBeginUser;
  PetscCheck(nu >= 0, fl->comm, PETSC_ERR_USER_INPUT, "Viscosity parameter nu = %g m^2/s is negative", (double)nu);
  PetscCall(FluidStabilityLimit(&fl->grid, nu, fl->uscale, fl->uscale, &limit));
  PetscCheck(fl->dt <= limit, fl->comm, PETSC_ERR_USER_INPUT,
             "Viscosity nu = %g m^2/s makes the time step %g s exceed the stability limit %g s", (double)nu,
             (double)fl->dt, (double)limit);
  fl->nu = nu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidSetParameters(void *ctx, AdjParams params, Vec p)
{
  Fluid     fl = (Fluid)ctx;
  PetscBool active;
  PetscReal nu;
  Vec       c;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsIsActive(params, "nu", &active));
  if (active) {
    PetscCall(AdjParamsUnpackArray(params, "nu", p, &nu));
    PetscCall(FluidSetViscosity(fl, nu));
  }
  PetscCall(AdjParamsIsActive(params, "bc_velocity", &active));
  if (active) {
    PetscReal v[4];
    PetscCall(AdjParamsUnpackArray(params, "bc_velocity", p, v));
    PetscCall(FluidSetBoundaryVelocities(fl, v));
  }
  PetscCall(DMGetGlobalVector(fl->pda, &c));
  for (PetscInt f = 0; f < 2; f++) {
    PetscCall(AdjParamsIsActive(params, f ? "v0" : "u0", &active));
    if (!active) continue;
    PetscCall(AdjParamsUnpackField(params, f ? "v0" : "u0", p, c));
    PetscCall(VecStrideScatter(c, f, fl->x0sample, INSERT_VALUES));
  }
  PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  PetscCall(FluidBodyUnpack(fl, params, p));
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

static PetscErrorCode FluidStep(void *ctx, AdjStepIndex k, Vec xin, Vec xout)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidStepRK3(fl, k, xin, xout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidStepAdjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidStepRK3Adjoint(fl, k, xin, lout, lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidObjectiveOp(void *ctx, AdjStepIndex k, Vec x, PetscReal *J)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidObjectiveEvaluate(fl, k, x, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidObjectiveAdjointOp(void *ctx, AdjStepIndex k, Vec x, Vec lambda)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidObjectiveAdjoint(fl, k, x, lambda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidHasObjective(void *ctx, PetscBool *has)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(fl->obj.w_energy != 0 || fl->obj.w_enstrophy != 0 || fl->obj.nobs > 0 || fl->obj.w_drag != 0 ||
                     fl->obj.w_lift != 0 || fl->obj.w_ld != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidZeroGradient(void *ctx)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  fl->gnu_local = 0;
  for (PetscInt q = 0; q < 4; q++) fl->gbc_local[q / 2][q % 2] = 0;
  PetscCall(VecSet(fl->gu0, 0.0));
  PetscCall(VecSet(fl->gv0, 0.0));
  if (fl->body.on) PetscCall(VecSet(fl->body.chibar, 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidGetGradient(void *ctx, AdjParams params, Vec g)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidPack(fl, params, PETSC_TRUE, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sensitivity maps dJ/du0, dJ/dv0 (on the faces, stored per cell like the state) and dJ/dnu. */
static PetscErrorCode FluidWriteGradient(void *ctx, AdjParams params, AdjOutput out)
{
  Fluid       fl = (Fluid)ctx;
  PetscBool   active;
  PetscScalar gnu;

  PetscFunctionBeginUser;
  PetscCall(AdjParamsIsActive(params, "u0", &active));
  if (active) PetscCall(AdjOutputWriteGradientField(out, "u0", "m s^-1 per (m/s)", fl->gu0));
  PetscCall(AdjParamsIsActive(params, "v0", &active));
  if (active) PetscCall(AdjOutputWriteGradientField(out, "v0", "m s^-1 per (m/s)", fl->gv0));
  PetscCall(AdjParamsIsActive(params, "nu", &active));
  if (active) {
    PetscCallMPI(MPI_Allreduce(&fl->gnu_local, &gnu, 1, MPIU_SCALAR, MPIU_SUM, fl->comm));
    PetscCall(AdjOutputWriteGradientArray(out, "nu", "objective per m^2/s", 1, &gnu));
  }
  PetscCall(AdjParamsIsActive(params, "bc_velocity", &active));
  if (active) {
    PetscScalar gbc[4];
    PetscCall(FluidBoundaryGradient(fl, gbc));
    PetscCall(AdjOutputWriteGradientArray(out, "bc_velocity", "objective per m/s", 4, gbc));
  }
  if (fl->body.on) { /* the mask sensitivity maps dJ/dchi on u- and v-faces, and the shape gradient */
    PetscReal gs[ADJ_SHAPE_MAX_PARAMS];
    Vec       c;
    PetscCall(DMGetGlobalVector(fl->pda, &c));
    for (PetscInt f = 0; f < 2; f++) {
      PetscCall(VecStrideGather(fl->body.chibar, f, c, INSERT_VALUES));
      PetscCall(AdjOutputWriteGradientField(out, f ? "mask_v" : "mask_u", "objective per unit mask", c));
    }
    PetscCall(DMRestoreGlobalVector(fl->pda, &c));
    PetscCall(FluidBodyShapeGradient(fl, gs));
    for (PetscInt b = 0; b < 3; b++) {
      PetscCall(AdjParamsIsActive(params, FluidBodyBlocks[b], &active));
      if (active)
        PetscCall(AdjOutputWriteGradientArray(out, FluidBodyBlocks[b], "objective per parameter unit",
                                              FluidBodyBlockSize(fl, b), gs + FluidBodyBlockStart[b]));
    }
  }
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

/* Stops a run whose velocity holds NaN/Inf or whose Courant number exceeds -fluid_blowup_cfl,
 * naming the step, the time and the location of the largest velocity. */
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

/* u, v at cell centres, the pressure, the vorticity: dof-1 fields on the run's grid; with
 * -fluid_output_faces also the face velocities u_face (left x-face of each cell), v_face (bottom y-face). */
static PetscErrorCode FluidWriteFields(void *ctx, AdjOutput out, Vec x)
{
  Fluid             fl = (Fluid)ctx;
  const FluidCell **xa;
  PetscScalar     **f[4];
  const char       *names[4] = {"u", "v", "p", "vorticity"}, *units[4] = {"m/s", "m/s", "m^2/s^2", "1/s"};

  PetscFunctionBeginUser;
  PetscCall(FluidGlobalToLocalFilled(fl, x, fl->xloc));
  PetscCall(DMDAVecGetArrayRead(fl->da, fl->xloc, &xa));
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMDAVecGetArray(fl->pda, fl->out[c], &f[c]));
  PetscCall(FluidCellCentre(&fl->grid, xa, f[0], f[1], f[2], f[3]));
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMDAVecRestoreArray(fl->pda, fl->out[c], &f[c]));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, fl->xloc, &xa));
  for (PetscInt c = 0; c < 4; c++) PetscCall(AdjOutputWriteField(out, names[c], units[c], fl->out[c]));
  if (fl->body.on) PetscCall(AdjOutputWriteField(out, "mask", "1", fl->body.maskc));
  if (fl->output_faces) { /* the face velocities themselves: what a transport run in this flow needs */
    PetscCall(VecStrideGather(x, 0, fl->out[0], INSERT_VALUES));
    PetscCall(VecStrideGather(x, 1, fl->out[1], INSERT_VALUES));
    PetscCall(AdjOutputWriteField(out, "u_face", "m/s", fl->out[0]));
    PetscCall(AdjOutputWriteField(out, "v_face", "m/s", fl->out[1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  PetscCall(FluidBodyMonitor(fl, out, k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidWriteParameters(void *ctx, AdjParams params, AdjOutput out)
{
  Fluid fl = (Fluid)ctx;
  Vec   c;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteParameterArray(out, "nu", "m^2/s", 1, &fl->nu));
  {
    PetscReal v[4];
    for (PetscInt q = 0; q < 4; q++) v[q] = fl->grid.bc[q / 2][q % 2].velocity;
    PetscCall(AdjOutputWriteParameterArray(out, "bc_velocity", "m/s", 4, v));
  }
  PetscCall(DMGetGlobalVector(fl->pda, &c));
  for (PetscInt f = 0; f < 2; f++) {
    PetscCall(VecStrideGather(fl->x0sample, f, c, INSERT_VALUES));
    PetscCall(AdjOutputWriteParameterField(out, f ? "v0" : "u0", "m/s", c));
  }
  PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  if (fl->body.on)
    for (PetscInt b = 0; b < 3; b++)
      PetscCall(AdjOutputWriteParameterArray(out, FluidBodyBlocks[b], b == 1 ? "deg" : "m or 1",
                                             FluidBodyBlockSize(fl, b), fl->body.shape.p + FluidBodyBlockStart[b]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Parameter values from the /parameters group of a run file (to resume an optimization). */
static PetscErrorCode FluidReadParameters(void *ctx, const char path[])
{
  Fluid      fl = (Fluid)ctx;
  PetscInt   n;
  PetscReal *nu;
  Vec        c;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadArray(fl->comm, path, "/parameters/nu", &n, &nu));
  PetscCheck(n == 1, fl->comm, PETSC_ERR_USER_INPUT, "%s: /parameters/nu holds %" PetscInt_FMT " values, not 1", path,
             n);
  PetscCall(FluidSetViscosity(fl, nu[0]));
  PetscCall(PetscFree(nu));
  PetscCall(AdjInputReadArray(fl->comm, path, "/parameters/bc_velocity", &n, &nu));
  PetscCheck(n == 4, fl->comm, PETSC_ERR_USER_INPUT,
             "%s: /parameters/bc_velocity holds %" PetscInt_FMT " values, not 4", path, n);
  PetscCall(FluidSetBoundaryVelocities(fl, nu));
  PetscCall(PetscFree(nu));
  PetscCall(DMGetGlobalVector(fl->pda, &c));
  for (PetscInt f = 0; f < 2; f++) {
    PetscCall(AdjInputReadField(fl->comm, path, f ? "/parameters/v0" : "/parameters/u0", fl->pda, c));
    PetscCall(VecStrideScatter(c, f, fl->x0sample, INSERT_VALUES));
  }
  PetscCall(DMRestoreGlobalVector(fl->pda, &c));
  for (PetscInt b = 0; b < 3 && fl->body.on; b++) {
    char       name[64];
    PetscReal *v;
    PetscCall(PetscSNPrintf(name, sizeof(name), "/parameters/%s", FluidBodyBlocks[b]));
    PetscCall(AdjInputReadArray(fl->comm, path, name, &n, &v));
    PetscCheck(n == FluidBodyBlockSize(fl, b), fl->comm, PETSC_ERR_USER_INPUT,
               "%s: %s holds %" PetscInt_FMT " values, this body has %" PetscInt_FMT, path, name, n,
               FluidBodyBlockSize(fl, b));
    for (PetscInt i = 0; i < n; i++) fl->body.shape.p[FluidBodyBlockStart[b] + i] = v[i];
    PetscCall(PetscFree(v));
  }
  if (fl->body.on) {
    PetscCall(AdjShapeSetUp(fl->comm, &fl->body.shape));
    PetscCall(FluidBodyMask(fl));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The restart state: the stored face velocities u (left x-face of each cell), v (bottom y-face)
 * and p, exactly as held (the high-side boundary faces follow from the boundary rules). */
static const char *const FluidRestartNames[3] = {"u", "v", "p"};

static PetscErrorCode FluidWriteRestart(void *ctx, AdjOutput out, AdjStepIndex k, Vec x, PetscBool standalone)
{
  Fluid fl = (Fluid)ctx;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecStrideGather(x, c, fl->out[c], INSERT_VALUES));
  if (standalone)
    PetscCall(AdjOutputWriteRestartFile(out, "fluid", k, k * fl->dt, 3, FluidRestartNames, fl->out));
  else
    PetscCall(AdjOutputWriteRestart(out, "fluid", k, k * fl->dt, 3, FluidRestartNames, fl->out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidReadRestart(void *ctx, const char path[], Vec x, AdjStepIndex *k)
{
  Fluid     fl = (Fluid)ctx;
  PetscReal t;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadRestart(fl->comm, path, "fluid", fl->pda, 3, FluidRestartNames, fl->out, k, &t));
  PetscCheck(*k >= 0 && *k <= fl->nsteps, fl->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s is at step %" PetscInt64_FMT ", outside 0..%" PetscInt64_FMT " of this run", path,
             (PetscInt64)*k, (PetscInt64)fl->nsteps);
  PetscCheck(PetscAbsReal(t - *k * fl->dt) <= 1e-9 * fl->final_time, fl->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s: step %" PetscInt64_FMT
             " is at time %.12g s there but %.12g s in this run (time step differs)",
             path, (PetscInt64)*k, (double)t, (double)(*k * fl->dt));
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
  for (PetscInt c = 0; c < 4; c++) PetscCall(VecDestroy(&fl->out[c]));
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
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMCreateGlobalVector(fl->pda, &fl->out[c]));
  PetscCall(DMCreateLocalVector(fl->da, &fl->xbloc));
  PetscCall(VecDuplicate(fl->combo, &fl->sbar));
  PetscCall(VecDuplicate(fl->combo, &fl->cbar));
  PetscCall(VecDuplicate(fl->combo, &fl->x0sample));
  PetscCall(DMCreateGlobalVector(fl->pda, &fl->gu0));
  PetscCall(VecDuplicate(fl->gu0, &fl->gv0));
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
  {
    const PetscReal lower[2] = {0, 0}, upper[2] = {fl->grid.L[0], fl->grid.L[1]};
    PetscCall(AdjStepperSetGrid(st, fl->pda, lower, upper));
  }
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjParamsAddArray(params, "nu", "m^2/s", 1));
  if (fl->nu > 0) PetscCall(AdjParamsSetScale(params, "nu", fl->nu));
  PetscCall(AdjParamsSetBounds(params, "nu", 0.0, PETSC_INFINITY));
  PetscCall(AdjParamsAddArray(params, "bc_velocity", "m/s", 4)); /* xlo, xhi, ylo, yhi: inflow or wall speed */
  PetscCall(AdjParamsSetScale(params, "bc_velocity", fl->uscale));
  for (PetscInt f = 0; f < 2; f++) {
    PetscCall(AdjParamsAddField(params, f ? "v0" : "u0", "m/s", fl->pda));
    PetscCall(AdjParamsSetScale(params, f ? "v0" : "u0", fl->uscale));
  }
  for (PetscInt b = 0; b < 3 && fl->body.on; b++) {
    PetscCall(AdjParamsAddArray(params, FluidBodyBlocks[b], b == 1 ? "deg" : "m or 1", FluidBodyBlockSize(fl, b)));
    if (b == 0) PetscCall(AdjParamsSetScale(params, FluidBodyBlocks[b], fl->body.lref));
  }
  if (fl->body.on) PetscCall(FluidBodyShapeBounds(fl, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps FluidOps = {.setfromoptions      = FluidSetFromOptions,
                                       .destroy             = FluidDestroy,
                                       .createstate         = FluidCreateState,
                                       .getparameters       = FluidGetParameters,
                                       .setparameters       = FluidSetParameters,
                                       .initialstate        = FluidInitialState,
                                       .initialstateadjoint = FluidInitialStateAdjoint,
                                       .step                = FluidStep,
                                       .stepadjoint         = FluidStepAdjoint,
                                       .objective           = FluidObjectiveOp,
                                       .objectiveadjoint    = FluidObjectiveAdjointOp,
                                       .hasobjective        = FluidHasObjective,
                                       .zerogradient        = FluidZeroGradient,
                                       .getgradient         = FluidGetGradient,
                                       .checkstate          = FluidCheckState,
                                       .writefields         = FluidWriteFields,
                                       .monitor             = FluidMonitor,
                                       .writeparameters     = FluidWriteParameters,
                                       .writegradient       = FluidWriteGradient,
                                       .readparameters      = FluidReadParameters,
                                       .writerestart        = FluidWriteRestart,
                                       .readrestart         = FluidReadRestart};

PetscErrorCode AdjStepperCreate_Fluid(AdjStepper st)
{
  Fluid fl;

  PetscFunctionBeginUser;
  PetscCall(FluidRegisterEvents());
  PetscCall(PetscNew(&fl));
  PetscCall(AdjStepperGetComm(st, &fl->comm));
  PetscCall(AdjStepperSetImplementation(st, fl, &FluidOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FluidGetDM(AdjStepper stepper, DM *da)
{
  Fluid fl;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(stepper, &fl));
  *da = fl->pda;
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
