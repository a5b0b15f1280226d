/* Dot-product tests <T dx, y> = <dx, T^T y> (1e-12 relative to |T dx| |y|) of the airfoil solver's adjoint
 * (src/airfoil/operators.c, solve.c, forces.c) on a small O-grid, on 1, 2 and 4 ranks:
 *   - the cell kernels on random ghosted arrays: wall and far-field values, the Green-Gauss cell gradient, the
 *     convection term (bilinear: in the fluxes and in q), the application of a stencil form;
 *   - the step's kernels (solve.c) in all their inputs, far-field data included: the correction, the divergence
 *     right-hand side, the predicted fluxes, the momentum right-hand side (Euler and Adams-Bashforth 2);
 *   - the force coefficients C_D, C_L, C_M (linear in the state: T dx = C(x + dx) - C(x));
 *   - the whole step (quadratic in the state: T dx = (Phi(x + dx) - Phi(x - dx)) / 2 exactly), at the first step
 *     (Euler convection) and at a later one (Adams-Bashforth 2), without and with the far-field vortex (whose data
 *     depend on the lift of the state), for a NACA 2412 at 8 degrees (non-trivial far-field weights).
 * The tangents come from the forward code alone.  The solves run to 1e-14 relative (the adjoint is exact to the
 * solvers' tolerance). */
#include "airfoil/airfoilimpl.h"
#include "steppertest.h"
#include "adjtest.h"
#include "airfoiltest.h"

static const PetscReal tol = 1e-12;

static const char *const Base[] = {
    AIRFOIL_TEST_CASE, "-airfoil_grid_around", "32", "-airfoil_grid_normal", "13", "-airfoil_farfield", "8",
    /* every face flux (|F| < 7 here, also at x +- 3 dx) below the dissipation's switch width c = Pe_0 nu = 10,
       where its weight s(F) = 1.5 F^2 / c - 0.5 F^4 / c^3 is a polynomial: the step is then a polynomial of degree 5
       in the state, and the six-point differences below are exact (the branch s = |F| at kernel level) */
    "-airfoil_dissipation_pe", "2000", AIRFOIL_TEST_TIGHT_KSP, NULL};

/* |a| |b| of two global vectors. */
static PetscErrorCode NormProduct(Vec a, Vec b, PetscReal *s)
{
  PetscReal na, nb;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(a, NORM_2, &na));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *s = na * nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A state near the flow: `steps` steps from the start plus a random perturbation of relative size 0.1. */
