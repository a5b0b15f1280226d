/* Dot-product tests of the MPM constitutive adjoints (src/mpm/models/): for every model of the table
 * (MPMModelGetOps, mpmmodel.h), random F (J > 0), internal state z, directions (dF, dz, dE, dnu, dsigma_y, dH) and
 * weights (taub, z'b),
 *   <dtau, taub> + <dz', z'b> = <dF, Fb> + <dz, zb> + dE Eb + dnu nub + dsigma_y sigma_yb + dH Hb   to 1e-12,
 * with (dtau, dz') from the model's tangent-linear model in mpmtangent.h, written independently of the
 * adjoints and itself checked against central finite differences of the model's forward kernel (1e-7).
 * A registered model without a tangent fails.  Also the polar rotation and the Lame parameters on their own.  A NaN
 * fails (NaN-keeping maxima), and so does a run in which every trial was skipped (J <= 0.2).  A plastic model (j2) is
 * tested on each branch of its return mapping (elastic, both halves of the smoothing band, plastic; a branch never
 * reached fails), and also at nearly repeated principal stretches (the closed-form 2x2 log and exp switch to their
 * series there) with the exact, unsmoothed return (-mpm_yield_smoothing 0). */
#include "mpmtangent.h"
#include "adjtest.h"

/* tau and z' of the model of mp at (F, z; mp) through its table entry. */
static void Kirchhoff(const MPMMaterialPoint *mp, const Mat2 F, const PetscScalar z[], Mat2 tau, PetscScalar znew[])
{
  MPMMaterialModel(mp)->kirchhoff(mp, F, z, tau, znew);
}

/* A pointer to the first of n reals, or NULL for n = 0 (the interface passes no internal state then). */
static PetscScalar *StatePtr(PetscInt n, PetscScalar z[])
{
  return n ? z : NULL;
}

/* mp + h dmp in the differentiable fields E, nu, sigma_y, H, friction_angle, cohesion. */
static MPMMaterialPoint MaterialStep(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, PetscReal h)
{
  MPMMaterialPoint m = *mp;

  m.E += h * dmp->E, m.nu += h * dmp->nu, m.sigma_y += h * dmp->sigma_y, m.H += h * dmp->H;
  m.friction_angle += h * dmp->friction_angle, m.cohesion += h * dmp->cohesion;
  return m;
}

/* The tangent of the model of mp against central differences of its forward kernel (step h), relative. */
static PetscReal TangentError(const MPMMaterialPoint *mp, const MPMMaterialPoint *dmp, const Mat2 F, const Mat2 dF,
                              PetscInt nz, const PetscScalar z[], const PetscScalar dz[], const Mat2 dtau,
                              const PetscScalar dznew[])
{
  const PetscReal  h     = 1e-6;
  MPMMaterialPoint mplus = MaterialStep(mp, dmp, h), mminus = MaterialStep(mp, dmp, -h);
  PetscScalar      zp[MPM_MODEL_MAX_STATE], zm[MPM_MODEL_MAX_STATE], znp[MPM_MODEL_MAX_STATE], znm[MPM_MODEL_MAX_STATE];
  Mat2             Fp, Fm, tp, tm;
  PetscReal        fd = 0, scale = 0;

  for (PetscInt k = 0; k < nz; k++) zp[k] = z[k] + h * dz[k], zm[k] = z[k] - h * dz[k];
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) Fp[i][j] = F[i][j] + h * dF[i][j], Fm[i][j] = F[i][j] - h * dF[i][j];
  Kirchhoff(&mplus, Fp, StatePtr(nz, zp), tp, StatePtr(nz, znp));
  Kirchhoff(&mminus, Fm, StatePtr(nz, zm), tm, StatePtr(nz, znm));
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      fd    = AdjTestMax(fd, PetscAbsReal((tp[i][j] - tm[i][j]) / (2 * h) - dtau[i][j]));
      scale = AdjTestMax(scale, PetscAbsReal(dtau[i][j]));
    }
  for (PetscInt k = 0; k < nz; k++) {
    fd    = AdjTestMax(fd, PetscAbsReal((znp[k] - znm[k]) / (2 * h) - dznew[k]));
    scale = AdjTestMax(scale, PetscAbsReal(dznew[k]));
  }
  return fd / scale;
}

