/* von Mises (J2) plasticity with linear isotropic hardening, -mpm_model j2 (docs/mpm.md, "von Mises plasticity").
 *   Kinematics: F = Fe Fp (multiplicative split), plane strain: F_zz = 1, so the elastic stretch out of the plane
 *   is exp(e_zz) with e_zz = -log Fp_zz.
 *   Elasticity: Hencky (quadratic in the logarithmic elastic strain e = 1/2 log(Fe Fe^T), 3x3 with e_zz),
 *     psi = mu |e|^2 + lambda/2 tr(e)^2,   tau = 2 mu e + lambda tr(e) I   (Kirchhoff stress).
 *   It makes the return mapping exact and closed form: in log-strain space von Mises with linear hardening is a
 *   radial return (Simo 1992; Klar et al. 2016; PlasticineLab), with no local Newton solve to differentiate.
 *   Internal state z (6 reals): Fp^-1 (row-major, 4), e_zz, alpha (equivalent plastic strain [1]).
 *   Return mapping (one call per particle and step, at the trial state Fe_tr = F Fp^-1):
 *     e = 1/2 log(b), b = Fe_tr Fe_tr^T (2x2, closed form below),  t = (e_xx + e_yy + e_zz) / 3,
 *     s = dev e (3x3: s_xx, s_yy, s_xy, s_zz),  q = |s|,
 *     f = sqrt(6) mu q - (sigma_y + H alpha)      (= sigma_eq - sigma_yield, sigma_eq = sqrt(3/2) |dev tau|),
 *     dp = smax_w(f) / (3 mu + H),   kappa = sqrt(3/2) dp / q,
 *     e' = e - kappa s,   alpha' = alpha + dp,   tau = 2 mu e' + lambda 3t I  (in-plane block),
 *     Fe' = exp(-kappa s_2x2) Fe_tr (e' and e are coaxial), Fp'^-1 = F^-1 Fe',  e_zz' = e_zz - kappa s_zz.
 *   With smax = max(0, f) this is the exact return (f' = 0 on the plastic branch).  The kink at f = 0 is smoothed
 *   over |f| < w = eps sigma_y (eps = -mpm_yield_smoothing of the label, 0 <= eps < 1):
 *     smax_w(f) = 0 (f <= -w),  (f + w)^2 / (4 w) (|f| < w),  f (f >= w),
 *   C^1 with a Lipschitz derivative, >= max(0, f), so f' = f - smax_w(f) <= 0: the stress stays inside the yield
 *   surface, and the model equals the exact one except in the band.  eps = 0 is the exact return (a kink).
 *   Since f <= -w implies dp = 0 exactly, and f > -w implies q >= (sigma_y (1 - eps) + H alpha)/(sqrt(6) mu) > 0,
 *   the direction s / q is only used away from q = 0 (the undeformed state).
 *   The adjoint below is the transpose of the linearization of exactly this map (the branch fixed by the forward
 *   state); the 2x2 log and exp are closed forms smooth at repeated eigenvalues (series near them). */
#include "../mpmimpl.h"
#include "../mpmmodel.h"
#include "hencky.h"

/* The intermediates of the return mapping at (F, z), shared by the forward kernel and its adjoint. */
typedef struct {
  PetscReal      mu, lambda, w;
  MPMHenckyTrial h; /* Fe_tr, e, trace, deviator, q */
  PetscReal      f, dp, kappa;
} J2Return;

/* Fe_tr = F Fp^-1, e = 1/2 log(Fe Fe^T), deviator, yield function and plastic increment. */
static void J2ReturnMapping(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                            J2Return *r)
{
  PetscReal df, dw;

  MPMLameParameters(mp->E, mp->nu, &r->mu, &r->lambda);
  r->w = mp->yield_smoothing * mp->sigma_y;
  MPMHenckyTrialState(F, z, &r->h);
  r->f     = PetscSqrtReal(6.0) * r->mu * r->h.q - (mp->sigma_y + mp->H * z[5]);
  r->dp    = MPMSmoothMax(r->f, r->w, &df, &dw) / (3 * r->mu + mp->H);
  r->kappa = r->dp > 0 ? PetscSqrtReal(1.5) * r->dp / r->h.q : 0;
}

/* tau = 2 mu e' + lambda tr(e) I and z' = (F^-1 exp(-kappa s) Fe_tr, e_zz - kappa s_zz, alpha + dp). */
static void J2(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
               PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[])
{
  J2Return              r;
  const MPMHenckyTrial *h = &r.h;

  J2ReturnMapping(mp, F, z, &r);
  tau[0][0] = 2 * r.mu * (h->e[0] - r.kappa * h->s[0]) + r.lambda * h->t;
  tau[1][1] = 2 * r.mu * (h->e[1] - r.kappa * h->s[1]) + r.lambda * h->t;
  tau[0][1] = tau[1][0] = 2 * r.mu * (h->e[2] - r.kappa * h->s[2]);
  znew[4]               = h->ezz - r.kappa * h->szz;
  znew[5]               = z[5] + r.dp;
  if (r.dp > 0) {
    const MPMSym2 S = {-r.kappa * h->s[0], -r.kappa * h->s[1], -r.kappa * h->s[2]};

    MPMPlasticFlow(F, h->Fe, S, znew);
  } else
    for (PetscInt c = 0; c < 4; c++) znew[c] = z[c];
}

