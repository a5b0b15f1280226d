/* The j2 model (src/mpm/models/j2.c) against its closed-form plane-strain tension curve: one particle driven through
 * F(t) = R diag(exp(t), 1) (R a rotation: the answer must rotate with it) with the exact return (no smoothing),
 * loading past yield, unloading elastically and yielding again in compression.  With the plastic strain
 * eps_p = p (1, -1/2, -1/2) (isochoric, along the deviator of the log strain (t, 0, 0)) and alpha its equivalent
 * (|dp| = dalpha), the von Mises stress is 2 mu |t - 3p/2| and
 *   loading (t up to t1):   alpha = p = max(0, (2 mu t - sigma_y) / (3 mu + H)),
 *   unloading:              alpha = p = alpha1 while 2 mu |t - 3 alpha1 / 2| <= sigma_y + H alpha1,
 *   reverse yield:          alpha = (6 mu alpha1 - 2 mu t - sigma_y) / (3 mu + H),  p = 2 alpha1 - alpha,
 *   tau = R diag(2 mu (t - p) + lambda t, mu p + lambda t) R^T,  Fp^-1 = diag(exp(-p), exp(p/2)),  e_zz = p/2.
 * Checked every step to 1e-10 (stress relative to its largest value), with the elastic unloading slope lambda + 2 mu
 * and the plastic slope lambda + 2 mu - 4 mu^2 / (3 mu + H) of tau_xx measured in the rotated frame. */
#include "mpmtest.h"
#include "mpm/mpmmodel.h"

typedef PetscScalar Mat2[MPM_DIM][MPM_DIM];

/* The closed form at t after loading to t1 (t1 = 0: still on the first loading branch): alpha, p. */
static void ClosedForm(PetscReal mu, PetscReal sy, PetscReal H, PetscReal t1, PetscReal t, PetscReal *alpha,
                       PetscReal *p)
{
  const PetscReal a1 = PetscMax(0, (2 * mu * t1 - sy) / (3 * mu + H));

  if (t1 == 0) {
    *alpha = *p = PetscMax(0, (2 * mu * t - sy) / (3 * mu + H));
    return;
  }
  *alpha = PetscMax(a1, (6 * mu * a1 - 2 * mu * t - sy) / (3 * mu + H));
  *p     = 2 * a1 - *alpha;
}

/* tau_xx in the frame of the stretch (R^T tau R) [0][0]. */
static PetscReal StretchFrameXX(const Mat2 tau, PetscReal th)
{
  const PetscReal c = PetscCosReal(th), s = PetscSinReal(th);
  return c * c * tau[0][0] + s * c * (tau[0][1] + tau[1][0]) + s * s * tau[1][1];
}

/* One step of the path: drives the model to t, compares with the closed form; err[0] stress, err[1] state. */
static void PathStep(const MPMMaterialPoint *mp, PetscReal th, PetscReal t1, PetscReal t, PetscScalar z[], Mat2 tau,
                     PetscReal err[2])
{
  const PetscReal c = PetscCosReal(th), s = PetscSinReal(th), et = PetscExpReal(t);
  const Mat2      F = {{c * et, -s}, {s * et, c}};
  PetscReal       mu, lambda, alpha, p, d[2];
  PetscScalar     znew[MPM_MODEL_MAX_STATE];

  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  MPMModelJ2.kirchhoff(mp, F, z, tau, znew);
  for (PetscInt k = 0; k < 6; k++) z[k] = znew[k];
  ClosedForm(mu, mp->sigma_y, mp->H, t1, t, &alpha, &p);
  d[0] = 2 * mu * (t - p) + lambda * t, d[1] = mu * p + lambda * t;
  err[0] = AdjTestMax(
      AdjTestMax(PetscAbsReal(tau[0][0] - (c * c * d[0] + s * s * d[1])),
                 PetscAbsReal(tau[1][1] - (s * s * d[0] + c * c * d[1]))),
      AdjTestMax(PetscAbsReal(tau[0][1] - s * c * (d[0] - d[1])), PetscAbsReal(tau[1][0] - s * c * (d[0] - d[1]))));
  err[1] = AdjTestMax(AdjTestMax(PetscAbsReal(z[0] - PetscExpReal(-p)), PetscAbsReal(z[3] - PetscExpReal(0.5 * p))),
                      AdjTestMax(AdjTestMax(PetscAbsReal(z[1]), PetscAbsReal(z[2])),
                                 AdjTestMax(PetscAbsReal(z[4] - 0.5 * p), PetscAbsReal(z[5] - alpha))));
}

