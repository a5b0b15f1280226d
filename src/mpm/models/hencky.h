/* Log-strain (Hencky) helpers shared by the plastic models (j2.c, druckerprager.c): the closed-form 2x2 symmetric
 * half-logarithm and exponential with their adjoints (smooth at repeated eigenvalues: series near them), and the
 * C^1 smoothed max(0, f) of the return mappings.  Static inline, like kinematics.h, so that each model compiles them
 * into its own kernel.  Included by the model files after mpmimpl.h. */
#pragma once

/* Symmetric 2x2 matrices as (xx, yy, xy). */
typedef PetscReal MPMSym2[3];

/* h(y) = atanh(sqrt y) / sqrt y = sum_k y^k / (2k + 1) and h'(y) (0 <= y < 1): the divided difference of log,
 * (log(m + r) - log(m - r)) / (2 r) = h(r^2/m^2) / m.  Series for y < 1e-2 (12 terms: remainder < 1e-24), where
 * the closed form of h' would cancel. */
static inline void MPMLogDividedDifference(PetscReal y, PetscReal *h, PetscReal *dh)
{
  if (y < 1e-2) {
    *h = *dh = 0;
    for (PetscInt k = 12; k >= 1; k--) {
      *h  = *h * y + 1.0 / (2 * k + 1);
      *dh = *dh * y + (PetscReal)k / (2 * k + 1);
    }
    *h = *h * y + 1;
  } else {
    const PetscReal r = PetscSqrtReal(y);
    *h                = PetscAtanhReal(r) / r;
    *dh               = (1 / (1 - y) - *h) / (2 * y);
  }
}

/* c(y) = cosh(sqrt y) = sum_j y^j / (2j)!, k(y) = sinh(sqrt y) / sqrt y = sum_j y^j / (2j + 1)! and k'(y)
 * (c'(y) = k / 2): the divided difference of exp.  Series for y < 1e-2 (8 terms: remainder < 1e-30). */
static inline void MPMExpDividedDifference(PetscReal y, PetscReal *c, PetscReal *k, PetscReal *dk)
{
  if (y < 1e-2) {
    PetscReal fact[18];

    fact[0] = 1;
    for (PetscInt j = 1; j < 18; j++) fact[j] = fact[j - 1] * j;
    *c = *k = *dk = 0;
    for (PetscInt j = 8; j >= 1; j--) {
      *c  = *c * y + 1 / fact[2 * j];
      *k  = *k * y + 1 / fact[2 * j + 1];
      *dk = *dk * y + j / fact[2 * j + 1];
    }
    *c = *c * y + 1, *k = *k * y + 1;
  } else {
    const PetscReal r = PetscSqrtReal(y);
    *c                = PetscCoshReal(r);
    *k                = PetscSinhReal(r) / r;
    *dk               = (*c - *k) / (2 * y);
  }
}

/* e = 1/2 log b of a symmetric positive definite b = m I + D (D traceless, eigenvalues m +- r):
 *   log b = 1/2 log(det b) I + h(r^2/m^2) / m D,  det b = m^2 - r^2. */
static inline void MPMSymHalfLog(const MPMSym2 b, MPMSym2 e)
{
  const PetscReal m = 0.5 * (b[0] + b[1]), d0 = 0.5 * (b[0] - b[1]), d1 = b[2], r2 = d0 * d0 + d1 * d1;
  const PetscReal a = 0.25 * PetscLogReal(b[0] * b[1] - b[2] * b[2]);
  PetscReal       h, dh, g;

  MPMLogDividedDifference(r2 / (m * m), &h, &dh);
  g    = h / (2 * m);
  e[0] = a + g * d0;
  e[1] = a - g * d0;
  e[2] = g * d1;
}

