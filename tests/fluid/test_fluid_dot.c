/* Dot-product tests <T dx, y> = <dx, T^T y> (1e-12 relative) for every adjoint kernel of the fluid
 * solver, on boundary variants (periodic with FFTW and with KSP, lid-driven cavity, channel with
 * parabolic inflow, outflow and a slip wall, outflow on a y side), on 1, 2 and 4 ranks:
 *   boundary rules + halo exchange, momentum right-hand side (in x and in nu), divergence,
 *   gradient correction with the pressure ghosts, the projection P, the RK3 step (in x and nu, with
 *   and without an immersed body), the objective terms (kinetic energy, enstrophy), and the
 *   Brinkman penalization and the momentum it removes (the body force) in (velocity, mask).
 *
 * Gaps are relative to |T dx| |y| (AdjTestReportScaled in adjtest.h says why); the plain relative
 * gap is printed too.
 *
 * The tangents T are built from the forward code only, exactly (up to round-off):
 *   - the boundary rules and the projection are affine, so T c = f(c) - f(0);
 *   - the momentum right-hand side F is quadratic in x and linear in nu, so
 *     F'(x) dx = (F(x + dx) - F(x - dx)) / 2 and dF/dnu dnu = F(x; nu + dnu) - F(x; nu);
 *   - the step's tangent chains those through the three stages;
 *   - the objective terms are quadratic: dJ = (J(x + dx) - J(x - dx)) / 2. */
#include "fluidtest.h"
#include "adjtest.h"

static const PetscReal tol = 1e-12;

/* The KSP projection is exact to its tolerance only; these tests solve to 1e-14 relative. */
static const char *const Periodic[] = {
    "-fluid_grid", "12,10",           "-fluid_domain", "1.2,1",           "-fluid_nu", "0.02", "-fluid_final_time",
    "0.05",        "-fluid_ksp_rtol", "1e-14",         "-fluid_ksp_atol", "1e-50",     NULL};
static const char *const Cavity[]   = {"-fluid_grid",
                                       "10,12",
                                       "-fluid_nu",
                                       "0.02",
                                       "-fluid_bc_xlo",
                                       "wall",
                                       "-fluid_bc_xhi",
                                       "wall",
                                       "-fluid_bc_ylo",
                                       "wall",
                                       "-fluid_bc_yhi",
                                       "wall",
                                       "-fluid_bc_yhi_velocity",
                                       "1",
                                       "-fluid_final_time",
                                       "0.05",
                                       "-fluid_ksp_rtol",
                                       "1e-14",
                                       NULL};
static const char *const Channel[]  = {"-fluid_grid",
                                       "14,8",
                                       "-fluid_domain",
                                       "2,1",
                                       "-fluid_nu",
                                       "0.02",
                                       "-fluid_bc_xlo",
                                       "inflow",
                                       "-fluid_bc_xlo_velocity",
                                       "1",
                                       "-fluid_bc_xlo_profile",
                                       "parabolic",
                                       "-fluid_bc_xhi",
                                       "outflow",
                                       "-fluid_bc_ylo",
                                       "wall",
                                       "-fluid_bc_yhi",
                                       "slip",
                                       "-fluid_final_time",
                                       "0.05",
                                       "-fluid_ksp_rtol",
                                       "1e-14",
                                       NULL};
static const char *const Vertical[] = {"-fluid_grid",
                                       "8,12",
                                       "-fluid_nu",
                                       "0.02",
                                       "-fluid_bc_xlo",
                                       "periodic",
                                       "-fluid_bc_xhi",
                                       "periodic",
                                       "-fluid_bc_ylo",
                                       "inflow",
                                       "-fluid_bc_ylo_velocity",
                                       "0.5",
                                       "-fluid_bc_yhi",
                                       "outflow",
                                       "-fluid_final_time",
                                       "0.05",
                                       "-fluid_ksp_rtol",
                                       "1e-14",
                                       NULL};

