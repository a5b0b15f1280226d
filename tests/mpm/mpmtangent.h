/* Tangent-linear models of the MPM constitutive kernels, written independently of their adjoints
 * (src/mpm/models/, src/mpm/models/kinematics.c) for the dot-product tests. */
#pragma once

#include "mpmtest.h"
#include "mpm/mpmmodel.h"
#include "mpmtestmodel.h"
#include "mpmtangentj2.h"

typedef PetscScalar Mat2[MPM_DIM][MPM_DIM];

static inline PetscReal Dot(const Mat2 a, const Mat2 b)
{
  PetscReal s = 0;
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) s += a[i][j] * b[i][j];
  return s;
}

/* Tangent of R(F): dR = [[-s, -c], [c, -s]] dtheta, dtheta = (b da - a db) / (a^2 + b^2). */
static inline void PolarTangent(const Mat2 F, const Mat2 dF, Mat2 dR)
{
  const PetscReal a = F[1][0] - F[0][1], b = F[0][0] + F[1][1], da = dF[1][0] - dF[0][1], db = dF[0][0] + dF[1][1];
  const PetscReal th = PetscAtan2Real(a, b), c = PetscCosReal(th), s = PetscSinReal(th);
  const PetscReal dth = (b * da - a * db) / (a * a + b * b);

  dR[0][0] = -s * dth, dR[0][1] = -c * dth, dR[1][0] = c * dth, dR[1][1] = -s * dth;
}

static inline void LameTangent(PetscReal E, PetscReal nu, PetscReal dE, PetscReal dnu, PetscReal *dmu,
                               PetscReal *dlambda)
{
  const PetscReal g = (1 + nu) * (1 - 2 * nu);

  *dmu     = dE / (2 * (1 + nu)) - E * dnu / (2 * (1 + nu) * (1 + nu));
  *dlambda = nu / g * dE + E * (1 + 2 * nu * nu) / (g * g) * dnu;
}

/* Tangent-linear model of one constitutive model (mpmmodel.h): dtau and the internal-state tangent dz' at
 * (F, z; material point mp) in the direction (dF, dz; dmp: dE, dnu, dsigma_y, dH, dfriction_angle, dcohesion) (z, dz,
 * dz' NULL for models without internal state). */
typedef void (*MPMTangentFn)(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                             const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                             PetscScalar dznew[]);

/* Shared by the elastic tangents: F F^T, R F^T and their tangents at entry (a, b). */
static inline void ElasticProducts(const Mat2 F, const Mat2 dF, const Mat2 R, const Mat2 dR, PetscInt a, PetscInt b,
                                   PetscScalar *ffd, PetscScalar *ff, PetscScalar *rfd, PetscScalar *rf)
{
  *ffd = *ff = *rfd = *rf = 0;
  for (PetscInt k = 0; k < MPM_DIM; k++) {
    *ffd += dF[a][k] * F[b][k] + F[a][k] * dF[b][k];
    *ff += F[a][k] * F[b][k];
    *rfd += dR[a][k] * F[b][k] + R[a][k] * dF[b][k];
    *rf += R[a][k] * F[b][k];
  }
}

/* fixed-corotated: tau = 2 mu (F - R) F^T + lambda (J - 1) J I. */
static inline void FixedCorotatedTangent(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                                         const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                                         PetscScalar dznew[])
{
  const PetscReal E = mp->E, nu = mp->nu, dE = dmp->E, dnu = dmp->nu;
  PetscReal       mu, lambda, dmu, dlambda;
  const PetscReal J  = MPMDeterminant(F);
  const PetscReal dJ = dF[0][0] * F[1][1] + F[0][0] * dF[1][1] - dF[0][1] * F[1][0] - F[0][1] * dF[1][0];
  Mat2            R, dR;

  (void)z, (void)dz, (void)dznew;
  MPMLameParameters(E, nu, &mu, &lambda);
  LameTangent(E, nu, dE, dnu, &dmu, &dlambda);
  MPMPolarRotation(F, R);
  PolarTangent(F, dF, dR);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar ffd, ff, rfd, rf;

      ElasticProducts(F, dF, R, dR, a, b, &ffd, &ff, &rfd, &rf);
      dtau[a][b] =
          2 * mu * (ffd - rfd) + 2 * dmu * (ff - rf) + (a == b ? lambda * (2 * J - 1) * dJ + dlambda * (J * J - J) : 0);
    }
}

/* neo-Hookean: tau = mu (F F^T - I) + lambda log(J) I. */
static inline void NeoHookeanTangent(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                                     const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                                     PetscScalar dznew[])
{
  const PetscReal E = mp->E, nu = mp->nu, dE = dmp->E, dnu = dmp->nu;
  PetscReal       mu, lambda, dmu, dlambda;
  const PetscReal J  = MPMDeterminant(F);
  const PetscReal dJ = dF[0][0] * F[1][1] + F[0][0] * dF[1][1] - dF[0][1] * F[1][0] - F[0][1] * dF[1][0];
  Mat2            R, dR;

  (void)z, (void)dz, (void)dznew;
  MPMLameParameters(E, nu, &mu, &lambda);
  LameTangent(E, nu, dE, dnu, &dmu, &dlambda);
  MPMPolarRotation(F, R);
  PolarTangent(F, dF, dR);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar ffd, ff, rfd, rf;

      ElasticProducts(F, dF, R, dR, a, b, &ffd, &ff, &rfd, &rf);
      dtau[a][b] = mu * ffd + dmu * (ff - (a == b)) + (a == b ? lambda * dJ / J + dlambda * PetscLogReal(J) : 0);
    }
}

