/* Readers of run files, restart files and plain HDF5 field files.
 *
 * No-hang rule: whether the file can be used is decided on rank 0 alone (exists, is HDF5, opens, is an
 * adjsim file) and broadcast before any rank enters a collective HDF5 open. After that every check reads
 * metadata that all ranks see identically, so every rank raises the same error. */
#define _POSIX_C_SOURCE 200809L
#include "ioimpl.h"
#include <adjsim/tables.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* H5Lvisit callback of the probe: opens every object (its header, and a dataset's type, shape and layout), so
 * that a file with corrupt metadata is refused here, naming the file, and not in a later HDF5 call of one rank
 * ("HDF5 call failed: obj", found by tests/fuzz/fuzz_inputs.py); data[] keeps the name of the last object. */
static herr_t AdjInputProbeObject(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
  hid_t obj;

  snprintf((char *)data, ADJ_IO_MSG_MAX / 2, "/%s", name);
  if (info->type != H5L_TYPE_HARD) return 0;
  if ((obj = H5Oopen(group, name, H5P_DEFAULT)) < 0) return -1;
  return H5Oclose(obj) < 0 ? -1 : 0;
}

/* Rank 0's verdict on path; returns a PETSc error code (0 when usable) and a message. Plain C on purpose:
 * it must always return so the verdict reaches the other ranks. */
static int AdjInputProbe(const char path[], PetscBool require_adjsim, char msg[], size_t len)
{
  H5E_auto2_t func;
  void       *data;
  htri_t      ishdf5;
  hid_t       file, fapl;
  int         code = 0;

  if (access(path, F_OK)) {
    snprintf(msg, len, "Cannot read %s: the file does not exist", path);
    return PETSC_ERR_FILE_OPEN;
  }
  if (access(path, R_OK)) {
    snprintf(msg, len, "Cannot read %s: permission denied", path);
    return PETSC_ERR_FILE_OPEN;
  }
  /* HDF5 would print its own error stack for what we report more clearly below. */
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fapl = H5Pcreate(H5P_FILE_ACCESS);
#if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7) || H5_VERSION_GE(1, 12, 1)
  /* flock fails on some parallel file systems; that must not be reported as a corrupt file. */
  H5Pset_file_locking(fapl, 0, 1);
#endif
  ishdf5 = H5Fis_hdf5(path);
  if (ishdf5 <= 0) {
    snprintf(msg, len, "Cannot read %s: not an HDF5 file", path);
    code = PETSC_ERR_FILE_READ;
  } else if ((file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0) {
    snprintf(msg, len, "Cannot read %s: HDF5 cannot open it (the file is truncated or corrupt)", path);
    code = PETSC_ERR_FILE_READ;
  } else {
    if (require_adjsim) {
      char      format[64] = "";
      hid_t     root       = H5Gopen2(file, "/", H5P_DEFAULT);
      hid_t     attr       = root >= 0 && H5Aexists(root, "format") > 0 ? H5Aopen(root, "format", H5P_DEFAULT) : -1;
      hid_t     mtype      = H5Tcopy(H5T_C_S1);
      long long version    = -1;
      hid_t     vattr;

      H5Tset_size(mtype, sizeof(format));
      if (attr >= 0) {
        hid_t ftype = H5Aget_type(attr);

        /* HDF5 refuses to convert between character sets, so read in the file's own. */
        if (ftype < 0 || H5Tget_class(ftype) != H5T_STRING || H5Tis_variable_str(ftype) > 0 ||
            H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 || H5Aread(attr, mtype, format) < 0)
          format[0] = 0;
        if (ftype >= 0) H5Tclose(ftype);
        H5Aclose(attr);
      }
      vattr = root >= 0 && H5Aexists(root, "format_version") > 0 ? H5Aopen(root, "format_version", H5P_DEFAULT) : -1;
      if (vattr >= 0) {
        if (H5Aread(vattr, H5T_NATIVE_LLONG, &version) < 0) version = -1;
        H5Aclose(vattr);
      }
      H5Tclose(mtype);
      if (root >= 0) H5Gclose(root);
      if (strcmp(format, ADJ_IO_FORMAT_NAME)) {
        snprintf(msg, len,
                 "Cannot read %s: not an adjsim run or restart file (root attribute format is \"%s\", expected \"%s\")",
                 path, format, ADJ_IO_FORMAT_NAME);
        code = PETSC_ERR_USER_INPUT;
      } else if (version < 1 || version > ADJ_OUTPUT_FORMAT_VERSION) {
        snprintf(msg, len, "Cannot read %s: format_version %lld is not supported (this adjsim reads 1 to %d)", path,
                 version, ADJ_OUTPUT_FORMAT_VERSION);
        code = PETSC_ERR_USER_INPUT;
      }
    }
    if (!code) {
      char last[ADJ_IO_MSG_MAX / 2] = "/";

      if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, AdjInputProbeObject, last) < 0) {
        snprintf(msg, len, "Cannot read %s: HDF5 cannot read its object %s (the file is corrupt)", path, last);
        code = PETSC_ERR_FILE_READ;
      }
    }
    H5Fclose(file);
  }
  H5Pclose(fapl);
  H5Eset_auto2(H5E_DEFAULT, func, data);
  return code;
}

