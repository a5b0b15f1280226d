/* AdjOutput: restart state, in the run file (/restart) and as a standalone restart file replaced atomically. */
#include "ioimpl.h"
#include <string.h>

/* Remove datasets of grp that are not among names (a previous restart had other fields). Collective. */
static PetscErrorCode AdjOutputPruneRestart(hid_t grp, PetscInt nfields, const char *const names[])
{
  H5G_info_t info;
  char     **stale;
  PetscInt   nstale = 0;

  PetscFunctionBeginUser;
  AdjCallH5(H5Gget_info(grp, &info));
  PetscCall(PetscCalloc1(info.nlinks + 1, &stale));
  for (hsize_t i = 0; i < info.nlinks; i++) {
    char      name[ADJ_IO_NAME_MAX];
    PetscBool keep = PETSC_FALSE;
    ssize_t   len  = H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof(name), H5P_DEFAULT);

    AdjCallH5(len);
    for (PetscInt f = 0; f < nfields && !keep; f++) PetscCall(PetscStrcmp(name, names[f], &keep));
    if (!keep) PetscCall(PetscStrallocpy(name, &stale[nstale++]));
  }
  /* Deleting while iterating by index would shift the indices, hence the two passes. */
  for (PetscInt i = 0; i < nstale; i++) {
    AdjCallH5(H5Ldelete(grp, stale[i], H5P_DEFAULT));
    PetscCall(PetscFree(stale[i]));
  }
  PetscCall(PetscFree(stale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write the /restart group of file: attributes step, time, solver, cells, field_names and one dataset per
 *  state field shaped like a time slice. Datasets are overwritten in place so repeated restarts do not grow
 *  the file. Collective. */
PetscErrorCode AdjOutputWriteRestartGroup(AdjOutput out, hid_t file, const char solver[], AdjStepIndex step,
                                          PetscReal time, PetscInt nfields, const char *const names[], Vec fields[])
{
  hid_t         grp;
  const int64_t s = step;
  int64_t       cells[ADJ_IO_MAX_DIM];
  char         *list;
  size_t        len = 1;

  PetscFunctionBeginUser;
  PetscCheck(out->da, out->comm, PETSC_ERR_ORDER, "restart: call AdjOutputSetGrid() first");
  PetscCheck(nfields >= 0 && (!nfields || (names && fields)), out->comm, PETSC_ERR_ARG_NULL,
             "restart: need names[] and fields[] for %" PetscInt_FMT " fields", nfields);
  PetscCall(AdjIOCheckName(out->comm, "restart solver", solver));
  for (PetscInt f = 0; f < nfields; f++) {
    PetscCall(AdjIOCheckName(out->comm, "restart field", names[f]));
    len += strlen(names[f]) + 1;
  }
  PetscCall(AdjH5GroupOpen(file, "/restart", PETSC_TRUE, &grp));
  PetscCall(AdjOutputPruneRestart(grp, nfields, names));
  for (PetscInt f = 0; f < nfields; f++) {
    AdjIOBox  box;
    PetscBool same;

    PetscCall(AdjIOVecGetBox(fields[f], out->da, &box));
    same = (PetscBool)(box.dim == out->dim);
    for (PetscInt i = 0; same && i < box.dim; i++)
      same = (PetscBool)(box.gdims[box.dim - 1 - i] == (hsize_t)out->cells[i]);
    PetscCheck(same, out->comm, PETSC_ERR_ARG_SIZ, "restart field %s is not on the run's grid", names[f]);
    PetscCall(AdjIOWriteVec(grp, names[f], &box, fields[f]));
  }
  for (PetscInt i = 0; i < out->dim; i++) cells[i] = out->cells[i];
  PetscCall(PetscCalloc1(len, &list));
  for (PetscInt f = 0; f < nfields; f++) {
    if (f) PetscCall(PetscStrlcat(list, ",", len));
    PetscCall(PetscStrlcat(list, names[f], len));
  }
  /* Attributes last: in the run file a restart group with step/time set has its data in place. */
  PetscCall(AdjH5WriteAttrString(grp, "solver", solver));
  PetscCall(AdjH5WriteAttrInt64(grp, "cells", out->dim, cells));
  PetscCall(AdjH5WriteAttrString(grp, "field_names", list));
  if (out->restart_objective_set) PetscCall(AdjH5WriteAttrReal(grp, "objective", 0, &out->restart_objective));
  PetscCall(AdjH5WriteAttrReal(grp, "time", 0, &time));
  PetscCall(AdjH5WriteAttrInt64(grp, "step", 0, &s));
  PetscCall(PetscFree(list));
  AdjCallH5(H5Gclose(grp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOutputSetRestartObjective - the objective summed over the steps up to that of the state the next
    restart writes record, stored as the attribute objective of /restart: a run continued from that state
    adds its own steps to it and so reports the objective of the whole run. Not collective (same value on
    every rank). @*/
PetscErrorCode AdjOutputSetRestartObjective(AdjOutput out, PetscReal objective)
{
  PetscFunctionBeginUser;
  out->restart_objective_set = PETSC_TRUE;
  out->restart_objective     = objective;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write the state to continue from into the /restart group of the run file (replacing an earlier one).
 *  Collective.
 *  @param[in] solver  name of the solver that can continue from it (checked by AdjInputReadRestart())
 *  @param[in] step    step number of the state
 *  @param[in] time    simulated time of the state
 *  @param[in] nfields number of state fields
 *  @param[in] names   dataset name of each field
 *  @param[in] fields  DMDA global vectors on the run's grid */
PetscErrorCode AdjOutputWriteRestart(AdjOutput out, const char solver[], AdjStepIndex step, PetscReal time,
                                     PetscInt nfields, const char *const names[], Vec fields[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteRestart"));
  PetscCall(AdjOutputWriteRestartGroup(out, out->file, solver, step, time, nfields, names, fields));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write a standalone restart file at -restart_file (default <output stem>-restart.h5): root attributes,
 *  a short /provenance, /grid and /restart. It is written as <file>.partial and renamed over the previous
 *  restart file only when complete, so a run killed at any moment leaves the last restart file valid.
 *  Needs only AdjOutputSetGrid() (the run file may be closed or never opened). Collective. Arguments as in
 *  AdjOutputWriteRestart(). */
PetscErrorCode AdjOutputRestartFileBegin(AdjOutput out, const char caller[], char tmp[], size_t len, hid_t *file)
{
  const char   *path;
  hid_t         fapl, root;
  const int64_t version = ADJ_OUTPUT_FORMAT_VERSION;

  PetscFunctionBeginUser;
  PetscCheck(out->da, out->comm, PETSC_ERR_ORDER, "%s: call AdjOutputSetGrid() first", caller);
  PetscCall(AdjOutputGetRestartPath(out, &path));
  PetscCall(AdjIOCheckWritableTarget(out->comm, path, "-restart_file"));
  PetscCall(AdjOutputLockFiles(out));
  PetscCall(PetscSNPrintf(tmp, len, "%s.partial", path));
  PetscCall(AdjH5FileAccess(out->comm, &fapl));
  *file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  AdjCallH5(H5Pclose(fapl));
  PetscCheck(*file >= 0, out->comm, PETSC_ERR_FILE_OPEN,
             "Cannot create restart file %s (option -restart_file): HDF5 refused to create it", tmp);
  root = H5Gopen2(*file, "/", H5P_DEFAULT);
  AdjCallH5(root);
  PetscCall(AdjH5WriteAttrString(root, "format", ADJ_IO_FORMAT_NAME));
  PetscCall(AdjH5WriteAttrInt64(root, "format_version", 0, &version));
  PetscCall(AdjH5WriteAttrString(root, "content", "restart"));
  AdjCallH5(H5Gclose(root));
  PetscCall(AdjOutputWriteProvenance(out, *file, PETSC_FALSE));
  PetscCall(AdjOutputWriteGridGroup(out, *file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputRestartFileEnd(AdjOutput out, const char tmp[], hid_t file)
{
  const char *path;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputGetRestartPath(out, &path));
  AdjCallH5(H5Fclose(file));
  PetscCall(AdjIOCommitFile(out->comm, tmp, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputWriteRestartFile(AdjOutput out, const char solver[], AdjStepIndex step, PetscReal time,
                                         PetscInt nfields, const char *const names[], Vec fields[])
{
  char  tmp[PETSC_MAX_PATH_LEN + 16];
  hid_t file;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputRestartFileBegin(out, "AdjOutputWriteRestartFile", tmp, sizeof(tmp), &file));
  PetscCall(AdjOutputWriteRestartGroup(out, file, solver, step, time, nfields, names, fields));
  PetscCall(AdjOutputRestartFileEnd(out, tmp, file));
  PetscFunctionReturn(PETSC_SUCCESS);
}