/* j2 (src/mpm/models/j2.c): tau = 2 mu (e - kappa s) + lambda tr(e) I, z' = (F^-1 exp(-kappa s) Fe_tr,
 * e_zz - kappa s_zz, alpha + dp), forward mode through mpmtangentj2.h. */
static inline void J2Tangent(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                             const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                             PetscScalar dznew[])
{
  J2TangentStrain t;
  J2Dual          mu, lambda, dp, kappa;

  MPMLameParameters(mp->E, mp->nu, &mu.v, &lambda.v);
  LameTangent(mp->E, mp->nu, dmp->E, dmp->nu, &mu.d, &lambda.d);
  J2TangentTrialStrain(F, z, dF, dz, &t);
  J2TangentIncrement(mp, dmp, mu, &t, z[5], dz[5], &dp, &kappa);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++)
      dtau[a][b] = 2 * mu.d * (t.e[a][b] - kappa.v * t.s[a][b]) +
                   2 * mu.v * (t.de[a][b] - kappa.d * t.s[a][b] - kappa.v * t.ds[a][b]) +
                   (a == b) * (lambda.d * t.tr + lambda.v * t.dtr);
  dznew[4] = t.dezz - kappa.d * t.szz - kappa.v * t.dszz;
  dznew[5] = dz[5] + dp.d;
  if (dp.v > 0)
    J2TangentFlow(F, dF, &t, kappa, dznew);
  else
    for (PetscInt k = 0; k < 4; k++) dznew[k] = dz[k];
}

#include "mpmtangentdp.h"

/* The tangent of every model of the table (mpmmodel.h), by model number.  A model registered without a
 * tangent here has a NULL entry, which the dot-product test (test_mpm_dot.c) reports as a failure. */
static const MPMTangentFn MPMModelTangents[MPM_NMODELS] = {
    [MPM_MODEL_FIXED_COROTATED] = FixedCorotatedTangent,
    [MPM_MODEL_NEO_HOOKEAN]     = NeoHookeanTangent,
    [MPM_MODEL_J2]              = J2Tangent,
    [MPM_MODEL_DRUCKER_PRAGER]  = DruckerPragerTangent,
};

/* test-damage (mpmtestmodel.h, tests only): tau = s(z) tau_nh(F),
 *   dtau = (ds/dz0 dz0 + ds/dz1 dz1) tau_nh + s dtau_nh,  dz0' = dz0 + 2 K <F - I, dF>,  dz1' = dz1 + C dJ. */
static inline void TestDamageTangent(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                                     const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                                     PetscScalar dznew[])
{
  const PetscReal  E = mp->E, nu = mp->nu;
  MPMMaterialPoint mpn = {.mass = 1, .volume = 1, .E = E, .nu = nu};
  const PetscReal  t = PetscTanhReal(z[1]), s = (2 + t) / (2 * (1 + z[0]));
  const PetscReal  ds = -s / (1 + z[0]) * dz[0] + (1 - t * t) / (2 * (1 + z[0])) * dz[1];
  const PetscReal  dJ = dF[0][0] * F[1][1] + F[0][0] * dF[1][1] - dF[0][1] * F[1][0] - F[0][1] * dF[1][0];
  Mat2             tau, dtaue;
  PetscReal        de2 = 0;

  MPMModelNeoHookean.kirchhoff(&mpn, F, NULL, tau, NULL);
  NeoHookeanTangent(mp, dmp, F, NULL, dF, NULL, dtaue, NULL);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      dtau[a][b] = ds * tau[a][b] + s * dtaue[a][b];
      de2 += 2 * (F[a][b] - (a == b)) * dF[a][b];
    }
  dznew[0] = dz[0] + MPM_TEST_DAMAGE_K * de2;
  dznew[1] = dz[1] + MPM_TEST_DAMAGE_C * dJ;
}

/* The tangent of table entry m: the built-in one, or test-damage's where a test put that model in the table. */
static inline MPMTangentFn MPMTangentOf(PetscInt m)
{
  if (MPMModelGetOps((MPMModel)m) == &MPMTestModelDamage) return TestDamageTangent;
  return MPMModelTangents[m];
}

/* dtau and dz' of the model of mp at (F, z; mp) in direction (dF, dz; dmp) (z, dz, dz' NULL without internal
 * state). */
static inline void KirchhoffTangent(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                                    const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                                    PetscScalar dznew[])
{
  MPMTangentOf((PetscInt)mp->model)(mp, dmp, F, z, dF, dz, dtau, dznew);
}
