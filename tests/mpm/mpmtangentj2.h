/* Tangent-linear model of the j2 return mapping (src/mpm/models/j2.c), forward mode on full 2x2 matrices, written
 * independently of the model's adjoint (and of its symmetric-storage helpers) for the dot-product tests.
 * Included by mpmtangent.h. */
#pragma once

#include "mpmtest.h"
#include "mpm/mpmmodel.h"

typedef PetscScalar J2Mat[MPM_DIM][MPM_DIM];

/* A value and its tangent. */
typedef struct {
  PetscReal v, d;
} J2Dual;

static inline void J2MatMul(const J2Mat A, const J2Mat B, J2Mat C)
{
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j];
}

/* d(A B) = dA B + A dB. */
static inline void J2MatMulTangent(const J2Mat A, const J2Mat dA, const J2Mat B, const J2Mat dB, J2Mat C, J2Mat dC)
{
  J2Mat t1, t2;

  J2MatMul(A, B, C);
  J2MatMul(dA, B, t1);
  J2MatMul(A, dB, t2);
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) dC[i][j] = t1[i][j] + t2[i][j];
}

/* atanh(sqrt y)/sqrt y and its y-derivative (series below 1e-2). */
static inline J2Dual J2TangentH(PetscReal y, PetscReal dy)
{
  J2Dual h = {1, 0};
  if (y < 1e-2) {
    PetscReal yk = 1, dhy = 0;
    for (PetscInt k = 1; k <= 14; k++) {
      dhy += k * yk / (2 * k + 1);
      yk *= y;
      h.v += yk / (2 * k + 1);
    }
    h.d = dhy * dy;
  } else {
    const PetscReal r = PetscSqrtReal(y);
    h.v               = 0.5 * PetscLogReal((1 + r) / (1 - r)) / r;
    h.d               = (1 / (1 - y) - h.v) / (2 * y) * dy;
  }
  return h;
}

/* e = 1/2 log(b) of a symmetric positive definite 2x2 b and de: b = m I + D, eigenvalues m +- r,
 *   log b = log(det b)/2 I + h(r^2/m^2)/m D. */
static inline void J2TangentHalfLog(const J2Mat b, const J2Mat db, J2Mat e, J2Mat de)
{
  const PetscReal m = 0.5 * (b[0][0] + b[1][1]), dm = 0.5 * (db[0][0] + db[1][1]);
  const PetscReal det  = b[0][0] * b[1][1] - b[0][1] * b[1][0];
  const PetscReal ddet = db[0][0] * b[1][1] + b[0][0] * db[1][1] - db[0][1] * b[1][0] - b[0][1] * db[1][0];
  J2Mat           D, dD;
  PetscReal       r2 = 0, dr2 = 0, g, dg;
  J2Dual          h;

  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      D[i][j]  = b[i][j] - (i == j) * m;
      dD[i][j] = db[i][j] - (i == j) * dm;
    }
  r2  = D[0][0] * D[0][0] + D[0][1] * D[1][0];
  dr2 = 2 * D[0][0] * dD[0][0] + dD[0][1] * D[1][0] + D[0][1] * dD[1][0];
  h   = J2TangentH(r2 / (m * m), dr2 / (m * m) - 2 * r2 * dm / (m * m * m));
  g   = h.v / (2 * m);
  dg  = h.d / (2 * m) - h.v * dm / (2 * m * m);
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      e[i][j]  = (i == j) * 0.25 * PetscLogReal(det) + g * D[i][j];
      de[i][j] = (i == j) * 0.25 * ddet / det + dg * D[i][j] + g * dD[i][j];
    }
}

/* X = exp(S) of a symmetric 2x2 S = s I + T (T^2 = y I) and dX: X = e^s (cosh(sqrt y) I + sinh(sqrt y)/sqrt y T). */
static inline void J2TangentExp(const J2Mat S, const J2Mat dS, J2Mat X, J2Mat dX)
{
  const PetscReal s = 0.5 * (S[0][0] + S[1][1]), ds = 0.5 * (dS[0][0] + dS[1][1]), es = PetscExpReal(s);
  const PetscReal t0 = S[0][0] - s, t1 = S[0][1], dt0 = dS[0][0] - ds, dt1 = dS[0][1];
  const PetscReal y = t0 * t0 + t1 * t1, dy = 2 * (t0 * dt0 + t1 * dt1);
  PetscReal       c, k, dk;

  if (y < 1e-2) {                     /* cosh, sinh(r)/r and its y-derivative by their series */
    PetscReal fe = 1, fo = 1, yj = 1; /* (2j)!, (2j+1)!, y^j */
    c = k = 1, dk = 0;
    for (PetscInt j = 1; j <= 10; j++) {
      fe = fo * (2 * j);
      fo = fe * (2 * j + 1);
      dk += j * yj / fo;
      yj *= y;
      c += yj / fe;
      k += yj / fo;
    }
  } else {
    const PetscReal r = PetscSqrtReal(y);
    c                 = PetscCoshReal(r);
    k                 = PetscSinhReal(r) / r;
    dk                = (c - k) / (2 * y);
  }
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      const PetscReal T = S[i][j] - (i == j) * s, dT = dS[i][j] - (i == j) * ds;
      X[i][j]  = es * ((i == j) * c + k * T);
      dX[i][j] = ds * X[i][j] + es * ((i == j) * 0.5 * k * dy + dk * dy * T + k * dT);
    }
}

