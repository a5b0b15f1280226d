/* A constitutive model with internal state, for the tests of the internal-state plumbing only (the particle
 * record, the exchange, checkpoints, restart, output and the step adjoint through z): "test-damage", a
 * neo-Hookean solid softened by a damage-like variable accumulated from the strain, nstate = 2:
 *   z0' = z0 + K |F - I|^2        (K = 1: accumulates a smooth function of F every step),
 *   z1' = z1 + C (J - 1)          (C = 0.2: a memory of the volume change; z1(0) = nu persists, so that the
 *                                  gradient through z0 = stateinit is a sizeable part of dJ/dnu),
 *   tau = s(z) tau_nh(F; E, nu),  s = (2 + tanh z1) / (2 (1 + z0)),
 *   z(0) = (0, nu)                (so that z0 depends on a material parameter: stateinitadjoint is exercised).
 * Not a physical model and not registered for users: a test program puts it in place of a table entry with
 * MPMModelTableOverride (mpmmodel.h) before the solver is set up, e.g. MPMTestModelRegister() and
 * -mpm_model fixed-corotated,test-damage. */
#pragma once

#include "mpm/mpmmodel.h"

#define MPM_TEST_DAMAGE_K 1.0
#define MPM_TEST_DAMAGE_C 0.2

/* s(z) and its derivatives. */
static inline void MPMTestDamageScale(const PetscScalar z[], PetscReal *s, PetscReal *ds0, PetscReal *ds1)
{
  const PetscReal t = PetscTanhReal(z[1]);

  *s   = (2 + t) / (2 * (1 + z[0]));
  *ds0 = -*s / (1 + z[0]);
  *ds1 = (1 - t * t) / (2 * (1 + z[0]));
}

static void MPMTestDamage(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                          PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[])
{
  PetscReal s, ds0, ds1, e2 = 0;

  MPMTestDamageScale(z, &s, &ds0, &ds1);
  MPMModelNeoHookean.kirchhoff(mp, F, NULL, tau, NULL);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      tau[a][b] *= s;
      e2 += PetscSqr(F[a][b] - (a == b));
    }
  znew[0] = z[0] + MPM_TEST_DAMAGE_K * e2;
  znew[1] = z[1] + MPM_TEST_DAMAGE_C * (MPMDeterminant(F) - 1);
}

/* taub -> Fb += s (dtau_nh/dF)^T taub (the neo-Hookean adjoint at s taub, E and nu likewise), sb = <taub, tau_nh>,
 * zb += sb ds/dz; z'b -> z0b += z'0b, Fb += 2 K (F - I) z'0b, z1b += z'1b, Fb += C cof(F) z'1b. */
static void MPMTestDamageAdjoint(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                 const PetscScalar z[], const PetscScalar taub[MPM_DIM][MPM_DIM],
                                 const PetscScalar znewb[], PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[],
                                 MPMMaterialPoint *mpb)
{
  PetscReal   s, ds0, ds1, sb = 0;
  PetscScalar tau[MPM_DIM][MPM_DIM], staub[MPM_DIM][MPM_DIM], cof[MPM_DIM][MPM_DIM];

  MPMTestDamageScale(z, &s, &ds0, &ds1);
  MPMModelNeoHookean.kirchhoff(mp, F, NULL, tau, NULL);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++) {
      staub[a][b] = s * taub[a][b];
      sb += taub[a][b] * tau[a][b];
    }
  MPMModelNeoHookean.kirchhoffadjoint(mp, F, NULL, staub, NULL, Fb, NULL, mpb);
  MPMCofactor(F, cof);
  for (PetscInt a = 0; a < MPM_DIM; a++)
    for (PetscInt b = 0; b < MPM_DIM; b++)
      Fb[a][b] += 2 * MPM_TEST_DAMAGE_K * (F[a][b] - (a == b)) * znewb[0] + MPM_TEST_DAMAGE_C * cof[a][b] * znewb[1];
  zb[0] += sb * ds0 + znewb[0];
  zb[1] += sb * ds1 + znewb[1];
}

static PetscReal MPMTestDamageEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM],
                                     const PetscScalar z[])
{
  PetscReal s, ds0, ds1;

  MPMTestDamageScale(z, &s, &ds0, &ds1);
  return s * MPMModelNeoHookean.energy(mp, F, NULL);
}

static void MPMTestDamageInit(const MPMMaterialPoint *mp, PetscScalar z[])
{
  z[0] = 0;
  z[1] = mp->nu;
}

static void MPMTestDamageInitAdjoint(const MPMMaterialPoint *mp, const PetscScalar z0b[], MPMMaterialPoint *mpb)
{
  (void)mp;
  mpb->nu += z0b[1];
}

static const MPMModelOps MPMTestModelDamage = {
    .name             = "test-damage",
    .description      = "tests only",
    .params           = "E,nu",
    .nstate           = 2,
    .kirchhoff        = MPMTestDamage,
    .kirchhoffadjoint = MPMTestDamageAdjoint,
    .energy           = MPMTestDamageEnergy,
    .stateinit        = MPMTestDamageInit,
    .stateinitadjoint = MPMTestDamageInitAdjoint,
};

/* test-damage in place of the neo-Hookean entry of the model table (-mpm_model test-damage). */
static inline void MPMTestModelRegister(void)
{
  MPMModelTableOverride(MPM_MODEL_NEO_HOOKEAN, &MPMTestModelDamage);
}
