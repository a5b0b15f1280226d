/* Objectives of the fluid solver and their adjoints.  With weights w_E, w_Z, w_d:
 *
 *   J = (1/N) sum_{k in window} [ w_E E + w_Z Z + w_D C_D + w_L C_L + w_R C_L/C_D + w_P P(C_L)/C_D ](x_k)
 *       +  w_d/2 sum_{k observed} ||U(x_k) - d_k||^2
 *
 *   E = 1/2 sum_faces (u^2 + v^2) hx hy          kinetic energy per unit depth [m^4/s^2] over the
 *                                                 stored non-boundary faces (the MAC energy norm)
 *   Z = 1/2 sum_cells omega_c^2 hx hy            enstrophy [m^2/s^2], omega_c the cell-centre
 *                                                 vorticity written to the output (mean of the
 *                                                 four corner values)
 *   C_D, C_L, C_L/C_D                            drag and lift coefficients of the immersed body
 *                                                 (body.c; the ratio is averaged step by step)
 *   P(C_L)/C_D, P(C) = sign(C) |C|^(3/2)         the endurance factor C_L^1.5/C_D (averaged step by step);
 *                                                 P extends C^1.5 to C_L < 0 as an odd C^1 function (P' =
 *                                                 1.5 |C|^(1/2), 0 at C = 0), so no branch is hidden
 *   U = cell-centre velocities (u_c, v_c)        compared with the fields "u", "v" of an earlier
 *                                                 run file (its output steps are the observations)
 *
 * The window is the set of steps whose time lies in [t0, t1] (-fluid_objective_window); without
 * it, the final step alone: an instantaneous objective. */
#include "fluidimpl.h"
#include <adjsim/io.h>
#include <adjsim/optcheck.h>

/*@ FluidKineticEnergy - *E += 1/2 sum (u^2 + v^2) hx hy over the owned non-boundary faces.
    x: owned array (no ghosts needed). Not collective. @*/
PetscErrorCode FluidKineticEnergy(const FluidGrid *g, const FluidCell *const *x, PetscScalar *E)
{
  PetscScalar s = 0;

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (!FluidIsBoundaryFace(g, 0, i)) s += x[j][i].u * x[j][i].u;
      if (!FluidIsBoundaryFace(g, 1, j)) s += x[j][i].v * x[j][i].v;
    }
  *E += 0.5 * s * g->h[0] * g->h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidKineticEnergyAdjoint - xb += w dE/dx = w u hx hy on the same faces (owned arrays).
    Not collective. @*/