/* The trial elastic log strain e (2x2), e_zz, the 3x3 deviator s, s_zz and q = |dev e| of j2 at (F, z), with
 * their tangents in the direction (dF, dz). */
typedef struct {
  J2Mat     Fe, dFe, e, de, s, ds;
  PetscReal ezz, dezz, tr, dtr, szz, dszz, q, dq;
} J2TangentStrain;

static inline void J2TangentTrialStrain(const J2Mat F, const PetscScalar z[], const J2Mat dF, const PetscScalar dz[],
                                        J2TangentStrain *t)
{
  const J2Mat P = {{z[0], z[1]}, {z[2], z[3]}}, dP = {{dz[0], dz[1]}, {dz[2], dz[3]}};
  J2Mat       FeT, dFeT, b, db;
  PetscReal   q2 = 0, qdq = 0;

  J2MatMulTangent(F, dF, P, dP, t->Fe, t->dFe);
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) FeT[i][j] = t->Fe[j][i], dFeT[i][j] = t->dFe[j][i];
  J2MatMulTangent(t->Fe, t->dFe, FeT, dFeT, b, db);
  J2TangentHalfLog(b, db, t->e, t->de);
  t->ezz = z[4], t->dezz = dz[4];
  t->tr   = t->e[0][0] + t->e[1][1] + t->ezz;
  t->dtr  = t->de[0][0] + t->de[1][1] + t->dezz;
  t->szz  = t->ezz - t->tr / 3;
  t->dszz = t->dezz - t->dtr / 3;
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      t->s[i][j]  = t->e[i][j] - (i == j) * t->tr / 3;
      t->ds[i][j] = t->de[i][j] - (i == j) * t->dtr / 3;
      q2 += t->s[i][j] * t->s[i][j];
      qdq += t->s[i][j] * t->ds[i][j];
    }
  t->q  = PetscSqrtReal(q2 + t->szz * t->szz);
  t->dq = t->q > 0 ? (qdq + t->szz * t->dszz) / t->q : 0;
}

/* The trial von Mises stress sqrt(3/2) |dev tau_trial| = sqrt(6) mu q of j2 at (F, z) (tests place the yield
 * stress relative to it). */
static inline PetscReal J2TrialEquivalentStress(const MPMMaterialPoint *mp, const J2Mat F, const PetscScalar z[])
{
  const J2Mat       zero  = {{0, 0}, {0, 0}};
  const PetscScalar dz[6] = {0, 0, 0, 0, 0, 0};
  J2TangentStrain   t;
  PetscReal         mu, lambda;

  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  J2TangentTrialStrain(F, z, zero, dz, &t);
  return PetscSqrtReal(6.0) * mu * t.q;
}

/* dp = smax_w(f) / (3 mu + H) and kappa = sqrt(3/2) dp / q with their tangents. */
static inline void J2TangentIncrement(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, J2Dual mu,
                                      const J2TangentStrain *t, PetscReal alpha, PetscReal dalpha, J2Dual *dp,
                                      J2Dual *kappa)
{
  const PetscReal w = mp->yield_smoothing * mp->sigma_y, dw = mp->yield_smoothing * dmp->sigma_y;
  const PetscReal f = PetscSqrtReal(6.0) * mu.v * t->q - mp->sigma_y - mp->H * alpha;
  const PetscReal df =
      PetscSqrtReal(6.0) * (mu.d * t->q + mu.v * t->dq) - dmp->sigma_y - dmp->H * alpha - mp->H * dalpha;
  const PetscReal den = 3 * mu.v + mp->H, dden = 3 * mu.d + dmp->H;
  PetscReal       sm = 0, dsm = 0;

  if (f >= w)
    sm = f, dsm = df;
  else if (f > -w) {
    sm  = (f + w) * (f + w) / (4 * w);
    dsm = (f + w) * (df + dw) / (2 * w) - (f + w) * (f + w) * dw / (4 * w * w);
  }
  dp->v = sm / den, dp->d = dsm / den - sm * dden / (den * den);
  kappa->v = kappa->d = 0;
  if (dp->v > 0) {
    kappa->v = PetscSqrtReal(1.5) * dp->v / t->q;
    kappa->d = PetscSqrtReal(1.5) * (dp->d / t->q - dp->v * t->dq / (t->q * t->q));
  }
}

/* d(Fp^-1)' = d(F^-1 exp(-kappa s) Fe_tr) of the plastic branch. */
static inline void J2TangentFlow(const J2Mat F, const J2Mat dF, const J2TangentStrain *t, J2Dual kappa,
                                 PetscScalar dPn[])
{
  const PetscReal J    = MPMDeterminant(F);
  const J2Mat     Finv = {{F[1][1] / J, -F[0][1] / J}, {-F[1][0] / J, F[0][0] / J}};
  J2Mat           S, dS, X, dX, Fen, dFen, t1, dFinv, Pn, dP;

  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      S[i][j]  = -kappa.v * t->s[i][j];
      dS[i][j] = -kappa.d * t->s[i][j] - kappa.v * t->ds[i][j];
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