/* |a| |b| with the inner product of the concatenated local vectors (local) or of global ones. */
static PetscErrorCode NormProduct(Vec a, Vec b, PetscBool local, PetscReal *s)
{
  PetscReal aa, bb;

  PetscFunctionBeginUser;
  if (local) {
    PetscCall(AdjTestLocalDot(a, a, &aa));
    PetscCall(AdjTestLocalDot(b, b, &bb));
  } else {
    PetscCall(VecDot(a, a, &aa));
    PetscCall(VecDot(b, b, &bb));
  }
  *s = PetscSqrtReal(aa * bb);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Local (ghosted) filled copy of x: the boundary rules applied after the halo exchange. */
static PetscErrorCode Filled(Fluid fl, Vec x, Vec xl)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(xl, 0.0));
  PetscCall(FluidGlobalToLocalFilled(fl, x, xl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Boundary rules + halo exchange: T x = fill(x) - fill(0), T^T by FluidLocalToGlobalFilledAdjoint. */
static PetscErrorCode DotBoundary(Fluid fl, PetscInt *fail)
{
  Vec       x, z, xt, xl, zl, yl;
  PetscReal lhs, rhs, scale;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(fl->da, &x));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &xt));
  PetscCall(DMCreateLocalVector(fl->da, &xl));
  PetscCall(VecDuplicate(xl, &zl));
  PetscCall(VecDuplicate(xl, &yl));
  PetscCall(AdjTestRandom(x, 1));
  PetscCall(AdjTestRandom(yl, 2));
  PetscCall(VecSet(z, 0.0));
  PetscCall(Filled(fl, x, xl));
  PetscCall(Filled(fl, z, zl));
  PetscCall(VecAXPY(xl, -1.0, zl));
  PetscCall(AdjTestLocalDot(xl, yl, &lhs));
  PetscCall(NormProduct(xl, yl, PETSC_TRUE, &scale));
  PetscCall(VecSet(xt, 0.0));
  PetscCall(FluidLocalToGlobalFilledAdjoint(fl, yl, xt));
  PetscCall(VecDot(x, xt, &rhs));
  PetscCall(AdjTestReportScaled("boundary rules + halo exchange", lhs, rhs, scale, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&zl));
  PetscCall(VecDestroy(&yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stage combination c = A x0 + B z + W F(z; nu) of FluidMomentumRHS on owned faces, from a global
   x0 and a local array z (no boundary rules: a map of local arrays). */
static const PetscReal MomA = 0.61, MomB = -0.45, MomW = 0.37;

static PetscErrorCode Momentum(Fluid fl, PetscReal nu, Vec x0, Vec zl, Vec r)
{
  const FluidCell **z, **x0a;
  FluidCell       **ra;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(fl->da, zl, &z));
  PetscCall(DMDAVecGetArrayRead(fl->da, x0, &x0a));
  PetscCall(DMDAVecGetArray(fl->da, r, &ra));
  PetscCall(FluidMomentumRHS(&fl->grid, nu, MomA, x0a, MomB, MomW, z, ra));
  PetscCall(DMDAVecRestoreArray(fl->da, r, &ra));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, x0, &x0a));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, zl, &z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Momentum kernel (the stage combination) as a map of (global x0, local array z, nu) at a random
   base point: the adjoint accumulates into x0b and must write every face of the local zb. */
