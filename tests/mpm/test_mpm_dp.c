/* The drucker-prager return mapping (src/mpm/models/druckerprager.c) against its formulas, one particle at a time, with
 * F = R diag(exp(e1), exp(e2)) (R a rotation by th: the answer must rotate with it), Fp^-1 = I and e_zz given, so that
 * the trial log strain has principal values (e1, e2, e_zz), trace t, deviator s, q = |s|:
 *   inside the cone (q <= beta u, u = t_a - t):  tau = Hencky trial stress, z' = z exactly;
 *   outside, u >= 0 (exact return, eps = 0):       e' = t/3 + s beta u / q: the trace kept, the deviator scaled so that
 *                                                 the yield function |dev tau| + a tr tau - k is zero, alpha' - alpha =
 * q - beta u; in tension, u < 0:                             e' = t_a/3 (1, 1, 1): tau = c cot(phi) I, for c = 0 tau =
 * 0 and Fe' = F Fp'^-1 a rotation (Fe' Fe'^T = I). And with the smoothing (eps = 0.2) over random states: the result is
 * never outside the cone, a state with q <= beta u (1 - eps) is unchanged bit for bit, and a cone return with u >= eps
 * q / beta keeps the trace. Tolerances 1e-12 relative to the trial stress. */
#include "mpmtest.h"
#include "mpm/mpmmodel.h"

typedef PetscScalar Mat2[MPM_DIM][MPM_DIM];

/* The cone of mp: a, beta, apex trace t_a and k = 3 a c cot(phi) (as in the model file). */
static void Cone(const MPMMaterialPoint *mp, PetscReal *mu, PetscReal *lambda, PetscReal *a, PetscReal *beta,
                 PetscReal *ta, PetscReal *k)
{
  const PetscReal sn = PetscSinReal(mp->friction_angle * PETSC_PI / 180),
                  cs = PetscCosReal(mp->friction_angle * PETSC_PI / 180);

  MPMLameParameters(mp->E, mp->nu, mu, lambda);
  *a    = PetscSqrtReal(2.0 / 3.0) * 2 * sn / (3 - sn);
  *beta = (2 * *mu + 3 * *lambda) * *a / (2 * *mu);
  *ta   = 3 * mp->cohesion * cs / (sn * (2 * *mu + 3 * *lambda));
  *k    = 3 * *a * mp->cohesion * cs / sn;
}

/* F = R(th) diag(exp(e1), exp(e2)) R(th)^T (a pure stretch: Fe Fe^T has eigenvalues exp(2 e_i)), z virgin but e_zz. */
static void Drive(PetscReal th, const PetscReal e[3], Mat2 F, PetscScalar z[6])
{
  const PetscReal c = PetscCosReal(th), s = PetscSinReal(th), l1 = PetscExpReal(e[0]), l2 = PetscExpReal(e[1]);

  F[0][0] = c * c * l1 + s * s * l2, F[1][1] = s * s * l1 + c * c * l2;
  F[0][1] = F[1][0] = c * s * (l1 - l2);
  z[0] = z[3] = 1, z[1] = z[2] = 0, z[4] = e[2], z[5] = 0.01;
}

/* R diag(d1, d2) R^T. */
static void Rotate(PetscReal th, PetscReal d1, PetscReal d2, Mat2 A)
{
  const PetscReal c = PetscCosReal(th), s = PetscSinReal(th);

  A[0][0] = c * c * d1 + s * s * d2, A[1][1] = s * s * d1 + c * c * d2;
  A[0][1] = A[1][0] = c * s * (d1 - d2);
}

static PetscReal MaxDiff(const Mat2 A, const Mat2 B)
{
  PetscReal m = 0;
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) m = PetscMax(m, PetscAbsReal(A[i][j] - B[i][j]));
  return m;
}

/* Principal Kirchhoff stress 2 mu e + lambda tr(e) of principal log strains e (3). */
static void Hencky(PetscReal mu, PetscReal lambda, const PetscReal e[3], PetscReal tau[3])
{
  for (PetscInt i = 0; i < 3; i++) tau[i] = 2 * mu * e[i] + lambda * (e[0] + e[1] + e[2]);
}

/* |dev tau| + a tr tau - k of principal stresses. */
static PetscReal Yield(PetscReal a, PetscReal k, const PetscReal tau[3])
{
  const PetscReal m = (tau[0] + tau[1] + tau[2]) / 3;
  return PetscSqrtReal(PetscSqr(tau[0] - m) + PetscSqr(tau[1] - m) + PetscSqr(tau[2] - m)) + a * 3 * m - k;
}

