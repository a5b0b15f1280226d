/* The strain energy of the energy history (MPMStrainEnergy through the model table, src/mpm/models/) is the potential
 * of the stress the solver applies (MPMKirchhoff): for random F (J > 0) and both models, tau = P F^T,  P = (1/V0) d(V0
 * psi)/dF, with P from central differences of MPMStrainEnergy (step 1e-6, relative error checked to 1e-7 of |tau|), and
 * psi(I) = 0 (the undeformed state stores no energy).  A NaN anywhere fails (NaN-keeping maxima), and so does a model
 * for which every trial was skipped (J <= 0.2): a check over no trials tests nothing. */
#include "mpmtangent.h"
#include "adjtest.h"

int main(int argc, char **argv)
{
  PetscRandom    rnd;
  const PetscInt ntrials = 20;
  PetscInt       fail = 0, checked[2] = {0, 0};
  PetscReal      worst[2] = {0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt model = 0; model < 2; model++) {
    const MPMMaterialPoint mp   = {.mass = 1.0, .volume = 0.3, .E = 1e5, .nu = 0.3, .model = (PetscScalar)model};
    const Mat2             eye  = {{1, 0}, {0, 1}};
    const PetscReal        psi0 = MPMStrainEnergy(&mp, eye, NULL);

    PetscCall(
        MPMTestReport(model ? "neo-Hookean: psi(I)" : "fixed-corotated: psi(I)", PetscAbsReal(psi0), 1e-15, &fail));
    for (PetscInt trial = 0; trial < ntrials; trial++) {
      Mat2        F, P, tau, taufd;
      PetscScalar r;
      PetscReal   h = 1e-6, err = 0, norm = 0;

      for (PetscInt i = 0; i < MPM_DIM; i++)
        for (PetscInt j = 0; j < MPM_DIM; j++) {
          PetscCall(PetscRandomGetValue(rnd, &r));
          F[i][j] = (i == j) + 0.4 * r;
        }
      if (MPMDeterminant(F) <= 0.2) continue;
      for (PetscInt i = 0; i < MPM_DIM; i++)
        for (PetscInt j = 0; j < MPM_DIM; j++) {
          Mat2 Fp, Fm;

          PetscCall(PetscArraycpy(&Fp[0][0], &F[0][0], MPM_DIM * MPM_DIM));
          PetscCall(PetscArraycpy(&Fm[0][0], &F[0][0], MPM_DIM * MPM_DIM));
          Fp[i][j] += h;
          Fm[i][j] -= h;
          P[i][j] = (MPMStrainEnergy(&mp, Fp, NULL) - MPMStrainEnergy(&mp, Fm, NULL)) / (2 * h * mp.volume);
        }
      for (PetscInt a = 0; a < MPM_DIM; a++)
        for (PetscInt b = 0; b < MPM_DIM; b++) {
          taufd[a][b] = 0;
          for (PetscInt k = 0; k < MPM_DIM; k++) taufd[a][b] += P[a][k] * F[b][k];
        }
      MPMKirchhoff(&mp, F, NULL, tau);
      for (PetscInt a = 0; a < MPM_DIM; a++)
        for (PetscInt b = 0; b < MPM_DIM; b++) {
          err  = AdjTestMax(err, PetscAbsReal(tau[a][b] - taufd[a][b]));
          norm = AdjTestMax(norm, PetscAbsReal(tau[a][b]));
        }
      worst[model] = AdjTestMax(worst[model], err / norm);
      checked[model]++;
    }
  }
  for (PetscInt model = 0; model < 2; model++) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s: random F checked (J > 0.2): %" PetscInt_FMT " of %" PetscInt_FMT "  %s\n",
                          MPMModelGetOps((MPMModel)model)->name, checked[model], ntrials,
                          checked[model] > 0 ? "ok" : "FAIL (every trial was skipped: the check below tests nothing)"));
    if (!(checked[model] > 0)) fail++;
  }
  PetscCall(MPMTestReport("fixed-corotated: tau vs (dpsi/dF) F^T by central differences, rel.", worst[0], 1e-7, &fail));
  PetscCall(MPMTestReport("neo-Hookean: tau vs (dpsi/dF) F^T by central differences, rel.", worst[1], 1e-7, &fail));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " check(s) failed\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