static PetscErrorCode DotMomentum(Fluid fl, PetscInt *fail)
{
  const PetscReal   nu = 0.03, dnu = 0.7;
  Vec               z0, dz, zp, zb, x0, dx0, x0p, x0b, q, r, rm, y;
  const FluidCell **z, **ya;
  FluidCell       **b, **x0ba;
  PetscScalar       nub = 0, nubsum;
  PetscReal         lhs, rhs, rz, rx0, scale;

  PetscFunctionBeginUser;
  PetscCall(DMCreateLocalVector(fl->da, &z0));
  PetscCall(VecDuplicate(z0, &dz));
  PetscCall(VecDuplicate(z0, &zp));
  PetscCall(VecDuplicate(z0, &zb));
  PetscCall(DMCreateGlobalVector(fl->da, &r));
  PetscCall(VecDuplicate(r, &rm));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(VecDuplicate(r, &x0));
  PetscCall(VecDuplicate(r, &dx0));
  PetscCall(VecDuplicate(r, &x0p));
  PetscCall(VecDuplicate(r, &x0b));
  PetscCall(VecDuplicate(r, &q));
  PetscCall(AdjTestRandom(z0, 3));
  PetscCall(AdjTestRandom(dz, 4));
  PetscCall(AdjTestRandom(y, 5));
  PetscCall(AdjTestRandom(x0, 7));
  PetscCall(AdjTestRandom(dx0, 8));
  /* T (dx0, dz, dnu) = (C(x0 + dx0, z0 + dz) - C(x0 - dx0, z0 - dz))/2 + C(x0, z0; nu + dnu) - C(x0, z0; nu) */
  PetscCall(VecWAXPY(zp, 1.0, dz, z0));
  PetscCall(VecWAXPY(x0p, 1.0, dx0, x0));
  PetscCall(Momentum(fl, nu, x0p, zp, r));
  PetscCall(VecWAXPY(zp, -1.0, dz, z0));
  PetscCall(VecWAXPY(x0p, -1.0, dx0, x0));
  PetscCall(Momentum(fl, nu, x0p, zp, rm));
  PetscCall(VecAXPY(r, -1.0, rm));
  PetscCall(VecScale(r, 0.5));
  PetscCall(Momentum(fl, nu + dnu, x0, z0, rm));
  PetscCall(VecAXPY(r, 1.0, rm));
  PetscCall(Momentum(fl, nu, x0, z0, rm));
  PetscCall(VecAXPY(r, -1.0, rm));
  PetscCall(VecDot(r, y, &lhs));
  PetscCall(NormProduct(r, y, PETSC_FALSE, &scale));
  PetscCall(AdjTestRandom(zb, 6)); /* every entry must be overwritten */
  PetscCall(AdjTestRandom(q, 9));  /* x0b accumulates: start from q */
  PetscCall(VecCopy(q, x0b));
  PetscCall(DMDAVecGetArrayRead(fl->da, z0, &z));
  PetscCall(DMDAVecGetArrayRead(fl->da, y, &ya));
  PetscCall(DMDAVecGetArray(fl->da, zb, &b));
  PetscCall(DMDAVecGetArray(fl->da, x0b, &x0ba));
  PetscCall(FluidMomentumRHSAdjoint(&fl->grid, nu, MomA, x0ba, MomB, MomW, z, ya, b, &nub));
  PetscCall(DMDAVecRestoreArray(fl->da, x0b, &x0ba));
  PetscCall(DMDAVecRestoreArray(fl->da, zb, &b));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, y, &ya));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, z0, &z));
  PetscCall(VecAXPY(x0b, -1.0, q));
  PetscCall(VecStrideSet(dx0, 2, 0.0)); /* .p is not an input of C; x0b.p must be left as it was */
  PetscCall(VecDot(dx0, x0b, &rx0));
  PetscCall(AdjTestLocalDot(dz, zb, &rz));
  PetscCallMPI(MPI_Allreduce(&nub, &nubsum, 1, MPIU_SCALAR, MPIU_SUM, PETSC_COMM_WORLD));
  rhs = rx0 + rz + dnu * nubsum;
  PetscCall(AdjTestReportScaled("momentum stage combination in (x0, x, nu)", lhs, rhs, scale, tol, fail));
  {
    PetscReal pchange; /* x0b.p untouched */
    PetscCall(VecStrideNorm(x0b, 2, NORM_INFINITY, &pchange));
    if (pchange != 0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAIL: the momentum adjoint changed x0b.p by %g\n", (double)pchange));
      (*fail)++;
    }
  }
  PetscCall(VecDestroy(&z0));
  PetscCall(VecDestroy(&dz));
  PetscCall(VecDestroy(&zp));
  PetscCall(VecDestroy(&zb));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&dx0));
  PetscCall(VecDestroy(&x0p));
  PetscCall(VecDestroy(&x0b));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&rm));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Divergence (local faces -> owned cells) and gradient correction (local faces, local potential ->
 * owned faces and pressure), each a linear map of local arrays. */
