/* Tangent-linear model of the drucker-prager return mapping (src/mpm/models/druckerprager.c), forward mode on full
 * 2x2 matrices through the j2 tangent helpers (mpmtangentj2.h: trial log strain, exp), written independently of the
 * model's adjoint for the dot-product tests.  Included by mpmtangent.h. */
#pragma once

#include "mpmtangentj2.h"

static inline J2Dual DPMul(J2Dual a, J2Dual b)
{
  return (J2Dual){a.v * b.v, a.d * b.v + a.v * b.d};
}

static inline J2Dual DPDiv(J2Dual a, J2Dual b)
{
  return (J2Dual){a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)};
}

/* smax_w(f): 0 (f <= -w), (f + w)^2 / (4 w) (|f| < w), f (f >= w), with its tangent in (f, w). */
static inline J2Dual DPSmoothMaxTangent(J2Dual f, J2Dual w)
{
  if (f.v <= -w.v) return (J2Dual){0, 0};
  if (f.v >= w.v) return f;
  return (J2Dual){(f.v + w.v) * (f.v + w.v) / (4 * w.v),
                  (f.v + w.v) * (f.d + w.d) / (2 * w.v) - (f.v + w.v) * (f.v + w.v) * w.d / (4 * w.v * w.v)};
}

/* The cone of the material point: beta = 3K a / (2 mu), a = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)), and the apex
 * trace t_a = 3 c cos(phi) / (sin(phi) 3K), with tangents (phi in degrees). */
static inline void DPTangentCone(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, J2Dual mu, J2Dual lambda,
                                 J2Dual *beta, J2Dual *ta)
{
  const PetscReal k = PETSC_PI / 180, ph = mp->friction_angle * k, dph = dmp->friction_angle * k;
  const J2Dual    sn = {PetscSinReal(ph), PetscCosReal(ph) * dph}, cs = {PetscCosReal(ph), -PetscSinReal(ph) * dph};
  const J2Dual    K3 = {2 * mu.v + 3 * lambda.v, 2 * mu.d + 3 * lambda.d}, c = {mp->cohesion, dmp->cohesion};
  const J2Dual    a = DPDiv((J2Dual){PetscSqrtReal(2.0 / 3.0) * 2 * sn.v, PetscSqrtReal(2.0 / 3.0) * 2 * sn.d},
                            (J2Dual){3 - sn.v, -sn.d});

  *beta = DPDiv(DPMul(K3, a), (J2Dual){2 * mu.v, 2 * mu.d});
  *ta   = DPDiv(DPMul((J2Dual){3 * c.v, 3 * c.d}, cs), DPMul(sn, K3));
}

/* d(Fp^-1)' = d(F^-1 exp(S) Fe_tr) with S = (u - u')/3 I - kappa s. */
static inline void DPTangentFlow(const J2Mat F, const J2Mat dF, const J2TangentStrain *t, J2Dual du3, J2Dual kappa,
                                 PetscScalar dPn[])
{
  const PetscReal J    = MPMDeterminant(F);
  const J2Mat     Finv = {{F[1][1] / J, -F[0][1] / J}, {-F[1][0] / J, F[0][0] / J}};
  J2Mat           S, dS, X, dX, Fen, dFen, t1, dFinv, Pn, dP;

  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      S[i][j]  = (i == j) * du3.v - kappa.v * t->s[i][j];
      dS[i][j] = (i == j) * du3.d - kappa.d * t->s[i][j] - kappa.v * t->ds[i][j];
    }
  J2TangentExp(S, dS, X, dX);
  J2MatMulTangent(X, dX, t->Fe, t->dFe, Fen, dFen);
  J2MatMul(Finv, dF, t1);
  J2MatMul(t1, Finv, dFinv);
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) dFinv[i][j] = -dFinv[i][j];
  J2MatMulTangent(Finv, dFinv, Fen, dFen, Pn, dP);
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) dPn[MPM_DIM * i + j] = dP[i][j];
}

/* drucker-prager: u = t_a - t, u' = smax_w1(u) (w1 = eps q / beta), g = smax_w2(q - beta u') (w2 = eps beta u'),
 * kappa = g / q, t' = t_a - u', tau = 2 mu (t'/3 I + (1 - kappa) s) + lambda t' I,
 * z' = (F^-1 exp((u - u')/3 I - kappa s) Fe_tr, t'/3 + (1 - kappa) s_zz, alpha + sqrt((u' - u)^2/3 + g^2)). */
static inline void DruckerPragerTangent(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F,
                                        const PetscScalar z[], const Mat2 dF, const PetscScalar dz[], Mat2 dtau,
                                        PetscScalar dznew[])
{
  const PetscReal eps = mp->yield_smoothing;
  J2TangentStrain t;
  J2Dual          mu, lambda, beta, ta, u, up, g, kappa = {0, 0}, tp, q, k1;

  MPMLameParameters(mp->E, mp->nu, &mu.v, &lambda.v);
  LameTangent(mp->E, mp->nu, dmp->E, dmp->nu, &mu.d, &lambda.d);
  DPTangentCone(mp, dmp, mu, lambda, &beta, &ta);
  J2TangentTrialStrain(F, z, dF, dz, &t);
  q  = (J2Dual){t.q, t.dq};
  u  = (J2Dual){ta.v - t.tr, ta.d - t.dtr};
  up = DPSmoothMaxTangent(u, DPDiv((J2Dual){eps * q.v, eps * q.d}, beta));
  {
    const J2Dual R = DPMul(beta, up);
    g              = DPSmoothMaxTangent((J2Dual){q.v - R.v, q.d - R.d}, (J2Dual){eps * R.v, eps * R.d});
  }
  if (g.v > 0) kappa = DPDiv(g, q);
  tp = (J2Dual){ta.v - up.v, ta.d - up.d};
  k1 = (J2Dual){1 - kappa.v, -kappa.d};
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      const PetscReal ep  = (a == b) * tp.v / 3 + k1.v * t.s[a][b];
      const PetscReal dep = (a == b) * tp.d / 3 + k1.d * t.s[a][b] + k1.v * t.ds[a][b];
      dtau[a][b]          = 2 * mu.d * ep + 2 * mu.v * dep + (a == b) * (lambda.d * tp.v + lambda.v * tp.d);
    }
  if (g.v > 0 || up.v != u.v) {
    const J2Dual    du3 = {(u.v - up.v) / 3, (u.d - up.d) / 3};
    const PetscReal da  = PetscSqrtReal((up.v - u.v) * (up.v - u.v) / 3 + g.v * g.v);

    DPTangentFlow(F, dF, &t, du3, kappa, dznew);
    dznew[4] = tp.d / 3 + k1.d * t.szz + k1.v * t.dszz;
    dznew[5] = dz[5] + (da > 0 ? ((up.v - u.v) * (up.d - u.d) / 3 + g.v * g.d) / da : 0);
  } else
    for (PetscInt k = 0; k < 6; k++) dznew[k] = dz[k];
}
