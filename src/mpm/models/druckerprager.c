/* Drucker-Prager plasticity for granular materials (sand), -mpm_model drucker-prager (docs/mpm.md, "Drucker-Prager
 * plasticity").  The return mapping of Klar et al. 2016 ("Drucker-Prager elastoplasticity for sand animation",
 * SIGGRAPH, sec. 7.3) in log-strain (Hencky) space, dilatancy free (the cone return keeps the volume), with the
 * Mohr-Coulomb cohesion c added as a shift of the cone apex into tension.
 *   Kinematics and elasticity as j2.c: F = Fe Fp, plane strain (the elastic log strain e_zz out of the plane is
 *   stored), Hencky energy psi = mu |e|^2 + lambda/2 tr(e)^2, tau = 2 mu e + lambda tr(e) I (3x3 log strain e).
 *   Internal state z (6 reals): Fp^-1 (row-major, 4), e_zz, alpha (accumulated plastic log strain [1], diagnostic:
 *   it does not enter the stress).
 *   Yield (Kirchhoff stress):  |dev tau| + a tr(tau) <= k,   a = sqrt(2/3) 2 sin(phi) / (3 - sin(phi))  (Klar's alpha,
 *   the cone through the compression meridian of Mohr-Coulomb),  k = 3 a c cot(phi),  so the apex is the isotropic
 *   tension tr(tau)/3 = c cot(phi), the Mohr-Coulomb apex; c = 0 is Klar's cohesionless cone with its apex at zero
 *   stress.  In log strain (t = tr e, q = |dev e|, 3K = 2 mu + 3 lambda):
 *     q <= beta (t_a - t),   beta = 3K a / (2 mu),   t_a = 3 c cot(phi) / (3K)   (the apex trace).
 *   Exact return (with u = t_a - t, the distance from the apex along the trace):
 *     elastic   u >= 0, q <= beta u:   unchanged;
 *     cone      u >= 0, q > beta u:    t' = t, dev e' = dev e beta u / q   (Klar's case III: the deviator scaled so
 * that the yield function is zero, the trace kept); apex      u < 0:                 t' = t_a, dev e' = 0   (Klar's
 * case II; c = 0: e' = 0, Fe' a rotation). Written as two clamps, u' = max(0, u), q' = q - max(0, q - beta u'), t' =
 * t_a - u', and smoothed with the C^1 smax_w of j2 (hencky.h), eps = -mpm_yield_smoothing of the label: u' =
 * smax_w1(u),  w1 = eps q / beta;   g = smax_w2(q - beta u'),  w2 = eps beta u';   q' = q - g. Every elastic state (q
 * <= beta u (1 - eps)) is left exactly unchanged (u >= q/beta >= w1 there, so u' = u), the result stays in the cone (g
 * >= max(0, q - beta u'), u' >= max(0, u)), q' >= beta u' (1 - eps) >= 0, and both clamps equal the exact ones outside
 * their bands (the cone return keeps the trace exactly once u >= w1).  The map is C^1 except at q = 0 with u = 0 (the
 * apex itself).  eps = 0 is the exact return (kinks). e' = t'/3 I + (1 - kappa) dev e,  kappa = g / q;  Fe' = exp(e' -
 * e) Fe_tr (coaxial),  Fp'^-1 = F^-1 Fe', e_zz' = t'/3 + (1 - kappa) s_zz,  alpha' = alpha + |e - e'| = alpha +
 * sqrt((u' - u)^2 / 3 + g^2). The adjoint below is the transpose of the linearization of exactly this map at the
 * forward state. */
#include "../mpmimpl.h"
#include "../mpmmodel.h"
#include "hencky.h"

/* The intermediates of the return mapping at (F, z), shared by the forward kernel and its adjoint. */
typedef struct {
  PetscReal      mu, lambda, K3, sn, cs, a, beta, ta; /* material: 3K = K3, sin, cos phi, cone slopes, apex trace */
  MPMHenckyTrial h;                                   /* trial elastic state: Fe_tr, e, t, dev e, q */
  PetscReal      u, w1, up, du_u, du_w, R, w2, g, dg_f, dg_w; /* the two smoothed clamps and their partials */
  PetscReal      kappa, tp, dalpha;                           /* deviator reduction, trace t', plastic increment */
  PetscBool      plastic;
} DPReturn;

/* The cone of the material point: Lame parameters, Klar's slope a, beta and the apex trace t_a. */
static void DPCone(const MPMMaterialPoint *mp, DPReturn *r)
{
  const PetscReal phi = mp->friction_angle * PETSC_PI / 180;

  MPMLameParameters(mp->E, mp->nu, &r->mu, &r->lambda);
  r->K3   = 2 * r->mu + 3 * r->lambda;
  r->sn   = PetscSinReal(phi);
  r->cs   = PetscCosReal(phi);
  r->a    = PetscSqrtReal(2.0 / 3.0) * 2 * r->sn / (3 - r->sn);
  r->beta = r->K3 * r->a / (2 * r->mu);
  r->ta   = 3 * mp->cohesion * r->cs / (r->sn * r->K3);
}