static PetscErrorCode DotDivergenceCorrect(Fluid fl, PetscInt *fail)
{
  const PetscReal     pscale = 2.5;
  Vec                 xl, xb, pl, pb, d, yd, y, yy;
  const FluidCell   **xa, **ya;
  FluidCell         **ba, **yo;
  PetscScalar       **da, **pa, **pba;
  const PetscScalar **yda;
  PetscReal           lhs, rhs, r2, scale;

  PetscFunctionBeginUser;
  PetscCall(DMCreateLocalVector(fl->da, &xl));
  PetscCall(VecDuplicate(xl, &xb));
  PetscCall(DMCreateLocalVector(fl->pda, &pl));
  PetscCall(VecDuplicate(pl, &pb));
  PetscCall(DMCreateGlobalVector(fl->pda, &d));
  PetscCall(VecDuplicate(d, &yd));
  PetscCall(DMCreateGlobalVector(fl->da, &y));
  PetscCall(VecDuplicate(y, &yy));
  PetscCall(AdjTestRandom(xl, 6));
  PetscCall(AdjTestRandom(pl, 7));
  PetscCall(AdjTestRandom(yd, 8));
  PetscCall(AdjTestRandom(yy, 9));
  /* divergence */
  PetscCall(DMDAVecGetArrayRead(fl->da, xl, &xa));
  PetscCall(DMDAVecGetArray(fl->pda, d, &da));
  PetscCall(FluidDivergence(&fl->grid, xa, da));
  PetscCall(DMDAVecRestoreArray(fl->pda, d, &da));
  PetscCall(VecDot(d, yd, &lhs));
  PetscCall(NormProduct(d, yd, PETSC_FALSE, &scale));
  PetscCall(VecSet(xb, 0.0));
  PetscCall(DMDAVecGetArray(fl->da, xb, &ba));
  PetscCall(DMDAVecGetArrayRead(fl->pda, yd, &yda));
  PetscCall(FluidDivergenceAdjoint(&fl->grid, yda, ba));
  PetscCall(DMDAVecRestoreArrayRead(fl->pda, yd, &yda));
  PetscCall(DMDAVecRestoreArray(fl->da, xb, &ba));
  PetscCall(AdjTestLocalDot(xl, xb, &rhs));
  PetscCall(AdjTestReportScaled("divergence", lhs, rhs, scale, tol, fail));
  /* pressure ghosts then correction: (x, phi) -> y */
  PetscCall(DMDAVecGetArray(fl->pda, pl, &pa));
  PetscCall(FluidFillPressureGhosts(&fl->grid, pa));
  PetscCall(DMDAVecGetArray(fl->da, y, &yo));
  PetscCall(FluidGradientCorrect(&fl->grid, pscale, xa, (const PetscScalar *const *)pa, yo));
  PetscCall(DMDAVecRestoreArray(fl->da, y, &yo));
  PetscCall(DMDAVecRestoreArray(fl->pda, pl, &pa));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, xl, &xa));
  PetscCall(VecDot(y, yy, &lhs));
  PetscCall(NormProduct(y, yy, PETSC_FALSE, &scale));
  PetscCall(AdjTestRandom(pl, 7)); /* the potential before its ghosts were filled */
  PetscCall(VecSet(xb, 0.0));
  PetscCall(VecSet(pb, 0.0));
  PetscCall(DMDAVecGetArrayRead(fl->da, yy, &ya));
  PetscCall(DMDAVecGetArray(fl->da, xb, &ba));
  PetscCall(DMDAVecGetArray(fl->pda, pb, &pba));
  PetscCall(FluidGradientCorrectAdjoint(&fl->grid, pscale, ya, ba, pba));
  PetscCall(FluidFillPressureGhostsAdjoint(&fl->grid, pba));
  PetscCall(DMDAVecRestoreArray(fl->pda, pb, &pba));
  PetscCall(DMDAVecRestoreArray(fl->da, xb, &ba));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, yy, &ya));
  PetscCall(AdjTestLocalDot(xl, xb, &rhs));
  PetscCall(AdjTestLocalDot(pl, pb, &r2));
  PetscCall(AdjTestReportScaled("pressure ghosts + gradient correction", lhs, rhs + r2, scale, tol, fail));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&pl));
  PetscCall(VecDestroy(&pb));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&yd));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The projection P (affine): T x = P(x) - P(0), all three output components. */
