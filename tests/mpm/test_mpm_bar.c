/* Axial vibration of an elastic bar fixed at one end (issue 4 validation): the period of the first
 * mode must be within 1% of 4 L / sqrt(E / rho).
 *
 * Bar of length L = 1 m and thickness 0.04 m along x, clamped by the sticky wall at x = 0 (nodes
 * 0, 1, 2 of h = 0.01 m are held, so the bar starts at the last held node, x = 2h), nu = 0 so that
 * the plane-strain P-wave speed is the bar speed sqrt(E / rho) = 10 m/s: T = 0.4 s.  The bar starts
 * with a uniform axial velocity v0, which excites the odd modes; the centre-of-mass velocity
 *   v_cm(t) = sum_n a_n cos((2n - 1) w t),  a_n ~ 1 / (2n - 1)^2,
 * vanishes exactly at t = T/4 + m T/2 for every mode, so T follows from a least-squares fit of its
 * zero crossings (linear interpolation between steps) over three periods. */
#include "mpmtest.h"

static const char *const Bar[] = {"-mpm_grid",
                                  "110,12",
                                  "-mpm_domain",
                                  "1.1,0.12",
                                  "-mpm_wall_xlo",
                                  "sticky",
                                  "-mpm_wall_xhi",
                                  "none",
                                  "-mpm_wall_ylo",
                                  "none",
                                  "-mpm_wall_yhi",
                                  "none",
                                  "-mpm_gravity",
                                  "0,0",
                                  "-mpm_E",
                                  "1e5",
                                  "-mpm_nu",
                                  "0",
                                  "-mpm_rho",
                                  "1000",
                                  "-mpm_ppc",
                                  "2",
                                  "-mpm_body0",
                                  "box:0.02,0.04,1.02,0.08:0:0.01,0",
                                  "-mpm_final_time",
                                  "1.2",
                                  NULL};

typedef struct {
  PetscReal dt, vprev;
  PetscInt  ncross;
  PetscReal cross[64];
} BarCtx;

static PetscErrorCode BarMonitor(AdjStepper st, AdjStepIndex k, Vec x, void *vctx)
{
  BarCtx    *c = (BarCtx *)vctx;
  MPMSummary s;
  PetscReal  v;

  PetscFunctionBeginUser;
  PetscCall(MPMSummarize(st, x, &s));
  v = s.momentum[0] / s.mass;
  if (k > 0 && (v > 0) != (c->vprev > 0) && c->ncross < 64)
    c->cross[c->ncross++] = (k - 1 + c->vprev / (c->vprev - v)) * c->dt;
  c->vprev = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AdjStepper st;
  MPM        mpm;
  Vec        x;
  BarCtx     ctx = {0, 0, 0, {0}};
  PetscReal  smm = 0, smt = 0, T, Texact, err;
  PetscInt   fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MPMTestCreate(PETSC_COMM_WORLD, Bar, NULL, &st));
  PetscCall(AdjStepperGetContext(st, &mpm));
  ctx.dt = mpm->dt;
  PetscCall(VecDuplicate(mpm->x0, &x));
  PetscCall(MPMTestRun(st, -1, x, BarMonitor, &ctx));
  /* t_m = T/4 + m T/2 = T (1/4 + m/2): least squares for T through the origin of u_m = 1/4 + m/2. */
  for (PetscInt m = 0; m < ctx.ncross; m++) {
    const PetscReal u = 0.25 + 0.5 * m;
    smm += u * u, smt += u * ctx.cross[m];
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "zero crossing %" PetscInt_FMT " of the centre-of-mass velocity: t = %.6f s\n", m,
                          (double)ctx.cross[m]));
  }
  T      = ctx.ncross >= 2 ? smt / smm : 0;
  Texact = 4 * 1.0 / PetscSqrtReal(1e5 / 1000);
  err    = PetscAbsReal(T - Texact) / Texact;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "bar: %" PetscInt_FMT " particles, %" PetscInt64_FMT
                        " steps of %.3e s; first-mode period %.6f s, "
                        "4 L / sqrt(E/rho) = %.6f s\n",
                        mpm->N, (PetscInt64)mpm->nsteps, (double)mpm->dt, (double)T, (double)Texact));
  PetscCall(MPMTestReport("bar: relative error of the first-mode period", err, 0.01, &fail));
  PetscCall(MPMTestReport("bar: zero crossings found (at least 5 expected; reported as 5 - count)",
                          (PetscReal)PetscMax(0, 5 - ctx.ncross), 0, &fail));
  PetscCall(VecDestroy(&x));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