/* Adjoint of the plastic update of Fp^-1 (dp > 0): P' = F^-1 exp(S) Fe_tr with S = -kappa s (MPMPlasticFlowAdjoint),
 * then kappab -= <Sb, s>, sb -= kappa Sb. */
static void J2PlasticFlowAdjoint(const J2Return *r, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar Pnb[],
                                 PetscScalar Fb[MPM_DIM][MPM_DIM], PetscReal Feb[MPM_DIM][MPM_DIM], PetscReal *kappab,
                                 PetscReal sb[3])
{
  const MPMHenckyTrial *h  = &r->h;
  const MPMSym2         S  = {-r->kappa * h->s[0], -r->kappa * h->s[1], -r->kappa * h->s[2]};
  MPMSym2               Sb = {0, 0, 0};

  MPMPlasticFlowAdjoint(F, h->Fe, S, Pnb, Fb, Feb, Sb);
  for (PetscInt k = 0; k < 3; k++) {
    *kappab -= Sb[k] * h->s[k];
    sb[k] -= r->kappa * Sb[k];
  }
}

/* Fb, zb, mpb->(E, nu, sigma_y, H) += the transpose of the linearized return mapping applied to (taub, z'b),
 * in reverse order of J2 and J2ReturnMapping. */
static void J2Adjoint(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                      const PetscScalar taub[MPM_DIM][MPM_DIM], const PetscScalar znewb[],
                      PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[], MPMMaterialPoint *mpb)
{
  J2Return              r;
  const MPMHenckyTrial *h                     = &r.h;
  PetscReal             Feb[MPM_DIM][MPM_DIM] = {{0, 0}, {0, 0}}, sb[3] = {0, 0, 0}, eb[3], szzb, kappab = 0, trb;
  PetscReal             mub, lambdab, dpb, qb = 0, fb, df, dw, syb, Hb, alphab;
  const PetscReal       T[3] = {taub[0][0], taub[1][1], taub[0][1] + taub[1][0]}, sq6 = PetscSqrtReal(6.0);

  J2ReturnMapping(mp, F, z, &r);
  if (r.dp > 0)
    J2PlasticFlowAdjoint(&r, F, znewb, Fb, Feb, &kappab, sb);
  else
    for (PetscInt c = 0; c < 4; c++) zb[c] += znewb[c];
  alphab = dpb = znewb[5];
  kappab -= znewb[4] * h->szz;
  szzb    = -r.kappa * znewb[4];
  trb     = r.lambda * (T[0] + T[1]);
  lambdab = h->t * (T[0] + T[1]);
  mub     = 0;
  for (PetscInt k = 0; k < 3; k++) {
    eb[k] = 2 * r.mu * T[k];
    kappab -= 2 * r.mu * T[k] * h->s[k];
    sb[k] -= 2 * r.mu * r.kappa * T[k];
    mub += 2 * T[k] * (h->e[k] - r.kappa * h->s[k]);
  }
  if (r.dp > 0) {
    dpb += kappab * PetscSqrtReal(1.5) / h->q;
    qb -= kappab * r.kappa / h->q;
  }
  (void)MPMSmoothMax(r.f, r.w, &df, &dw);
  fb  = dpb / (3 * r.mu + mp->H) * df;
  syb = mp->yield_smoothing * dpb / (3 * r.mu + mp->H) * dw - fb;
  mub += -3 * r.dp * dpb / (3 * r.mu + mp->H) + sq6 * h->q * fb;
  Hb = -r.dp * dpb / (3 * r.mu + mp->H) - z[5] * fb;
  alphab -= mp->H * fb;
  qb += sq6 * r.mu * fb;
  MPMDeviatorNormAdjoint(h, qb, sb, &szzb);
  MPMHenckyTrialAdjoint(h, F, z, eb, sb, szzb, trb, znewb[4], Feb, Fb, zb);
  zb[5] += alphab;
  MPMLameParametersAdjoint(mp->E, mp->nu, mub, lambdab, &mpb->E, &mpb->nu);
  mpb->sigma_y += syb;
  mpb->H += Hb;
}

/* Stored elastic energy of the trial state (MPMHenckyEnergy). */
static PetscReal J2Energy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[])
{
  J2Return r;

  J2ReturnMapping(mp, F, z, &r);
  return MPMHenckyEnergy(r.mu, r.lambda, &r.h);
}

const MPMModelOps MPMModelJ2 = {
    .name             = "j2",
    .description      = "von Mises plasticity, Hencky elasticity, linear hardening",
    .params           = "E,nu,sigma_y,H",
    .nstate           = 6,
    .kirchhoff        = J2,
    .kirchhoffadjoint = J2Adjoint,
    .energy           = J2Energy,
    .stateinit        = MPMHenckyStateInit,
    .stateinitadjoint = NULL,
};