static PetscErrorCode DotProjection(Fluid fl, PetscInt *fail)
{
  const PetscReal pscale = 3.0;
  Vec             x, z, px, pz, y, xt;
  PetscReal       lhs, rhs, scale;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(fl->da, &x));
  PetscCall(VecDuplicate(x, &z));
  PetscCall(VecDuplicate(x, &px));
  PetscCall(VecDuplicate(x, &pz));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &xt));
  PetscCall(AdjTestRandom(x, 10));
  PetscCall(AdjTestRandom(y, 11));
  PetscCall(VecSet(z, 0.0));
  PetscCall(FluidProject(fl, pscale, x, px));
  PetscCall(FluidProject(fl, pscale, z, pz));
  PetscCall(VecAXPY(px, -1.0, pz));
  PetscCall(VecDot(px, y, &lhs));
  PetscCall(NormProduct(px, y, PETSC_FALSE, &scale));
  PetscCall(FluidProjectAdjoint(fl, pscale, y, xt));
  PetscCall(VecDot(x, xt, &rhs));
  PetscCall(
      AdjTestReport(fl->poisson == FLUID_POISSON_FFTW ? "projection (FFTW)" : "projection (KSP)", lhs, rhs, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&px));
  PetscCall(VecDestroy(&pz));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = F(x) = -div(u u) + nu lap u (0 on boundary faces): the stage combination with a = b = 0, w = 1. */