int main(int argc, char **argv)
{
  const MPMMaterialPoint mp        = {.mass            = 1,
                                      .volume          = 1,
                                      .E               = 1e5,
                                      .nu              = 0.3,
                                      .sigma_y         = 1e3,
                                      .H               = 2e4,
                                      .yield_smoothing = 0,
                                      .model           = MPM_MODEL_J2};
  const PetscReal        angles[2] = {0, 0.7};
  PetscReal              mu, lambda, t1, r1, emax[2] = {0, 0}, taumax = 0, slope[2] = {0, 0};
  PetscInt               fail = 0;
  char                   name[128];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  MPMLameParameters(mp.E, mp.nu, &mu, &lambda);
  t1 = 5 * mp.sigma_y / (2 * mu); /* five times the yield strain */
  for (PetscInt a = 0; a < 2; a++) {
    PetscScalar z[MPM_MODEL_MAX_STATE];
    Mat2        tau;
    PetscReal   err[2], a1, p1, xx[3];

    MPMModelJ2.stateinit(&mp, z);
    for (PetscInt k = 1; k <= 50; k++) { /* loading: 0 -> t1 */
      PathStep(&mp, angles[a], 0, t1 * k / 50, z, tau, err);
      emax[0] = AdjTestMax(emax[0], err[0]), emax[1] = AdjTestMax(emax[1], err[1]);
      taumax = AdjTestMax(taumax, PetscAbsReal(tau[0][0]) + PetscAbsReal(tau[1][1]));
      if (k >= 49) xx[k - 49] = StretchFrameXX(tau, angles[a]);
    }
    slope[1] = AdjTestMax(
        slope[1], PetscAbsReal((xx[1] - xx[0]) / (t1 / 50) / (lambda + 2 * mu - 4 * mu * mu / (3 * mu + mp.H)) - 1));
    ClosedForm(mu, mp.sigma_y, mp.H, 0, t1, &a1, &p1);
    r1 = (mp.sigma_y + mp.H * a1) / (2 * mu); /* half the elastic range: reverse yield at t1 - 2 r1 */
    for (PetscInt k = 1; k <= 60; k++) {      /* unloading and reverse yield: t1 -> t1 - 4 r1 */
      PathStep(&mp, angles[a], t1, t1 - 4 * r1 * k / 60, z, tau, err);
      emax[0] = AdjTestMax(emax[0], err[0]), emax[1] = AdjTestMax(emax[1], err[1]);
      taumax = AdjTestMax(taumax, PetscAbsReal(tau[0][0]) + PetscAbsReal(tau[1][1]));
      if (k <= 2) xx[k - 1] = StretchFrameXX(tau, angles[a]);
    }
    slope[0] = AdjTestMax(slope[0], PetscAbsReal((xx[0] - xx[1]) / (4 * r1 / 60) / (lambda + 2 * mu) - 1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rotation %.2f: alpha after loading %.6g, after reverse yield %.6g\n",
                          (double)angles[a], (double)a1, (double)z[5]));
    PetscCall(MPMTestReport("reverse yield reached (alpha grew after unloading)", z[5] > a1 ? 0 : 1, 0.5, &fail));
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "stress vs closed form, max rel. (max |tau| %.4g Pa)", (double)taumax));
  PetscCall(MPMTestReport(name, emax[0] / taumax, 1e-10, &fail));
  PetscCall(MPMTestReport("state (Fp^-1, e_zz, alpha) vs closed form, max abs.", emax[1], 1e-10, &fail));
  PetscCall(MPMTestReport("elastic unloading slope / (lambda + 2 mu) - 1", slope[0], 1e-8, &fail));
  PetscCall(MPMTestReport("plastic slope / (lambda + 2 mu - 4 mu^2/(3 mu + H)) - 1", slope[1], 1e-8, &fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
