/* Time step of the fluid solver: SSP-RK3 (Shu-Osher) with a projection after every stage, and
 * the stability limit of that scheme.
 *
 * Projecting each stage keeps every stage discretely divergence-free, so the advecting field of
 * the energy-conserving advection is divergence-free at every evaluation; the velocity is
 * third-order accurate in time on periodic boxes (the projection commutes with the linear
 * combinations) and at least second order with walls.  The step reads only the velocity of its
 * input state: p is an output (the stage pressures weighted as the RK3 weights its stages), so x_k = Phi(x_{k-1}) is a
 * pure function of the stored velocity, and restarts are bit-for-bit. */
#include "fluidimpl.h"
#include <adjsim/stability.h>

/*@ FluidRHS - r = F(x) = -div(u u) + nu lap u on interior faces, from xloc, which gets the
    ghosted x with the boundary rules applied. Collective. @*/
PetscErrorCode FluidRHS(Fluid fl, Vec x, Vec xloc, Vec r)
{
  const FluidCell **xa;
  FluidCell       **ra;

  PetscFunctionBeginUser;
  PetscCall(FluidGlobalToLocalFilled(fl, x, xloc));
  PetscCall(DMDAVecGetArrayRead(fl->da, xloc, &xa));
  PetscCall(DMDAVecGetArray(fl->da, r, &ra));
  PetscCall(FluidMomentumRHS(&fl->grid, fl->nu, xa, ra));
  PetscCall(DMDAVecRestoreArray(fl->da, r, &ra));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, xloc, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p' = 1/6 p1 + 1/6 p2 + 2/3 p3, the stage pressures p_s = phi_s / (a_s dt) weighted as SSP-RK3
 * weights its stages (b = 1/6, 1/6, 2/3): the pressure whose gradient balances the step's momentum
 * (the last stage's alone misses most of the pressure an immersed body induces, since each stage's
 * penalization acts on different fractions of the velocity).  The projections were given the
 * weights in their pscale; here the three are added. */
static PetscErrorCode FluidStagePressures(Fluid fl, Vec s1, Vec s2, Vec xout)
{
  Vec t;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(fl->pda, &t));
  PetscCall(VecStrideGather(s1, 2, t, INSERT_VALUES));
  PetscCall(VecStrideGather(s2, 2, t, ADD_VALUES));
  PetscCall(VecStrideScatter(t, 2, xout, ADD_VALUES));
  PetscCall(DMRestoreGlobalVector(fl->pda, &t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of FluidStagePressures for a stage: its weighted pressure gets the adjoint of p'. */
static PetscErrorCode FluidStagePressureAdjoint(Fluid fl, Vec lout, Vec sb)
{
  const FluidGrid  *g = &fl->grid;
  const FluidCell **la;
  FluidCell       **sa;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, lout, &la));
  PetscCall(DMDAVecGetArray(fl->da, sb, &sa));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) sa[j][i].p = la[j][i].p;
  PetscCall(DMDAVecRestoreArray(fl->da, sb, &sa));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, lout, &la));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidStepRK3 - one step of size fl->dt, B_a the implicit penalization of an immersed body
    with stage weight a (identity without a body, body.c):
      s1 = P(B_dt(x + dt F(x)))
      s2 = P(B_dt/4(3/4 x + 1/4 s1 + dt/4 F(s1)))
      x' = P(B_2dt/3(1/3 x + 2/3 s2 + 2dt/3 F(s2))),   p' = (p1 + p2)/6 + 2/3 p3 (FluidStagePressures)
    x, s1 and s2, ghosted and boundary-filled, stay in fl->stageloc[] for the adjoint of this step.
    xin and xout must differ. Collective. @*/