/* bb += (de/db)^T eb for MPMSymHalfLog: e = a I + g D with a = log(det b)/4, g = h(y)/(2m), y = r^2/m^2. */
static inline void MPMSymHalfLogAdjoint(const MPMSym2 b, const MPMSym2 eb, MPMSym2 bb)
{
  const PetscReal m = 0.5 * (b[0] + b[1]), d0 = 0.5 * (b[0] - b[1]), d1 = b[2], r2 = d0 * d0 + d1 * d1;
  const PetscReal det = b[0] * b[1] - b[2] * b[2], ab = eb[0] + eb[1];
  PetscReal       h, dh, g, gb, yb, mb, d0b, d1b, detb;

  MPMLogDividedDifference(r2 / (m * m), &h, &dh);
  g   = h / (2 * m);
  gb  = (eb[0] - eb[1]) * d0 + eb[2] * d1;
  d0b = g * (eb[0] - eb[1]);
  d1b = g * eb[2];
  yb  = gb * dh / (2 * m);
  mb  = -gb * h / (2 * m * m) - yb * 2 * r2 / (m * m * m);
  d0b += yb * 2 * d0 / (m * m);
  d1b += yb * 2 * d1 / (m * m);
  detb = ab / (4 * det); /* det = b0 b1 - b2^2 */
  bb[0] += 0.5 * mb + 0.5 * d0b + detb * b[1];
  bb[1] += 0.5 * mb - 0.5 * d0b + detb * b[0];
  bb[2] += d1b - 2 * detb * b[2];
}

/* X = exp(S) of a symmetric S = s I + T (T traceless, T^2 = y I): exp(S) = e^s (c(y) I + k(y) T). */
static inline void MPMSymExp(const MPMSym2 S, MPMSym2 X)
{
  const PetscReal s = 0.5 * (S[0] + S[1]), t0 = 0.5 * (S[0] - S[1]), t1 = S[2], es = PetscExpReal(s);
  PetscReal       c, k, dk;

  MPMExpDividedDifference(t0 * t0 + t1 * t1, &c, &k, &dk);
  X[0] = es * (c + k * t0);
  X[1] = es * (c - k * t0);
  X[2] = es * k * t1;
}

/* Sb += (dX/dS)^T Xb for MPMSymExp (dX/ds = X, c' = k/2). */
static inline void MPMSymExpAdjoint(const MPMSym2 S, const MPMSym2 Xb, MPMSym2 Sb)
{
  const PetscReal s = 0.5 * (S[0] + S[1]), t0 = 0.5 * (S[0] - S[1]), t1 = S[2], es = PetscExpReal(s);
  PetscReal       c, k, dk, X[3], sb, cb, kb, yb, t0b, t1b;

  MPMExpDividedDifference(t0 * t0 + t1 * t1, &c, &k, &dk);
  MPMSymExp(S, X);
  sb  = Xb[0] * X[0] + Xb[1] * X[1] + Xb[2] * X[2];
  cb  = es * (Xb[0] + Xb[1]);
  kb  = es * (t0 * (Xb[0] - Xb[1]) + t1 * Xb[2]);
  t0b = es * k * (Xb[0] - Xb[1]);
  t1b = es * k * Xb[2];
  yb  = 0.5 * k * cb + dk * kb;
  t0b += 2 * t0 * yb;
  t1b += 2 * t1 * yb;
  Sb[0] += 0.5 * (sb + t0b);
  Sb[1] += 0.5 * (sb - t0b);
  Sb[2] += t1b;
}

/* smax_w(f) and its partial derivatives in f and w (w = 0: max(0, f)). */
static inline PetscReal MPMSmoothMax(PetscReal f, PetscReal w, PetscReal *df, PetscReal *dw)
{
  *df = *dw = 0;
  if (f <= -w) return 0;
  if (f >= w) {
    *df = 1;
    return f;
  }
  *df = (f + w) / (2 * w);
  *dw = (f + w) * (w - f) / (4 * w * w);
  return (f + w) * (f + w) / (4 * w);
}

/* Plastic flow of a log-strain return mapping: the elastic part Fe' = exp(S) Fe_tr (S = e' - e, coaxial with the
 * trial log strain e = 1/2 log(Fe_tr Fe_tr^T), so exp(e') = exp(S) exp(e)) and the stored plastic part
 * Fp'^-1 = F^-1 Fe' (row-major, 4 reals). */
static inline void MPMPlasticFlow(const PetscScalar F[MPM_DIM][MPM_DIM], const PetscReal Fe[MPM_DIM][MPM_DIM],
                                  const MPMSym2 S, PetscScalar Pn[])
{
  const PetscReal J = MPMDeterminant(F);
  PetscReal       X[3], Fen[MPM_DIM][MPM_DIM];

  MPMSymExp(S, X);
  for (PetscInt c = 0; c < MPM_DIM; c++) {
    Fen[0][c] = X[0] * Fe[0][c] + X[2] * Fe[1][c];
    Fen[1][c] = X[2] * Fe[0][c] + X[1] * Fe[1][c];
  }
  /* F^-1 = [[F11, -F01], [-F10, F00]] / J */
  for (PetscInt c = 0; c < MPM_DIM; c++) {
    Pn[c]     = (F[1][1] * Fen[0][c] - F[0][1] * Fen[1][c]) / J;
    Pn[2 + c] = (-F[1][0] * Fen[0][c] + F[0][0] * Fen[1][c]) / J;
  }
}