/* " (given by -opt)" for the options whose value is path, or "" when no option gives it, so that a message
 * about a file's content also names the option to change. PetscOptionsGetAll() lists "-name value " pairs;
 * a path with spaces is still found (it is matched whole). Not collective. */
static PetscErrorCode AdjInputOptionsGiving(const char path[], char buf[], size_t len)
{
  char        *all;
  const char  *p;
  const size_t plen  = strlen(path);
  PetscInt     found = 0;

  PetscFunctionBeginUser;
  buf[0] = 0;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (p = strstr(all, path); plen && p; p = strstr(p + 1, path)) {
    const char *q = p - 1;

    if (p == all || *q != ' ' || (p[plen] != ' ' && p[plen] != 0)) continue;
    while (q > all && q[-1] != ' ') q--; /* the token before the value */
    if (*q != '-' || q + 1 >= p - 1) continue;
    PetscCall(PetscStrlcat(buf, found++ ? ", " : " (given by ", len));
    {
      size_t n = strlen(buf), m = (size_t)(p - 1 - q);
      if (n + m < len) {
        memcpy(buf + n, q, m);
        buf[n + m] = 0;
      }
    }
  }
  if (found) PetscCall(PetscStrlcat(buf, ")", len));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where the value at global position `pos` (C order over box->gdims) lies, in the words of `place`. */
static PetscErrorCode AdjInputPlaceName(const AdjIOBox *box, AdjInputPlace place, long long pos, char buf[], size_t len)
{
  unsigned long long idx[ADJ_IO_MAX_DIM] = {0, 0, 0};

  PetscFunctionBeginUser;
  for (PetscInt d = box->dim - 1; d >= 0; d--) {
    idx[d] = (unsigned long long)pos % box->gdims[d];
    pos /= (long long)box->gdims[d];
  }
  if (place == ADJ_INPUT_ENTRY || box->dim == 0)
    PetscCall(PetscSNPrintf(buf, len, "entry %llu", idx[0]));
  else if (place == ADJ_INPUT_PARTICLE && box->dim == 1)
    PetscCall(PetscSNPrintf(buf, len, "particle %llu", idx[0]));
  else if (place == ADJ_INPUT_PARTICLE)
    PetscCall(PetscSNPrintf(buf, len, "particle %llu, component %llu", idx[0], idx[1]));
  else if (box->dim == 1)
    PetscCall(PetscSNPrintf(buf, len, "cell i = %llu", idx[0]));
  else if (box->dim == 2)
    PetscCall(PetscSNPrintf(buf, len, "cell (i, j) = (%llu, %llu)", idx[1], idx[0]));
  else
    PetscCall(PetscSNPrintf(buf, len, "cell (i, j, k) = (%llu, %llu, %llu)", idx[2], idx[1], idx[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Refuse a NaN or an Inf among the values just read from an input file: a[] holds this rank's part `box`
 *  of dataset dset of path (its time slice `slice`, or -1). Every reader of input files calls this after
 *  reading, so a bad value is found where it enters, never later as a NaN objective or a silent default;
 *  the message names the file, the option that gave it, the dataset and the first bad cell, particle or
 *  entry (and the step of the slice, from /fields/step of file when file >= 0). Collective. */
PetscErrorCode AdjInputCheckFinite(MPI_Comm comm, hid_t file, const char path[], const char dset[], PetscInt slice,
                                   AdjInputPlace place, const AdjIOBox *box, const PetscReal a[])
{
  static const char *const kinds[] = {"NaN", "+Inf", "-Inf"};
  long long                mine = LLONG_MAX, first, n = 1, pos = 0, stride = 1;
  const char              *what = "NaN";
  PetscInt64               i;
  char                     opts[PETSC_MAX_PATH_LEN], where[128], when[96] = "";

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < box->dim; d++) n *= (long long)box->count[d];
  if ((i = AdjTableFirstNonFinite(a, n, &what)) >= 0) {
    for (PetscInt d = box->dim - 1; d >= 0; d--) { /* local C-order index -> global position */
      pos += (long long)(box->start[d] + (hsize_t)i % box->count[d]) * stride;
      i /= (PetscInt64)box->count[d];
      stride *= (long long)box->gdims[d];
    }
    mine = 4 * pos + (what[0] == 'N' ? 0 : (what[0] == '+' ? 1 : 2));
  }
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, comm));
  if (first == LLONG_MAX) PetscFunctionReturn(PETSC_SUCCESS);
  if (slice >= 0) {
    PetscBool has = PETSC_FALSE;
    int64_t   step;

    if (file >= 0) PetscCall(AdjH5Exists(file, "/fields/step", &has));
    if (has) {
      const hsize_t s = (hsize_t)slice, one = 1;
      hid_t         d = H5Dopen2(file, "/fields/step", H5P_DEFAULT);

      AdjCallH5(d);
      PetscCall(AdjH5ReadSelection(d, H5T_NATIVE_INT64, 1, &s, &one, &step));
      AdjCallH5(H5Dclose(d));
      PetscCall(
          PetscSNPrintf(when, sizeof(when), "time slice %" PetscInt_FMT " (step %lld), ", slice, (long long)step));
    } else
      PetscCall(PetscSNPrintf(when, sizeof(when), "time slice %" PetscInt_FMT ", ", slice));
  }
  PetscCall(AdjInputPlaceName(box, place, first / 4, where, sizeof(where)));
  PetscCall(AdjInputOptionsGiving(path, opts, sizeof(opts)));
  SETERRQ(comm, PETSC_ERR_USER_INPUT,
          "Cannot use %s%s: dataset %s holds a non-finite value (%s) at %s%s; every value read from an input file "
          "must be finite (repair or regenerate the file)",
          path, opts, dset, kinds[first % 4], when, where);
}

/* Open path read-only on comm after rank 0 vouched for it. Collective. */
static PetscErrorCode AdjInputOpen(MPI_Comm comm, const char path[], PetscBool require_adjsim, hid_t *file)
{
  PetscMPIInt rank;
  int         code                = 0;
  char        msg[ADJ_IO_MSG_MAX] = "";
  hid_t       fapl;

  PetscFunctionBeginUser;
  PetscCheck(path && path[0], comm, PETSC_ERR_USER_INPUT, "No input file given (empty path)");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) code = AdjInputProbe(path, require_adjsim, msg, sizeof(msg));
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!code, comm, (PetscErrorCode)code, "%s", msg);
  PetscCall(AdjH5FileAccess(comm, &fapl));
  *file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  AdjCallH5(H5Pclose(fapl));
  PetscCheck(*file >= 0, comm, PETSC_ERR_FILE_OPEN, "Cannot read %s: parallel HDF5 could not open it", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Open dataset dset of the file path (for messages) with numeric data. Collective. */
PetscErrorCode AdjInputOpenDataset(MPI_Comm comm, hid_t file, const char path[], const char dset[], hid_t *d)
{
  PetscBool   exists = PETSC_FALSE;
  hid_t       obj, type;
  H5I_type_t  kind;
  H5T_class_t cls;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Exists(file, dset, &exists));
  PetscCheck(exists, comm, PETSC_ERR_FILE_READ, "Cannot read %s: it has no dataset %s", path, dset);
  obj = H5Oopen(file, dset, H5P_DEFAULT);
  AdjCallH5(obj);
  kind = H5Iget_type(obj);
  if (kind != H5I_DATASET) AdjCallH5(H5Oclose(obj));
  PetscCheck(kind == H5I_DATASET, comm, PETSC_ERR_FILE_READ, "Cannot read %s: %s is not a dataset", path, dset);
  *d   = obj;
  type = H5Dget_type(*d);
  AdjCallH5(type);
  cls = H5Tget_class(type);
  AdjCallH5(H5Tclose(type));
  PetscCheck(cls == H5T_FLOAT || cls == H5T_INTEGER, comm, PETSC_ERR_FILE_READ,
             "Cannot read %s: dataset %s does not hold numbers", path, dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check that dataset d is (lead ? nt x : ) the DMDA's grid; returns nt. Collective. */
static PetscErrorCode AdjInputCheckShape(MPI_Comm comm, const char path[], const char dset[], hid_t d, PetscBool lead,
                                         const AdjIOBox *box, hsize_t *nt)
{
  hsize_t   dims[8];
  PetscInt  nd, off = lead ? 1 : 0;
  PetscBool same;
  char      file_cells[96] = "?", da_cells[96];

  PetscFunctionBeginUser;
  PetscCall(AdjH5DatasetDims(d, &nd, dims));
  same = (PetscBool)(nd == box->dim + off);
  for (PetscInt i = 0; same && i < box->dim; i++) same = (PetscBool)(dims[off + i] == box->gdims[i]);
  if (nd >= off) PetscCall(AdjIOFormatCells(nd - off, dims + off, file_cells, sizeof(file_cells)));
  PetscCall(AdjIOFormatCells(box->dim, box->gdims, da_cells, sizeof(da_cells)));
  PetscCheck(same, comm, PETSC_ERR_USER_INPUT,
             "Cannot read %s: grid size mismatch: dataset %s has %s%s cells, the DMDA has %s cells", path, dset,
             lead ? "time slices of " : "", file_cells, da_cells);
  if (nt) *nt = lead ? dims[0] : 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The box of v on da, with the local size checked. */
static PetscErrorCode AdjInputVecBox(DM da, Vec v, AdjIOBox *box)
{
  PetscInt n, nbox = 1;

  PetscFunctionBeginUser;
  PetscCall(AdjIODAGetBox(da, box));
  PetscCall(VecGetLocalSize(v, &n));
  for (PetscInt i = 0; i < box->dim; i++) nbox *= (PetscInt)box->count[i];
  PetscCheck(n == nbox, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Vec local size %" PetscInt_FMT " is not the DMDA's %" PetscInt_FMT, n, nbox);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The end of a reader's read of dataset dset of file path, with ierr the read's error code, raised under
 *  AdjInputReadData(): an HDF5 failure reading the data (corrupt data, e.g. a chunk address beyond the end of the
 *  file, found by tests/fuzz/fuzz_inputs.py) names the file and the dataset instead of "Error in external
 *  library". On this rank only (another rank's part may read): the run aborts on every rank, as before. */
PetscErrorCode AdjInputReadDataEnd(const char path[], const char dset[], PetscErrorCode ierr)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_FILE_READ,
             "Cannot read %s: HDF5 cannot read the data of dataset %s (the file is truncated or corrupt)", path, dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read (slice lead of) dataset d, named dset in path, into the DMDA global vector v; every value must be
   finite. Collective. */
static PetscErrorCode AdjInputReadVec(MPI_Comm comm, hid_t file, const char path[], const char dset[], hid_t d,
                                      PetscInt lead, const AdjIOBox *box, Vec v)
{
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(v, &a));
  PetscCall(AdjInputReadData(path, dset, AdjIOReadBox(d, lead, box, a)));
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscCall(VecGetArrayRead(v, (const PetscScalar **)&a));
  PetscCall(AdjInputCheckFinite(comm, file, path, dset, lead, ADJ_INPUT_CELL, box, a));
  PetscCall(VecRestoreArrayRead(v, (const PetscScalar **)&a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read the restart state from a run file (its /restart group) or a restart file. Checks the solver name and
 *  that the grid matches the DMDA; values are restored bit for bit, on any number of ranks. Collective.
 *  @param[in]  solver  expected solver name (NULL: not checked)
 *  @param[in]  da      DMDA of the state fields
 *  @param[in]  nfields number of fields to read; names[] their dataset names
 *  @param[out] fields  DMDA global vectors of da, filled
 *  @param[out] step    step of the state (may be NULL)
 *  @param[out] time    time of the state (may be NULL) */
PetscErrorCode AdjInputReadRestart(MPI_Comm comm, const char path[], const char solver[], DM da, PetscInt nfields,
                                   const char *const names[], Vec fields[], AdjStepIndex *step, PetscReal *time)
{
  hid_t     file, grp;
  PetscBool exists, found, same;
  char      fsolver[ADJ_IO_NAME_MAX];
  int64_t   s = 0, cells[8];
  PetscReal t = 0;
  PetscInt  count;
  AdjIOBox  box;

  PetscFunctionBeginUser;
  PetscCall(AdjInputOpen(comm, path, PETSC_TRUE, &file));
  PetscCall(AdjH5Exists(file, "/restart", &exists));
  PetscCheck(exists, comm, PETSC_ERR_USER_INPUT,
             "Cannot restart from %s: it has no /restart group (no restart state was written)", path);
  PetscCall(AdjH5GroupOpen(file, "/restart", PETSC_FALSE, &grp));
  PetscCall(AdjH5ReadAttrString(grp, "solver", sizeof(fsolver), fsolver, &found));
  PetscCheck(found, comm, PETSC_ERR_FILE_READ, "Cannot restart from %s: /restart has no solver attribute", path);
  if (solver) {
    PetscCall(PetscStrcmp(solver, fsolver, &same));
    PetscCheck(same, comm, PETSC_ERR_USER_INPUT,
               "Cannot restart from %s: it holds a state of solver \"%s\", not \"%s\"", path, fsolver, solver);
  }
  PetscCall(AdjIODAGetBox(da, &box));
  PetscCall(AdjH5ReadAttr(grp, "cells", H5T_NATIVE_INT64, 8, cells, &count));
  same = (PetscBool)(count == box.dim);
  for (PetscInt i = 0; same && i < box.dim; i++) same = (PetscBool)((hsize_t)cells[i] == box.gdims[box.dim - 1 - i]);
  if (!same) {
    char fc[96] = "", dc[96];

    for (PetscInt i = 0; i < count && i < 8; i++)
      PetscCall(PetscSNPrintf(fc + strlen(fc), sizeof(fc) - strlen(fc), "%s%lld", i ? " x " : "", (long long)cells[i]));
    PetscCall(AdjIOFormatCells(box.dim, box.gdims, dc, sizeof(dc)));
    SETERRQ(comm, PETSC_ERR_USER_INPUT,
            "Cannot restart from %s: grid size mismatch: the file has %s cells, the DMDA has %s", path,
            count > 0 ? fc : "(no cells attribute)", dc);
  }
  PetscCall(AdjH5ReadAttr(grp, "step", H5T_NATIVE_INT64, 1, &s, &count));
  PetscCheck(count == 1, comm, PETSC_ERR_FILE_READ, "Cannot restart from %s: /restart has no step attribute", path);
  PetscCall(AdjH5ReadAttr(grp, "time", ADJ_H5_REAL_MEM, 1, &t, &count));
  PetscCheck(count == 1, comm, PETSC_ERR_FILE_READ, "Cannot restart from %s: /restart has no time attribute", path);
  for (PetscInt f = 0; f < nfields; f++) {
    char  dset[2 * ADJ_IO_NAME_MAX];
    hid_t d;

    PetscCall(AdjIOCheckName(comm, "restart field", names[f]));
    PetscCall(PetscSNPrintf(dset, sizeof(dset), "/restart/%s", names[f]));
    PetscCall(AdjInputOpenDataset(comm, file, path, dset, &d));
    PetscCall(AdjInputCheckShape(comm, path, dset, d, PETSC_FALSE, &box, NULL));
    PetscCall(AdjInputVecBox(da, fields[f], &box));
    PetscCall(AdjInputReadVec(comm, file, path, dset, d, -1, &box, fields[f]));
    AdjCallH5(H5Dclose(d));
  }
  AdjCallH5(H5Gclose(grp));
  AdjCallH5(H5Fclose(file));
  if (step) *step = (AdjStepIndex)s;
  if (time) *time = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The objective summed over the steps up to the restart state (attribute objective of /restart, see
 *  AdjOutputSetRestartObjective()); *found false for a file written without it. Collective. */
PetscErrorCode AdjInputReadRestartObjective(MPI_Comm comm, const char path[], PetscReal *objective, PetscBool *found)
{
  hid_t    file, grp;
  PetscInt count;

  PetscFunctionBeginUser;
  PetscCall(AdjInputOpen(comm, path, PETSC_TRUE, &file));
  PetscCall(AdjH5GroupOpen(file, "/restart", PETSC_FALSE, &grp));
  PetscCall(AdjH5ReadAttr(grp, "objective", ADJ_H5_REAL_MEM, 1, objective, &count));
  AdjCallH5(H5Gclose(grp));
  AdjCallH5(H5Fclose(file));
  *found = (PetscBool)(count == 1);
  PetscCheck(!*found || PetscIsInfOrNanReal(*objective) == PETSC_FALSE, comm, PETSC_ERR_USER_INPUT,
             "Cannot use %s: the attribute objective of /restart is %g, not a finite number", path, (double)*objective);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The output steps and times at which /fields/<name> has slices (name NULL: all output steps).
 *  Collective; every rank gets the arrays.
 *  @param[out] nt    number of slices
 *  @param[out] steps PetscMalloc'd step numbers (may be NULL if not wanted); PetscFree() them
 *  @param[out] times PetscMalloc'd times (may be NULL if not wanted); PetscFree() them */
PetscErrorCode AdjInputGetFieldTimes(MPI_Comm comm, const char path[], const char name[], PetscInt *nt,
                                     AdjStepIndex **steps, PetscReal **times)
{
  hid_t    file, dstep, dtime;
  hsize_t  dims[8], nsteps, ntimes, n, zero = 0;
  PetscInt nd;

  PetscFunctionBeginUser;
  PetscCall(AdjInputOpen(comm, path, PETSC_TRUE, &file));
  PetscCall(AdjInputOpenDataset(comm, file, path, "/fields/step", &dstep));
  PetscCall(AdjInputOpenDataset(comm, file, path, "/fields/time", &dtime));
  PetscCall(AdjH5DatasetDims(dstep, &nd, dims));
  nsteps = dims[0];
  PetscCheck(nd == 1, comm, PETSC_ERR_FILE_READ, "Cannot read %s: /fields/step is not one-dimensional", path);
  PetscCall(AdjH5DatasetDims(dtime, &nd, dims));
  ntimes = dims[0];
  PetscCheck(nd == 1 && ntimes == nsteps, comm, PETSC_ERR_FILE_READ,
             "Cannot read %s: /fields/time and /fields/step differ in length (corrupt file)", path);
  n = nsteps;
  if (name) {
    char  dset[2 * ADJ_IO_NAME_MAX];
    hid_t d;

    PetscCall(AdjIOCheckName(comm, "field", name));
    PetscCall(PetscSNPrintf(dset, sizeof(dset), "/fields/%s", name));
    PetscCall(AdjInputOpenDataset(comm, file, path, dset, &d));
    PetscCall(AdjH5DatasetDims(d, &nd, dims));
    AdjCallH5(H5Dclose(d));
    PetscCheck(nd >= 2 && dims[0] <= nsteps, comm, PETSC_ERR_FILE_READ,
               "Cannot read %s: %s is not a time series of the output steps", path, dset);
    n = dims[0];
  }
  *nt = (PetscInt)n;
  if (steps) {
    int64_t *s;

    PetscCall(PetscMalloc1(n, &s));
    PetscCall(AdjInputReadData(path, "/fields/step", AdjH5ReadSelection(dstep, H5T_NATIVE_INT64, 1, &zero, &n, s)));
    PetscCall(PetscMalloc1(n, steps));
    for (hsize_t i = 0; i < n; i++) (*steps)[i] = (AdjStepIndex)s[i];
    PetscCall(PetscFree(s));
  }
  if (times) {
    PetscCall(PetscMalloc1(n, times));
    PetscCall(AdjInputReadData(path, "/fields/time", AdjH5ReadSelection(dtime, ADJ_H5_REAL_MEM, 1, &zero, &n, *times)));
    {
      const AdjIOBox box = {1, {n}, {0}, {n}};
      PetscCall(AdjInputCheckFinite(comm, file, path, "/fields/time", -1, ADJ_INPUT_ENTRY, &box, *times));
    }
  }
  AdjCallH5(H5Dclose(dstep));
  AdjCallH5(H5Dclose(dtime));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read time slice `index` (0-based, see AdjInputGetFieldTimes()) of /fields/<name> into the DMDA global
 *  vector v; the file's grid must match da. Collective. */
PetscErrorCode AdjInputReadFieldSlice(MPI_Comm comm, const char path[], const char name[], PetscInt index, DM da, Vec v)
{
  PetscFunctionBeginUser;
  PetscCall(AdjInputReadFieldSlices(comm, path, name, index, 1, da, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read time slices first, ..., first + count - 1 of /fields/<name> into the DMDA global vectors v[0..count),
 *  opening the file once. Collective. */
PetscErrorCode AdjInputReadFieldSlices(MPI_Comm comm, const char path[], const char name[], PetscInt first,
                                       PetscInt count, DM da, Vec v[])
{
  char     dset[2 * ADJ_IO_NAME_MAX];
  hid_t    file, d;
  hsize_t  nt;
  AdjIOBox box;

  PetscFunctionBeginUser;
  PetscCall(AdjIOCheckName(comm, "field", name));
  PetscCall(PetscSNPrintf(dset, sizeof(dset), "/fields/%s", name));
  PetscCall(AdjInputOpen(comm, path, PETSC_TRUE, &file));
  PetscCall(AdjInputOpenDataset(comm, file, path, dset, &d));
  PetscCall(AdjInputVecBox(da, v[0], &box));
  PetscCall(AdjInputCheckShape(comm, path, dset, d, PETSC_TRUE, &box, &nt));
  PetscCheck(first >= 0 && count >= 0 && (hsize_t)(first + count) <= nt, comm, PETSC_ERR_USER_INPUT,
             "Cannot read %s: slices %" PetscInt_FMT " to %" PetscInt_FMT " of %s do not exist (it has %llu slices)",
             path, first, first + count - 1, dset, (unsigned long long)nt);
  for (PetscInt k = 0; k < count; k++) PetscCall(AdjInputReadVec(comm, file, path, dset, d, first + k, &box, v[k]));
  AdjCallH5(H5Dclose(d));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read a dataset shaped like the grid (C order, x fastest), e.g. "/parameters/kappa" of a run file or "/u"
 *  of any HDF5 file, into the DMDA global vector v. Integer or float data are converted. Collective. */
PetscErrorCode AdjInputReadField(MPI_Comm comm, const char path[], const char dataset[], DM da, Vec v)
{
  hid_t    file, d;
  AdjIOBox box;

  PetscFunctionBeginUser;
  PetscCheck(dataset && dataset[0], comm, PETSC_ERR_USER_INPUT, "AdjInputReadField(%s): no dataset name given", path);
  PetscCall(AdjInputOpen(comm, path, PETSC_FALSE, &file));
  PetscCall(AdjInputOpenDataset(comm, file, path, dataset, &d));
  PetscCall(AdjInputVecBox(da, v, &box));
  PetscCall(AdjInputCheckShape(comm, path, dataset, d, PETSC_FALSE, &box, NULL));
  PetscCall(AdjInputReadVec(comm, file, path, dataset, d, -1, &box, v));
  AdjCallH5(H5Dclose(d));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read a scalar or 1-D dataset, e.g. "/gradients/theta", on every rank.
 *  @param[out] n      number of values
 *  @param[out] values PetscMalloc'd values; PetscFree() them. Collective. */
PetscErrorCode AdjInputReadArray(MPI_Comm comm, const char path[], const char dataset[], PetscInt *n,
                                 PetscReal **values)
{
  hid_t    file, d;
  hsize_t  dims[8], count = 1, zero = 0;
  PetscInt nd;

  PetscFunctionBeginUser;
  PetscCheck(dataset && dataset[0], comm, PETSC_ERR_USER_INPUT, "AdjInputReadArray(%s): no dataset name given", path);
  PetscCall(AdjInputOpen(comm, path, PETSC_FALSE, &file));
  PetscCall(AdjInputOpenDataset(comm, file, path, dataset, &d));
  PetscCall(AdjH5DatasetDims(d, &nd, dims));
  PetscCheck(nd <= 1, comm, PETSC_ERR_USER_INPUT,
             "Cannot read %s: %s has %" PetscInt_FMT " dimensions, expected an array", path, dataset, nd);
  if (nd == 1) count = dims[0];
  PetscCall(PetscMalloc1(count, values));
  PetscCall(AdjInputReadData(path, dataset, AdjH5ReadSelection(d, ADJ_H5_REAL_MEM, nd, &zero, &count, *values)));
  {
    const AdjIOBox box = {1, {count}, {0}, {count}};
    PetscCall(AdjInputCheckFinite(comm, file, path, dataset, -1, ADJ_INPUT_ENTRY, &box, *values));
  }
  *n = (PetscInt)count;
  AdjCallH5(H5Dclose(d));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjInputReadAttributeString - the string attribute `name` of the group `group` of the file path into
    value[len]; found is false when the group or the attribute is absent. Collective. @*/
PetscErrorCode AdjInputReadAttributeString(MPI_Comm comm, const char path[], const char group[], const char name[],
                                           size_t len, char value[], PetscBool *found)
{
  hid_t     file, grp;
  PetscBool exists;

  PetscFunctionBeginUser;
  *found   = PETSC_FALSE;
  value[0] = 0;
  PetscCall(AdjInputOpen(comm, path, PETSC_FALSE, &file));
  PetscCall(AdjH5Exists(file, group, &exists));
  if (exists) {
    grp = H5Gopen2(file, group, H5P_DEFAULT);
    AdjCallH5(grp);
    PetscCall(AdjH5ReadAttrString(grp, name, len, value, found));
    AdjCallH5(H5Gclose(grp));
  }
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjInputHasDataset - whether the readable HDF5 file holds the dataset (rank 0 looks, every rank
    learns the answer); an unreadable file is an error naming it. Collective. @*/
PetscErrorCode AdjInputHasDataset(MPI_Comm comm, const char path[], const char dataset[], PetscBool *has)
{
  PetscMPIInt rank;
  int         code = 0, found = 0;
  char        msg[ADJ_IO_MSG_MAX] = "";

  PetscFunctionBeginUser;
  PetscCheck(path && path[0], comm, PETSC_ERR_USER_INPUT, "No input file given (empty path)");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    code = AdjInputProbe(path, PETSC_FALSE, msg, sizeof(msg));
    if (!code) {
      hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
      if (file >= 0) {
        char parent[PETSC_MAX_PATH_LEN], *slash;
        PetscCall(PetscStrncpy(parent, dataset, sizeof(parent)));
        slash = strrchr(parent, '/');
        if (slash && slash != parent) *slash = 0;
        found =
            (slash == parent || H5Lexists(file, parent, H5P_DEFAULT) > 0) && H5Lexists(file, dataset, H5P_DEFAULT) > 0;
        H5Fclose(file);
      }
    }
  }
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!code, comm, (PetscErrorCode)code, "%s", msg);
  PetscCallMPI(MPI_Bcast(&found, 1, MPI_INT, 0, comm));
  *has = (PetscBool)found;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjInputReadRankArray - this rank's part (n values) of a dataset written by AdjOutputWriteRankArray, into a[];
    a file written by a run on another number of ranks, or whose part for this rank has another length, is
    refused naming the file and the option that gave it. Collective. @*/
PetscErrorCode AdjInputReadRankArray(MPI_Comm comm, const char path[], const char option[], const char dataset[],
                                     PetscInt n, PetscScalar a[])
{
  hid_t       file, d;
  hsize_t     start, count = (hsize_t)n, dims[8];
  PetscInt    nd, ncounts  = 0;
  PetscMPIInt rank, size;
  int64_t    *counts, offset = 0;
  int         ok;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(AdjInputOpen(comm, path, PETSC_FALSE, &file));
  PetscCall(AdjInputOpenDataset(comm, file, path, dataset, &d));
  PetscCall(AdjH5DatasetDims(d, &nd, dims));
  PetscCall(PetscMalloc1(size + 1, &counts));
  PetscCall(AdjH5ReadAttr(d, "counts", H5T_NATIVE_INT64, size + 1, counts, &ncounts));
  PetscCheck(nd == 1 && ncounts >= 1, comm, PETSC_ERR_USER_INPUT,
             "Cannot use %s (given by %s): %s is not a per-rank array written by adjsim", path, option, dataset);
  PetscCheck(ncounts == size, comm, PETSC_ERR_USER_INPUT,
             "Cannot use %s (given by %s): %s was written by a run on %" PetscInt_FMT
             " ranks; continue it on that many ranks (this run has %d)",
             path, option, dataset, ncounts, (int)size);
  for (PetscMPIInt r = 0; r < rank; r++) offset += counts[r];
  ok = counts[rank] == (int64_t)n;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm));
  PetscCheck(ok, comm, PETSC_ERR_USER_INPUT,
             "Cannot use %s (given by %s): the parts of %s do not have the lengths this run needs (another problem, "
             "other options or another decomposition than the stopped run's?)",
             path, option, dataset);
  start = (hsize_t)offset;
  PetscCall(AdjInputReadData(path, dataset, AdjH5ReadSelection(d, ADJ_H5_REAL_MEM, 1, &start, &count, a)));
  PetscCall(PetscFree(counts));
  AdjCallH5(H5Dclose(d));
  AdjCallH5(H5Fclose(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}