/* One state of known branch against the formulas; the errors relative to the trial stress. */
static PetscErrorCode CheckState(const char *what, const MPMMaterialPoint *mp, PetscReal th, const PetscReal e[3],
                                 PetscInt *fail)
{
  PetscReal   mu, lambda, a, beta, ta, k, t = e[0] + e[1] + e[2], s[3], q = 0, u, ep[3], tt[3], te[3], scale, dalpha;
  PetscScalar z[6], zn[6];
  Mat2        F, tau, texp, Fe, B, Bexp;
  char        name[128];
  const char *branch;

  PetscFunctionBeginUser;
  Cone(mp, &mu, &lambda, &a, &beta, &ta, &k);
  for (PetscInt i = 0; i < 3; i++) s[i] = e[i] - t / 3, q += s[i] * s[i];
  q = PetscSqrtReal(q), u = ta - t;
  if (u >= 0 && q <= beta * u)
    branch = "elastic";
  else if (u >= 0)
    branch = "cone";
  else
    branch = "apex";
  for (PetscInt i = 0; i < 3; i++) {
    if (u >= 0 && q <= beta * u)
      ep[i] = e[i];
    else if (u >= 0)
      ep[i] = t / 3 + s[i] * beta * u / q;
    else
      ep[i] = ta / 3;
  }
  dalpha = u >= 0 ? PetscMax(0, q - beta * u) : PetscSqrtReal(u * u / 3 + q * q);
  Hencky(mu, lambda, e, tt);
  Hencky(mu, lambda, ep, te);
  scale = PetscMax(PetscAbsReal(tt[0]), PetscMax(PetscAbsReal(tt[1]), PetscAbsReal(tt[2])));
  Drive(th, e, F, z);
  MPMModelDruckerPrager.kirchhoff(mp, F, z, tau, zn);
  Rotate(th, te[0], te[1], texp);
  for (PetscInt i = 0; i < MPM_DIM; i++) /* Fe' = F Fp'^-1, B = Fe' Fe'^T = R diag(exp(2 e')) R^T */
    for (PetscInt j = 0; j < MPM_DIM; j++) Fe[i][j] = F[i][0] * zn[j] + F[i][1] * zn[2 + j];
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) B[i][j] = Fe[i][0] * Fe[j][0] + Fe[i][1] * Fe[j][1];
  Rotate(th, PetscExpReal(2 * ep[0]), PetscExpReal(2 * ep[1]), Bexp);
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%s): tau against the formula", what, branch));
  PetscCall(MPMTestReport(name, MaxDiff(tau, texp) / scale, 1e-12, fail));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%s): Fe' Fe'^T, e_zz', alpha'", what, branch));
  PetscCall(MPMTestReport(
      name, PetscMax(MaxDiff(B, Bexp), PetscMax(PetscAbsReal(zn[4] - ep[2]), PetscAbsReal(zn[5] - z[5] - dalpha))),
      1e-12, fail));
  if (u >= 0 && q <= beta * u) {
    PetscReal d = 0;
    for (PetscInt c = 0; c < 6; c++) d = PetscMax(d, PetscAbsReal(zn[c] - z[c]));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%s): z' = z exactly", what, branch));
    PetscCall(MPMTestReport(name, d, 0, fail));
  } else {
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%s): yield function of the result / trial stress", what, branch));
    PetscCall(MPMTestReport(name, PetscAbsReal(Yield(a, k, te)) / scale, 1e-12, fail));
  }
  if (u >= 0 && q > beta * u) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%s): trace kept, tr tau' - tr tau_trial", what, branch));
    PetscCall(MPMTestReport(name, PetscAbsReal(te[0] + te[1] + te[2] - tt[0] - tt[1] - tt[2]) / scale, 1e-12, fail));
  }
  if (u < 0) {
    const PetscReal p = mp->cohesion / PetscTanReal(mp->friction_angle * PETSC_PI / 180);
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s (%s): tau' = c cot(phi) I", what, branch));
    PetscCall(MPMTestReport(name,
                            PetscMax(PetscMax(PetscAbsReal(tau[0][0] - p), PetscAbsReal(tau[1][1] - p)),
                                     PetscMax(PetscAbsReal(tau[0][1]), PetscAbsReal(te[2] - p))) /
                                scale,
                            1e-12, fail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random states with the smoothed return: never outside the cone; untouched when q <= beta u (1 - eps); the trace kept
 * on the cone when u >= eps q / beta. */
static PetscErrorCode SmoothedStates(MPMMaterialPoint *mp, PetscInt *fail)
{
  PetscRandom rnd;
  PetscReal   mu, lambda, a, beta, ta, k, worst = 0, moved = 0, trace = 0;
  PetscInt    nel = 0, ncone = 0, nap = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  mp->yield_smoothing = 0.2;
  Cone(mp, &mu, &lambda, &a, &beta, &ta, &k);
  for (PetscInt n = 0; n < 400; n++) {
    PetscReal   e[3], r, th, t, q = 0, u, eps = mp->yield_smoothing, tn, m;
    PetscScalar z[6], zn[6];
    Mat2        F, tau;

    for (PetscInt i = 0; i < 3; i++) PetscCall(PetscRandomGetValue(rnd, &e[i]));
    PetscCall(PetscRandomGetValue(rnd, &r));
    for (PetscInt i = 0; i < 3; i++) e[i] = 0.02 * e[i] - 0.01 * (1 + r);
    PetscCall(PetscRandomGetValue(rnd, &th));
    t = e[0] + e[1] + e[2];
    for (PetscInt i = 0; i < 3; i++) q += PetscSqr(e[i] - t / 3);
    q = PetscSqrtReal(q), u = ta - t;
    Drive(3 * th, e, F, z);
    MPMModelDruckerPrager.kirchhoff(mp, F, z, tau, zn);
    {
      /* principal stresses of the in-plane tau and tau_zz = 2 mu e_zz' + lambda t' with t' from tr tau */
      const PetscReal mm = 0.5 * (tau[0][0] + tau[1][1]),
                      rr = PetscSqrtReal(PetscSqr(0.5 * (tau[0][0] - tau[1][1])) + tau[0][1] * tau[0][1]);
      PetscReal ts[3], tp;

      /* tr(tau 3x3) = (2 mu + 3 lambda) t', tau_zz = 2 mu e_zz' + lambda t', tau_xx + tau_yy = 2 mu (t' - e_zz') + 2
       * lambda t' */
      tp    = (tau[0][0] + tau[1][1] + 2 * mu * zn[4]) / (2 * mu + 2 * lambda);
      ts[0] = mm + rr, ts[1] = mm - rr, ts[2] = 2 * mu * zn[4] + lambda * tp;
      m     = Yield(a, k, ts);
      worst = PetscMax(worst, m / (2 * mu));
      tn    = tp;
    }
    if (q <= beta * u * (1 - eps)) {
      for (PetscInt c = 0; c < 6; c++) moved = PetscMax(moved, PetscAbsReal(zn[c] - z[c]));
      nel++;
    } else if (u >= eps * q / beta) {
      trace = PetscMax(trace, PetscAbsReal(tn - t));
      ncone++;
    } else
      nap++;
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "smoothed (eps 0.2): %" PetscInt_FMT " elastic, %" PetscInt_FMT " cone, %" PetscInt_FMT
                        " near the apex of 400\n",
                        nel, ncone, nap));
  PetscCall(MPMTestReport("smoothed: max yield function of the result / 2 mu (<= 0)", PetscMax(worst, 0), 1e-14, fail));
  PetscCall(MPMTestReport("smoothed: elastic states unchanged (max |z' - z|)", moved, 0, fail));
  PetscCall(MPMTestReport("smoothed: cone returns keep the trace (max |t' - t|)", trace, 1e-14, fail));
  PetscCall(MPMTestReport("smoothed: every kind of state reached", nel && ncone && nap ? 0 : 1, 0.5, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPMMaterialPoint mp           = {.mass            = 1,
                                   .volume          = 1,
                                   .E               = 1e5,
                                   .nu              = 0.3,
                                   .friction_angle  = 30,
                                   .cohesion        = 0,
                                   .yield_smoothing = 0,
                                   .model           = MPM_MODEL_DRUCKER_PRAGER};
  const PetscReal  states[4][3] = {
       {-0.008, -0.012, -0.01}, /* compressed, little shear: elastic */
       {0.04, -0.06, -0.01},    /* compressed, sheared: cone */
       {0.03, -0.01, 0.005},    /* tension: apex */
       {0.0005, 0.0002, -0.003} /* near the apex, small trace: cone or apex by cohesion */
  };
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt c = 0; c < 2; c++) {
    mp.cohesion = c ? 2e2 : 0;
    for (PetscInt s = 0; s < 4; s++)
      for (PetscInt r = 0; r < 2; r++) {
        char what[64];
        PetscCall(PetscSNPrintf(what, sizeof(what), "c=%g state %" PetscInt_FMT " th=%s", (double)mp.cohesion, s,
                                r ? "0.7" : "0"));
        PetscCall(CheckState(what, &mp, r ? 0.7 : 0, states[s], &fail));
      }
  }
  mp.cohesion = 50;
  PetscCall(SmoothedStates(&mp, &fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