/* Adjoint of MPMPlasticFlow: Fb, Feb, Sb += the transposes applied to Pnb (d(F^-1) = -F^-1 dF F^-1,
 * X = exp(S): Xb = sym(Fenb Fe^T), Feb += X Fenb). */
static inline void MPMPlasticFlowAdjoint(const PetscScalar F[MPM_DIM][MPM_DIM], const PetscReal Fe[MPM_DIM][MPM_DIM],
                                         const MPMSym2 S, const PetscScalar Pnb[], PetscScalar Fb[MPM_DIM][MPM_DIM],
                                         PetscReal Feb[MPM_DIM][MPM_DIM], MPMSym2 Sb)
{
  const PetscReal J                      = MPMDeterminant(F);
  const PetscReal Finv[MPM_DIM][MPM_DIM] = {{F[1][1] / J, -F[0][1] / J}, {-F[1][0] / J, F[0][0] / J}};
  PetscReal       X[3], Fen[MPM_DIM][MPM_DIM], Finvb[MPM_DIM][MPM_DIM], Fenb[MPM_DIM][MPM_DIM], Xb[3];

  MPMSymExp(S, X);
  for (PetscInt c = 0; c < MPM_DIM; c++) {
    Fen[0][c] = X[0] * Fe[0][c] + X[2] * Fe[1][c];
    Fen[1][c] = X[2] * Fe[0][c] + X[1] * Fe[1][c];
  }
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt c = 0; c < MPM_DIM; c++) {
      Finvb[a][c] = Pnb[2 * a] * Fen[c][0] + Pnb[2 * a + 1] * Fen[c][1];
      Fenb[a][c]  = Finv[0][a] * Pnb[c] + Finv[1][a] * Pnb[2 + c];
    }
  for (PetscInt a = 0; a < MPM_DIM; a++) /* Fb -= Finv^T Finvb Finv^T */
    for (PetscInt c = 0; c < MPM_DIM; c++)
      for (PetscInt k = 0; k < MPM_DIM; k++)
        for (PetscInt l = 0; l < MPM_DIM; l++) Fb[a][c] -= Finv[k][a] * Finvb[k][l] * Finv[c][l];
  Xb[0] = Fenb[0][0] * Fe[0][0] + Fenb[0][1] * Fe[0][1];
  Xb[1] = Fenb[1][0] * Fe[1][0] + Fenb[1][1] * Fe[1][1];
  Xb[2] = Fenb[0][0] * Fe[1][0] + Fenb[0][1] * Fe[1][1] + Fenb[1][0] * Fe[0][0] + Fenb[1][1] * Fe[0][1];
  for (PetscInt c = 0; c < MPM_DIM; c++) {
    Feb[0][c] += X[0] * Fenb[0][c] + X[2] * Fenb[1][c];
    Feb[1][c] += X[2] * Fenb[0][c] + X[1] * Fenb[1][c];
  }
  MPMSymExpAdjoint(S, Xb, Sb);
}

/* The trial elastic state of a log-strain plasticity model with the internal state z = (Fp^-1 row-major, e_zz, ...):
 * Fe_tr = F Fp^-1, b = Fe_tr Fe_tr^T, e = 1/2 log(b) (2x2: xx, yy, xy), e_zz = z[4] (plane strain), the trace t of
 * the 3x3 log strain, its deviator s (xx, yy, xy) and s_zz, and q = |dev e| (the Frobenius norm of the 3x3 deviator).
 * Shared by the J2 and Drucker-Prager return mappings (j2.c, druckerprager.c). */
typedef struct {
  PetscReal Fe[MPM_DIM][MPM_DIM], b[3], e[3], ezz, t, s[3], szz, q;
} MPMHenckyTrial;

