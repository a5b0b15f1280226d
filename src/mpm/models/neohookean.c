/* Compressible neo-Hookean elasticity, -mpm_model neo-hookean: no internal state.
 *   psi = mu/2 (|F|^2 - d) - mu log J + lambda/2 (log J)^2,  J = det F,
 *   mu = E / (2 (1 + nu)),  lambda = E nu / ((1 + nu)(1 - 2 nu)).
 * The forward kernel and its adjoint side by side; the MPMModelOps entry at the end. */
#include "../mpmimpl.h"
#include "../mpmmodel.h"

/* Compressible neo-Hookean: psi = mu/2 (tr(F^T F) - d) - mu log J + lambda/2 (log J)^2,
 *   P = mu (F - F^-T) + lambda log(J) F^-T,   tau = mu (F F^T - I) + lambda log(J) I. */
static void NeoHookeanLame(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                           PetscScalar tau[MPM_DIM][MPM_DIM])
{
  const PetscReal logJ = PetscLogReal(MPMDeterminant(F));

  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) t += F[a][k] * F[b][k];
      tau[a][b] = mu * (t - (a == b ? 1.0 : 0.0)) + (a == b ? lambda * logJ : 0.0);
    }
}

/* Fb += mu (taub + taub^T) F + lambda tr(taub) cof(F) / J. */
static void NeoHookeanLameAdjoint(PetscReal mu, PetscReal lambda, const PetscScalar F[MPM_DIM][MPM_DIM],
                                  const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM],
                                  PetscReal *mub, PetscReal *lambdab)
{
  PetscScalar     cof[MPM_DIM][MPM_DIM];
  const PetscReal J  = MPMDeterminant(F);
  PetscReal       tr = 0, dmu = 0;

  MPMCofactor(F, cof);
  for (PetscInt a = 0; a < MPM_DIM; a++) tr += taub[a][a];
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      PetscScalar sym = 0, t = 0;
      for (PetscInt k = 0; k < MPM_DIM; k++) {
        sym += (taub[a][k] + taub[k][a]) * F[k][b];
        t += F[a][k] * F[b][k];
      }
      Fb[a][b] += mu * sym + lambda * tr * cof[a][b] / J;
      dmu += taub[a][b] * (t - (a == b ? 1.0 : 0.0));
    }
  *mub += dmu;
  *lambdab += tr * PetscLogReal(J);
}

/* tau(F; E, nu) through the Lame parameters (no internal state: z, znew unused). */
static void NeoHookean(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                       PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[])
{
  PetscReal mu, lambda;

  (void)z, (void)znew;
  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  NeoHookeanLame(mu, lambda, F, tau);
}

/* Fb += (dtau/dF)^T taub,  mpb->E += <taub, dtau/dE>,  mpb->nu += <taub, dtau/dnu>: the Lame kernel's adjoint
 * gives (mub, lambdab), MPMLameParametersAdjoint maps them to (Eb, nub). */
static void NeoHookeanAdjoint(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                              const PetscScalar taub[MPM_DIM][MPM_DIM], const PetscScalar znewb[],
                              PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[], MPMMaterialPoint *mpb)
{
  PetscReal mu, lambda, mub = 0, lambdab = 0;

  (void)z, (void)znewb, (void)zb;
  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  NeoHookeanLameAdjoint(mu, lambda, F, taub, Fb, &mub, &lambdab);
  MPMLameParametersAdjoint(mp->E, mp->nu, mub, lambdab, &mpb->E, &mpb->nu);
}

/* psi = mu/2 (|F|^2 - d) - mu log J + lambda/2 (log J)^2 [J/m^3]. */
static PetscReal NeoHookeanEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                  const PetscScalar z[])
{
  PetscReal       mu, lambda, trc = 0;
  const PetscReal J = MPMDeterminant(F);

  (void)z;
  MPMLameParameters(mp->E, mp->nu, &mu, &lambda);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) trc += F[a][b] * F[a][b];
  return 0.5 * mu * (trc - MPM_DIM) - mu * PetscLogReal(J) + 0.5 * lambda * PetscSqr(PetscLogReal(J));
}

const MPMModelOps MPMModelNeoHookean = {
    .name             = "neo-hookean",
    .description      = "compressible",
    .params           = "E,nu",
    .nstate           = 0,
    .kirchhoff        = NeoHookean,
    .kirchhoffadjoint = NeoHookeanAdjoint,
    .energy           = NeoHookeanEnergy,
    .stateinit        = NULL,
};
