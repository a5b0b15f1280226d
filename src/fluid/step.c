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

/*@ FluidStageCombination - c = a x0 + b x + w F(x) on the owned faces (FluidMomentumRHS; F = 0 on
    boundary faces, c.p = 0), with F(x) = -div(u u) + nu lap u; xloc gets the ghosted x with the
    boundary rules applied.  c must differ from x0 and x. Collective. @*/
PetscErrorCode FluidStageCombination(Fluid fl, PetscReal a, Vec x0, PetscReal b, Vec x, Vec xloc, PetscReal w, Vec c)
{
  const FluidCell **xa, **x0a;
  FluidCell       **ca;

  PetscFunctionBeginUser;
  PetscCall(FluidGlobalToLocalFilled(fl, x, xloc));
  PetscCall(DMDAVecGetArrayRead(fl->da, xloc, &xa));
  PetscCall(DMDAVecGetArrayRead(fl->da, x0, &x0a));
  PetscCall(DMDAVecGetArray(fl->da, c, &ca));
  PetscCall(FluidMomentumRHS(&fl->grid, fl->nu, a, x0a, b, w, xa, ca));
  PetscCall(DMDAVecRestoreArray(fl->da, c, &ca));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x0, &x0a));
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
PetscErrorCode FluidStepRK3(void *ctx, AdjStepIndex k, Vec xin, Vec xout)
{
  Fluid           fl = (Fluid)ctx;
  const PetscReal dt = fl->dt;
  Vec             s1 = fl->stage[0], s2 = fl->stage[1], c = fl->combo;
  PetscBool       fused;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FLUID_Step, 0, 0, 0, 0));
  PetscCall(FluidStageCombination(fl, 0.0, xin, 1.0, xin, fl->stageloc[0], dt, c));
  PetscCall(FluidBodyPenalizeStage(fl, 0, dt, c));
  PetscCall(FluidProject(fl, 1 / (6 * dt), c, s1));
  PetscCall(FluidStageCombination(fl, 0.75, xin, 0.25, s1, fl->stageloc[1], 0.25 * dt, c));
  PetscCall(FluidBodyPenalizeStage(fl, 1, 0.25 * dt, c));
  PetscCall(FluidProject(fl, 4 / (6 * dt), c, s2));
  PetscCall(FluidStageCombination(fl, 1.0 / 3.0, xin, 2.0 / 3.0, s2, fl->stageloc[2], 2.0 * dt / 3.0, c));
  PetscCall(FluidBodyPenalizeStage(fl, 2, 2.0 * dt / 3.0, c));
  PetscCall(FluidProjectSumPressures(fl, 1 / dt, c, s1, s2, xout, &fused));
  if (!fused) {
    PetscCall(FluidProject(fl, 1 / dt, c, xout));
    PetscCall(FluidStagePressures(fl, s1, s2, xout));
  }
  fl->body.kforce = k;
  PetscCall(PetscLogEventEnd(FLUID_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidStageCombinationAdjoint - transpose of FluidStageCombination's tangent (c = a x0 + b x + w F(x)):
    x0b += a cb (x0b may be NULL when a = 0), xb += b cb + w (dF/dx)^T cb (boundary rules and halo
    exchange included), *nub += w <cb, dF/dnu> (this rank's part); xloc: x as FluidStageCombination
    left it.  x0b.p and xb.p are not changed. Collective. @*/
PetscErrorCode FluidStageCombinationAdjoint(Fluid fl, PetscReal a, Vec x0b, PetscReal b, Vec xloc, PetscReal w, Vec cb,
                                            Vec xb, PetscScalar *nub)
{
  const FluidCell **xa, **ca;
  FluidCell       **ba, **x0ba = NULL;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, xloc, &xa));
  PetscCall(DMDAVecGetArrayRead(fl->da, cb, &ca));
  PetscCall(DMDAVecGetArray(fl->da, fl->xbloc, &ba));
  if (x0b) PetscCall(DMDAVecGetArray(fl->da, x0b, &x0ba));
  PetscCall(FluidMomentumRHSAdjoint(&fl->grid, fl->nu, a, x0ba, b, w, xa, ca, ba, nub)); /* writes all of xbloc */
  if (x0b) PetscCall(DMDAVecRestoreArray(fl->da, x0b, &x0ba));
  PetscCall(DMDAVecRestoreArray(fl->da, fl->xbloc, &ba));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, cb, &ca));
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
    (each line after P^T and B^T is one FluidStageCombinationAdjoint)
    lin.p = 0: the step does not read the input pressure. lout and lin must differ. Collective. @*/