static inline void MPMHenckyTrialState(const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[], MPMHenckyTrial *h)
{
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt c = 0; c < MPM_DIM; c++) h->Fe[a][c] = F[a][0] * z[c] + F[a][1] * z[2 + c];
  h->b[0] = h->Fe[0][0] * h->Fe[0][0] + h->Fe[0][1] * h->Fe[0][1];
  h->b[1] = h->Fe[1][0] * h->Fe[1][0] + h->Fe[1][1] * h->Fe[1][1];
  h->b[2] = h->Fe[0][0] * h->Fe[1][0] + h->Fe[0][1] * h->Fe[1][1];
  MPMSymHalfLog(h->b, h->e);
  h->ezz  = z[4];
  h->t    = h->e[0] + h->e[1] + h->ezz;
  h->s[0] = h->e[0] - h->t / 3, h->s[1] = h->e[1] - h->t / 3, h->s[2] = h->e[2];
  h->szz = h->ezz - h->t / 3;
  h->q   = PetscSqrtReal(h->s[0] * h->s[0] + h->s[1] * h->s[1] + 2 * h->s[2] * h->s[2] + h->szz * h->szz);
}

/* sb, szzb += (dq/d(s, s_zz))^T qb (q = |dev e|, the off-diagonal counted twice); nothing at q = 0. */
static inline void MPMDeviatorNormAdjoint(const MPMHenckyTrial *h, PetscReal qb, PetscReal sb[3], PetscReal *szzb)
{
  if (h->q > 0 && qb != 0) {
    for (PetscInt k = 0; k < 2; k++) sb[k] += qb * h->s[k] / h->q;
    sb[2] += 2 * qb * h->s[2] / h->q;
    *szzb += qb * h->szz / h->q;
  }
}

/* Adjoint of MPMHenckyTrialState: from the bars of e (eb, direct uses; updated in place), of the deviator (sb, szzb),
 * of the trace (tb) and of e_zz (ezzb, direct uses) to Fb and zb (accumulated), through s = dev e, t = tr e, e = 1/2
 * log(Fe Fe^T) and Fe = F P (P[k][c] = z[2k + c]); Feb holds the bar of Fe_tr from other uses (updated). */
static inline void MPMHenckyTrialAdjoint(const MPMHenckyTrial *h, const PetscScalar F[MPM_DIM][MPM_DIM],
                                         const PetscScalar z[], PetscReal eb[3], const PetscReal sb[3], PetscReal szzb,
                                         PetscReal tb, PetscReal ezzb, PetscReal Feb[MPM_DIM][MPM_DIM],
                                         PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[])
{
  PetscReal bb[3] = {0, 0, 0};

  tb -= (sb[0] + sb[1] + szzb) / 3;
  eb[0] += sb[0] + tb;
  eb[1] += sb[1] + tb;
  eb[2] += sb[2];
  ezzb += szzb + tb;
  MPMSymHalfLogAdjoint(h->b, eb, bb);
  for (PetscInt k = 0; k < MPM_DIM; k++) {
    Feb[0][k] += 2 * bb[0] * h->Fe[0][k] + bb[2] * h->Fe[1][k];
    Feb[1][k] += 2 * bb[1] * h->Fe[1][k] + bb[2] * h->Fe[0][k];
  }
  for (PetscInt a = 0; a < MPM_DIM; a++) /* Fe = F P */
    for (PetscInt k = 0; k < MPM_DIM; k++)
      for (PetscInt c = 0; c < MPM_DIM; c++) {
        Fb[a][k] += Feb[a][c] * z[2 * k + c];
        zb[2 * k + c] += F[a][k] * Feb[a][c];
      }
  zb[4] += ezzb;
}

/* Stored elastic energy of the trial state, psi = mu |e|^2 + lambda/2 tr(e)^2 (3x3 log strain) [J/m^3]. */
static inline PetscReal MPMHenckyEnergy(PetscReal mu, PetscReal lambda, const MPMHenckyTrial *h)
{
  return mu * (h->e[0] * h->e[0] + h->e[1] * h->e[1] + 2 * h->e[2] * h->e[2] + h->ezz * h->ezz) +
         0.5 * lambda * h->t * h->t;
}

/* Undeformed, virgin particle of a 6-real log-strain plasticity state: Fp^-1 = I, e_zz = 0, alpha = 0 (independent
 * of the parameters). */
static inline void MPMHenckyStateInit(const MPMMaterialPoint *mp, PetscScalar z[])
{
  (void)mp;
  z[0] = z[3] = 1;
  z[1] = z[2] = z[4] = z[5] = 0;
}