/* Fe_tr = F Fp^-1, e = 1/2 log(Fe Fe^T), trace and deviator, the two clamps and the plastic increment. */
static void DPReturnMapping(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                            DPReturn *r)
{
  const PetscReal eps = mp->yield_smoothing;

  DPCone(mp, r);
  MPMHenckyTrialState(F, z, &r->h);
  r->u  = r->ta - r->h.t;
  r->w1 = eps * r->h.q / r->beta;
  r->up = MPMSmoothMax(r->u, r->w1, &r->du_u, &r->du_w);
  r->R  = r->beta * r->up;
  r->w2 = eps * r->R;
  r->g  = MPMSmoothMax(r->h.q - r->R, r->w2, &r->dg_f, &r->dg_w);
  /* g > 0 implies q > beta u' (1 - eps) >= 0, or q > 0 when u' = 0: the direction dev e / q exists */
  r->kappa   = r->g > 0 ? r->g / r->h.q : 0;
  r->tp      = r->ta - r->up;
  r->plastic = (PetscBool)(r->g > 0 || r->up != r->u);
  r->dalpha  = PetscSqrtReal((r->up - r->u) * (r->up - r->u) / 3 + r->g * r->g);
}

/* S = e' - e (2x2): (t' - t)/3 I - kappa dev e. */
static void DPFlowIncrement(const DPReturn *r, MPMSym2 S)
{
  const PetscReal dt3 = (r->u - r->up) / 3; /* (t' - t) / 3 */

  S[0] = dt3 - r->kappa * r->h.s[0];
  S[1] = dt3 - r->kappa * r->h.s[1];
  S[2] = -r->kappa * r->h.s[2];
}

/* tau = 2 mu e' + lambda t' I and z' = (F^-1 exp(e' - e) Fe_tr, e'_zz, alpha + |e - e'|). */
static void DruckerPrager(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                          PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[])
{
  DPReturn  r;
  PetscReal k1;

  DPReturnMapping(mp, F, z, &r);
  k1        = 1 - r.kappa;
  tau[0][0] = 2 * r.mu * (r.tp / 3 + k1 * r.h.s[0]) + r.lambda * r.tp;
  tau[1][1] = 2 * r.mu * (r.tp / 3 + k1 * r.h.s[1]) + r.lambda * r.tp;
  tau[0][1] = tau[1][0] = 2 * r.mu * k1 * r.h.s[2];
  if (r.plastic) {
    MPMSym2 S;

    DPFlowIncrement(&r, S);
    MPMPlasticFlow(F, r.h.Fe, S, znew);
    znew[4] = r.tp / 3 + k1 * r.h.szz;
    znew[5] = z[5] + r.dalpha;
  } else /* exactly unchanged (tau above is then the trial stress to round-off) */
    for (PetscInt c = 0; c < 6; c++) znew[c] = z[c];
}

/* Adjoint of the cone: (mub, lambdab) and the friction angle and cohesion adjoints from (betab, tab). */
static void DPConeAdjoint(const MPMMaterialPoint *mp, const DPReturn *r, PetscReal betab, PetscReal tab, PetscReal *mub,
                          PetscReal *lambdab, MPMMaterialPoint *mpb)
{
  const PetscReal c = mp->cohesion, da_dsn = PetscSqrtReal(2.0 / 3.0) * 6 / ((3 - r->sn) * (3 - r->sn));
  PetscReal       K3b, ab, phib;

  /* t_a = 3 c cos/(sin K3):  d/dphi = -3 c / (sin^2 K3) */
  mpb->cohesion += tab * 3 * r->cs / (r->sn * r->K3);
  phib = -tab * 3 * c / (r->sn * r->sn * r->K3);
  K3b  = -tab * r->ta / r->K3;
  /* beta = K3 a / (2 mu) */
  K3b += betab * r->a / (2 * r->mu);
  ab = betab * r->K3 / (2 * r->mu);
  *mub -= betab * r->beta / r->mu;
  phib += ab * da_dsn * r->cs;
  *mub += 2 * K3b;
  *lambdab += 3 * K3b;
  mpb->friction_angle += phib * PETSC_PI / 180;
}

/* Adjoint of the two clamps: from (kappab, upb, gb) to (sb, szzb, tb, betab, tab) in reverse order of
 * DPReturnMapping (kappa = g / q, g = smax_w2(q - beta u'), w2 = eps beta u', u' = smax_w1(u), w1 = eps q / beta,
 * u = t_a - t). */
