/* Tests of implicit diffusion (-transport_diffusion implicit): Strang splitting of Crank-Nicolson
 * diffusion half-steps around an SSP-RK3 step of advection + source.
 *
 *  - the assembled operator A = I - tau/2 D_lin equals the diffusion kernel with homogeneous ghosts;
 *  - dot-product tests <J dx, y> = <dx, J^T y> (1e-12 relative) of the CN substep in c, of the
 *    advection-only RK3 substep in c and in the source, and of the whole step in c and in the
 *    source.  These maps are affine (boundary data), so J dx = F(dx) - F(0), exact up to round-off;
 *  - the CN substep in kappa, which is rational in kappa (A^{-1} depends on it), so no finite
 *    difference formula is exact.  Two checks instead: (a) a dot-product test against the tangent
 *    obtained by differentiating the CN equation, T dk = A^{-1} tau/2 [D_full(dk, c) + D_full(dk, c')]
 *    (one exact linear solve; D_full is linear in kappa), to 1e-12; (b) a Taylor test of
 *    <CN_kappa(c), y> along dk with the adjoint gradient, whose remainder must fall at rate 2.
 *    The whole step in kappa gets the same Taylor test;
 *  - fftw and ksp give the same states and adjoints (periodic grid, constant kappa);
 *  - the scheme converges at second order in time to a fine-step reference.
 * Everything runs on 1, 2 and 4 ranks; the ksp solves use -transport_ksp_rtol 1e-13. */
#include "transport/transportimpl.h"
#include "adjtest.h"
#include "steppertest.h"

static const PetscReal tol = 1e-12;

typedef struct {
  const char *bcx, *bcy, *velocity, *solver;
  const char *bval[4]; /* xlo, xhi, ylo, yhi */
} ImplicitCase;

static PetscErrorCode CreateCase(const ImplicitCase *c, AdjStepper *st, Transport *tr)
{
  const char *side[4] = {"-transport_bc_xlo", "-transport_bc_xhi", "-transport_bc_ylo", "-transport_bc_yhi"};

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-transport_bc_x", c->bcx));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_bc_y", c->bcy));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_velocity", c->velocity));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_implicit_solver", c->solver));
  for (PetscInt s = 0; s < 4; s++) PetscCall(PetscOptionsSetValue(NULL, side[s], c->bval[s]));
  PetscCall(AdjTestStepperFromOptions(PETSC_COMM_WORLD, "transport", st));
  PetscCall(AdjStepperGetContext(*st, tr));
  PetscCheck((*tr)->impl.mode == TRANSPORT_DIFFUSION_IMPLICIT, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "not in implicit mode");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A CN substep far from the identity: tau kappa (1/hx^2 + 1/hy^2) = 2. */
