/* Dot-product tests of the MPM constitutive adjoints (kernels.c): for random F (J > 0), directions
 * (dF, dE, dnu) and weights taub,
 *   <dtau, taub> = <dF, Fb> + dE Eb + dnu nub   to 1e-12,
 * with dtau from a tangent-linear model written here independently of the adjoints, itself checked
 * against central finite differences (1e-7).  Models: fixed-corotated, neo-Hookean; also the polar
 * rotation and the Lame parameters on their own.  A NaN fails (NaN-keeping maxima), and so does a run in
 * which every trial was skipped (J <= 0.2). */
#include "mpmtangent.h"
#include "adjtest.h"

static void Kirchhoff(PetscInt m, PetscReal E, PetscReal nu, const Mat2 F, Mat2 tau)
{
  MPMMaterialPoint mp = {1, 1, E, nu, 0, (PetscScalar)m};
  MPMKirchhoff(&mp, F, tau);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;
  PetscInt    fail = 0, checked = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 42));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt trial = 0; trial < 20; trial++) {
    Mat2        F, dF, taub, dtau, Fb = {{0, 0}, {0, 0}}, tp, tm, Fp, Fm, Rb, dR;
    PetscScalar r;
    PetscReal   E = 1e5, nu, dE, dnu, Eb = 0, nub = 0, h = 1e-6;

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
    for (PetscInt m = 0; m < 2; m++) {
      MPMMaterialPoint mp = {1, 1, E, nu, 0, (PetscScalar)m};
      PetscReal        lhs, rhs, fd = 0, scale = 0;
      char             name[128];

      for (PetscInt i = 0; i < MPM_DIM; i++)
        for (PetscInt j = 0; j < MPM_DIM; j++)
          Fb[i][j] = 0, Fp[i][j] = F[i][j] + h * dF[i][j], Fm[i][j] = F[i][j] - h * dF[i][j];
      Eb = nub = 0;
      KirchhoffTangent(m, E, nu, F, dF, dE, dnu, dtau);
      MPMKirchhoffAdjoint(&mp, F, taub, Fb, &Eb, &nub);
      lhs = Dot(dtau, taub);
      rhs = Dot(dF, Fb) + dE * Eb + dnu * nub;
      PetscCall(PetscSNPrintf(name, sizeof(name), "trial %2" PetscInt_FMT " %s: |<dtau,taub> - <dF,Fb>...| rel.", trial,
                              MPMModels[m]));
      PetscCall(
          MPMTestReport(name, PetscAbsReal(lhs - rhs) / PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), 1e-12, &fail));
      /* The tangent against central differences. */
      Kirchhoff(m, E + h * dE, nu + h * dnu, Fp, tp);
      Kirchhoff(m, E - h * dE, nu - h * dnu, Fm, tm);
      for (PetscInt i = 0; i < MPM_DIM; i++)
        for (PetscInt j = 0; j < MPM_DIM; j++) {
          fd    = AdjTestMax(fd, PetscAbsReal((tp[i][j] - tm[i][j]) / (2 * h) - dtau[i][j]));
          scale = AdjTestMax(scale, PetscAbsReal(dtau[i][j]));
        }
      PetscCall(PetscSNPrintf(name, sizeof(name), "trial %2" PetscInt_FMT " %s: tangent vs central differences rel.",
                              trial, MPMModels[m]));
      PetscCall(MPMTestReport(name, fd / scale, 1e-7, &fail));
    }
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
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "random F checked (J > 0.2): %" PetscInt_FMT " of 20  %s\n", checked,
                        checked > 0 ? "ok" : "FAIL (every trial was skipped: nothing was tested)"));
  if (!(checked > 0)) fail++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
