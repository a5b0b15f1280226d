/* Constitutive models of the MPM solver: one operations table (MPMModelOps) per model, looked up by the
 * particle's model number (MPMModelGetOps).  The transfers (transfer.c), the energy history (energy.c) and
 * the stress output (mpm.c) call through the table; no kernel switches on the model.
 *
 * Adding a material = one file + one table entry:
 *   1. src/mpm/models/<name>.c: the forward kernel (tau and the internal-state update), its hand-written
 *      adjoint right below it with the maths in comments, the energy density, and
 *      `const MPMModelOps MPMModel<Name> = {.name = "<name>", ...};` (the -mpm_model value);
 *   2. its enum value before MPM_NMODELS in MPMModel (mpmimpl.h) and its entry in MPMModelTable (model.c);
 *      -mpm_model, its help text and its error messages list the table, so nothing else changes;
 *   3. its tangent-linear model in tests/mpm/mpmtangent.h: the constitutive dot-product test (mpm_dot)
 *      loops over the table and fails for a model without one.
 *
 * Internal state.  A model may carry nstate reals z per particle (an elastic or plastic deformation gradient,
 * a hardening variable, ...).  The forward kernel maps (F, z) -> (tau, z') in one call, so a return mapping
 * computes the trial state, projects it and returns both the stress and the projected state; its adjoint is
 * the transpose of that whole map, (taub, z'b) -> (Fb, zb, material parameters b).  Elastic models have
 * nstate = 0 and receive z = z' = zb = z'b = NULL.
 *   Storage: z is part of the particle state (the state Vec's records are MPMParticle + nz reals, nz the
 * largest nstate of the labels' models, mpmimpl.h), so it moves with its particle between ranks, is in the
 * checkpoints and the restart files, and is written as the particle field internal_state.  A particle whose
 * model has nstate < nz keeps its extra reals unchanged (z' = z there, exactly).
 *   Where in the MLS-MPM step (transfer.c): the model is called once per particle and step, in P2G, at the
 * state (F_n, z_n) of the start of step n; tau enters the grid momentum and z' is the particle's z_{n+1}.  G2P
 * then updates F kinematically, F_{n+1} = (I + dt C_{n+1}) F_n, and leaves z alone.  So F is the total
 * deformation gradient and the model sees, at step n + 1, the trial F_{n+1} with the state z_{n+1} projected
 * at step n: a plastic model stores its plastic part (e.g. z = Fp^-1, with the trial elastic part
 * Fe_tr = F Fp^-1 = (I + dt C) Fe_n, or a hardening variable) and its return mapping is a model file only.
 *   Initial state: stateinit(mp, z) for every particle, from its material point (MPMInitialInternalState,
 * model.c; again whenever the material parameters change).  If z0 depends on the material parameters,
 * stateinitadjoint adds (dz0/dparams)^T z0b to mpb (NULL: z0 does not depend on them).
 *
 * Material parameters.  A model reads its parameters from the material point (E and nu today; a yield stress
 * would be a new MPMMaterialPoint field with its parameter block) and its adjoint adds their adjoints to the
 * same fields of mpb; `params` names them for -help and messages. */
#pragma once

#include "mpmimpl.h"

/* Largest number of internal-state reals per particle of any model. */
#define MPM_MODEL_MAX_STATE 8

typedef struct {
  const char *name;        /* the -mpm_model value, e.g. "fixed-corotated" */
  const char *description; /* for -help, e.g. "Stomakhin et al. 2012" */
  const char *params;      /* the material-point fields it reads, e.g. "E,nu" */
  PetscInt    nstate;      /* internal-state reals per particle (0: elastic), <= MPM_MODEL_MAX_STATE */
  /* Kirchhoff stress tau = P F^T (J times Cauchy) and the updated internal state z' of a particle with
   * deformation gradient F and internal state z (z, z' NULL when nstate = 0). */
  void (*kirchhoff)(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                    PetscScalar tau[MPM_DIM][MPM_DIM], PetscScalar znew[]);
  /* Adjoint of kirchhoff at (F, z):  Fb += (dtau/dF)^T taub + (dz'/dF)^T z'b,  zb += (dtau/dz)^T taub +
   * (dz'/dz)^T z'b,  mpb->E, mpb->nu, ... += the same for each parameter in `params` (other fields untouched). */
  void (*kirchhoffadjoint)(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                           const PetscScalar taub[MPM_DIM][MPM_DIM], const PetscScalar znewb[],
                           PetscScalar Fb[MPM_DIM][MPM_DIM], PetscScalar zb[], MPMMaterialPoint *mpb);
  /* Stored energy density psi(F, z) per unit reference volume [J/m^3] (diagnostics), with tau = (dpsi/dF) F^T
   * for elastic models. */
  PetscReal (*energy)(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[]);
  /* Internal state z0 of an undeformed particle (NULL when nstate = 0; then z0 = 0). */
  void (*stateinit)(const MPMMaterialPoint *mp, PetscScalar z[]);
  /* Adjoint of stateinit: mpb->E, mpb->nu, ... += (dz0/d(params))^T z0b (NULL: z0 does not depend on them). */
  void (*stateinitadjoint)(const MPMMaterialPoint *mp, const PetscScalar z0b[], MPMMaterialPoint *mpb);
} MPMModelOps;

/* The models (src/mpm/models/) and the table indexed by MPMModel (model.c). */
extern const MPMModelOps  MPMModelFixedCorotated, MPMModelNeoHookean, MPMModelJ2, MPMModelDruckerPrager;
extern const MPMModelOps *MPMModelTable[MPM_NMODELS];

/* Tests only: entry m of the table becomes ops (NULL: the built-in model again), so that a test program can
 * run the solver with a model of its own (tests/mpm/mpmtestmodel.h).  Call it before the solver is set up;
 * no user-visible model is registered this way. */
void MPMModelTableOverride(MPMModel m, const MPMModelOps *ops);

/* Does the model read the plasticity fields sigma_y, H (its params list names sigma_y)? */
static inline PetscBool MPMModelIsPlastic(const MPMModelOps *ops)
{
  return (PetscBool)(ops->params && strstr(ops->params, "sigma_y") != NULL);
}

/* Does the model read the granular fields friction_angle, cohesion (its params list names friction_angle)? */
static inline PetscBool MPMModelIsGranular(const MPMModelOps *ops)
{
  return (PetscBool)(ops->params && strstr(ops->params, "friction_angle") != NULL);
}

/* The model of number m (0 <= m < MPM_NMODELS). */
static inline const MPMModelOps *MPMModelGetOps(MPMModel m)
{
  return MPMModelTable[m];
}

/* The model of a material point. */
static inline const MPMModelOps *MPMMaterialModel(const MPMMaterialPoint *mp)
{
  return MPMModelGetOps((MPMModel)(PetscInt)mp->model);
}

PetscErrorCode MPMModelFromName(MPI_Comm comm, const char *option, const char *name, PetscInt label, MPMModel *m);
PetscErrorCode MPMModelList(const char *sep, const char *last, PetscBool describe, size_t len, char list[]);
