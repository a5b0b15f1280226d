/* Dot-product tests of the MPM constitutive adjoints (src/mpm/models/): for every model of the table
 * (MPMModelGetOps, mpmmodel.h), random F (J > 0), internal state z, directions (dF, dz, dE, dnu) and weights
 * (taub, z'b),
 *   <dtau, taub> + <dz', z'b> = <dF, Fb> + <dz, zb> + dE Eb + dnu nub   to 1e-12,
 * with (dtau, dz') from the model's tangent-linear model in mpmtangent.h, written independently of the
 * adjoints and itself checked against central finite differences of the model's forward kernel (1e-7).
 * A registered model without a tangent fails.  Also the polar rotation and the Lame parameters on their own.  A NaN
 * fails (NaN-keeping maxima), and so does a run in which every trial was skipped (J <= 0.2). */
#include "mpmtangent.h"
#include "adjtest.h"

/* tau and z' of model m at (F, z; E, nu) through its table entry. */
static void Kirchhoff(PetscInt m, PetscReal E, PetscReal nu, const Mat2 F, const PetscScalar z[], Mat2 tau,
                      PetscScalar znew[])
{
  MPMMaterialPoint mp = {1, 1, E, nu, 0, (PetscScalar)m};
  MPMModelGetOps((MPMModel)m)->kirchhoff(&mp, F, z, tau, znew);
}

/* A pointer to the first of n reals, or NULL for n = 0 (the interface passes no internal state then). */
static PetscScalar *StatePtr(PetscInt n, PetscScalar z[])
{
  return n ? z : NULL;
}

/* The dot-product test of model m at (F, E, nu) in direction (dF, dE, dnu) with weights taub, and its tangent
 * against central differences (step h); z, dz, z'b random when the model has internal state. */
static PetscErrorCode ModelDotTest(PetscRandom rnd, PetscInt trial, PetscInt m, PetscReal E, PetscReal nu, const Mat2 F,
                                   const Mat2 dF, PetscReal dE, PetscReal dnu, const Mat2 taub, PetscInt *fail)
{
  const MPMModelOps *ops = MPMModelGetOps((MPMModel)m);
  const PetscInt     nz  = ops->nstate;
  const PetscReal    h   = 1e-6;
  MPMMaterialPoint   mp = {1, 1, E, nu, 0, (PetscScalar)m}, mpb = {0, 0, 0, 0, 0, 0};
  PetscScalar        z[MPM_MODEL_MAX_STATE], dz[MPM_MODEL_MAX_STATE], zb[MPM_MODEL_MAX_STATE];
  PetscScalar        znewb[MPM_MODEL_MAX_STATE], dznew[MPM_MODEL_MAX_STATE], zp[MPM_MODEL_MAX_STATE];
  PetscScalar        zm[MPM_MODEL_MAX_STATE], znp[MPM_MODEL_MAX_STATE], znm[MPM_MODEL_MAX_STATE], r;
  Mat2               dtau, Fb = {{0, 0}, {0, 0}}, Fp, Fm, tp, tm;
  PetscReal          lhs, rhs, fd = 0, scale = 0;
  char               name[160];

  PetscFunctionBeginUser;
  PetscCheck(nz >= 0 && nz <= MPM_MODEL_MAX_STATE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "model %s: nstate %" PetscInt_FMT,
             ops->name, nz);
  if (!MPMTangentOf(m)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model %s: no tangent in mpmtangent.h: its adjoint is untested  FAIL\n",
                          ops->name));
    (*fail)++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (nz && ops->stateinit) ops->stateinit(&mp, z);
  for (PetscInt k = 0; k < nz; k++) {
    if (!ops->stateinit) z[k] = 0;
    PetscCall(PetscRandomGetValue(rnd, &r));
    z[k] += 0.1 * r; /* a state near the undeformed one */
    PetscCall(PetscRandomGetValue(rnd, &r));
    dz[k] = r;
    PetscCall(PetscRandomGetValue(rnd, &r));
    znewb[k] = r;
    zb[k]    = 0;
    zp[k] = z[k] + h * dz[k], zm[k] = z[k] - h * dz[k];
  }
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) Fp[i][j] = F[i][j] + h * dF[i][j], Fm[i][j] = F[i][j] - h * dF[i][j];
  MPMTangentOf(m)(E, nu, F, StatePtr(nz, z), dF, StatePtr(nz, dz), dE, dnu, dtau, StatePtr(nz, dznew));
  ops->kirchhoffadjoint(&mp, F, StatePtr(nz, z), taub, StatePtr(nz, znewb), Fb, StatePtr(nz, zb), &mpb);
  lhs = Dot(dtau, taub);
  rhs = Dot(dF, Fb) + dE * mpb.E + dnu * mpb.nu;
  for (PetscInt k = 0; k < nz; k++) lhs += dznew[k] * znewb[k], rhs += dz[k] * zb[k];
  PetscCall(PetscSNPrintf(name, sizeof(name), "trial %2" PetscInt_FMT " %s: |<dtau,taub> - <dF,Fb>...| rel.", trial,
                          ops->name));
  PetscCall(MPMTestReport(name, PetscAbsReal(lhs - rhs) / PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), 1e-12, fail));
  /* The tangent against central differences of the forward kernel. */
  Kirchhoff(m, E + h * dE, nu + h * dnu, Fp, StatePtr(nz, zp), tp, StatePtr(nz, znp));
  Kirchhoff(m, E - h * dE, nu - h * dnu, Fm, StatePtr(nz, zm), tm, StatePtr(nz, znm));
  for (PetscInt i = 0; i < MPM_DIM; i++)
    for (PetscInt j = 0; j < MPM_DIM; j++) {
      fd    = AdjTestMax(fd, PetscAbsReal((tp[i][j] - tm[i][j]) / (2 * h) - dtau[i][j]));
      scale = AdjTestMax(scale, PetscAbsReal(dtau[i][j]));
    }
  for (PetscInt k = 0; k < nz; k++) {
    fd    = AdjTestMax(fd, PetscAbsReal((znp[k] - znm[k]) / (2 * h) - dznew[k]));
    scale = AdjTestMax(scale, PetscAbsReal(dznew[k]));
  }
  PetscCall(PetscSNPrintf(name, sizeof(name), "trial %2" PetscInt_FMT " %s: tangent vs central differences rel.", trial,
                          ops->name));
  PetscCall(MPMTestReport(name, fd / scale, 1e-7, fail));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    fail = 0, checked = 0;

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
    for (PetscInt m = 0; m < MPM_NMODELS; m++)
      PetscCall(ModelDotTest(rnd, trial, m, E, nu, F, dF, dE, dnu, taub, &fail));
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
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "models dot-tested (the whole table): %d\n", (int)MPM_NMODELS));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "random F checked (J > 0.2): %" PetscInt_FMT " of 20  %s\n", checked,
                        checked > 0 ? "ok" : "FAIL (every trial was skipped: nothing was tested)"));
  if (!(checked > 0)) fail++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