PetscErrorCode FluidStepRK3(Fluid fl, AdjStepIndex k, Vec xin, Vec xout)
{
  const PetscReal dt = fl->dt;
  Vec             s1 = fl->stage[0], s2 = fl->stage[1], r = fl->rhs, c = fl->combo;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Step, 0, 0, 0, 0));
  PetscCall(FluidRHS(fl, xin, fl->stageloc[0], r));
  PetscCall(VecWAXPY(c, dt, r, xin));
  PetscCall(FluidBodyPenalizeStage(fl, 0, dt, c));
  PetscCall(FluidProject(fl, 1 / (6 * dt), c, s1));
  PetscCall(FluidRHS(fl, s1, fl->stageloc[1], r));
  PetscCall(VecAXPBYPCZ(c, 0.75, 0.25, 0.0, xin, s1));
  PetscCall(VecAXPY(c, 0.25 * dt, r));
  PetscCall(FluidBodyPenalizeStage(fl, 1, 0.25 * dt, c));
  PetscCall(FluidProject(fl, 4 / (6 * dt), c, s2));
  PetscCall(FluidRHS(fl, s2, fl->stageloc[2], r));
  PetscCall(VecAXPBYPCZ(c, 1.0 / 3.0, 2.0 / 3.0, 0.0, xin, s2));
  PetscCall(VecAXPY(c, 2.0 * dt / 3.0, r));
  PetscCall(FluidBodyPenalizeStage(fl, 2, 2.0 * dt / 3.0, c));
  PetscCall(FluidProject(fl, 1 / dt, c, xout));
  PetscCall(FluidStagePressures(fl, s1, s2, xout));
  fl->body.kforce = k;
  PetscCall(PetscLogEventEnd(FLUID_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidRHSAdjoint - xb += w (dF/dx)^T rb at x (boundary rules and halo exchange included) and
 *nub += w <rb, dF/dnu> (this rank's part); xloc: x as FluidRHS left it. Collective. @*/
PetscErrorCode FluidRHSAdjoint(Fluid fl, Vec xloc, PetscReal w, Vec rb, Vec xb, PetscScalar *nub)
{
  const FluidCell **xa, **ra;
  FluidCell       **ba;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, xloc, &xa));
  PetscCall(DMDAVecGetArrayRead(fl->da, rb, &ra));
  PetscCall(DMDAVecGetArray(fl->da, fl->xbloc, &ba));
  PetscCall(FluidMomentumRHSAdjoint(&fl->grid, fl->nu, w, xa, ra, ba, nub)); /* writes all of xbloc */
  PetscCall(DMDAVecRestoreArray(fl->da, fl->xbloc, &ba));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, rb, &ra));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, xloc, &xa));
  PetscCall(FluidLocalToGlobalFilledAdjoint(fl, fl->xbloc, xb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidStepRK3Adjoint - lin = (dPhi/dx)^T lout for the step k FluidStepRK3 just took from xin
    (xin is not read: the step left it and its stages in fl->stageloc[]), and fl->gnu_local += (dPhi/dnu)^T lout.
    Reverse sweep of the three stages (bars are adjoints; P^T by FluidProjectAdjoint):
    (each P^T followed by B^T, which also accumulates the mask sensitivity):
      cb = P^T lout;  lin = cb/3;  s2b = 2/3 cb + F'(s2)^T (2dt/3 cb)
      cb = P^T s2b;   lin += 3/4 cb;  s1b = 1/4 cb + F'(s1)^T (dt/4 cb)
      cb = P^T s1b;   lin += cb + F'(x)^T (dt cb)
    lin.p = 0: the step does not read the input pressure. lout and lin must differ. Collective. @*/
PetscErrorCode FluidStepRK3Adjoint(Fluid fl, AdjStepIndex k, Vec xin, Vec lout, Vec lin)
{
  const PetscReal dt = fl->dt;
  Vec             cb = fl->cbar, sb = fl->sbar;

  PetscFunctionBeginUser;
  (void)xin; /* the stepper interface passes it; fl->stageloc[0] holds it ghosted */
  PetscCall(PetscLogEventBegin(FLUID_StepAdj, 0, 0, 0, 0));
  PetscCall(FluidProjectAdjoint(fl, 1 / dt, lout, cb));
  PetscCall(FluidBodyPenalizeStageAdjoint(fl, k, 2, 2.0 * dt / 3.0, cb));
  PetscCall(VecAXPBY(lin, 1.0 / 3.0, 0.0, cb));
  PetscCall(VecAXPBY(sb, 2.0 / 3.0, 0.0, cb));
  PetscCall(FluidRHSAdjoint(fl, fl->stageloc[2], 2.0 * dt / 3.0, cb, sb, &fl->gnu_local));
  PetscCall(FluidStagePressureAdjoint(fl, lout, sb));
  PetscCall(FluidProjectAdjoint(fl, 4 / (6 * dt), sb, cb));
  PetscCall(FluidBodyPenalizeStageAdjoint(fl, k, 1, 0.25 * dt, cb));
  PetscCall(VecAXPY(lin, 0.75, cb));
  PetscCall(VecAXPBY(sb, 0.25, 0.0, cb));
  PetscCall(FluidRHSAdjoint(fl, fl->stageloc[1], 0.25 * dt, cb, sb, &fl->gnu_local));
  PetscCall(FluidStagePressureAdjoint(fl, lout, sb));
  PetscCall(FluidProjectAdjoint(fl, 1 / (6 * dt), sb, cb));
  PetscCall(FluidBodyPenalizeStageAdjoint(fl, k, 0, dt, cb));
  PetscCall(VecAXPY(lin, 1.0, cb));
  PetscCall(FluidRHSAdjoint(fl, fl->stageloc[0], dt, cb, lin, &fl->gnu_local));
  PetscCall(VecStrideSet(lin, 2, 0.0));
  fl->body.wstep = -1;
  PetscCall(PetscLogEventEnd(FLUID_StepAdj, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidStabilityLimit - largest dt for which SSP-RK3 is stable on every von Neumann symbol of the
    frozen-coefficient scheme: centred advection i(|u|/hx sin tx + |v|/hy sin ty) and the
    diffusion -2 nu (1 - cos tx)/hx^2 - 2 nu (1 - cos ty)/hy^2 (bisection). Pure advection gives
    the CFL limit sqrt(3), pure diffusion 2.51 h^2/(4 nu) per direction. Not collective. @*/
PetscErrorCode FluidStabilityLimit(const FluidGrid *g, PetscReal nu, PetscReal umax, PetscReal vmax, PetscReal *dtmax)
{
  PetscFunctionBeginUser;
  PetscCall(AdjRK3CentredStabilityLimit(umax / g->h[0], vmax / g->h[1], 2 * nu / (g->h[0] * g->h[0]),
                                        2 * nu / (g->h[1] * g->h[1]), dtmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidMaxVelocity - max |u| and max |v| over the stored faces (NaN propagates). Collective. @*/
PetscErrorCode FluidMaxVelocity(Fluid fl, Vec x, PetscReal *umax, PetscReal *vmax)
{
  const FluidGrid  *g = &fl->grid;
  const FluidCell **xa;
  PetscReal         lmax[2] = {0, 0}, gmax[2];

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, x, &xa));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      lmax[0] = PetscMax(lmax[0], PetscAbsScalar(xa[j][i].u));
      lmax[1] = PetscMax(lmax[1], PetscAbsScalar(xa[j][i].v));
    }
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x, &xa));
  PetscCallMPI(MPI_Allreduce(lmax, gmax, 2, MPIU_REAL, MPIU_MAX, fl->comm));
  *umax = gmax[0];
  *vmax = gmax[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
