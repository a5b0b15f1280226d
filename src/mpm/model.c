/* The constitutive-model table (mpmmodel.h): lookup by number and by name, the list of names for options
 * and messages, and the per-particle calls of the callers that need no internal state. */
#include "mpmmodel.h"

/* Indexed by MPMModel; the -mpm_model values are the names of these entries. */
const MPMModelOps *const MPMModelTable[MPM_NMODELS] = {
    [MPM_MODEL_FIXED_COROTATED] = &MPMModelFixedCorotated,
    [MPM_MODEL_NEO_HOOKEAN]     = &MPMModelNeoHookean,
};

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
    Refuses an unknown name, listing the table, and a model with internal state (not stored yet). Collective
    on comm (for the error). @*/
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
  PetscCheck(MPMModelTable[*m]->nstate == 0, comm, PETSC_ERR_SUP,
             "%s %s (label %" PetscInt_FMT "): models with per-particle internal state are not stored by the particle "
             "state yet",
             option, name, label);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tau(F; E, nu) of the particle's model (models without internal state: the stress output, tests). */
void MPMKirchhoff(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar tau[MPM_DIM][MPM_DIM])
{
  MPMMaterialModel(mp)->kirchhoff(mp, F, NULL, tau, NULL);
}

/* Stored energy V0 psi(F) of a particle [J/m] (diagnostics only). */
PetscReal MPMStrainEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM])
{
  return mp->volume * MPMMaterialModel(mp)->energy(mp, F, NULL);
}