static PetscErrorCode RHS(Fluid fl, Vec x, Vec r)
{
  PetscFunctionBeginUser;
  PetscCall(FluidStageCombination(fl, 0, x, 0, x, fl->xloc, 1, r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tangent of F at x: r = F'(x) dx + dF/dnu dnu (exact: F is quadratic in x, linear in nu). */
static PetscErrorCode RHSTangent(Fluid fl, Vec x, Vec dx, PetscReal dnu, Vec r)
{
  const PetscReal nu = fl->nu;
  Vec             w, f;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecDuplicate(x, &f));
  PetscCall(VecWAXPY(w, 1.0, dx, x));
  PetscCall(RHS(fl, w, r));
  PetscCall(VecWAXPY(w, -1.0, dx, x));
  PetscCall(RHS(fl, w, f));
  PetscCall(VecAXPY(r, -1.0, f));
  PetscCall(VecScale(r, 0.5));
  fl->nu = nu + dnu;
  PetscCall(RHS(fl, x, f));
  PetscCall(VecAXPY(r, 1.0, f));
  fl->nu = nu;
  PetscCall(RHS(fl, x, f));
  PetscCall(VecAXPY(r, -1.0, f));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Linear part of the projection: out = P(c) - P(0). */
static PetscErrorCode ProjectLinear(Fluid fl, PetscReal pscale, Vec c, Vec out)
{
  Vec z;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(c, &z));
  PetscCall(FluidProject(fl, pscale, c, out));
  PetscCall(VecSet(z, 0.0));
  PetscCall(FluidProject(fl, pscale, z, z));
  PetscCall(VecAXPY(out, -1.0, z));
  PetscCall(VecDestroy(&z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The RK3 step's tangent, stage by stage as in FluidStepRK3 (s1, s2 the forward stages; the
 * penalization of an immersed body is linear in the velocity). */
static PetscErrorCode StepTangent(Fluid fl, Vec x, Vec s1, Vec s2, Vec dx, PetscReal dnu, Vec out)
{
  const PetscReal dt = fl->dt;
  Vec             r, c, d1, d2;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, &r));
  PetscCall(VecDuplicate(x, &c));
  PetscCall(VecDuplicate(x, &d1));
  PetscCall(VecDuplicate(x, &d2));
  PetscCall(RHSTangent(fl, x, dx, dnu, r));
  PetscCall(VecWAXPY(c, dt, r, dx));
  PetscCall(FluidBodyPenalizeStage(fl, 0, dt, c)); /* linear in c */
  PetscCall(ProjectLinear(fl, 1 / (6 * dt), c, d1));
  PetscCall(RHSTangent(fl, s1, d1, dnu, r));
  PetscCall(VecAXPBYPCZ(c, 0.75, 0.25, 0.0, dx, d1));
  PetscCall(VecAXPY(c, 0.25 * dt, r));
  PetscCall(FluidBodyPenalizeStage(fl, 1, 0.25 * dt, c));
  PetscCall(ProjectLinear(fl, 4 / (6 * dt), c, d2));
  PetscCall(RHSTangent(fl, s2, d2, dnu, r));
  PetscCall(VecAXPBYPCZ(c, 1.0 / 3.0, 2.0 / 3.0, 0.0, dx, d2));
  PetscCall(VecAXPY(c, 2.0 * dt / 3.0, r));
  PetscCall(FluidBodyPenalizeStage(fl, 2, 2.0 * dt / 3.0, c));
  PetscCall(ProjectLinear(fl, 1 / dt, c, out));
  { /* p' = the stages' weighted pressures, summed */
    Vec t;
    PetscCall(DMGetGlobalVector(fl->pda, &t));
    PetscCall(VecStrideGather(d1, 2, t, INSERT_VALUES));
    PetscCall(VecStrideGather(d2, 2, t, ADD_VALUES));
    PetscCall(VecStrideScatter(t, 2, out, ADD_VALUES));
    PetscCall(DMRestoreGlobalVector(fl->pda, &t));
  }
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&d1));
  PetscCall(VecDestroy(&d2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One RK3 step in (x, nu) about a smooth base state (a projected random field). */
static PetscErrorCode DotStep(Fluid fl, PetscInt *fail)
{
  const PetscReal dnu = 0.01;
  Vec             x, s1, s2, dx, y, ty, lin, xout;
  PetscScalar     gnu;
  PetscReal       lhs, rhs, scale;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(fl->da, &x));
  PetscCall(VecDuplicate(x, &s1));
  PetscCall(VecDuplicate(x, &s2));
  PetscCall(VecDuplicate(x, &dx));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &ty));
  PetscCall(VecDuplicate(x, &lin));
  PetscCall(VecDuplicate(x, &xout));
  PetscCall(AdjTestRandom(x, 12));
  PetscCall(VecScale(x, 0.3));
  PetscCall(FluidProject(fl, 0.0, x, x));
  PetscCall(AdjTestRandom(dx, 13));
  PetscCall(AdjTestRandom(y, 14));
  PetscCall(FluidStepRK3(fl, 1, x, xout));
  PetscCall(VecCopy(fl->stage[0], s1));
  PetscCall(VecCopy(fl->stage[1], s2));
  PetscCall(StepTangent(fl, x, s1, s2, dx, dnu, ty));
  PetscCall(VecDot(ty, y, &lhs));
  PetscCall(NormProduct(ty, y, PETSC_FALSE, &scale));
  PetscCall(FluidStepRK3(fl, 1, x, xout)); /* the adjoint reuses the stages of the step just taken */
  fl->gnu_local = 0;
  PetscCall(FluidStepRK3Adjoint(fl, 1, x, xout, y, lin));
  PetscCall(VecDot(dx, lin, &rhs));
  PetscCallMPI(MPI_Allreduce(&fl->gnu_local, &gnu, 1, MPIU_SCALAR, MPIU_SUM, PETSC_COMM_WORLD));
  rhs += dnu * gnu;
  PetscCall(AdjTestReportScaled("RK3 step in (x, nu)", lhs, rhs, scale, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&s1));
  PetscCall(VecDestroy(&s2));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&ty));
  PetscCall(VecDestroy(&lin));
  PetscCall(VecDestroy(&xout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Objective terms at the final step: (J(x + dx) - J(x - dx))/2 = <dJ/dx, dx> (quadratic terms). */
static PetscErrorCode DotObjective(Fluid fl, PetscInt *fail)
{
  Vec       x, dx, w, g;
  PetscReal jp, jm, rhs, scale;

  PetscFunctionBeginUser;
  fl->obj.w_energy    = 1.3;
  fl->obj.w_enstrophy = 0.7;
  PetscCall(DMCreateGlobalVector(fl->da, &x));
  PetscCall(VecDuplicate(x, &dx));
  PetscCall(VecDuplicate(x, &w));
  PetscCall(VecDuplicate(x, &g));
  PetscCall(AdjTestRandom(x, 15));
  PetscCall(AdjTestRandom(dx, 16));
  PetscCall(VecWAXPY(w, 1.0, dx, x));
  PetscCall(FluidObjectiveEvaluate(fl, fl->nsteps, w, &jp));
  PetscCall(VecWAXPY(w, -1.0, dx, x));
  PetscCall(FluidObjectiveEvaluate(fl, fl->nsteps, w, &jm));
  PetscCall(VecSet(g, 0.0));
  PetscCall(FluidObjectiveAdjoint(fl, fl->nsteps, x, g));
  PetscCall(VecDot(dx, g, &rhs));
  PetscCall(NormProduct(dx, g, PETSC_FALSE, &scale));
  PetscCall(AdjTestReportScaled("kinetic energy + enstrophy", 0.5 * (jp - jm), rhs, scale, tol, fail));
  fl->obj.w_energy = fl->obj.w_enstrophy = 0;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Penalization kernels in (c, chi): B c = q c and the removed momentum w . R, q = 1/(1 + k chi),
 * with the hand-written tangents dB = q dc - k q^2 c dchi, dR = sum beta (1 - q) dc + beta k q^2 c dchi. */
static PetscErrorCode DotPenalize(Fluid fl, PetscInt *fail)
{
  const PetscReal   k = 37.0, beta = 0.7, w[2] = {1.3, -0.6};
  const FluidGrid  *g = &fl->grid;
  Vec               c, chi, dc, dchi, y, cb, chib, t;
  const FluidCell **ca, **xa, **dca, **dxa;
  FluidCell       **cba, **xba, **ta;
  PetscScalar       dR[2] = {0, 0};
  PetscReal         lhs, rhs, r2, scale, dRsum;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(fl->da, &c));
  PetscCall(VecDuplicate(c, &chi));
  PetscCall(VecDuplicate(c, &dc));
  PetscCall(VecDuplicate(c, &dchi));
  PetscCall(VecDuplicate(c, &y));
  PetscCall(VecDuplicate(c, &cb));
  PetscCall(VecDuplicate(c, &chib));
  PetscCall(VecDuplicate(c, &t));
  PetscCall(AdjTestRandom(c, 21));
  PetscCall(AdjTestRandom(chi, 22));
  PetscCall(VecAbs(chi)); /* a mask in [0, 1] */
  PetscCall(AdjTestRandom(dc, 23));
  PetscCall(AdjTestRandom(dchi, 24));
  PetscCall(AdjTestRandom(y, 25));
  PetscCall(DMDAVecGetArrayRead(fl->da, c, &ca));
  PetscCall(DMDAVecGetArrayRead(fl->da, chi, &xa));
  PetscCall(DMDAVecGetArrayRead(fl->da, dc, &dca));
  PetscCall(DMDAVecGetArrayRead(fl->da, dchi, &dxa));
  PetscCall(DMDAVecGetArray(fl->da, t, &ta));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscReal qu = 1 / (1 + k * xa[j][i].u), qv = 1 / (1 + k * xa[j][i].v), area = beta * g->h[0] * g->h[1];
      ta[j][i].u = qu * dca[j][i].u - k * qu * qu * ca[j][i].u * dxa[j][i].u;
      ta[j][i].v = qv * dca[j][i].v - k * qv * qv * ca[j][i].v * dxa[j][i].v;
      ta[j][i].p = 0;
      if (!FluidIsBoundaryFace(g, 0, i))
        dR[0] += area * ((1 - qu) * dca[j][i].u + k * qu * qu * ca[j][i].u * dxa[j][i].u);
      if (!FluidIsBoundaryFace(g, 1, j))
        dR[1] += area * ((1 - qv) * dca[j][i].v + k * qv * qv * ca[j][i].v * dxa[j][i].v);
    }
  PetscCall(DMDAVecRestoreArray(fl->da, t, &ta));
  PetscCall(VecStrideSet(y, 2, 0.0));
  PetscCall(VecDot(t, y, &lhs));
  PetscCall(NormProduct(t, y, PETSC_FALSE, &scale));
  dR[0] = w[0] * dR[0] + w[1] * dR[1];
  PetscCallMPI(MPI_Allreduce(&dR[0], &dRsum, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(VecCopy(y, cb));
  PetscCall(VecSet(chib, 0.0));
  PetscCall(DMDAVecGetArray(fl->da, cb, &cba));
  PetscCall(DMDAVecGetArray(fl->da, chib, &xba));
  PetscCall(FluidPenalizeAdjoint(g, k, xa, ca, cba, xba));
  PetscCall(DMDAVecRestoreArray(fl->da, cb, &cba));
  PetscCall(DMDAVecRestoreArray(fl->da, chib, &xba));
  PetscCall(VecDot(dc, cb, &rhs));
  PetscCall(VecDot(dchi, chib, &r2));
  PetscCall(AdjTestReportScaled("penalization in (c, chi)", lhs, rhs + r2, scale, tol, fail));
  PetscCall(VecSet(cb, 0.0));
  PetscCall(VecSet(chib, 0.0));
  PetscCall(DMDAVecGetArray(fl->da, cb, &cba));
  PetscCall(DMDAVecGetArray(fl->da, chib, &xba));
  PetscCall(FluidPenalizeRemovedAdjoint(g, k, beta, w, xa, ca, cba, xba));
  PetscCall(DMDAVecRestoreArray(fl->da, cb, &cba));
  PetscCall(DMDAVecRestoreArray(fl->da, chib, &xba));
  PetscCall(VecDot(dc, cb, &rhs));
  PetscCall(VecDot(dchi, chib, &r2));
  PetscCall(
      AdjTestReportScaled("momentum removed by the body in (c, chi)", dRsum, rhs + r2, PetscAbsReal(dRsum), tol, fail));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, c, &ca));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, chi, &xa));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, dc, &dca));
  PetscCall(DMDAVecRestoreArrayRead(fl->da, dchi, &dxa));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&chi));
  PetscCall(VecDestroy(&dc));
  PetscCall(VecDestroy(&dchi));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&cb));
  PetscCall(VecDestroy(&chib));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(const char name[], const char *const opts[], const char *const extra[], PetscInt *fail)
{
  AdjStepper st;
  Fluid      fl;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "--- %s\n", name));
  PetscCall(FluidTestCreate(PETSC_COMM_WORLD, opts, extra, &st));
  PetscCall(AdjStepperGetContext(st, &fl));
  PetscCall(DotBoundary(fl, fail));
  PetscCall(DotMomentum(fl, fail));
  PetscCall(DotDivergenceCorrect(fl, fail));
  PetscCall(DotProjection(fl, fail));
  PetscCall(DotStep(fl, fail));
  PetscCall(DotObjective(fl, fail));
  PetscCall(DotPenalize(fl, fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const char *fftw[] = {"-fluid_poisson", "fftw", NULL}, *ksp[] = {"-fluid_poisson", "ksp", NULL};
  const char *body[] = {
      "-fluid_body", "circle", "-fluid_body_position", "0.7,0.5", "-fluid_body_radius", "0.3", "-fluid_body_eta",
      "1e-3",        NULL};
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(RunCase("periodic box, FFTW projection", Periodic, fftw, &fail));
  PetscCall(RunCase("periodic box, KSP projection", Periodic, ksp, &fail));
  PetscCall(RunCase("lid-driven cavity (walls, moving lid)", Cavity, NULL, &fail));
  PetscCall(RunCase("channel: parabolic inflow, outflow, wall, slip", Channel, NULL, &fail));
  PetscCall(RunCase("x-periodic, inflow at y low, outflow at y high", Vertical, NULL, &fail));
  PetscCall(RunCase("channel with an immersed circle (Brinkman penalization)", Channel, body, &fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