/* The dot-product test of the model of mp at (F, z; mp) in direction (dF, dz; dmp) with weights (taub, z'b), and
 * its tangent against central differences; z random near the model's initial state when it has internal state
 * (z0 + zscale r, r in [-1, 1]). */
static PetscErrorCode ModelDotTest(PetscRandom rnd, const char *what, const MPMMaterialPoint *mp,
                                   const MPMMaterialPoint *dmp, const Mat2 F, const Mat2 dF, const Mat2 taub,
                                   const PetscScalar z[], PetscInt *fail)
{
  const MPMModelOps *ops = MPMMaterialModel(mp);
  const PetscInt     nz  = ops->nstate;
  MPMMaterialPoint   mpb = {0};
  PetscScalar        dz[MPM_MODEL_MAX_STATE], zb[MPM_MODEL_MAX_STATE], znewb[MPM_MODEL_MAX_STATE];
  PetscScalar        dznew[MPM_MODEL_MAX_STATE], r;
  Mat2               dtau, Fb = {{0, 0}, {0, 0}};
  PetscReal          lhs, rhs, scale;
  char               name[160];

  PetscFunctionBeginUser;
  PetscCheck(nz >= 0 && nz <= MPM_MODEL_MAX_STATE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "model %s: nstate %" PetscInt_FMT,
             ops->name, nz);
  if (!MPMTangentOf((PetscInt)mp->model)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model %s: no tangent in mpmtangent.h: its adjoint is untested  FAIL\n",
                          ops->name));
    (*fail)++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 0; k < nz; k++) {
    PetscCall(PetscRandomGetValue(rnd, &r));
    dz[k] = r;
    PetscCall(PetscRandomGetValue(rnd, &r));
    znewb[k] = r;
    zb[k]    = 0;
  }
  KirchhoffTangent(mp, dmp, F, StatePtr(nz, (PetscScalar *)z), dF, StatePtr(nz, dz), dtau, StatePtr(nz, dznew));
  ops->kirchhoffadjoint(mp, F, StatePtr(nz, (PetscScalar *)z), taub, StatePtr(nz, znewb), Fb, StatePtr(nz, zb), &mpb);
  lhs = Dot(dtau, taub);
  rhs = Dot(dF, Fb) + dmp->E * mpb.E + dmp->nu * mpb.nu + dmp->sigma_y * mpb.sigma_y + dmp->H * mpb.H +
        dmp->friction_angle * mpb.friction_angle + dmp->cohesion * mpb.cohesion;
  /* relative to the largest of the sums and of their terms <dF, Fb>, <dz, zb>, <dz', z'b>: with internal state the
   * F and z terms can cancel each other (Fe_tr = F Fp^-1), leaving sums far below their round-off */
  scale = PetscMax(PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), PetscAbsReal(Dot(dF, Fb)));
  {
    PetscReal zl = 0, zr = 0;
    for (PetscInt k = 0; k < nz; k++) zl += dznew[k] * znewb[k], zr += dz[k] * zb[k];
    lhs += zl, rhs += zr;
    scale = PetscMax(scale, PetscMax(PetscAbsReal(zl), PetscAbsReal(zr)));
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s %s: |<dtau,taub> - <dF,Fb>...| rel.", what, ops->name));
  PetscCall(MPMTestReport(name, PetscAbsReal(lhs - rhs) / scale, 1e-12, fail));
  PetscCall(PetscSNPrintf(name, sizeof(name), "%s %s: tangent vs central differences rel.", what, ops->name));
  PetscCall(MPMTestReport(name, TangentError(mp, dmp, F, dF, nz, z, dz, dtau, dznew), 1e-7, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A random internal state near the model's initial one: z0 + 0.1 r. */
static PetscErrorCode RandomState(PetscRandom rnd, const MPMMaterialPoint *mp, PetscScalar z[])
{
  const MPMModelOps *ops = MPMMaterialModel(mp);
  PetscScalar        r;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ops->nstate; k++) z[k] = 0;
  if (ops->nstate && ops->stateinit) ops->stateinit(mp, z);
  for (PetscInt k = 0; k < ops->nstate; k++) {
    PetscCall(PetscRandomGetValue(rnd, &r));
    z[k] += 0.1 * r;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A plastic model (j2) on its three branches at one (F, z): elastic (sigma_y twice the trial von Mises stress),
 * in the smoothing band (f = -w/2 and f = +w/2) and plastic past it (sigma_y a third of it); counts the branches
 * seen (a state with alpha' > alpha is plastic). */
static PetscErrorCode PlasticBranches(PetscRandom rnd, PetscInt trial, MPMMaterialPoint *mp,
                                      const MPMMaterialPoint *dmp, const Mat2 F, const Mat2 dF, const Mat2 taub,
                                      PetscInt nbranch[3], PetscInt *fail)
{
  const char     *what[4] = {"elastic", "band-", "band+", "plastic"};
  const PetscReal eps     = mp->yield_smoothing;
  PetscScalar     z[MPM_MODEL_MAX_STATE], znew[MPM_MODEL_MAX_STATE];
  PetscReal       seq;
  Mat2            tau;
  char            name[64];

  PetscFunctionBeginUser;
  PetscCall(RandomState(rnd, mp, z));
  z[5] = PetscAbsReal(z[5]); /* alpha >= 0 */
  seq  = J2TrialEquivalentStress(mp, F, z);
  /* f = seq - sigma_y - H alpha, w = eps sigma_y: elastic f = -seq - H alpha < -w; band f = -w/2, +w/2; plastic
   * f = 2/3 seq - ... > w */
  for (PetscInt b = 0; b < 4; b++) {
    const PetscReal sy[4] = {2 * seq, (seq - mp->H * z[5]) / (1 - 0.5 * eps), (seq - mp->H * z[5]) / (1 + 0.5 * eps),
                             seq / 3 - mp->H * z[5]};

    if (!(sy[b] > 0)) continue;
    mp->sigma_y = sy[b];
    PetscCall(PetscSNPrintf(name, sizeof(name), "trial %2" PetscInt_FMT " %-7s", trial, what[b]));
    Kirchhoff(mp, F, z, tau, znew);
    if ((b == 0) == (znew[5] == z[5])) nbranch[b == 0 ? 0 : (b == 3 ? 2 : 1)]++;
    PetscCall(ModelDotTest(rnd, name, mp, dmp, F, dF, taub, z, fail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A granular model (drucker-prager) on each branch of its return mapping at one (F, z): with the trial trace t and
 * deviator norm q, the cohesion places the apex distance u = t_a - t at: elastic (beta u = 2 q), both halves of the
 * cone band (beta u = q / (1 -+ eps/2)), the cone past it (beta u = q / 3), both halves of the apex band
 * (u = -+ w1/2) and the apex past it (beta u = -q).  The cohesion may come out negative here: the kernel's formulas
 * hold for any c (only the options refuse c < 0).  Counts the branches seen (elastic: z' = z, else plastic: alpha'
 * > alpha). */
static PetscErrorCode GranularBranches(PetscRandom rnd, PetscInt trial, MPMMaterialPoint *mp,
                                       const MPMMaterialPoint *dmp, const Mat2 F, const Mat2 dF, const Mat2 taub,
                                       PetscInt ngran[3], PetscInt *fail)
{
  const char     *what[7] = {"elastic", "cone-", "cone+", "cone", "apex-", "apex+", "apex"};
  const PetscReal eps     = mp->yield_smoothing;
  const J2Mat     zero    = {{0, 0}, {0, 0}};
  PetscScalar     z[MPM_MODEL_MAX_STATE], znew[MPM_MODEL_MAX_STATE], dz[MPM_MODEL_MAX_STATE] = {0};
  J2TangentStrain ts;
  J2Dual          mu, lambda, beta, ta;
  PetscReal       bu[7], sn = PetscSinReal(mp->friction_angle * PETSC_PI / 180);
  Mat2            tau;
  char            name[64];

  PetscFunctionBeginUser;
  PetscCall(RandomState(rnd, mp, z));
  z[5] = PetscAbsReal(z[5]);
  J2TangentTrialStrain(F, z, zero, dz, &ts);
  MPMLameParameters(mp->E, mp->nu, &mu.v, &lambda.v);
  mu.d = lambda.d = 0;
  mp->cohesion    = 0;
  DPTangentCone(mp, dmp, mu, lambda, &beta, &ta);
  bu[0] = 2 * ts.q, bu[1] = ts.q / (1 - 0.5 * eps), bu[2] = ts.q / (1 + 0.5 * eps), bu[3] = ts.q / 3;
  bu[4] = 0.5 * eps * ts.q, bu[5] = -0.5 * eps * ts.q, bu[6] = -ts.q; /* beta u; w1 beta = eps q */
  for (PetscInt b = 0; b < 7; b++) {
    const PetscReal tapex = ts.tr + bu[b] / beta.v;

    /* t_a = 3 c cos / (sin 3K) */
    mp->cohesion = tapex * sn * (2 * mu.v + 3 * lambda.v) / (3 * PetscCosReal(mp->friction_angle * PETSC_PI / 180));
    PetscCall(PetscSNPrintf(name, sizeof(name), "trial %2" PetscInt_FMT " %-7s", trial, what[b]));
    Kirchhoff(mp, F, z, tau, znew);
    if (b == 0 && znew[5] == z[5]) ngran[0]++;
    if (b >= 1 && b <= 3 && znew[5] > z[5]) ngran[1]++;
    if (b >= 4 && znew[5] > z[5]) ngran[2]++;
    PetscCall(ModelDotTest(rnd, name, mp, dmp, F, dF, taub, z, fail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every model of the table at (F; E, nu) in direction (dF; dE, dnu, and for a plastic model dsigma_y, dH) with
 * weights taub: the plastic models on each branch (PlasticBranches), the others at a random state. */
static PetscErrorCode TableTests(PetscRandom rnd, PetscInt trial, PetscReal E, PetscReal nu, PetscReal dE,
                                 PetscReal dnu, const Mat2 F, const Mat2 dF, const Mat2 taub, PetscInt nbranch[3],
                                 PetscInt ngran[3], PetscInt *fail)
{
  PetscScalar r;

  PetscFunctionBeginUser;
  for (PetscInt m = 0; m < MPM_NMODELS; m++) {
    MPMMaterialPoint mp  = {.mass = 1, .volume = 1, .E = E, .nu = nu, .model = (PetscScalar)m};
    MPMMaterialPoint dmp = {.E = dE, .nu = dnu, .sigma_y = 0, .H = 0};
    PetscScalar      z[MPM_MODEL_MAX_STATE];
    char             what[32];

    PetscCall(PetscSNPrintf(what, sizeof(what), "trial %2" PetscInt_FMT, trial));
    if (MPMModelIsPlastic(MPMModelGetOps((MPMModel)m))) {
      mp.H = 0.1 * E, mp.yield_smoothing = 0.2;
      PetscCall(PetscRandomGetValue(rnd, &r));
      dmp.sigma_y = 1e3 * r;
      PetscCall(PetscRandomGetValue(rnd, &r));
      dmp.H = 1e3 * r;
      PetscCall(PlasticBranches(rnd, trial, &mp, &dmp, F, dF, taub, nbranch, fail));
      continue;
    }
    if (MPMModelIsGranular(MPMModelGetOps((MPMModel)m))) {
      mp.yield_smoothing = 0.2;
      PetscCall(PetscRandomGetValue(rnd, &r));
      mp.friction_angle = 30 + 10 * r;
      PetscCall(PetscRandomGetValue(rnd, &r));
      dmp.friction_angle = 5 * r;
      PetscCall(PetscRandomGetValue(rnd, &r));
      dmp.cohesion = 1e2 * r;
      PetscCall(GranularBranches(rnd, trial, &mp, &dmp, F, dF, taub, ngran, fail));
      continue;
    }
    PetscCall(RandomState(rnd, &mp, z));
    PetscCall(ModelDotTest(rnd, what, &mp, &dmp, F, dF, taub, z, fail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* j2 at F = R (l I + 1e-6 N) (nearly repeated stretches, N random) with the exact return (eps = 0), plastic. */
static PetscErrorCode RepeatedStretchTrial(PetscRandom rnd, PetscInt trial, PetscInt *fail)
{
  MPMMaterialPoint mp  = {.mass = 1, .volume = 1, .E = 1e5, .nu = 0.3, .H = 1e4, .model = MPM_MODEL_J2};
  MPMMaterialPoint dmp = {.E = 1e3, .nu = 0.01, .sigma_y = 10, .H = 100};
  PetscScalar      z[MPM_MODEL_MAX_STATE], r;
  Mat2             F, dF, taub, N;
  PetscReal        th, l;
  char             what[64];

  PetscFunctionBeginUser;
  PetscCall(PetscRandomGetValue(rnd, &r));
  th = 3 * r;
  PetscCall(PetscRandomGetValue(rnd, &r));
  l = 1 + 0.2 * r;
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      PetscCall(PetscRandomGetValue(rnd, &N[i][j]));
      PetscCall(PetscRandomGetValue(rnd, &dF[i][j]));
      PetscCall(PetscRandomGetValue(rnd, &taub[i][j]));
    }
  for (PetscInt j = 0; j < MPM_DIM; j++) {
    F[0][j] = PetscCosReal(th) * (l * (j == 0) + 1e-6 * N[0][j]) - PetscSinReal(th) * (l * (j == 1) + 1e-6 * N[1][j]);
    F[1][j] = PetscSinReal(th) * (l * (j == 0) + 1e-6 * N[0][j]) + PetscCosReal(th) * (l * (j == 1) + 1e-6 * N[1][j]);
  }
  mp.model = MPM_MODEL_J2;
  PetscCall(RandomState(rnd, &mp, z));
  for (PetscInt k = 0; k < 4; k++) z[k] = (k == 0 || k == 3); /* Fp^-1 = I: Fe_tr = F */
  z[4] = 0.2, z[5] = 0.05; /* e_zz away from the in-plane strains: a deviator, q > 0 */
  mp.sigma_y = 0.3 * J2TrialEquivalentStress(&mp, F, z);
  PetscCall(PetscSNPrintf(what, sizeof(what), "repeated %" PetscInt_FMT " eps=0 ", trial));
  PetscCall(ModelDotTest(rnd, what, &mp, &dmp, F, dF, taub, z, fail));
  {
    PetscScalar znew[MPM_MODEL_MAX_STATE];
    Mat2        tau;

    Kirchhoff(&mp, F, z, tau, znew);
    PetscCall(
        PetscSNPrintf(what, sizeof(what), "repeated %" PetscInt_FMT " eps=0 j2: plastic (alpha' > alpha)", trial));
    PetscCall(MPMTestReport(what, znew[5] > z[5] ? 0 : 1, 0.5, fail));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    fail = 0, checked = 0, nbranch[3] = {0, 0, 0}, ngran[3] = {0, 0, 0};

#if defined(MPM_TEST_ZMODEL)
  MPMTestModelRegister(); /* test-damage (internal state) in place of neo-hookean */
#endif
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 42));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt trial = 0; trial < 20; trial++) {
    Mat2        F, dF, taub, Fb, Rb, dR;
    PetscScalar r;
    PetscReal   E = 1e5, nu, dE, dnu, Eb = 0, nub = 0;

    for (PetscInt i = 0; i < MPM_DIM; i++)
      for (PetscInt j = 0; j < MPM_DIM; j++) {
        PetscCall(PetscRandomGetValue(rnd, &r));
        F[i][j] = (i == j) + 0.4 * r; /* rotations and stretches up to 40 % */
        PetscCall(PetscRandomGetValue(rnd, &r));
        dF[i][j] = r;
        PetscCall(PetscRandomGetValue(rnd, &r));
        taub[i][j] = r;
      }
    if (MPMDeterminant(F) <= 0.2) continue;
    checked++;
    PetscCall(PetscRandomGetValue(rnd, &r));
    nu = 0.2 + 0.2 * r;
    PetscCall(PetscRandomGetValue(rnd, &r));
    dE = 1e4 * r;
    PetscCall(PetscRandomGetValue(rnd, &r));
    dnu = 0.1 * r;
    PetscCall(TableTests(rnd, trial, E, nu, dE, dnu, F, dF, taub, nbranch, ngran, &fail));
    /* The polar rotation alone. */
    for (PetscInt i = 0; i < MPM_DIM; i++)
      for (PetscInt j = 0; j < MPM_DIM; j++) Rb[i][j] = taub[i][j], Fb[i][j] = 0;
    PolarTangent(F, dF, dR);
    MPMPolarRotationAdjoint(F, Rb, Fb);
    {
      const PetscReal lhs = Dot(dR, Rb), rhs = Dot(dF, Fb);
      PetscCall(MPMTestReport("polar rotation: dot-product test rel.",
                              PetscAbsReal(lhs - rhs) / PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), 1e-12, &fail));
    }
    /* The Lame parameters alone (mub, lambdab = taub[0][0], taub[1][1]). */
    {
      PetscReal dmu, dlambda, lhs, rhs;
      Eb = nub = 0;
      LameTangent(E, nu, dE, dnu, &dmu, &dlambda);
      MPMLameParametersAdjoint(E, nu, taub[0][0], taub[1][1], &Eb, &nub);
      lhs = dmu * taub[0][0] + dlambda * taub[1][1];
      rhs = dE * Eb + dnu * nub;
      PetscCall(MPMTestReport("Lame parameters: dot-product test rel.",
                              PetscAbsReal(lhs - rhs) / PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), 1e-12, &fail));
    }
  }
  for (PetscInt trial = 0; trial < 4; trial++) PetscCall(RepeatedStretchTrial(rnd, trial, &fail));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "models dot-tested (the whole table): %d\n", (int)MPM_NMODELS));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "random F checked (J > 0.2): %" PetscInt_FMT " of 20  %s\n", checked,
                        checked > 0 ? "ok" : "FAIL (every trial was skipped: nothing was tested)"));
  if (!(checked > 0)) fail++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "plastic-model branches checked: %" PetscInt_FMT " elastic, %" PetscInt_FMT
                        " in the smoothing band, %" PetscInt_FMT " plastic  %s\n",
                        nbranch[0], nbranch[1], nbranch[2],
                        nbranch[0] && nbranch[1] && nbranch[2] ? "ok" : "FAIL (a branch was never reached)"));
  if (!(nbranch[0] && nbranch[1] && nbranch[2])) fail++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "granular-model branches checked: %" PetscInt_FMT " elastic, %" PetscInt_FMT
                        " cone, %" PetscInt_FMT " apex  %s\n",
                        ngran[0], ngran[1], ngran[2],
                        ngran[0] && ngran[1] && ngran[2] ? "ok" : "FAIL (a branch was never reached)"));
  if (!(ngran[0] && ngran[1] && ngran[2])) fail++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