static PetscErrorCode BaseState(AdjStepper st, PetscInt steps, Vec x)
{
  Vec r;

  PetscFunctionBeginUser;
  PetscCall(AdjTestStepperRun(st, steps, x, NULL, NULL));
  PetscCall(VecDuplicate(x, &r));
  PetscCall(AdjTestRandom(r, 7));
  PetscCall(VecAXPY(x, 0.1, r));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The six-point central difference weights: T d = sum_m SixPoint[m - 1] (F(z + m d) - F(z - m d)), m = 1, 2, 3,
 * exact for polynomials of degree <= 6. */
static const PetscReal SixPoint[3] = {45.0 / 60, -9.0 / 60, 1.0 / 60};

/* The step k at x: T dx by the six-point central difference (exact: the step is a polynomial of degree 5 in x, the
 * convection quadratic, its dissipation of degree 5 below the switch width), T^T y by the adjoint. */
static PetscErrorCode DotStep(AdjStepper st, AdjStepIndex k, const char name[], PetscInt *fail)
{
  Vec       x, dx, xp, xm, y, yo, lin, tdx;
  PetscReal lhs, rhs, scale = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(VecDuplicate(x, &dx));
  PetscCall(VecDuplicate(x, &xp));
  PetscCall(VecDuplicate(x, &xm));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &yo));
  PetscCall(VecDuplicate(x, &lin));
  PetscCall(VecDuplicate(x, &tdx));
  PetscCall(BaseState(st, 2, x));
  PetscCall(AdjTestRandom(dx, 11));
  PetscCall(AdjTestRandom(y, 13));
  PetscCall(VecSet(tdx, 0));
  for (PetscInt m = 1; m <= 3; m++) {
    const PetscReal w = SixPoint[m - 1];
    PetscCall(VecWAXPY(xp, m, dx, x));
    PetscCall(VecWAXPY(xm, -m, dx, x));
    PetscCall(AdjStepperStep(st, k, xp, yo));
    PetscCall(VecAXPY(tdx, w, yo));
    PetscCall(AdjStepperStep(st, k, xm, yo));
    PetscCall(VecAXPY(tdx, -w, yo));
  }
  PetscCall(AdjStepperStep(st, k, x, yo));
  PetscCall(AdjStepperStepAdjoint(st, k, x, yo, y, lin));
  PetscCall(VecDot(tdx, y, &lhs));
  PetscCall(VecDot(dx, lin, &rhs));
  PetscCall(NormProduct(tdx, y, &scale));
  PetscCall(AdjTestReportScaled(name, lhs, rhs, scale, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&xm));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yo));
  PetscCall(VecDestroy(&lin));
  PetscCall(VecDestroy(&tdx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C(x) for random weights cb: T dx = cb . (C(x + dx) - C(x)), T^T by AirfoilForcesAdjoint. */
static PetscErrorCode DotForces(Airfoil af, AdjStepper st, PetscInt *fail)
{
  Vec             x, dx, xp, lin;
  PetscReal       c0[3], c1[3], lhs = 0, rhs = 0, scale = 0, nub = 0, Ub[2] = {0, 0};
  const PetscReal cb[3] = {0.7, -1.3, 2.1};

  PetscFunctionBeginUser;
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(VecDuplicate(x, &dx));
  PetscCall(VecDuplicate(x, &xp));
  PetscCall(VecDuplicate(x, &lin));
  PetscCall(BaseState(st, 1, x));
  PetscCall(AdjTestRandom(dx, 17));
  PetscCall(VecWAXPY(xp, 1.0, dx, x));
  PetscCall(AirfoilForces(af, x, c0));
  PetscCall(AirfoilForces(af, xp, c1));
  for (PetscInt c = 0; c < 3; c++) lhs += cb[c] * (c1[c] - c0[c]), scale += PetscAbsReal(cb[c] * (c1[c] - c0[c]));
  PetscCall(VecSet(lin, 0));
  PetscCall(AirfoilForcesAdjoint(af, x, cb, lin, &nub, Ub));
  PetscCall(VecDot(dx, lin, &rhs));
  PetscCall(AdjTestReportScaled("forces C_D, C_L, C_M", lhs, rhs, scale, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&xp));
  PetscCall(VecDestroy(&lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cell kernels of operators.c on random ghosted arrays q, fluxes x, data qd (2 ni) and weights wf: per kernel,
 * the inputs it is tested in are perturbed by d (the others fixed), and T d = sum_m c_m (K(z + m d) - K(z - m d)),
 * m = 1, 2, 3, c = 45/60, -9/60, 1/60 (exact for polynomials of degree <= 6), summed over the owned cells with
 * random output bars r: exact, each kernel being a polynomial of degree <= 4 in its perturbed inputs (the
 * convection is tested in (q, fluxes, data) and in wf separately, being trilinear in all of them; the dissipation
 * in q, in the fluxes on each side of its switch, and in the switch's inverse width w). */
typedef enum {
  K_WALL,
  K_FAR,
  K_GRAD,
  K_CONV,
  K_CONV_WF,
  K_FORM,
  K_DISS_Q,
  K_DISS_F,
  K_DISS_F_ABS,
  K_DISS_W,
  K_NKERNEL
} Kernel;
static const char *const KernelNames[] = {"wall value",
                                          "far-field value",
                                          "cell gradient",
                                          "convection",
                                          "convection in wf",
                                          "form apply",
                                          "dissipation in q",
                                          "dissipation in fluxes (switch)",
                                          "dissipation in fluxes (|F|)",
                                          "dissipation in 1/(Pe_0 nu)"};
/* perturbed inputs per kernel: q, fluxes, data, weights */
static const PetscBool Perturbed[K_NKERNEL][4] = {{1, 0, 0, 0}, {1, 0, 1, 1}, {1, 0, 1, 0}, {1, 1, 1, 0}, {0, 0, 0, 1},
                                                  {1, 0, 1, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}};
/* The dissipation's k4 and inverse switch width w per kernel: in q (linear) with the switch width c = 0.5 among the
 * random fluxes (both branches); in the fluxes with c = 10 above every flux +- 3 perturbations (the polynomial
 * branch, degree 4) and on fluxes shifted to +-6 + [-1, 1] with c = 0.5 (ShiftedFluxes: |F| >= 2 at every
 * perturbation, s = |F| linear); in w about 0.1 by 0.02 (cubic). */
static const PetscReal DissQ[2] = {1.0 / 16, 2}, DissF[2] = {1.0 / 16, 0.1}, DissW = 0.1, DissDW = 0.02;

typedef struct {
  Vec        qg, dqg, qbg, xg, dxg, xbg, xgs;           /* global (xgs: fluxes shifted away from 0) */
  Vec        ql, xl, qbl, xbl;                          /* ghosted: a perturbed array, the bars */
  Vec        qb0, xb0;                                  /* ghosted base arrays */
  PetscReal *qd[2], *wf[2], *dqd, *dwf, *qdb, *wfb, *t; /* base, perturbed; perturbations; bars; T d per cell */
} KernelData;

static PetscReal KernelValue(Airfoil af, Kernel kk, PetscInt i, PetscInt j, PetscScalar **q,
                             const AirfoilCell *const *x, const PetscReal *qd, const PetscReal *wf,
                             const PetscReal diss[2], const PetscReal r[2])
{
  const AirfoilGeometry *g = &af->geo;
  const PetscInt         c = (j - af->ys) * af->xm + (i - af->xs), ni = g->ni;
  PetscReal              gr[2];

  switch (kk) {
  case K_WALL:
    return j == 0 ? r[0] * AirfoilWallValue(g, i, q) : 0;
  case K_FAR:
    return j == g->nc - 1 ? r[0] * AirfoilFarValue(g, wf, i, qd[i], q) : 0;
  case K_GRAD:
    AirfoilCellGradient(g, i, j, q, PETSC_FALSE, qd[i], gr);
    return r[0] * gr[0] + r[1] * gr[1];
  case K_CONV:
  case K_CONV_WF:
    return r[0] * AirfoilConvection(g, wf, i, j, x, q, qd[ni + i], qd[i]);
  case K_DISS_Q:
  case K_DISS_F:
  case K_DISS_F_ABS:
  case K_DISS_W:
    return r[0] * AirfoilDissipation(g, diss, i, j, x, q);
  default:
    return r[0] * AirfoilFormApply(&af->lapv[c], i, j, ni, q, qd + ni, qd);
  }
}

static void KernelAdjoint(Airfoil af, Kernel kk, PetscInt i, PetscInt j, PetscScalar **q, const AirfoilCell *const *x,
                          const PetscReal *qd, const PetscReal *wf, const PetscReal diss[2], const PetscReal r[2],
                          PetscScalar **qb, AirfoilCell **xb, PetscReal *qdb, PetscReal *wfb, PetscReal *wb)
{
  const AirfoilGeometry *g = &af->geo;
  const PetscInt         c = (j - af->ys) * af->xm + (i - af->xs), ni = g->ni;

  switch (kk) {
  case K_WALL:
    if (j == 0) AirfoilWallValueAdjoint(g, i, r[0], qb);
    break;
  case K_FAR:
    if (j == g->nc - 1) AirfoilFarValueAdjoint(g, wf, i, qd[i], q, r[0], qb, &qdb[i], wfb);
    break;
  case K_GRAD:
    AirfoilCellGradientAdjoint(g, i, j, PETSC_FALSE, r, qb, &qdb[i]);
    break;
  case K_CONV:
  case K_CONV_WF:
    AirfoilConvectionAdjoint(g, wf, i, j, x, q, qd[ni + i], qd[i], r[0], xb, qb, &qdb[ni + i], &qdb[i], wfb);
    break;
  case K_DISS_Q:
  case K_DISS_F:
  case K_DISS_F_ABS:
  case K_DISS_W:
    AirfoilDissipationAdjoint(g, diss, i, j, x, q, r[0], xb, qb, wb);
    break;
  default:
    AirfoilFormApplyAdjoint(&af->lapv[c], i, j, ni, r[0], qb, qdb + ni, qdb);
  }
}

static void KernelDiss(Kernel kk, PetscReal s, PetscReal diss[2])
{
  diss[0] = DissQ[0];
  diss[1] = kk == K_DISS_F ? DissF[1] : kk == K_DISS_W ? DissW + s * DissDW : DissQ[1];
}

static PetscReal KernelBar(PetscInt i, PetscInt j, PetscInt m)
{
  return m == 0 ? PetscSinReal(3.1 * i + 1.7 * j + 0.3) : PetscCosReal(2.3 * i - 1.1 * j);
}

/* T d's terms per owned cell (D->t) += c K(z + s d) with the kernel's inputs at z + s d (s = +-1, +-2, +-3). */
static PetscErrorCode KernelAddShifted(Airfoil af, Kernel kk, KernelData *D, Vec xg, PetscReal s, PetscReal c)
{
  const PetscInt      ni = af->geo.ni;
  const PetscBool    *on = Perturbed[kk];
  PetscScalar       **q;
  const AirfoilCell **x;
  PetscReal           diss[2];

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(D->qbg, on[0] ? s : 0, D->dqg, D->qg));
  PetscCall(VecSet(D->ql, 0));
  PetscCall(DMGlobalToLocal(af->da, D->qbg, INSERT_VALUES, D->ql));
  PetscCall(VecWAXPY(D->xbg, on[1] ? s : 0, D->dxg, xg));
  PetscCall(VecSet(D->xl, 0));
  PetscCall(DMGlobalToLocal(af->sda, D->xbg, INSERT_VALUES, D->xl));
  for (PetscInt n = 0; n < 2 * ni; n++) D->qd[1][n] = D->qd[0][n] + (on[2] ? s : 0) * D->dqd[n];
  for (PetscInt n = 0; n < ni; n++) D->wf[1][n] = D->wf[0][n] + (on[3] ? s : 0) * D->dwf[n];
  KernelDiss(kk, s, diss);
  PetscCall(DMDAVecGetArray(af->da, D->ql, &q));
  PetscCall(DMDAVecGetArrayRead(af->sda, D->xl, &x));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal r[2] = {KernelBar(i, j, 0), KernelBar(i, j, 1)};
      D->t[(j - af->ys) * af->xm + (i - af->xs)] += c * KernelValue(af, kk, i, j, q, x, D->qd[1], D->wf[1], diss, r);
    }
  PetscCall(DMDAVecRestoreArray(af->da, D->ql, &q));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, D->xl, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One kernel: <T d, r> against <d, T^T r> summed over ranks, scaled by sum |terms of T d|. */
static PetscErrorCode DotKernel(Airfoil af, Kernel kk, KernelData *D, PetscInt *fail)
{
  const PetscInt      ni = af->geo.ni, n = af->xm * af->ym;
  const PetscBool    *on = Perturbed[kk];
  PetscScalar       **q, **qb;
  const AirfoilCell **x;
  AirfoilCell       **xb;
  Vec                 xg     = kk == K_DISS_F_ABS ? D->xgs : D->xg;
  PetscReal           loc[5] = {0, 0, 0, 0, 0}, rhs = 0, dot, diss[2], wb = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(D->t, n));
  for (PetscInt m = 1; m <= 3; m++) {
    PetscCall(KernelAddShifted(af, kk, D, xg, m, SixPoint[m - 1]));
    PetscCall(KernelAddShifted(af, kk, D, xg, -m, -SixPoint[m - 1]));
  }
  for (PetscInt c = 0; c < n; c++) loc[0] += D->t[c], loc[1] += PetscAbsReal(D->t[c]);
  PetscCall(VecSet(D->xb0, 0));
  PetscCall(DMGlobalToLocal(af->sda, xg, INSERT_VALUES, D->xb0));
  PetscCall(PetscArrayzero(D->qdb, 2 * ni));
  PetscCall(PetscArrayzero(D->wfb, ni));
  PetscCall(VecSet(D->qbl, 0));
  PetscCall(VecSet(D->xbl, 0));
  KernelDiss(kk, 0, diss);
  PetscCall(DMDAVecGetArray(af->da, D->qb0, &q));
  PetscCall(DMDAVecGetArrayRead(af->sda, D->xb0, &x));
  PetscCall(DMDAVecGetArray(af->da, D->qbl, &qb));
  PetscCall(DMDAVecGetArray(af->sda, D->xbl, &xb));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal r[2] = {KernelBar(i, j, 0), KernelBar(i, j, 1)};
      KernelAdjoint(af, kk, i, j, q, x, D->qd[0], D->wf[0], diss, r, qb, xb, D->qdb, D->wfb, &wb);
    }
  PetscCall(DMDAVecRestoreArray(af->sda, D->xbl, &xb));
  PetscCall(DMDAVecRestoreArray(af->da, D->qbl, &qb));
  PetscCall(DMDAVecRestoreArray(af->da, D->qb0, &q));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, D->xb0, &x));
  for (PetscInt k = 0; k < 2 * ni; k++) loc[2] += (on[2] ? D->dqd[k] : 0) * D->qdb[k];
  for (PetscInt k = 0; k < ni; k++) loc[3] += (on[3] ? D->dwf[k] : 0) * D->wfb[k];
  loc[4] = kk == K_DISS_W ? DissDW * wb : 0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, loc, 5, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(VecSet(D->qbg, 0));
  PetscCall(DMLocalToGlobal(af->da, D->qbl, ADD_VALUES, D->qbg));
  PetscCall(VecDot(D->dqg, D->qbg, &dot));
  rhs += on[0] ? dot : 0;
  PetscCall(VecSet(D->xbg, 0));
  PetscCall(DMLocalToGlobal(af->sda, D->xbl, ADD_VALUES, D->xbg));
  PetscCall(VecDot(D->dxg, D->xbg, &dot));
  rhs += (on[1] ? dot : 0) + loc[2] + loc[3] + loc[4];
  PetscCall(AdjTestReportScaled(KernelNames[kk], loc[0], rhs, loc[1], tol, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A copy of the state-like array x whose fluxes U, V are shifted by +6 or -6 (by the parity of i + j): with up to
 * three perturbations in [-1, 1] no face flux changes sign or comes below 2. */
static PetscErrorCode ShiftedFluxes(Airfoil af, Vec x, Vec *xs)
{
  AirfoilCell **a;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(x, xs));
  PetscCall(VecCopy(x, *xs));
  PetscCall(DMDAVecGetArray(af->sda, *xs, &a));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal shift = (i + j) % 2 ? -6 : 6;
      a[j][i].U += shift, a[j][i].V += shift;
    }
  PetscCall(DMDAVecRestoreArray(af->sda, *xs, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DotKernels(Airfoil af, PetscInt *fail)
{
  const PetscInt ni = af->geo.ni;
  KernelData     D;
  PetscRandom    rnd;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(af->da, &D.qg));
  PetscCall(VecDuplicate(D.qg, &D.dqg));
  PetscCall(VecDuplicate(D.qg, &D.qbg));
  PetscCall(DMCreateLocalVector(af->da, &D.qbl));
  PetscCall(VecDuplicate(D.qbl, &D.ql));
  PetscCall(VecDuplicate(D.qbl, &D.qb0));
  PetscCall(DMCreateGlobalVector(af->sda, &D.xg));
  PetscCall(VecDuplicate(D.xg, &D.dxg));
  PetscCall(VecDuplicate(D.xg, &D.xbg));
  PetscCall(DMCreateLocalVector(af->sda, &D.xbl));
  PetscCall(VecDuplicate(D.xbl, &D.xl));
  PetscCall(VecDuplicate(D.xbl, &D.xb0));
  for (PetscInt s = 0; s < 2; s++) PetscCall(PetscMalloc2(2 * ni, &D.qd[s], ni, &D.wf[s]));
  PetscCall(PetscMalloc5(2 * ni, &D.dqd, ni, &D.dwf, 2 * ni, &D.qdb, ni, &D.wfb, af->xm * af->ym, &D.t));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd)); /* the same replicated data on every rank */
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt n = 0; n < 2 * ni; n++) PetscCall(PetscRandomGetValueReal(rnd, &D.qd[0][n]));
  for (PetscInt n = 0; n < 2 * ni; n++) PetscCall(PetscRandomGetValueReal(rnd, &D.dqd[n]));
  for (PetscInt n = 0; n < ni; n++) PetscCall(PetscRandomGetValueReal(rnd, &D.wf[0][n]));
  for (PetscInt n = 0; n < ni; n++) PetscCall(PetscRandomGetValueReal(rnd, &D.dwf[n]));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(AdjTestRandom(D.qg, 21));
  PetscCall(AdjTestRandom(D.dqg, 22));
  PetscCall(AdjTestRandom(D.xg, 23));
  PetscCall(AdjTestRandom(D.dxg, 24));
  PetscCall(VecSet(D.qb0, 0));
  PetscCall(DMGlobalToLocal(af->da, D.qg, INSERT_VALUES, D.qb0));
  PetscCall(ShiftedFluxes(af, D.xg, &D.xgs));
  for (Kernel kk = K_WALL; kk < K_NKERNEL; kk++) PetscCall(DotKernel(af, kk, &D, fail));
  for (PetscInt s = 0; s < 2; s++) PetscCall(PetscFree2(D.qd[s], D.wf[s]));
  PetscCall(PetscFree5(D.dqd, D.dwf, D.qdb, D.wfb, D.t));
  {
    Vec *v[] = {&D.qg, &D.dqg, &D.qbg, &D.qbl, &D.ql, &D.qb0, &D.xg, &D.dxg, &D.xbg, &D.xbl, &D.xl, &D.xb0, &D.xgs};
    for (size_t n = 0; n < sizeof(v) / sizeof(v[0]); n++) PetscCall(VecDestroy(v[n]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step's kernels of solve.c, each as a map from inputs (a state-like array X of dof 8, three cell fields Q, the
 * far-field data D = (qf_x, qf_y, pf)) to outputs (a state-like array Y, two cell fields R), on random values: T d =
 * (F(z + d) - F(z - d)) / 2 (exact: every kernel is at most quadratic), output bars random on the outputs the kernel
 * writes (zero on the entries it passes through unchanged). */
typedef struct {
  Vec        X, Q[3];
  PetscReal *D;
} KIn;
typedef struct {
  Vec Y, R[2];
} KOut;
typedef enum { S_CORRECT, S_DIVERGENCE, S_PREDICT, S_MOMENTUM1, S_MOMENTUM3, S_NKERNEL } StepKernel;
static const char *const StepKernelNames[] = {"correction", "divergence RHS", "predicted fluxes",
                                              "momentum RHS (Euler)", "momentum RHS (AB2)"};

typedef struct {
  Vec xl, ql[3], xbl, qbl[3], rg[2];
} KWork;

/* Ghosted copies of the inputs (rows outside the grid zero) and the data in af->qf, af->pf. */
static PetscErrorCode KInLocal(Airfoil af, const KIn *in, KWork *w)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(w->xl, 0));
  PetscCall(DMGlobalToLocal(af->sda, in->X, INSERT_VALUES, w->xl));
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(VecSet(w->ql[c], 0));
    PetscCall(DMGlobalToLocal(af->da, in->Q[c], INSERT_VALUES, w->ql[c]));
  }
  af->qf[0] = in->D, af->qf[1] = in->D + af->geo.ni, af->pf = in->D + 2 * af->geo.ni;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KForward(Airfoil af, StepKernel kk, const KIn *in, KOut *out, KWork *w)
{
  const AirfoilCell **x;
  AirfoilCell       **y;
  PetscScalar       **q[3], **r[2];

  PetscFunctionBeginUser;
  PetscCall(KInLocal(af, in, w));
  if (kk == S_CORRECT)
    PetscCall(VecCopy(in->X, out->Y)); /* the predicted fluxes come in through X */
  else
    PetscCall(VecSet(out->Y, 0));
  for (PetscInt c = 0; c < 2; c++) PetscCall(VecSet(out->R[c], 0));
  PetscCall(DMDAVecGetArrayRead(af->sda, w->xl, &x));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, w->ql[c], &q[c]));
  PetscCall(DMDAVecGetArray(af->sda, out->Y, &y));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecGetArray(af->da, out->R[c], &r[c]));
  switch (kk) {
  case S_CORRECT:
    AirfoilCorrect(af, q[0], q[1], q[2], x, y);
    break;
  case S_DIVERGENCE:
    AirfoilDivergenceRHS(af, x, r[0]);
    break;
  case S_PREDICT:
    AirfoilPredictFluxes(af, x, q[0], q[1], q[2], y);
    break;
  default:
    PetscCall(AirfoilMomentumRHS(af, kk == S_MOMENTUM1 ? 1 : 3, x, q, y, r[0], r[1]));
  }
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecRestoreArray(af->da, out->R[c], &r[c]));
  PetscCall(DMDAVecRestoreArray(af->sda, out->Y, &y));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, w->ql[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, w->xl, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Zero the output bars of the entries the kernel does not compute (pass-throughs and untouched entries). */
static PetscErrorCode KMaskBars(Airfoil af, StepKernel kk, KOut *bar)
{
  AirfoilCell **yb;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(af->sda, bar->Y, &yb));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      AirfoilCell *c = &yb[j][i];
      if (kk == S_CORRECT || kk == S_PREDICT) {
        c->Nu = c->Nv = 0;
        if (j == 0) c->V = 0;
        if (j != af->geo.nc - 1) c->Vt = 0;
        if (kk == S_PREDICT) c->u = c->v = c->p = 0;
      } else {
        c->u = c->v = c->p = c->U = c->V = c->Vt = 0;
        if (kk == S_DIVERGENCE) c->Nu = c->Nv = 0;
      }
    }
  PetscCall(DMDAVecRestoreArray(af->sda, bar->Y, &yb));
  if (kk != S_DIVERGENCE) PetscCall(VecSet(bar->R[0], 0));
  if (kk == S_CORRECT || kk == S_PREDICT) PetscCall(VecSet(bar->R[1], 0));
  if (kk == S_DIVERGENCE) PetscCall(VecSet(bar->R[1], 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The input bars of the kernel at the base inputs for the output bars. */
static PetscErrorCode KAdjoint(Airfoil af, StepKernel kk, const KIn *in, const KOut *bar, KIn *inb, KWork *w)
{
  const PetscInt      ni = af->geo.ni;
  const AirfoilCell **x, **yb;
  AirfoilCell       **xb, **xbo;
  PetscScalar       **q[3], **qb[3], **rb[2], **qbo[3];

  PetscFunctionBeginUser;
  PetscCall(KInLocal(af, in, w));
  PetscCall(PetscArrayzero(af->qfb[0], 4 * ni));
  PetscCall(VecSet(w->xbl, 0));
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecSet(w->qbl[c], 0));
  PetscCall(VecSet(inb->X, 0));
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecSet(inb->Q[c], 0));
  PetscCall(DMDAVecGetArrayRead(af->sda, w->xl, &x));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, w->ql[c], &q[c]));
  PetscCall(DMDAVecGetArrayRead(af->sda, bar->Y, &yb));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecGetArray(af->da, bar->R[c], &rb[c]));
  PetscCall(DMDAVecGetArray(af->sda, w->xbl, &xb));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, w->qbl[c], &qb[c]));
  PetscCall(DMDAVecGetArray(af->sda, inb->X, &xbo));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, inb->Q[c], &qbo[c]));
  switch (kk) {
  case S_CORRECT: /* owned bars of u*, v* and of the predicted fluxes (X's U, V, Vt), ghosted bars of phi and p */
    AirfoilCorrectAdjoint(af, yb, qbo[1], qbo[2], xbo, xb, qb[0]);
    break;
  case S_DIVERGENCE:
    AirfoilDivergenceRHSAdjoint(af, rb[0], xb);
    break;
  case S_PREDICT:
    AirfoilPredictFluxesAdjoint(af, yb, q[1], q[2], xb, qb[0], qbo[1], qbo[2]);
    break;
  default:
    AirfoilMomentumRHSAdjoint(af, kk == S_MOMENTUM1 ? 1 : 3, x, q, rb[0], rb[1], yb, qb, xb);
  }
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, inb->Q[c], &qbo[c]));
  PetscCall(DMDAVecRestoreArray(af->sda, inb->X, &xbo));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, w->qbl[c], &qb[c]));
  PetscCall(DMDAVecRestoreArray(af->sda, w->xbl, &xb));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecRestoreArray(af->da, bar->R[c], &rb[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, bar->Y, &yb));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, w->ql[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, w->xl, &x));
  if (kk == S_CORRECT) { /* CorrectAdjoint sets the flux bars, adds the p bar into the ghosted xb */
    AirfoilCell **a;
    PetscCall(DMDAVecGetArray(af->sda, inb->X, &a));
    PetscCall(DMDAVecGetArray(af->sda, w->xbl, &xb));
    for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
      for (PetscInt i = af->xs; i < af->xs + af->xm; i++) a[j][i].p = xb[j][i].p, xb[j][i].p = 0;
    PetscCall(DMDAVecRestoreArray(af->sda, w->xbl, &xb));
    PetscCall(DMDAVecRestoreArray(af->sda, inb->X, &a));
  }
  PetscCall(DMLocalToGlobal(af->sda, w->xbl, ADD_VALUES, inb->X));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMLocalToGlobal(af->da, w->qbl[c], ADD_VALUES, inb->Q[c]));
  PetscCallMPI(MPI_Allreduce(af->qfb[0], inb->D, (PetscMPIInt)(3 * ni), MPIU_REAL, MPIU_SUM, af->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KInCreate(Airfoil af, KIn *in)
{
  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(af->sda, &in->X));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMCreateGlobalVector(af->da, &in->Q[c]));
  PetscCall(PetscMalloc1(3 * af->geo.ni, &in->D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KInDestroy(KIn *in)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&in->X));
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecDestroy(&in->Q[c]));
  PetscCall(PetscFree(in->D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <a, b> over the inputs (D replicated: counted once). */
static PetscErrorCode KInDot(Airfoil af, const KIn *a, const KIn *b, PetscReal *dot)
{
  PetscReal t;

  PetscFunctionBeginUser;
  PetscCall(VecDot(a->X, b->X, dot));
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(VecDot(a->Q[c], b->Q[c], &t));
    *dot += t;
  }
  for (PetscInt n = 0; n < 3 * af->geo.ni; n++) *dot += a->D[n] * b->D[n];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DotStepKernels(Airfoil af, PetscInt *fail)
{
  const PetscInt   ni = af->geo.ni;
  KIn              z, d, zp, zb;
  KOut             op, om, ob;
  KWork            w;
  PetscReal *const qf0 = af->qf[0], *const qf1 = af->qf[1], *const pf = af->pf;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(KInCreate(af, &z));
  PetscCall(KInCreate(af, &d));
  PetscCall(KInCreate(af, &zp));
  PetscCall(KInCreate(af, &zb));
  PetscCall(DMCreateGlobalVector(af->sda, &op.Y));
  PetscCall(VecDuplicate(op.Y, &om.Y));
  PetscCall(VecDuplicate(op.Y, &ob.Y));
  for (PetscInt c = 0; c < 2; c++) {
    PetscCall(DMCreateGlobalVector(af->da, &op.R[c]));
    PetscCall(VecDuplicate(op.R[c], &om.R[c]));
    PetscCall(VecDuplicate(op.R[c], &ob.R[c]));
  }
  PetscCall(DMCreateLocalVector(af->sda, &w.xl));
  PetscCall(VecDuplicate(w.xl, &w.xbl));
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(DMCreateLocalVector(af->da, &w.ql[c]));
    PetscCall(VecDuplicate(w.ql[c], &w.qbl[c]));
  }
  PetscCall(AdjTestRandom(z.X, 31));
  PetscCall(AdjTestRandom(d.X, 32));
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(AdjTestRandom(z.Q[c], 33 + c));
    PetscCall(AdjTestRandom(d.Q[c], 36 + c));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd)); /* replicated data: the same stream on every rank */
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  for (PetscInt n = 0; n < 3 * ni; n++) PetscCall(PetscRandomGetValueReal(rnd, &z.D[n]));
  for (PetscInt n = 0; n < 3 * ni; n++) PetscCall(PetscRandomGetValueReal(rnd, &d.D[n]));
  PetscCall(PetscRandomDestroy(&rnd));
  for (StepKernel kk = S_CORRECT; kk < S_NKERNEL; kk++) {
    PetscReal lhs, rhs, t, n1, n2, scale = 0, tn = 0, bn = 0;
    /* T d by the six-point difference into op (the momentum kernels are of degree 5: the dissipation below its
       switch width) */
    PetscCall(VecSet(op.Y, 0));
    for (PetscInt c = 0; c < 2; c++) PetscCall(VecSet(op.R[c], 0));
    for (PetscInt m = 1; m <= 3; m++)
      for (PetscInt sg = -1; sg <= 1; sg += 2) {
        const PetscReal w4 = sg * SixPoint[m - 1];
        PetscCall(VecWAXPY(zp.X, sg * m, d.X, z.X));
        for (PetscInt c = 0; c < 3; c++) PetscCall(VecWAXPY(zp.Q[c], sg * m, d.Q[c], z.Q[c]));
        for (PetscInt n = 0; n < 3 * ni; n++) zp.D[n] = z.D[n] + sg * m * d.D[n];
        PetscCall(KForward(af, kk, &zp, &om, &w));
        PetscCall(VecAXPY(op.Y, w4, om.Y));
        for (PetscInt c = 0; c < 2; c++) PetscCall(VecAXPY(op.R[c], w4, om.R[c]));
      }
    PetscCall(AdjTestRandom(ob.Y, 41 + kk));
    for (PetscInt c = 0; c < 2; c++) PetscCall(AdjTestRandom(ob.R[c], 51 + 2 * kk + c));
    PetscCall(KMaskBars(af, kk, &ob));
    PetscCall(VecDot(op.Y, ob.Y, &lhs));
    PetscCall(VecNorm(op.Y, NORM_2, &n1));
    PetscCall(VecNorm(ob.Y, NORM_2, &n2));
    tn += n1 * n1, bn += n2 * n2;
    for (PetscInt c = 0; c < 2; c++) {
      PetscCall(VecDot(op.R[c], ob.R[c], &t));
      PetscCall(VecNorm(op.R[c], NORM_2, &n1));
      PetscCall(VecNorm(ob.R[c], NORM_2, &n2));
      lhs += t, tn += n1 * n1, bn += n2 * n2;
    }
    scale = PetscSqrtReal(tn * bn);
    PetscCall(KAdjoint(af, kk, &z, &ob, &zb, &w));
    PetscCall(KInDot(af, &d, &zb, &rhs));
    PetscCall(AdjTestReportScaled(StepKernelNames[kk], lhs, rhs, scale, tol, fail));
  }
  af->qf[0] = qf0, af->qf[1] = qf1, af->pf = pf;
  PetscCall(KInDestroy(&z));
  PetscCall(KInDestroy(&d));
  PetscCall(KInDestroy(&zp));
  PetscCall(KInDestroy(&zb));
  PetscCall(VecDestroy(&op.Y));
  PetscCall(VecDestroy(&om.Y));
  PetscCall(VecDestroy(&ob.Y));
  for (PetscInt c = 0; c < 2; c++) {
    PetscCall(VecDestroy(&op.R[c]));
    PetscCall(VecDestroy(&om.R[c]));
    PetscCall(VecDestroy(&ob.R[c]));
  }
  PetscCall(VecDestroy(&w.xl));
  PetscCall(VecDestroy(&w.xbl));
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(VecDestroy(&w.ql[c]));
    PetscCall(VecDestroy(&w.qbl[c]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AdjStepper st;
  Airfoil    af;
  PetscInt   fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(AdjStepperRegisterAll());
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "airfoil", Base, NULL, &st));
  PetscCall(AdjStepperGetContext(st, &af));
  PetscCall(DotKernels(af, &fail));
  PetscCall(DotStepKernels(af, &fail));
  PetscCall(DotForces(af, st, &fail));
  PetscCall(DotStep(st, 1, "step 1 (Euler convection)", &fail));
  PetscCall(DotStep(st, 3, "step 3 (Adams-Bashforth 2)", &fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(AdjTestStepperCreate(PETSC_COMM_WORLD, "airfoil", Base, AirfoilTestVortex, &st));
  PetscCall(DotStep(st, 1, "step 1, far-field vortex", &fail));
  PetscCall(DotStep(st, 3, "step 3, far-field vortex", &fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