static PetscErrorCode StiffTau(Transport tr, PetscReal *tau)
{
  PetscReal kmax;

  PetscFunctionBeginUser;
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  *tau = 2.0 / (kmax * (1 / (tr->grid.h[0] * tr->grid.h[0]) + 1 / (tr->grid.h[1] * tr->grid.h[1])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cl = v with halo and boundary ghosts of the given rule. */
static PetscErrorCode Ghost(Transport tr, const TransportGhostRule *rule, PetscBool homogeneous, Vec v, Vec cl)
{
  PetscScalar **a;

  PetscFunctionBeginUser;
  PetscCall(VecSet(cl, 0.0));
  PetscCall(DMGlobalToLocal(tr->da, v, INSERT_VALUES, cl));
  PetscCall(DMDAVecGetArray(tr->da, cl, &a));
  PetscCall(TransportFillGhosts(&tr->grid, rule, homogeneous, a));
  PetscCall(DMDAVecRestoreArray(tr->da, cl, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* out += kernel D(kl, cl) on ghosted arrays. */
static PetscErrorCode ApplyDiffusion(Transport tr, Vec kl, Vec cl, Vec out)
{
  const PetscScalar **k, **c;
  PetscScalar       **o;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArrayRead(tr->da, kl, &k));
  PetscCall(DMDAVecGetArrayRead(tr->da, cl, &c));
  PetscCall(DMDAVecGetArray(tr->da, out, &o));
  PetscCall(TransportDiffusion(&tr->grid, k, c, o));
  PetscCall(DMDAVecRestoreArray(tr->da, out, &o));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, cl, &c));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, kl, &k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReportClose(const char name[], PetscReal err, PetscReal bound, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s relative difference %.2e (accepted <= %.0e)  %s\n", name, (double)err,
                        (double)bound, err <= bound ? "ok" : "FAIL"));
  if (!(err <= bound)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gap / max(scale, PETSC_SMALL) that fails: NaN when either is NaN, infinite when scale is zero (two zero results
 * compare equal whatever the code computes, which tests nothing). */
static PetscReal RelativeGap(PetscReal gap, PetscReal scale)
{
  return AdjTestRelative(gap, scale > 0 ? PetscMax(scale, PETSC_SMALL) : scale);
}

/* |a - b| / max(|a|, |b|) in the 2-norm (see RelativeGap). */
static PetscErrorCode RelativeDifference(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal na, nb, nd;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(a, NORM_2, &na));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(VecNorm(d, NORM_2, &nd));
  *rel = RelativeGap(nd, AdjTestMax(na, nb));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Taylor remainders r2(eps) = |f(eps) - f(0) - eps g| for eps halving: as in adjsim
 * -adjoint_taylor_test the smallest observed rate must be >= 1.9 (a wrong gradient gives 1; rates
 * a little above 2 are third-order terms at the larger eps), and every remainder must stay well
 * above the solver noise. */
static PetscErrorCode TaylorReport(const char name[], PetscInt n, const PetscReal eps[], const PetscReal f[],
                                   PetscReal f0, PetscReal g, PetscInt *fail)
{
  PetscReal rmin = PETSC_MAX_REAL, rmax = 0, r2prev = 0;
  PetscBool ok = PETSC_TRUE;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < n; l++) {
    const PetscReal r2 = PetscAbsReal(f[l] - f0 - eps[l] * g);
    if (!(r2 >= 1e-9 * PetscAbsReal(f0))) ok = PETSC_FALSE; /* too close to the solver's noise to judge, or NaN */
    if (l > 0) {
      const PetscReal rate = PetscLog2Real(r2prev / r2);
      rmin                 = AdjTestMin(rmin, rate); /* keep a NaN rate: PetscMin and PetscMax can drop it */
      rmax                 = AdjTestMax(rmax, rate);
    }
    r2prev = r2;
  }
  ok = (PetscBool)(ok && n >= 2 && rmin >= 1.9); /* n < 2: no rate seen */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s Taylor remainder rates %.3f .. %.3f (accepted >= 1.9)  %s\n", name,
                        (double)rmin, (double)rmax, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The assembled A against I - tau/2 D with homogeneous ghosts (ksp only), for a diffusivity field
 * in [kbar, 2 kbar]. */
static PetscErrorCode CheckCNMatrix(Transport tr, PetscReal tau, PetscInt *fail)
{
  Vec       x, ax, ref, xl, kappa_saved;
  PetscReal rel, kbar;

  PetscFunctionBeginUser;
  if (tr->impl.solver != TRANSPORT_CN_KSP) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMCreateGlobalVector(tr->da, &x));
  PetscCall(VecDuplicate(x, &ax));
  PetscCall(VecDuplicate(x, &ref));
  PetscCall(VecDuplicate(x, &kappa_saved));
  PetscCall(DMCreateLocalVector(tr->da, &xl));
  PetscCall(VecCopy(tr->kappa, kappa_saved));
  PetscCall(VecMax(tr->kappa, NULL, &kbar));
  PetscCall(AdjTestRandom(tr->kappa, 12));
  PetscCall(VecScale(tr->kappa, 0.5 * kbar));
  PetscCall(VecShift(tr->kappa, 1.5 * kbar));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(AdjTestRandom(x, 11));
  PetscCall(TransportCNSetUp(tr, tau));
  PetscCall(MatMult(tr->impl.A, x, ax));
  PetscCall(Ghost(tr, &tr->crule, PETSC_TRUE, x, xl));
  PetscCall(VecSet(ref, 0.0));
  PetscCall(ApplyDiffusion(tr, tr->kloc, xl, ref));
  PetscCall(VecAYPX(ref, -0.5 * tau, x));
  PetscCall(RelativeDifference(ax, ref, &rel));
  PetscCall(ReportClose("CN matrix = I - tau/2 D_lin (kernel), kappa field", rel, 1e-14, fail));
  PetscCall(VecCopy(kappa_saved, tr->kappa));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(VecDestroy(&kappa_saved));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ax));
  PetscCall(VecDestroy(&ref));
  PetscCall(VecDestroy(&xl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = y0 + (|y0| / |jd|) jd.  <J dx, y> = <dx, J^T y> holds for every y; a y with a part along
 * J dx of its own size keeps <J dx, y> away from the cancellation of a sum of random terms, which
 * would otherwise magnify the solver's 1e-13 error by about sqrt(N) in the relative gap. */
static PetscErrorCode AlignWith(Vec y0, Vec jd, Vec y)
{
  PetscReal ny, nj;

  PetscFunctionBeginUser;
  PetscCall(VecNorm(y0, NORM_2, &ny));
  PetscCall(VecNorm(jd, NORM_2, &nj));
  PetscCall(VecWAXPY(y, ny / nj, jd, y0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CN substep in c: J dx = CN(dx) - CN(0). */
static PetscErrorCode DotCNState(Transport tr, PetscReal tau, PetscInt *fail)
{
  Vec       dx, y0, y, out, out0, zero, lin;
  PetscReal lhs, rhs;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &dx));
  PetscCall(VecDuplicate(dx, &y0));
  PetscCall(VecDuplicate(dx, &y));
  PetscCall(VecDuplicate(dx, &out));
  PetscCall(VecDuplicate(dx, &out0));
  PetscCall(VecDuplicate(dx, &zero));
  PetscCall(VecDuplicate(dx, &lin));
  PetscCall(AdjTestRandom(dx, 21));
  PetscCall(AdjTestRandom(y0, 22));
  PetscCall(VecSet(zero, 0.0));
  PetscCall(TransportDiffuseCN(tr, tau, zero, out0));
  PetscCall(TransportDiffuseCN(tr, tau, dx, out));
  PetscCall(VecAXPY(out, -1.0, out0));
  PetscCall(AlignWith(y0, out, y));
  PetscCall(VecDot(out, y, &lhs));
  PetscCall(TransportDiffuseCN(tr, tau, dx, out));
  PetscCall(TransportDiffuseCNAdjoint(tr, tau, dx, out, y, lin));
  PetscCall(VecDot(dx, lin, &rhs));
  PetscCall(AdjTestReport("CN substep in c", lhs, rhs, tol, fail));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&out));
  PetscCall(VecDestroy(&out0));
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDestroy(&lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A positive base diffusivity and a direction: fields for ksp, constants for fftw (which needs a
 * constant kappa).  kappa0 in [kbar, 2 kbar], |dk| <= kbar/2. */
static PetscErrorCode KappaBaseAndDirection(Transport tr, Vec kappa0, Vec dk)
{
  PetscReal kbar;

  PetscFunctionBeginUser;
  PetscCall(VecMax(tr->kappa, NULL, &kbar));
  if (tr->impl.solver == TRANSPORT_CN_FFTW) {
    PetscCall(VecSet(kappa0, 1.5 * kbar));
    PetscCall(VecSet(dk, -0.5 * kbar));
  } else {
    PetscCall(AdjTestRandom(kappa0, 31));
    PetscCall(VecScale(kappa0, 0.5 * kbar));
    PetscCall(VecShift(kappa0, 1.5 * kbar));
    PetscCall(AdjTestRandom(dk, 32));
    PetscCall(VecScale(dk, 0.5 * kbar));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetKappa(Transport tr, Vec kappa0, PetscReal eps, Vec dk)
{
  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(tr->kappa, eps, dk, kappa0));
  PetscCall(TransportPrepareKappa(tr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CN substep in kappa: tangent-vs-adjoint dot test and Taylor test (see the file header). */
/* A map of the state at the current diffusivity: the CN substep or the whole implicit step. */
typedef PetscErrorCode (*KappaMapFn)(Transport, PetscReal, Vec, Vec);

static PetscErrorCode StrangMap(Transport tr, PetscReal tau, Vec c, Vec out)
{
  PetscFunctionBeginUser;
  PetscCall(TransportStepStrang(tr, c, out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Taylor check of the kappa gradient g = <dk, dJ/dkappa> of J(kappa) = <map(kappa; c), y>: J at
 * kappa0 + eps dk for eps = 1/4, 1/8, ... against f0 + eps g (TaylorReport). */
static PetscErrorCode KappaTaylorSweep(Transport tr, const char name[], KappaMapFn map, PetscReal tau, Vec c, Vec y,
                                       Vec kappa0, Vec dk, PetscReal f0, PetscReal g, Vec out, PetscInt *fail)
{
  PetscReal      f[5], eps[5];
  const PetscInt nlev = 5;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < nlev; l++) {
    eps[l] = 0.25 * PetscPowReal(0.5, (PetscReal)l);
    PetscCall(SetKappa(tr, kappa0, eps[l], dk));
    PetscCall(map(tr, tau, c, out));
    PetscCall(VecDot(out, y, &f[l]));
  }
  PetscCall(TaylorReport(name, nlev, eps, f, f0, g, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCNKappa(Transport tr, PetscReal tau, PetscInt *fail)
{
  Vec       c, y0, y, out, lin, kappa0, kappa_saved, dk, dkl, cl, r, t;
  PetscReal lhs, rhs, f0;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &c));
  PetscCall(VecDuplicate(c, &y0));
  PetscCall(VecDuplicate(c, &y));
  PetscCall(VecDuplicate(c, &out));
  PetscCall(VecDuplicate(c, &lin));
  PetscCall(VecDuplicate(c, &kappa0));
  PetscCall(VecDuplicate(c, &kappa_saved));
  PetscCall(VecDuplicate(c, &dk));
  PetscCall(VecDuplicate(c, &r));
  PetscCall(VecDuplicate(c, &t));
  PetscCall(DMCreateLocalVector(tr->da, &dkl));
  PetscCall(VecDuplicate(dkl, &cl));
  PetscCall(VecCopy(tr->kappa, kappa_saved));
  PetscCall(AdjTestRandom(c, 33));
  PetscCall(AdjTestRandom(y0, 34));
  PetscCall(KappaBaseAndDirection(tr, kappa0, dk));
  PetscCall(SetKappa(tr, kappa0, 0.0, dk));
  PetscCall(TransportDiffuseCN(tr, tau, c, out));
  /* tangent: A T dk = tau/2 [D_full(dk, c) + D_full(dk, c')], D_full(dk, .) on the ghosted state */
  PetscCall(Ghost(tr, &tr->krule, PETSC_TRUE, dk, dkl));
  PetscCall(VecSet(r, 0.0));
  PetscCall(Ghost(tr, &tr->crule, PETSC_FALSE, c, cl));
  PetscCall(ApplyDiffusion(tr, dkl, cl, r));
  PetscCall(Ghost(tr, &tr->crule, PETSC_FALSE, out, cl));
  PetscCall(ApplyDiffusion(tr, dkl, cl, r));
  PetscCall(VecScale(r, 0.5 * tau));
  PetscCall(VecSet(t, 0.0));
  PetscCall(TransportCNSolve(tr, tau, r, t));
  PetscCall(AlignWith(y0, t, y));
  PetscCall(VecDot(t, y, &lhs));
  /* adjoint at kappa0 */
  PetscCall(VecSet(tr->gkappa, 0.0));
  PetscCall(TransportDiffuseCNAdjoint(tr, tau, c, out, y, lin));
  PetscCall(VecDot(dk, tr->gkappa, &rhs));
  PetscCall(AdjTestReport("CN substep in kappa (vs tangent solve)", lhs, rhs, tol, fail));
  /* Taylor, with the plain random y0 (y above has a large part along the first derivative,
   * which can nearly cancel the second-order term the test looks at) */
  PetscCall(VecDot(out, y0, &f0));
  PetscCall(VecSet(tr->gkappa, 0.0));
  PetscCall(TransportDiffuseCNAdjoint(tr, tau, c, out, y0, lin));
  PetscCall(VecDot(dk, tr->gkappa, &rhs));
  PetscCall(
      KappaTaylorSweep(tr, "CN substep in kappa", TransportDiffuseCN, tau, c, y0, kappa0, dk, f0, rhs, out, fail));
  PetscCall(VecCopy(kappa_saved, tr->kappa));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&out));
  PetscCall(VecDestroy(&lin));
  PetscCall(VecDestroy(&kappa0));
  PetscCall(VecDestroy(&kappa_saved));
  PetscCall(VecDestroy(&dk));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&dkl));
  PetscCall(VecDestroy(&cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*StepFn)(Transport, Vec, Vec);
typedef PetscErrorCode (*StepAdjointFn)(Transport, Vec, Vec, Vec);

/* An affine step F in c and in the source: dot tests with differences from the zero state. */
static PetscErrorCode DotAffineStep(Transport tr, const char name[], StepFn step, StepAdjointFn adjoint, PetscInt *fail)
{
  Vec       dx, y0, y, out, out0, zero, lin, source;
  PetscReal lhs, rhs;
  char      label[64];

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &dx));
  PetscCall(VecDuplicate(dx, &y0));
  PetscCall(VecDuplicate(dx, &y));
  PetscCall(VecDuplicate(dx, &out));
  PetscCall(VecDuplicate(dx, &out0));
  PetscCall(VecDuplicate(dx, &zero));
  PetscCall(VecDuplicate(dx, &lin));
  PetscCall(VecDuplicate(dx, &source));
  PetscCall(VecCopy(tr->source, source));
  PetscCall(AdjTestRandom(dx, 41));
  PetscCall(AdjTestRandom(y0, 42));
  PetscCall(VecSet(zero, 0.0));
  /* in c */
  PetscCall(step(tr, zero, out0));
  PetscCall(step(tr, dx, out));
  PetscCall(VecAXPY(out, -1.0, out0));
  PetscCall(AlignWith(y0, out, y));
  PetscCall(VecDot(out, y, &lhs));
  PetscCall(step(tr, dx, out));
  PetscCall(VecSet(tr->gkappa, 0.0));
  PetscCall(VecSet(tr->gsource, 0.0));
  PetscCall(adjoint(tr, dx, y, lin));
  PetscCall(VecDot(dx, lin, &rhs));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s in c", name));
  PetscCall(AdjTestReport(label, lhs, rhs, tol, fail));
  /* in the source, at c = 0, around the case's source */
  PetscCall(VecAXPY(tr->source, 1.0, dx));
  PetscCall(step(tr, zero, out));
  PetscCall(VecAXPY(out, -1.0, out0));
  PetscCall(AlignWith(y0, out, y));
  PetscCall(VecDot(out, y, &lhs));
  PetscCall(VecCopy(source, tr->source));
  PetscCall(step(tr, zero, out0)); /* refresh the cached states at the base point */
  PetscCall(VecSet(tr->gsource, 0.0));
  PetscCall(adjoint(tr, zero, y, lin));
  PetscCall(VecDot(dx, tr->gsource, &rhs));
  PetscCall(PetscSNPrintf(label, sizeof(label), "%s in source", name));
  PetscCall(AdjTestReport(label, lhs, rhs, tol, fail));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&y0));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&out));
  PetscCall(VecDestroy(&out0));
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDestroy(&lin));
  PetscCall(VecDestroy(&source));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The advection-only RK3 substep: no kappa gradient, and the same map as RK3 of the full RHS
 * with kappa = 0. */
static PetscErrorCode CheckAdvectionOnly(Transport tr, PetscInt *fail)
{
  Vec       c, a, b, kappa_saved;
  PetscReal gk, rel;

  PetscFunctionBeginUser;
  PetscCall(DotAffineStep(tr, "advection-only RK3 substep", TransportStepRK3, TransportStepRK3Adjoint, fail));
  PetscCall(VecNorm(tr->gkappa, NORM_INFINITY, &gk));
  PetscCall(ReportClose("advection-only RK3: kappa gradient untouched", gk, 0.0, fail));
  PetscCall(DMCreateGlobalVector(tr->da, &c));
  PetscCall(VecDuplicate(c, &a));
  PetscCall(VecDuplicate(c, &b));
  PetscCall(VecDuplicate(c, &kappa_saved));
  PetscCall(AdjTestRandom(c, 51));
  PetscCall(TransportStepRK3(tr, c, a));
  PetscCall(VecCopy(tr->kappa, kappa_saved));
  PetscCall(VecSet(tr->kappa, 0.0));
  PetscCall(TransportPrepareKappa(tr));
  tr->rhs_without_diffusion = PETSC_FALSE;
  PetscCall(TransportStepRK3(tr, c, b));
  tr->rhs_without_diffusion = PETSC_TRUE;
  PetscCall(VecCopy(kappa_saved, tr->kappa));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(RelativeDifference(a, b, &rel));
  PetscCall(ReportClose("advection-only RK3 = full RK3 at kappa 0", rel, 1e-15, fail));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&a));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&kappa_saved));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whole step in kappa: Taylor test along dk with the adjoint gradient. */
static PetscErrorCode TaylorStepKappa(Transport tr, PetscInt *fail)
{
  Vec       c, y, out, lin, kappa0, kappa_saved, dk;
  PetscReal f0, g;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &c));
  PetscCall(VecDuplicate(c, &y));
  PetscCall(VecDuplicate(c, &out));
  PetscCall(VecDuplicate(c, &lin));
  PetscCall(VecDuplicate(c, &kappa0));
  PetscCall(VecDuplicate(c, &kappa_saved));
  PetscCall(VecDuplicate(c, &dk));
  PetscCall(VecCopy(tr->kappa, kappa_saved));
  PetscCall(AdjTestRandom(c, 61));
  PetscCall(AdjTestRandom(y, 62));
  PetscCall(KappaBaseAndDirection(tr, kappa0, dk));
  PetscCall(SetKappa(tr, kappa0, 0.0, dk));
  PetscCall(TransportStepStrang(tr, c, out));
  PetscCall(VecDot(out, y, &f0));
  PetscCall(VecSet(tr->gkappa, 0.0));
  PetscCall(TransportStepStrangAdjoint(tr, c, y, lin));
  PetscCall(VecDot(dk, tr->gkappa, &g));
  PetscCall(KappaTaylorSweep(tr, "implicit step in kappa", StrangMap, 0.0, c, y, kappa0, dk, f0, g, out, fail));
  PetscCall(VecCopy(kappa_saved, tr->kappa));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&out));
  PetscCall(VecDestroy(&lin));
  PetscCall(VecDestroy(&kappa0));
  PetscCall(VecDestroy(&kappa_saved));
  PetscCall(VecDestroy(&dk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunDotCase(const ImplicitCase *ic, PetscInt *fail)
{
  AdjStepper st;
  Transport  tr;
  PetscReal  tau = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-- bc_x %s, bc_y %s (data %s %s %s %s), velocity %s, solver %s\n", ic->bcx,
                        ic->bcy, ic->bval[0], ic->bval[1], ic->bval[2], ic->bval[3], ic->velocity, ic->solver));
  PetscCall(CreateCase(ic, &st, &tr));
  PetscCall(AdjTestRandom(tr->source, 71)); /* a source field, so RK3 substeps carry one */
  PetscCall(StiffTau(tr, &tau));
  PetscCall(CheckCNMatrix(tr, tau, fail));
  PetscCall(DotCNState(tr, tau, fail));
  PetscCall(CheckCNKappa(tr, tau, fail));
  PetscCall(CheckAdvectionOnly(tr, fail));
  PetscCall(DotAffineStep(tr, "implicit step", TransportStepStrang, TransportStepStrangAdjoint, fail));
  PetscCall(TaylorStepKappa(tr, fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fftw and ksp on the same periodic, constant-kappa case: CN substep, several steps, and the
 * adjoint of a step (state and kappa gradient) agree to solver tolerance. */
static PetscErrorCode CompareSolvers(PetscInt *fail)
{
  ImplicitCase ic[2] = {{"periodic", "periodic", "rotation", "fftw", {"0", "0", "0", "0"}},
                        {"periodic", "periodic", "rotation", "ksp", {"0", "0", "0", "0"}}};
  AdjStepper   st[2];
  Transport    tr[2];
  Vec          c, y, out[2], lin[2];
  PetscReal    tau = 0, rel, gk[2];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-- fftw vs ksp: periodic, rotation, constant kappa\n"));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(CreateCase(&ic[s], &st[s], &tr[s]));
    PetscCall(AdjTestRandom(tr[s]->source, 81));
  }
  PetscCheck(tr[0]->impl.solver == TRANSPORT_CN_FFTW && tr[1]->impl.solver == TRANSPORT_CN_KSP, PETSC_COMM_WORLD,
             PETSC_ERR_PLIB, "solver selection");
  PetscCall(DMCreateGlobalVector(tr[0]->da, &c));
  PetscCall(VecDuplicate(c, &y));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(VecDuplicate(c, &out[s]));
    PetscCall(VecDuplicate(c, &lin[s]));
  }
  PetscCall(AdjTestRandom(c, 82));
  PetscCall(AdjTestRandom(y, 83));
  PetscCall(StiffTau(tr[0], &tau));
  for (PetscInt s = 0; s < 2; s++) PetscCall(TransportDiffuseCN(tr[s], 8 * tau, c, out[s]));
  PetscCall(RelativeDifference(out[0], out[1], &rel));
  PetscCall(ReportClose("CN substep (tau 16x stiff): fftw vs ksp", rel, 1e-11, fail));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(VecCopy(c, out[s]));
    for (PetscInt k = 0; k < 10; k++) PetscCall(TransportStepStrang(tr[s], out[s], out[s]));
  }
  PetscCall(RelativeDifference(out[0], out[1], &rel));
  PetscCall(ReportClose("10 implicit steps: fftw vs ksp", rel, 1e-11, fail));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(TransportStepStrang(tr[s], c, out[s]));
    PetscCall(VecSet(tr[s]->gkappa, 0.0));
    PetscCall(VecSet(tr[s]->gsource, 0.0));
    PetscCall(TransportStepStrangAdjoint(tr[s], c, y, lin[s]));
    PetscCall(VecSum(tr[s]->gkappa, &gk[s]));
  }
  PetscCall(RelativeDifference(lin[0], lin[1], &rel));
  PetscCall(ReportClose("step adjoint in c: fftw vs ksp", rel, 1e-11, fail));
  PetscCall(RelativeDifference(tr[0]->gsource, tr[1]->gsource, &rel));
  PetscCall(ReportClose("step adjoint in source: fftw vs ksp", rel, 1e-11, fail));
  PetscCall(ReportClose("step adjoint in kappa (constant): fftw vs ksp",
                        RelativeGap(PetscAbsReal(gk[0] - gk[1]), PetscAbsReal(gk[0])), 1e-11, fail));
  PetscCall(VecDestroy(&c));
  PetscCall(VecDestroy(&y));
  for (PetscInt s = 0; s < 2; s++) {
    PetscCall(VecDestroy(&out[s]));
    PetscCall(VecDestroy(&lin[s]));
    PetscCall(AdjStepperDestroy(&st[s]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c(T) with n steps of the implicit scheme from c0. */
static PetscErrorCode SolveToFinalTime(Transport tr, PetscReal T, PetscInt n, Vec c)
{
  PetscFunctionBeginUser;
  tr->dt = T / n;
  PetscCall(VecCopy(tr->c0, c));
  for (PetscInt k = 0; k < n; k++) PetscCall(TransportStepStrang(tr, c, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors against a 640-step reference at 5, 10, 20 and 40 steps must fall by ~4 per halving of dt:
 * observed orders within 1.8 .. 2.2. */
static PetscErrorCode TimeConvergence(const ImplicitCase *ic, PetscInt *fail)
{
  const PetscInt  nref = 640, nlev = 4, n0 = 5;
  const PetscReal T = 0.4;
  AdjStepper      st;
  Transport       tr;
  Vec             ref, c;
  PetscReal       err[4], omin = PETSC_MAX_REAL, omax = 0;
  PetscBool       ok;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-- time convergence: bc_x %s, bc_y %s, velocity %s, solver %s\n", ic->bcx,
                        ic->bcy, ic->velocity, ic->solver));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_grid", "16,16"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_domain", "1,1"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_kappa", "1e-2"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_rotation_omega", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_source", "gaussian"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_source_blobs", "0.3,0.6,0.1,1.0"));
  PetscCall(CreateCase(ic, &st, &tr));
  PetscCall(DMCreateGlobalVector(tr->da, &ref));
  PetscCall(VecDuplicate(ref, &c));
  PetscCall(SolveToFinalTime(tr, T, nref, ref));
  for (PetscInt l = 0; l < nlev; l++) {
    PetscCall(SolveToFinalTime(tr, T, n0 << l, c));
    PetscCall(VecAXPY(c, -1.0, ref));
    PetscCall(VecNorm(c, NORM_INFINITY, &err[l]));
    if (l > 0) {
      const PetscReal order = PetscLog2Real(err[l - 1] / err[l]);
      omin                  = AdjTestMin(omin, order); /* keep a NaN order */
      omax                  = AdjTestMax(omax, order);
      PetscCall(PetscPrintf(
          PETSC_COMM_WORLD,
          "   steps %3" PetscInt_FMT " -> %3" PetscInt_FMT ": max error %.3e -> %.3e, ratio %.2f, order %.3f\n",
          n0 << (l - 1), n0 << l, (double)err[l - 1], (double)err[l], (double)(err[l - 1] / err[l]), (double)order));
    }
  }
  ok = (PetscBool)(omin >= 1.8 && omax <= 2.2);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s observed orders %.3f .. %.3f (accepted 1.8 .. 2.2)  %s\n",
                        "time convergence", (double)omin, (double)omax, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
  PetscCall(VecDestroy(&ref));
  PetscCall(VecDestroy(&c));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt           fail    = 0;
  const ImplicitCase cases[] = {
      {"periodic", "periodic", "uniform", "fftw", {"0", "0", "0", "0"}},
      {"periodic", "periodic", "uniform", "ksp", {"0", "0", "0", "0"}},
      {"dirichlet", "neumann", "rotation", "ksp", {"0.3", "-0.2", "0.5", "1"}},
      {"neumann", "periodic", "rotation", "auto", {"0.4", "-1", "0", "0"}},
      {"dirichlet", "dirichlet", "uniform", "auto", {"1", "0.5", "-0.5", "0.2"}},
  };
  const ImplicitCase convergence[] = {
      {"periodic", "periodic", "rotation", "fftw", {"0", "0", "0", "0"}},
      {"dirichlet", "neumann", "rotation", "ksp", {"0.5", "0", "0", "0.3"}},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_diffusion", "implicit"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_grid", "13,10"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_domain", "1.3,1"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_final_time", "0.1"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_kappa", "2e-2"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_velocity_uniform", "0.7,-0.4"));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) PetscCall(RunDotCase(&cases[i], &fail));
  PetscCall(CompareSolvers(&fail));
  for (size_t i = 0; i < sizeof(convergence) / sizeof(convergence[0]); i++)
    PetscCall(TimeConvergence(&convergence[i], &fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " implicit-diffusion test(s) failed\n", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
