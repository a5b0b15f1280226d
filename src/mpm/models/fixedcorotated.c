/* Fixed-corotated elasticity (Stomakhin et al. 2012), -mpm_model fixed-corotated: no internal state.
 *   psi = mu |F - R|^2 + lambda/2 (J - 1)^2,  R the polar rotation of F,  J = det F,
 *   mu = E / (2 (1 + nu)),  lambda = E nu / ((1 + nu)(1 - 2 nu)).
 * The forward kernel and its adjoint side by side; the MPMModelOps entry at the end. */
#include "../mpmimpl.h"
#include "../mpmmodel.h"

/* Fixed-corotated (Stomakhin et al. 2012): psi = mu |F - R|^2 + lambda/2 (J - 1)^2,
 *   P = 2 mu (F - R) + lambda (J - 1) J F^-T,   tau = P F^T = 2 mu (F - R) F^T + lambda (J - 1) J I. */
static void FixedCorotatedLame(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                               PetscScalar tau[MPM_DIM][MPM_DIM])
{
  PetscScalar     R[MPM_DIM][MPM_DIM];
  const PetscReal J = MPMDeterminant(F);

  MPMPolarRotation(F, R);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) t += (F[a][k] - R[a][k]) * F[b][k];
      tau[a][b] = 2.0 * mu * t + (a == b ? lambda * (J - 1.0) * J : 0.0);
    }
}

/* Fb += (dtau/dF)^T taub, mub += <taub, dtau/dmu>, lambdab += <taub, dtau/dlambda>:
 *   d(F F^T)^T taub = (taub + taub^T) F,  d(R F^T): Rb = taub F and (R dF^T)^T taub = taub^T R,
 *   d(J^2 - J) = (2 J - 1) cof(F) : dF. */
static void FixedCorotatedLameAdjoint(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                                      const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM],
                                      PetscReal *mub, PetscReal *lambdab)
{
  PetscScalar     R[MPM_DIM][MPM_DIM], Rb[MPM_DIM][MPM_DIM], cof[MPM_DIM][MPM_DIM];
  const PetscReal J  = MPMDeterminant(F);
  PetscReal       tr = 0, dmu = 0;

  MPMPolarRotation(F, R);
  MPMCofactor(F, cof);
  for (PetscInt a = 0; a < MPM_DIM; a++) tr += taub[a][a];
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar sym = 0, skew = 0, rb = 0, t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) {
        sym += (taub[a][k] + taub[k][a]) * F[k][b];
        skew += taub[k][a] * R[k][b];
        rb += taub[a][k] * F[k][b];
        t += (F[a][k] - R[a][k]) * F[b][k];
      }
      Fb[a][b] += 2.0 * mu * (sym - skew) + lambda * (2.0 * J - 1.0) * tr * cof[a][b];
      Rb[a][b] = -2.0 * mu * rb;
      dmu += taub[a][b] * 2.0 * t;
    }
  MPMPolarRotationAdjoint(F, Rb, Fb);
  *mub += dmu;
  *lambdab += tr * (J - 1.0) * J;
}

/* tau(F; E, nu) through the Lame parameters (no internal state: z, znew unused). */
static void FixedCorotated(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                           PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[])
{
  PetscReal mu, lambda;

  (void)z, (void)znew;
  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  FixedCorotatedLame(mu, lambda, F, tau);
}

/* Fb += (dtau/dF)^T taub,  mpb->E += <taub, dtau/dE>,  mpb->nu += <taub, dtau/dnu>: the Lame kernel's adjoint
 * gives (mub, lambdab), MPMLameParametersAdjoint maps them to (Eb, nub). */
static void FixedCorotatedAdjoint(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                  const PetscScalar z[], const PetscScalar taub[MPM_DIM][MPM_DIM],
                                  const PetscScalar znewb[], PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[],
                                  MPMMaterialPoint *mpb)
{
  PetscReal mu, lambda, mub = 0, lambdab = 0;

  (void)z, (void)znewb, (void)zb;
  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  FixedCorotatedLameAdjoint(mu, lambda, F, taub, Fb, &mub, &lambdab);
  MPMLameParametersAdjoint(mp->E, mp->nu, mub, lambdab, &mpb->E, &mpb->nu);
}

/* psi = mu |F - R|^2 + lambda/2 (J - 1)^2 [J/m^3]. */
static PetscReal FixedCorotatedEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                      const PetscScalar z[])
{
  PetscReal       mu, lambda, psi = 0;
  const PetscReal J = MPMDeterminant(F);
  PetscScalar     R[MPM_DIM][MPM_DIM];

  (void)z;
  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  MPMPolarRotation(F, R);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) psi += mu * PetscSqr(F[a][b] - R[a][b]);
  psi += 0.5 * lambda * PetscSqr(J - 1.0);
  return psi;
}

const MPMModelOps MPMModelFixedCorotated = {
    .name             = "fixed-corotated",
    .description      = "Stomakhin et al. 2012",
    .params           = "E,nu",
    .nstate           = 0,
    .kirchhoff        = FixedCorotated,
    .kirchhoffadjoint = FixedCorotatedAdjoint,
    .energy           = FixedCorotatedEnergy,
    .stateinit        = NULL,
};