static void DPClampAdjoint(const MPMMaterialPoint *mp, const DPReturn *r, PetscReal kappab, PetscReal upb, PetscReal gb,
                           PetscReal sb[3], PetscReal *szzb, PetscReal *tb, PetscReal *betab, PetscReal *tab)
{
  const PetscReal eps = mp->yield_smoothing;
  PetscReal       qb  = 0, fb, Rb, w1b, ub;

  if (r->g > 0) {
    gb += kappab / r->h.q;
    qb -= kappab * r->g / (r->h.q * r->h.q);
  }
  fb = gb * r->dg_f;
  Rb = eps * gb * r->dg_w - fb;
  qb += fb;
  *betab += Rb * r->up;
  upb += Rb * r->beta;
  ub  = upb * r->du_u;
  w1b = upb * r->du_w;
  qb += eps * w1b / r->beta;
  *betab -= eps * r->h.q * w1b / (r->beta * r->beta);
  *tab += ub;
  *tb -= ub;
  MPMDeviatorNormAdjoint(&r->h, qb, sb, szzb);
}

/* Fb, zb, mpb->(E, nu, friction_angle, cohesion) += the transpose of the linearized return mapping applied to
 * (taub, z'b), in reverse order of DruckerPrager and DPReturnMapping. */
static void DruckerPragerAdjoint(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                 const PetscScalar z[], const PetscScalar taub[MPM_DIM][MPM_DIM],
                                 const PetscScalar znewb[], PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[],
                                 MPMMaterialPoint *mpb)
{
  DPReturn        r;
  PetscReal       Feb[MPM_DIM][MPM_DIM] = {{0, 0}, {0, 0}}, sb[3] = {0, 0, 0}, eb[3] = {0, 0, 0}, szzb = 0, tb = 0;
  PetscReal       kappab = 0, tpb = 0, upb = 0, gb = 0, betab = 0, tab = 0, mub = 0, lambdab = 0, k1;
  const PetscReal T[3] = {taub[0][0], taub[1][1], taub[0][1] + taub[1][0]};

  DPReturnMapping(mp, F, z, &r);
  k1 = 1 - r.kappa;
  if (r.plastic) {
    MPMSym2 S, Sb = {0, 0, 0};

    DPFlowIncrement(&r, S);
    MPMPlasticFlowAdjoint(F, r.h.Fe, S, znewb, Fb, Feb, Sb);
    /* S = (u - u')/3 I - kappa dev e */
    upb -= (Sb[0] + Sb[1]) / 3;
    tab += (Sb[0] + Sb[1]) / 3; /* u = t_a - t */
    tb -= (Sb[0] + Sb[1]) / 3;
    for (PetscInt k = 0; k < 3; k++) {
      kappab -= Sb[k] * r.h.s[k];
      sb[k] -= r.kappa * Sb[k];
    }
    /* e_zz' = t'/3 + (1 - kappa) s_zz */
    tpb += znewb[4] / 3;
    kappab -= znewb[4] * r.h.szz;
    szzb += k1 * znewb[4];
    /* alpha' = alpha + sqrt((u' - u)^2 / 3 + g^2) */
    if (r.dalpha > 0) {
      const PetscReal d = znewb[5] * (r.up - r.u) / (3 * r.dalpha);
      upb += d;
      tab -= d;
      tb += d;
      gb += znewb[5] * r.g / r.dalpha;
    }
  } else
    for (PetscInt c = 0; c < 5; c++) zb[c] += znewb[c];
  zb[5] += znewb[5];
  /* tau = 2 mu (t'/3 I + (1 - kappa) s) + lambda t' I (in-plane) */
  tpb += (2 * r.mu / 3 + r.lambda) * (T[0] + T[1]);
  lambdab += r.tp * (T[0] + T[1]);
  for (PetscInt k = 0; k < 3; k++) {
    mub += 2 * T[k] * ((k < 2) * r.tp / 3 + k1 * r.h.s[k]);
    kappab -= 2 * r.mu * T[k] * r.h.s[k];
    sb[k] += 2 * r.mu * k1 * T[k];
  }
  /* t' = t_a - u' */
  tab += tpb;
  upb -= tpb;
  DPClampAdjoint(mp, &r, kappab, upb, gb, sb, &szzb, &tb, &betab, &tab);
  MPMHenckyTrialAdjoint(&r.h, F, z, eb, sb, szzb, tb, 0, Feb, Fb, zb);
  DPConeAdjoint(mp, &r, betab, tab, &mub, &lambdab, mpb);
  MPMLameParametersAdjoint(mp->E, mp->nu, mub, lambdab, &mpb->E, &mpb->nu);
}

/* Stored elastic energy of the trial state (MPMHenckyEnergy). */
static PetscReal DruckerPragerEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                     const PetscScalar z[])
{
  DPReturn r;

  DPReturnMapping(mp, F, z, &r);
  return MPMHenckyEnergy(r.mu, r.lambda, &r.h);
}

const MPMModelOps MPMModelDruckerPrager = {
    .name             = "drucker-prager",
    .description      = "Drucker-Prager sand, Klar et al. 2016, Hencky elasticity, cohesion",
    .params           = "E,nu,friction_angle,cohesion",
    .nstate           = 6,
    .kirchhoff        = DruckerPrager,
    .kirchhoffadjoint = DruckerPragerAdjoint,
    .energy           = DruckerPragerEnergy,
    .stateinit        = MPMHenckyStateInit,
    .stateinitadjoint = NULL,
};
