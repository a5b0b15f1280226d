/* The constitutive-model table (mpmmodel.h): lookup by number and by name, the list of names for options
 * and messages, the per-particle calls of the diagnostics (stress output, energy), and the initial internal
 * state of the particles with its adjoint. */
#include "mpmmodel.h"

/* The built-in models, indexed by MPMModel; the -mpm_model values are the names of these entries. */
static const MPMModelOps *const MPMModelBuiltin[MPM_NMODELS] = {
    [MPM_MODEL_FIXED_COROTATED] = &MPMModelFixedCorotated,
    [MPM_MODEL_NEO_HOOKEAN]     = &MPMModelNeoHookean,
    [MPM_MODEL_J2]              = &MPMModelJ2,
    [MPM_MODEL_DRUCKER_PRAGER]  = &MPMModelDruckerPrager,
};
/* The table in use: the built-in models, unless a test program replaced an entry (MPMModelTableOverride; this is
 * why it is not const). */
const MPMModelOps *MPMModelTable[MPM_NMODELS] = {
    [MPM_MODEL_FIXED_COROTATED] = &MPMModelFixedCorotated,
    [MPM_MODEL_NEO_HOOKEAN]     = &MPMModelNeoHookean,
    [MPM_MODEL_J2]              = &MPMModelJ2,
    [MPM_MODEL_DRUCKER_PRAGER]  = &MPMModelDruckerPrager,
};

/* Tests only (mpmmodel.h): a plain assignment, callable before PetscInitialize. */
void MPMModelTableOverride(MPMModel m, const MPMModelOps *ops)
{
  if (m >= 0 && m < MPM_NMODELS) MPMModelTable[m] = ops ? ops : MPMModelBuiltin[m];
}

/* list = the model names joined by sep, the last two by last (e.g. ", " and " or "), each followed by its
 * description in parentheses if describe, truncated to len. */
PetscErrorCode MPMModelList(const char *sep, const char *last, PetscBool describe, size_t len, char list[])
{
  PetscFunctionBeginUser;
  list[0] = 0;
  for (PetscInt m = 0; m < MPM_NMODELS; m++) {
    if (m) PetscCall(PetscStrlcat(list, m == MPM_NMODELS - 1 ? last : sep, len));
    PetscCall(PetscStrlcat(list, MPMModelTable[m]->name, len));
    if (!describe) continue;
    PetscCall(PetscStrlcat(list, " (", len));
    PetscCall(PetscStrlcat(list, MPMModelTable[m]->description, len));
    PetscCall(PetscStrlcat(list, ")", len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMModelFromName - the model number of the -mpm_model value name (of label `label`, for the message).
    Refuses an unknown name, listing the table. Collective on comm (for the error). @*/
PetscErrorCode MPMModelFromName(MPI_Comm comm, const char *option, const char *name, PetscInt label, MPMModel *m)
{
  PetscBool found = PETSC_FALSE;
  char      list[256];

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < MPM_NMODELS && !found; k++) {
    PetscCall(PetscStrcmp(name, MPMModelTable[k]->name, &found));
    if (found) *m = (MPMModel)k;
  }
  if (!found) PetscCall(MPMModelList(", ", " or ", PETSC_FALSE, sizeof(list), list));
  PetscCheck(found, comm, PETSC_ERR_USER_INPUT, "%s %s (label %" PetscInt_FMT ") is unknown: use %s", option, name,
             label, list);
  /* a table entry inconsistent with the storage (a programming error, not an input error) */
  PetscCheck(MPMModelTable[*m]->nstate >= 0 && MPMModelTable[*m]->nstate <= MPM_MODEL_MAX_STATE &&
                 (!MPMModelTable[*m]->nstate || MPMModelTable[*m]->stateinit),
             comm, PETSC_ERR_PLIB,
             "%s %s (label %" PetscInt_FMT "): the model has nstate = %" PetscInt_FMT
             " internal-state reals (at most MPM_MODEL_MAX_STATE = %d, and a stateinit when > 0)",
             option, name, label, MPMModelTable[*m]->nstate, MPM_MODEL_MAX_STATE);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tau(F, z; E, nu) of the particle's model (the stress output, tests); z' is computed and discarded. */
void MPMKirchhoff(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                  PetscScalar tau[MPM_DIM][MPM_DIM])
{
  const MPMModelOps *ops = MPMMaterialModel(mp);
  PetscScalar        znew[MPM_MODEL_MAX_STATE];

  ops->kirchhoff(mp, F, ops->nstate ? z : NULL, tau, ops->nstate ? znew : NULL);
}

/* Stored energy V0 psi(F, z) of a particle [J/m] (diagnostics only). */
PetscReal MPMStrainEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[])
{
  const MPMModelOps *ops = MPMMaterialModel(mp);

  return mp->volume * ops->energy(mp, F, ops->nstate ? z : NULL);
}

/*@ MPMInitialInternalState - z0 of every home particle of the state x0: the stateinit of its model in its first
    nstate reals, 0 in the others (up to nz).  Nothing to do when the run has no internal state.  Called when the
    particles are seeded and whenever the material parameters change (z0 may depend on them). Not collective. @*/
PetscErrorCode MPMInitialInternalState(MPM mpm, Vec x0)
{
  PetscScalar            *x;
  const MPMMaterialPoint *mat;

  PetscFunctionBeginUser;
  if (!mpm->nz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArray(x0, &x));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const MPMModelOps *ops = MPMMaterialModel(&mat[i]);
    PetscScalar       *z   = MPMRecordState(x, mpm->nrec, i);

    for (PetscInt s = 0; s < mpm->nz; s++) z[s] = 0;
    if (ops->nstate) ops->stateinit(&mat[i], z);
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArray(x0, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMInitialInternalStateAdjoint - the material-parameter gradients of z0 = stateinit(E, nu, ...): with
    z0b the internal-state part of lambda0 = dJ/dx0, the label gradients gE, gnu and, with per-particle fields,
    the home particle's entry of gmat += (dz0/d(E, nu))^T z0b, for the models that have a stateinitadjoint
    (the others' z0 does not depend on the parameters). Not collective. @*/
PetscErrorCode MPMInitialInternalStateAdjoint(MPM mpm, Vec lambda0)
{
  const PetscScalar      *lb;
  const MPMMaterialPoint *mat;
  MPMMaterialPoint       *gm = NULL;

  PetscFunctionBeginUser;
  if (!mpm->nz) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(lambda0, &lb));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  if (mpm->gmat) PetscCall(VecGetArray(mpm->gmat, (PetscScalar **)&gm));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const MPMModelOps *ops = MPMMaterialModel(&mat[i]);
    const PetscInt     l   = (PetscInt)mat[i].label;
    MPMMaterialPoint   mpb = {0};

    if (!ops->nstate || !ops->stateinitadjoint) continue;
    ops->stateinitadjoint(&mat[i], MPMRecordStateRead(lb, mpm->nrec, i), &mpb);
    mpm->gE[l] += mpb.E;
    mpm->gnu[l] += mpb.nu;
    if (gm) gm[i].E += mpb.E, gm[i].nu += mpb.nu;
  }
  if (mpm->gmat) PetscCall(VecRestoreArray(mpm->gmat, (PetscScalar **)&gm));
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(lambda0, &lb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