PetscErrorCode FluidStepRK3Adjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin)
{
  Fluid           fl = (Fluid)ctx;
  const PetscReal dt = fl->dt;
  Vec             cb = fl->cbar, sb = fl->sbar;

  PetscFunctionBeginUser;
  (void)xin; /* the stepper interface passes it; fl->stageloc[0] holds it ghosted */
  PetscCall(PetscLogEventBegin(FLUID_StepAdj, 0, 0, 0, 0));
  PetscCall(FluidProjectAdjoint(fl, 1 / dt, lout, cb));
  PetscCall(FluidBodyPenalizeStageAdjoint(fl, k, 2, 2.0 * dt / 3.0, cb));
  PetscCall(VecSet(lin, 0.0));
  PetscCall(VecSet(sb, 0.0));
  PetscCall(FluidStageCombinationAdjoint(fl, 1.0 / 3.0, lin, 2.0 / 3.0, fl->stageloc[2], 2.0 * dt / 3.0, cb, sb,
                                         &fl->gnu_local));
  PetscCall(FluidStagePressureAdjoint(fl, lout, sb));
  PetscCall(FluidProjectAdjoint(fl, 4 / (6 * dt), sb, cb));
  PetscCall(FluidBodyPenalizeStageAdjoint(fl, k, 1, 0.25 * dt, cb));
  PetscCall(VecSet(sb, 0.0));
  PetscCall(FluidStageCombinationAdjoint(fl, 0.75, lin, 0.25, fl->stageloc[1], 0.25 * dt, cb, sb, &fl->gnu_local));
  PetscCall(FluidStagePressureAdjoint(fl, lout, sb));
  PetscCall(FluidProjectAdjoint(fl, 1 / (6 * dt), sb, cb));
  PetscCall(FluidBodyPenalizeStageAdjoint(fl, k, 0, dt, cb));
  PetscCall(FluidStageCombinationAdjoint(fl, 0.0, NULL, 1.0, fl->stageloc[0], dt, cb, lin, &fl->gnu_local));
  /* lin.p = 0: set so above, and no adjoint kernel writes a .p */
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

/*@ FluidMaxVelocity - max |u| and max |v| over the stored faces; a NaN or an Inf anywhere in the state
    (velocity or pressure) makes both +Inf. Collective. @*/
PetscErrorCode FluidMaxVelocity(Fluid fl, Vec x, PetscReal *umax, PetscReal *vmax)
{
  const FluidGrid  *g = &fl->grid;
  const FluidCell **xa;
  PetscReal         lmax[2] = {0, 0}, gmax[2], probe = 0;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, x, &xa));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      lmax[0] = PetscMax(lmax[0], PetscAbsScalar(xa[j][i].u));
      lmax[1] = PetscMax(lmax[1], PetscAbsScalar(xa[j][i].v));
      /* 0, or NaN for a NaN or an Inf in any component, the pressure included */
      probe += (xa[j][i].u - xa[j][i].u) + (xa[j][i].v - xa[j][i].v) + (xa[j][i].p - xa[j][i].p);
    }
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x, &xa));
  /* PetscMax drops a NaN and MPI_MAX's result with one depends on the order: a non-finite face makes
   * both maxima +Inf instead, which every caller treats as a blow-up (FluidCheckState then finds the face,
   * or names the pressure when every face is finite) */
  if (probe != 0 || PetscIsInfOrNanReal(probe)) lmax[0] = lmax[1] = PETSC_INFINITY;
  PetscCallMPI(MPI_Allreduce(lmax, gmax, 2, MPIU_REAL, MPIU_MAX, fl->comm));
  *umax = gmax[0];
  *vmax = gmax[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