PetscErrorCode FluidKineticEnergyAdjoint(const FluidGrid *g, PetscReal w, const FluidCell *const *x, FluidCell **xb)
{
  const PetscReal c = w * g->h[0] * g->h[1];

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      if (!FluidIsBoundaryFace(g, 0, i)) xb[j][i].u += c * x[j][i].u;
      if (!FluidIsBoundaryFace(g, 1, j)) xb[j][i].v += c * x[j][i].v;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* omega_c = 1/4 sum over the corners (a, b) of cell (i, j) of (v_{a} - v_{a-1})/hx - (u_{b} - u_{b-1})/hy */
static inline PetscScalar FluidCellVorticity(const FluidGrid *g, const FluidCell *const *x, PetscInt i, PetscInt j)
{
  PetscScalar w = 0;

  for (PetscInt b = j; b <= j + 1; b++)
    for (PetscInt a = i; a <= i + 1; a++)
      w += (x[b][a].v - x[b][a - 1].v) / g->h[0] - (x[b][a].u - x[b - 1][a].u) / g->h[1];
  return 0.25 * w;
}

/*@ FluidEnstrophy - *Z += 1/2 sum omega_c^2 hx hy over the owned cells. x: ghosted, filled.
    Not collective. @*/
PetscErrorCode FluidEnstrophy(const FluidGrid *g, const FluidCell *const *x, PetscScalar *Z)
{
  PetscScalar s = 0;

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar w = FluidCellVorticity(g, x, i, j);
      s += w * w;
    }
  *Z += 0.5 * s * g->h[0] * g->h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidEnstrophyAdjoint - xb += w dZ/dx on the ghosted local adjoint array (before the
    boundary-rule adjoint): each cell's wb = w omega_c hx hy spreads wb/4 over its corner stencils.
    Not collective. @*/
PetscErrorCode FluidEnstrophyAdjoint(const FluidGrid *g, PetscReal w, const FluidCell *const *x, FluidCell **xb)
{
  const PetscReal c = w * g->h[0] * g->h[1];

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar wb = 0.25 * c * FluidCellVorticity(g, x, i, j), a = wb / g->h[0], b = wb / g->h[1];
      for (PetscInt n = j; n <= j + 1; n++)
        for (PetscInt m = i; m <= i + 1; m++) {
          xb[n][m].v += a, xb[n][m - 1].v -= a;
          xb[n][m].u -= b, xb[n - 1][m].u += b;
        }
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cell-centre misfit of one observation: J += w/2 sum ((u_c - du)^2 + (v_c - dv)^2) hx hy and,
 * when xb is given, its adjoint ub_i, ub_{i+1} += r/2 with r = w (u_c - du) hx hy (likewise v).
 * x: ghosted, filled; xb: ghosted local adjoint. */
static void FluidMisfitKernel(const FluidGrid *g, PetscReal w, const FluidCell *const *x, const PetscScalar *const *du,
                              const PetscScalar *const *dv, PetscScalar *J, FluidCell **xb)
{
  const PetscReal c = w * g->h[0] * g->h[1];
  PetscScalar     s = 0;

  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscScalar eu = 0.5 * (x[j][i].u + x[j][i + 1].u) - du[j][i];
      const PetscScalar ev = 0.5 * (x[j][i].v + x[j + 1][i].v) - dv[j][i];
      s += eu * eu + ev * ev;
      if (xb) {
        xb[j][i].u += 0.5 * c * eu, xb[j][i + 1].u += 0.5 * c * eu;
        xb[j][i].v += 0.5 * c * ev, xb[j + 1][i].v += 0.5 * c * ev;
      }
    }
  *J += 0.5 * c * s;
}

/* Observations: the slices of "u" and "v" of a run file whose step lies in 1..nsteps. */
static PetscErrorCode FluidLoadObservations(Fluid fl, const char file[])
{
  FluidObjective *o = &fl->obj;
  PetscInt        nt, ntv;
  AdjStepIndex   *steps, *stepsv;
  PetscReal      *times, *timesv;

  PetscFunctionBeginUser;
  PetscCall(AdjInputGetFieldTimes(fl->comm, file, "u", &nt, &steps, &times));
  PetscCall(AdjInputGetFieldTimes(fl->comm, file, "v", &ntv, &stepsv, &timesv));
  PetscCheck(nt == ntv, fl->comm, PETSC_ERR_USER_INPUT,
             "Observation file %s (-fluid_obs_file): fields u and v have %" PetscInt_FMT " and %" PetscInt_FMT
             " time slices; they must match",
             file, nt, ntv);
  PetscCall(PetscMalloc3(nt, &o->obs_step, nt, &o->obs_u, nt, &o->obs_v));
  for (PetscInt s = 0; s < nt; s++) {
    if (steps[s] < 1 || steps[s] > fl->nsteps) continue;
    PetscCheck(PetscAbsReal(times[s] - steps[s] * fl->dt) <= 1e-9 * fl->final_time, fl->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s is incompatible with this run: its step %" PetscInt64_FMT
               " is at time %.12g s, but this run's step %" PetscInt64_FMT
               " is at %.12g s (check -fluid_final_time, -fluid_dt, -fluid_steps)",
               file, (PetscInt64)steps[s], (double)times[s], (PetscInt64)steps[s], (double)(steps[s] * fl->dt));
    o->obs_step[o->nobs] = steps[s];
    PetscCall(DMCreateGlobalVector(fl->pda, &o->obs_u[o->nobs]));
    PetscCall(DMCreateGlobalVector(fl->pda, &o->obs_v[o->nobs]));
    PetscCall(AdjInputReadFieldSlice(fl->comm, file, "u", s, fl->pda, o->obs_u[o->nobs]));
    PetscCall(AdjInputReadFieldSlice(fl->comm, file, "v", s, fl->pda, o->obs_v[o->nobs]));
    o->nobs++;
  }
  PetscCall(PetscFree(steps));
  PetscCall(PetscFree(times));
  PetscCall(PetscFree(stepsv));
  PetscCall(PetscFree(timesv));
  PetscCheck(o->nobs > 0, fl->comm, PETSC_ERR_USER_INPUT,
             "Observation file %s (-fluid_obs_file) has no fields u, v at any step in 1..%" PetscInt64_FMT
             " of this run",
             file, (PetscInt64)fl->nsteps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The steps of the averaging window. */
static PetscErrorCode FluidObjectiveWindow(Fluid fl, PetscBool set)
{
  FluidObjective *o   = &fl->obj;
  const PetscReal eps = 1e-9 * fl->final_time;

  PetscFunctionBeginUser;
  if (!set) {
    o->kfirst = o->klast = fl->nsteps;
  } else {
    PetscCheck(o->window[0] <= o->window[1], fl->comm, PETSC_ERR_USER_INPUT,
               "-fluid_objective_window %g,%g: the start must not exceed the end", (double)o->window[0],
               (double)o->window[1]);
    o->kfirst = PetscMax(1, (AdjStepIndex)PetscCeilReal((o->window[0] - eps) / fl->dt));
    o->klast  = PetscMin(fl->nsteps, (AdjStepIndex)PetscFloorReal((o->window[1] + eps) / fl->dt));
    PetscCheck(o->kfirst <= o->klast, fl->comm, PETSC_ERR_USER_INPUT,
               "-fluid_objective_window %g,%g s holds no time step of this run (dt %g s, final time %g s)",
               (double)o->window[0], (double)o->window[1], (double)fl->dt, (double)fl->final_time);
  }
  o->nwindow = (PetscInt)(o->klast - o->kfirst + 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidObjectiveSetUp - objective options: -fluid_objective_kinetic_energy, _enstrophy,
    -fluid_objective_window, -fluid_obs_file, -fluid_obs_weight. Collective. @*/
PetscErrorCode FluidObjectiveSetUp(Fluid fl)
{
  FluidObjective *o                       = &fl->obj;
  char            obs[PETSC_MAX_PATH_LEN] = "";
  PetscInt        n                       = 2;
  PetscBool       set;

  PetscFunctionBeginUser;
  o->w_misfit = 1.0;
  PetscOptionsBegin(fl->comm, fl->prefix, "Fluid: objective", "Fluid");
  PetscCall(PetscOptionsReal("-fluid_objective_kinetic_energy",
                             "Weight of the kinetic energy 1/2 sum (u^2+v^2) hx hy [m^4/s^2] in the objective", "",
                             o->w_energy, &o->w_energy, NULL));
  PetscCall(PetscOptionsReal("-fluid_objective_enstrophy",
                             "Weight of the enstrophy 1/2 sum omega^2 hx hy [m^2/s^2] in the objective", "",
                             o->w_enstrophy, &o->w_enstrophy, NULL));
  PetscCall(PetscOptionsReal("-fluid_objective_drag", "Weight of the drag coefficient C_D of the immersed body", "",
                             o->w_drag, &o->w_drag, NULL));
  PetscCall(PetscOptionsReal("-fluid_objective_lift", "Weight of the lift coefficient C_L of the immersed body", "",
                             o->w_lift, &o->w_lift, NULL));
  PetscCall(PetscOptionsReal("-fluid_objective_lift_to_drag",
                             "Weight of the lift-to-drag ratio C_L/C_D of the immersed body (use a negative weight to "
                             "maximize it)",
                             "", o->w_ld, &o->w_ld, NULL));
  PetscCall(PetscOptionsReal("-fluid_objective_endurance",
                             "Weight of the endurance factor C_L^1.5/C_D of the immersed body (sign(C_L) |C_L|^1.5 / "
                             "C_D for negative lift; use a negative weight to maximize it)",
                             "", o->w_endurance, &o->w_endurance, NULL));
  PetscCall(PetscOptionsRealArray("-fluid_objective_window",
                                  "Time window t0,t1 [s] over which energy and enstrophy are averaged (default: "
                                  "the final step alone)",
                                  "", o->window, &n, &set));
  PetscCall(PetscOptionsString("-fluid_obs_file",
                               "Run file (HDF5) whose fields u, v (cell centres) at its output steps are observations "
                               "to fit",
                               "", obs, obs, sizeof(obs), NULL));
  PetscCall(PetscOptionsReal("-fluid_obs_weight",
                             "Weight w of the velocity misfit w/2 sum_k ||U_k - d_k||^2 hx hy [s^2/m^4]", "",
                             o->w_misfit, &o->w_misfit, NULL));
  PetscOptionsEnd();
  PetscCheck(!set || n == 2, fl->comm, PETSC_ERR_USER_INPUT, "-fluid_objective_window needs two times t0,t1");
  { /* a negative weight maximizes a term (e.g. lift-to-drag); inf or nan is never a weight */
    const char *const names[] = {"-fluid_objective_kinetic_energy", "-fluid_objective_enstrophy",
                                 "-fluid_objective_drag",           "-fluid_objective_lift",
                                 "-fluid_objective_lift_to_drag",   "-fluid_objective_endurance"};
    const PetscReal   w[]     = {o->w_energy, o->w_enstrophy, o->w_drag, o->w_lift, o->w_ld, o->w_endurance};
    for (PetscInt t = 0; t < 6; t++) PetscCall(AdjCheckRealOption(fl->comm, names[t], w[t], ADJ_REAL_FINITE, NULL));
    PetscCall(AdjCheckRealOption(fl->comm, "-fluid_obs_weight", o->w_misfit, ADJ_REAL_NONNEGATIVE, "s^2/m^4"));
    if (set)
      PetscCall(AdjCheckRealOptionArray(fl->comm, "-fluid_objective_window", n, o->window, ADJ_REAL_FINITE, "s"));
  }
  PetscCheck(fl->body.on || !FluidObjectiveHasForceWeights(o), fl->comm, PETSC_ERR_USER_INPUT,
             "-fluid_objective_drag, _lift, _lift_to_drag and _endurance need an immersed body (-fluid_body "
             "circle|ellipse|naca4|cst)");
  PetscCall(FluidObjectiveWindow(fl, set));
  if (obs[0]) PetscCall(FluidLoadObservations(fl, obs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FluidObjectiveDestroy(Fluid fl)
{
  FluidObjective *o = &fl->obj;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < o->nobs; s++) {
    PetscCall(VecDestroy(&o->obs_u[s]));
    PetscCall(VecDestroy(&o->obs_v[s]));
  }
  PetscCall(PetscFree3(o->obs_step, o->obs_u, o->obs_v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The force terms of one step, (w_D C_D + w_L C_L + w_R C_L/C_D + w_P P(C_L)/C_D) / N with c = (C_D, C_L), and
 * their partial derivatives w = (d/dC_D, d/dC_L):  d(C_L/C_D) = dC_L/C_D - C_L dC_D/C_D^2,
 * d(P/C_D) = 1.5 |C_L|^(1/2) dC_L/C_D - P dC_D/C_D^2.  The ratio terms are added only when weighted, so that c may
 * be a dummy (1, 0) then.  Not collective. */
static PetscReal FluidForceTerms(const FluidObjective *o, const PetscReal c[2], PetscReal w[2])
{
  const PetscReal P = o->w_endurance != 0 ? PetscSign(c[1]) * PetscPowReal(PetscAbsReal(c[1]), 1.5) : 0;
  const PetscReal J = o->w_drag * c[0] + o->w_lift * c[1] + (o->w_ld != 0 ? o->w_ld * c[1] / c[0] : 0) +
                      (o->w_endurance != 0 ? o->w_endurance * P / c[0] : 0);

  w[0] = (o->w_drag - (o->w_ld != 0 ? o->w_ld * c[1] / (c[0] * c[0]) : 0) -
          (o->w_endurance != 0 ? o->w_endurance * P / (c[0] * c[0]) : 0)) /
         o->nwindow;
  w[1] = (o->w_lift + (o->w_ld != 0 ? o->w_ld / c[0] : 0) +
          (o->w_endurance != 0 ? o->w_endurance * 1.5 * PetscSqrtReal(PetscAbsReal(c[1])) / c[0] : 0)) /
         o->nwindow;
  return J / o->nwindow;
}

/* Do the force terms (drag, lift, their ratio, the endurance factor) count at step k? */
static PetscBool FluidHasForceTerms(Fluid fl, AdjStepIndex k)
{
  const FluidObjective *o = &fl->obj;
  return (PetscBool)(fl->body.on && FluidObjectiveHasForceWeights(o) && k >= o->kfirst && k <= o->klast);
}

static PetscInt FluidObservationIndex(const FluidObjective *o, AdjStepIndex k)
{
  if (o->selected) return -1;
  for (PetscInt s = 0; s < o->nobs; s++)
    if (o->obs_step[s] == k) return s;
  return -1;
}

/* Do field terms (kinetic energy, enstrophy, misfit) count at step k?  Most steps of a run have
 * none: they then skip the halo exchange (and its synchronization) altogether. */
static PetscBool FluidHasFieldTerms(Fluid fl, AdjStepIndex k)
{
  const FluidObjective *o = &fl->obj;
  return (PetscBool)(((o->w_energy != 0 || o->w_enstrophy != 0) && k >= o->kfirst && k <= o->klast) ||
                     FluidObservationIndex(o, k) >= 0);
}

/* The terms of step k: *J (this rank's part) and, when xb is given, their adjoint on the local
 * array xb.  x: ghosted, filled. */
static PetscErrorCode FluidObjectiveTerms(Fluid fl, AdjStepIndex k, const FluidCell *const *x, PetscScalar *J,
                                          FluidCell **xb)
{
  const FluidObjective *o  = &fl->obj;
  const PetscInt        ob = FluidObservationIndex(o, k);

  PetscFunctionBeginUser;
  if (k >= o->kfirst && k <= o->klast) {
    const PetscReal we = o->w_energy / o->nwindow, wz = o->w_enstrophy / o->nwindow;
    PetscScalar     E = 0, Z = 0;
    if (we != 0) PetscCall(FluidKineticEnergy(&fl->grid, x, &E));
    if (wz != 0) PetscCall(FluidEnstrophy(&fl->grid, x, &Z));
    *J += we * E + wz * Z;
    if (xb && we != 0) PetscCall(FluidKineticEnergyAdjoint(&fl->grid, we, x, xb));
    if (xb && wz != 0) PetscCall(FluidEnstrophyAdjoint(&fl->grid, wz, x, xb));
  }
  if (ob >= 0) {
    const PetscScalar **du, **dv;
    PetscCall(DMDAVecGetArrayRead(fl->pda, o->obs_u[ob], &du));
    PetscCall(DMDAVecGetArrayRead(fl->pda, o->obs_v[ob], &dv));
    FluidMisfitKernel(&fl->grid, o->w_misfit, x, du, dv, J, xb);
    PetscCall(DMDAVecRestoreArrayRead(fl->pda, o->obs_v[ob], &dv));
    PetscCall(DMDAVecRestoreArrayRead(fl->pda, o->obs_u[ob], &du));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidObjectiveEvaluate - *J = J_k(x_k), the same on every rank. Collective. @*/
PetscErrorCode FluidObjectiveEvaluate(void *ctx, AdjStepIndex k, Vec x, PetscReal *J)
{
  Fluid             fl = (Fluid)ctx;
  const FluidCell **xa;
  PetscScalar       local = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Objective, 0, 0, 0, 0));
  *J = 0;
  if (FluidHasFieldTerms(fl, k)) {
    PetscCall(FluidGlobalToLocalFilled(fl, x, fl->xloc));
    PetscCall(DMDAVecGetArrayRead(fl->da, fl->xloc, &xa));
    PetscCall(FluidObjectiveTerms(fl, k, xa, &local, NULL));
    PetscCall(DMDAVecRestoreArrayRead(fl->da, fl->xloc, &xa));
    PetscCallMPI(MPI_Allreduce(&local, J, 1, MPIU_REAL, MPIU_SUM, fl->comm));
  }
  if (FluidHasForceTerms(fl, k)) {
    PetscReal c[2], w[2];
    PetscCall(FluidBodyCoefficients(fl, k, c));
    *J += FluidForceTerms(&fl->obj, c, w);
  }
  PetscCall(PetscLogEventEnd(FLUID_Objective, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidObjectiveAdjoint - lambda += dJ_k/dx_k. Collective. @*/
PetscErrorCode FluidObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda)
{
  Fluid             fl = (Fluid)ctx;
  const FluidCell **xa;
  FluidCell       **xb;
  PetscScalar       unused = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_ObjectiveAdj, 0, 0, 0, 0));
  if (FluidHasFieldTerms(fl, k)) {
    PetscCall(FluidGlobalToLocalFilled(fl, x, fl->xloc));
    PetscCall(VecSet(fl->xbloc, 0.0));
    PetscCall(DMDAVecGetArrayRead(fl->da, fl->xloc, &xa));
    PetscCall(DMDAVecGetArray(fl->da, fl->xbloc, &xb));
    PetscCall(FluidObjectiveTerms(fl, k, xa, &unused, xb));
    PetscCall(DMDAVecRestoreArray(fl->da, fl->xbloc, &xb));
    PetscCall(DMDAVecRestoreArrayRead(fl->da, fl->xloc, &xa));
    PetscCall(FluidLocalToGlobalFilledAdjoint(fl, fl->xbloc, lambda));
  }
  if (FluidHasForceTerms(fl, k)) {
    PetscReal c[2] = {1, 0}, w[2];
    if (fl->obj.w_ld != 0 || fl->obj.w_endurance != 0) PetscCall(FluidBodyCoefficients(fl, k, c));
    (void)FluidForceTerms(&fl->obj, c, w);
    PetscCall(FluidBodySetForceWeights(fl, k, w)); /* the forces are the step's: adjoint in its adjoint */
  }
  PetscCall(PetscLogEventEnd(FLUID_ObjectiveAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidObjectiveSelect - the objective becomes one force functional alone, over the objective's window:
    "lift" C_L, "drag" C_D, "lift_to_drag" C_L/C_D, "endurance" C_L^1.5/C_D (the flow constraints of an optimization,
   each with its own adjoint solve); NULL restores the configured weights. *known: whether the name is one of these (and
   a body exists). Not collective. @*/
PetscErrorCode FluidObjectiveSelect(void *ctx, const char name[], PetscBool *known)
{
  Fluid           fl   = (Fluid)ctx;
  FluidObjective *o    = &fl->obj;
  PetscReal      *w[6] = {&o->w_energy, &o->w_enstrophy, &o->w_drag, &o->w_lift, &o->w_ld, &o->w_endurance};
  PetscInt        term = -1;

  PetscFunctionBeginUser;
  *known = PETSC_FALSE;
  if (!name) {
    if (o->selected)
      for (PetscInt t = 0; t < 6; t++) *w[t] = o->configured[t];
    o->selected = PETSC_FALSE;
    *known      = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt t = 2; t < 6; t++) {
    static const char *const names[6] = {NULL, NULL, "drag", "lift", "lift_to_drag", "endurance"};
    PetscBool                same;
    PetscCall(PetscStrcmp(name, names[t], &same));
    if (same) term = t;
  }
  if (term < 0 || !fl->body.on) PetscFunctionReturn(PETSC_SUCCESS);
  if (!o->selected)
    for (PetscInt t = 0; t < 6; t++) o->configured[t] = *w[t];
  for (PetscInt t = 0; t < 6; t++) *w[t] = t == term ? 1.0 : 0.0;
  o->selected = PETSC_TRUE;
  *known      = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
