/* AdjOutput: the data in the run file: time series of fields, gradients, parameters, optimization history. */
#include "ioimpl.h"
#include <math.h>

/** Find or register the record of a dataset the XDMF file will describe. Not collective (every rank keeps
 *  the same records because the writers are collective). */
PetscErrorCode AdjOutputGetEntry(AdjOutput out, AdjIOEntryKind kind, const char path[], const char name[],
                                 AdjIOEntry **entry)
{
  PetscBool same;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < out->nentries; i++) {
    PetscCall(PetscStrcmp(out->entries[i].path, path, &same));
    if (same) {
      *entry         = &out->entries[i];
      (*entry)->kind = kind; /* a gradient array may be rewritten as a field */
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (out->nentries == out->entries_alloc) {
    AdjIOEntry *more;

    out->entries_alloc = out->entries_alloc ? 2 * out->entries_alloc : 8;
    PetscCall(PetscCalloc1(out->entries_alloc, &more));
    if (out->nentries) PetscCall(PetscArraycpy(more, out->entries, out->nentries));
    PetscCall(PetscFree(out->entries));
    out->entries = more;
  }
  *entry = &out->entries[out->nentries++];
  PetscCall(PetscMemzero(*entry, sizeof(**entry)));
  (*entry)->kind = kind;
  PetscCall(PetscStrncpy((*entry)->path, path, sizeof((*entry)->path)));
  PetscCall(PetscStrncpy((*entry)->name, name, sizeof((*entry)->name)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Vec's box, checked against the grid given to AdjOutputSetGrid(). */
static PetscErrorCode AdjOutputVecBox(AdjOutput out, const char what[], const char name[], Vec v, AdjIOBox *box)
{
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCheck(v, out->comm, PETSC_ERR_ARG_NULL, "%s %s: Vec is NULL", what, name);
  PetscCall(AdjIOVecGetBox(v, out->da, box));
  same = (PetscBool)(box->dim == out->dim);
  for (PetscInt i = 0; same && i < box->dim; i++)
    same = (PetscBool)(box->gdims[box->dim - 1 - i] == (hsize_t)out->cells[i]);
  if (!same) {
    char have[64];

    PetscCall(AdjIOFormatCells(box->dim, box->gdims, have, sizeof(have)));
    SETERRQ(out->comm, PETSC_ERR_ARG_SIZ, "%s %s: the Vec's DMDA has %s cells, the run file grid does not match", what,
            name, have);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Start output step `step` at `time`: appends to /fields/step and /fields/time. Call before writing the
 *  fields of that step. Steps must increase. Collective. */
PetscErrorCode AdjOutputBeginStep(AdjOutput out, AdjStepIndex step, PetscReal time)
{
  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputBeginStep"));
  PetscCheck(!out->nt || step > out->steps[out->nt - 1], out->comm, PETSC_ERR_USER_INPUT,
             "AdjOutputBeginStep: step %" PRId64 " does not follow the previous output step %" PRId64, (int64_t)step,
             (int64_t)out->steps[out->nt > 0 ? out->nt - 1 : 0]);
  if (out->nt == out->nt_alloc) {
    out->nt_alloc = out->nt_alloc ? 2 * out->nt_alloc : 16;
    PetscCall(PetscRealloc(sizeof(AdjStepIndex) * (size_t)out->nt_alloc, &out->steps));
    PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)out->nt_alloc, &out->times));
  }
  out->steps[out->nt] = step;
  out->times[out->nt] = time;
  {
    const int64_t s = step;

    PetscCall(AdjH5AppendWrite(out->file, "/fields/step", ADJ_H5_INT_FILE, H5T_NATIVE_INT64, 0, (hsize_t)out->nt, 0, 1,
                               (PetscBool)!out->rank, &s));
    PetscCall(AdjH5AppendWrite(out->file, "/fields/time", ADJ_H5_REAL_FILE, ADJ_H5_REAL_MEM, 0, (hsize_t)out->nt, 0, 1,
                               (PetscBool)!out->rank, &time));
  }
  out->nt++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Create the extendable time series /fields/<name>: (0, [Mz,] My, Mx), chunks of at most ~1M values per
 * time slice. No fill on allocation (parallel HDF5 allocates chunks early, and filling would write every
 * slice twice); slices the caller skips are filled with NaN explicitly instead. */
static PetscErrorCode AdjOutputCreateSeries(AdjOutput out, const char path[], const char units[], const AdjIOBox *box,
                                            hid_t *dset)
{
  hsize_t dims[ADJ_IO_MAX_DIM + 1], maxdims[ADJ_IO_MAX_DIM + 1], chunk[ADJ_IO_MAX_DIM + 1], n = 1;
  hid_t   space, dcpl;

  PetscFunctionBeginUser;
  dims[0] = 0, maxdims[0] = H5S_UNLIMITED, chunk[0] = 1;
  for (PetscInt i = 0; i < box->dim; i++) {
    dims[i + 1] = maxdims[i + 1] = chunk[i + 1] = box->gdims[i];
    n *= box->gdims[i];
  }
  for (PetscInt i = 1; i <= box->dim; i++) {
    while (n > ((hsize_t)1 << 20) && chunk[i] > 1) {
      n /= chunk[i];
      chunk[i] = (chunk[i] + 1) / 2;
      n *= chunk[i];
    }
  }
  space = H5Screate_simple((int)box->dim + 1, dims, maxdims);
  AdjCallH5(space);
  dcpl = H5Pcreate(H5P_DATASET_CREATE);
  AdjCallH5(dcpl);
  AdjCallH5(H5Pset_chunk(dcpl, (int)box->dim + 1, chunk));
  AdjCallH5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
  *dset = H5Dcreate2(out->file, path, ADJ_H5_REAL_FILE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  AdjCallH5(*dset);
  AdjCallH5(H5Pclose(dcpl));
  AdjCallH5(H5Sclose(space));
  PetscCall(AdjH5WriteAttrString(*dset, "units", units ? units : "1"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write the field `name` (a DMDA global Vec on the run's grid) as time slice of the current output step in
 *  /fields/<name>. All fields of a step are written after AdjOutputBeginStep(). Collective.
 *  @param[in] units physical units (NULL: "1", dimensionless), stored when the series is created */
PetscErrorCode AdjOutputWriteField(AdjOutput out, const char name[], const char units[], Vec v)
{
  char               path[2 * ADJ_IO_NAME_MAX];
  AdjIOBox           box;
  AdjIOEntry        *e;
  PetscBool          exists, reserved1, reserved2;
  hid_t              dset;
  const PetscInt     k = out->nt - 1;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteField"));
  PetscCall(AdjIOCheckName(out->comm, "field", name));
  PetscCall(PetscStrcmp(name, "step", &reserved1));
  PetscCall(PetscStrcmp(name, "time", &reserved2));
  PetscCheck(!reserved1 && !reserved2, out->comm, PETSC_ERR_USER_INPUT,
             "AdjOutputWriteField: \"%s\" is reserved for /fields/%s; choose another field name", name, name);
  PetscCheck(out->nt > 0, out->comm, PETSC_ERR_ORDER, "AdjOutputWriteField(%s): call AdjOutputBeginStep() first", name);
  PetscCall(AdjOutputVecBox(out, "field", name, v, &box));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/fields/%s", name));
  PetscCall(AdjOutputGetEntry(out, ADJ_IO_ENTRY_FIELD, path, name, &e));
  PetscCall(AdjH5Exists(out->file, path, &exists));
  if (exists) {
    dset = H5Dopen2(out->file, path, H5P_DEFAULT);
    AdjCallH5(dset);
  } else
    PetscCall(AdjOutputCreateSeries(out, path, units, &box, &dset));

  if (e->extent < k + 1) {
    hsize_t dims[ADJ_IO_MAX_DIM + 1];

    dims[0] = (hsize_t)(k + 1);
    for (PetscInt i = 0; i < box.dim; i++) dims[i + 1] = box.gdims[i];
    AdjCallH5(H5Dset_extent(dset, dims));
    if (e->extent < k) { /* output steps at which this field was not written read as NaN, not garbage */
      PetscInt     nloc;
      PetscScalar *nan;

      PetscCall(VecGetLocalSize(v, &nloc));
      PetscCall(PetscMalloc1(nloc, &nan));
      for (PetscInt i = 0; i < nloc; i++) nan[i] = (PetscScalar)NAN;
      for (PetscInt j = e->extent; j < k; j++) PetscCall(AdjIOWriteBox(dset, j, &box, nan));
      PetscCall(PetscFree(nan));
    }
    e->extent = k + 1;
  }
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(AdjIOWriteBox(dset, k, &box, a));
  PetscCall(VecRestoreArrayRead(v, &a));
  AdjCallH5(H5Dclose(dset));

  if (e->nalloc < out->nt) {
    PetscInt   nalloc = PetscMax(2 * e->nalloc, out->nt);
    PetscBool *w;

    PetscCall(PetscCalloc1(nalloc, &w));
    if (e->nalloc) PetscCall(PetscArraycpy(w, e->written, e->nalloc));
    PetscCall(PetscFree(e->written));
    e->written = w;
    e->nalloc  = nalloc;
  }
  e->written[k] = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A DMDA field in group (/gradients, /parameters), replacing an older one of the same name. */
static PetscErrorCode AdjOutputWriteDataField(AdjOutput out, const char group[], AdjIOEntryKind kind, const char name[],
                                              const char units[], Vec v)
{
  char        path[2 * ADJ_IO_NAME_MAX];
  AdjIOBox    box;
  AdjIOEntry *e;
  hid_t       dset;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, group));
  PetscCall(AdjIOCheckName(out->comm, group, name));
  PetscCall(AdjOutputVecBox(out, group, name, v, &box));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", group, name));
  PetscCall(AdjIOWriteVec(out->file, path, &box, v));
  dset = H5Dopen2(out->file, path, H5P_DEFAULT);
  AdjCallH5(dset);
  PetscCall(AdjH5WriteAttrString(dset, "units", units ? units : "1"));
  AdjCallH5(H5Dclose(dset));
  PetscCall(AdjOutputGetEntry(out, kind, path, name, &e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n reals in group, replacing an older dataset of the same name; rank 0's values are written. */
static PetscErrorCode AdjOutputWriteDataArray(AdjOutput out, const char group[], AdjIOEntryKind kind, const char name[],
                                              const char units[], PetscInt n, const PetscReal values[])
{
  char        path[2 * ADJ_IO_NAME_MAX];
  AdjIOEntry *e;
  hid_t       dset = H5I_INVALID_HID;
  hsize_t     dims[8], zero = 0, count = (hsize_t)n;
  PetscInt    nd;
  PetscBool   exists;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, group));
  PetscCall(AdjIOCheckName(out->comm, group, name));
  PetscCheck(n > 0 && values, out->comm, PETSC_ERR_ARG_SIZ, "%s %s: need n > 0 values (got %" PetscInt_FMT "%s)", group,
             name, n, values ? "" : " and a NULL array");
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", group, name));
  PetscCall(AdjH5Exists(out->file, path, &exists));
  if (exists) {
    dset = H5Dopen2(out->file, path, H5P_DEFAULT);
    AdjCallH5(dset);
    PetscCall(AdjH5DatasetDims(dset, &nd, dims));
    if (nd != 1 || dims[0] != count) {
      AdjCallH5(H5Dclose(dset));
      AdjCallH5(H5Ldelete(out->file, path, H5P_DEFAULT));
      dset = H5I_INVALID_HID;
    }
  }
  if (dset == H5I_INVALID_HID) {
    hid_t space = H5Screate_simple(1, &count, NULL);

    AdjCallH5(space);
    dset = H5Dcreate2(out->file, path, ADJ_H5_REAL_FILE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    AdjCallH5(dset);
    AdjCallH5(H5Sclose(space));
  }
  PetscCall(AdjH5WriteSelection(dset, ADJ_H5_REAL_MEM, 1, &zero, &count, (PetscBool)!out->rank, values));
  PetscCall(AdjH5WriteAttrString(dset, "units", units ? units : "1"));
  AdjCallH5(H5Dclose(dset));
  PetscCall(AdjOutputGetEntry(out, kind, path, name, &e));
  e->n = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The group and the entry kind of /parameters and /gradients data. */
static const char *const AdjOutputGroupPath[] = {"/parameters", "/gradients"};

/** Write /parameters/<name> or /gradients/<name>, a field shaped like the grid (replaces an earlier write).
 *  Collective.
 *  @param[in] units units of the values (NULL: "1") */
PetscErrorCode AdjOutputWriteBlockField(AdjOutput out, AdjOutputGroup group, const char name[], const char units[],
                                        Vec v)
{
  const AdjIOEntryKind kind =
      group == ADJ_OUTPUT_GRADIENTS ? ADJ_IO_ENTRY_GRADIENT_FIELD : ADJ_IO_ENTRY_PARAMETER_FIELD;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteDataField(out, AdjOutputGroupPath[group], kind, name, units, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write /parameters/<name> or /gradients/<name>, n reals (e.g. a scalar parameter or its gradient).
 *  Collective; the values must be the same on every rank (rank 0 writes them). */
PetscErrorCode AdjOutputWriteBlockArray(AdjOutput out, AdjOutputGroup group, const char name[], const char units[],
                                        PetscInt n, const PetscReal values[])
{
  const AdjIOEntryKind kind =
      group == ADJ_OUTPUT_GRADIENTS ? ADJ_IO_ENTRY_GRADIENT_ARRAY : ADJ_IO_ENTRY_PARAMETER_ARRAY;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteDataArray(out, AdjOutputGroupPath[group], kind, name, units, n, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write /optimization/<name>, n reals (e.g. the evaluation log of an optimization restart file). Collective;
 *  rank 0's values are written. */
PetscErrorCode AdjOutputWriteOptimizationArray(AdjOutput out, const char name[], const char units[], PetscInt n,
                                               const PetscReal values[])
{
  hid_t grp;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteOptimizationArray"));
  PetscCall(AdjH5GroupOpen(out->file, "/optimization", PETSC_TRUE, &grp));
  AdjCallH5(H5Gclose(grp));
  PetscCall(AdjOutputWriteDataArray(out, "/optimization", ADJ_IO_ENTRY_OPTIMIZATION_ARRAY, name, units, n, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A small design as row `row` of /optimization/design (natural ordering for DMDA vectors, so the row does
 * not depend on the number of ranks). */
static PetscErrorCode AdjOutputWriteDesignRow(AdjOutput out, hsize_t row, Vec design)
{
  DM                 dm;
  PetscBool          isda = PETSC_FALSE;
  Vec                x    = design;
  PetscInt           rs, re;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(design, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscCall(DMDACreateNaturalVector(dm, &x));
    PetscCall(DMDAGlobalToNaturalBegin(dm, design, INSERT_VALUES, x));
    PetscCall(DMDAGlobalToNaturalEnd(dm, design, INSERT_VALUES, x));
  }
  PetscCall(VecGetOwnershipRange(x, &rs, &re));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(AdjH5AppendWrite(out->file, "/optimization/design", ADJ_H5_REAL_FILE, ADJ_H5_REAL_MEM,
                             (hsize_t)out->ndesign, row, (hsize_t)rs, (hsize_t)(re - rs), (PetscBool)(re > rs), a));
  PetscCall(VecRestoreArrayRead(x, &a));
  if (isda) PetscCall(VecDestroy(&x));
  {
    hid_t dset = H5Dopen2(out->file, "/optimization/design", H5P_DEFAULT);

    AdjCallH5(dset);
    PetscCall(AdjH5WriteAttrString(dset, "units", "1"));
    AdjCallH5(H5Dclose(dset));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A large design: only the latest is kept, as /optimization/design_last (a field when it lives on a DMDA of
 * the grid, else a 1-D array in PETSc ordering), with the iteration it belongs to. */
static PetscErrorCode AdjOutputWriteDesignLast(AdjOutput out, PetscInt it, Vec design)
{
  const char   *path = "/optimization/design_last";
  DM            dm;
  PetscBool     isda = PETSC_FALSE;
  hid_t         dset;
  const int64_t it64 = it;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(design, &dm));
  if (dm) PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    AdjIOBox    box;
    AdjIOEntry *e;

    PetscCall(AdjOutputVecBox(out, "design", "design_last", design, &box));
    PetscCall(AdjIOWriteVec(out->file, path, &box, design));
    PetscCall(AdjOutputGetEntry(out, ADJ_IO_ENTRY_DESIGN_FIELD, path, "design_last", &e));
  } else {
    AdjIOBox box;
    PetscInt N, rs, re;

    /* Seen as a 1-D "grid" of N cells owned in PETSc's contiguous ranges, it is just another box. */
    PetscCall(VecGetSize(design, &N));
    PetscCall(VecGetOwnershipRange(design, &rs, &re));
    box.dim      = 1;
    box.gdims[0] = (hsize_t)N;
    box.start[0] = (hsize_t)rs;
    box.count[0] = (hsize_t)(re - rs);
    PetscCall(AdjIOWriteVec(out->file, path, &box, design));
  }
  dset = H5Dopen2(out->file, path, H5P_DEFAULT);
  AdjCallH5(dset);
  PetscCall(AdjH5WriteAttrInt64(dset, "iteration", 0, &it64));
  PetscCall(AdjH5WriteAttrString(dset, "units", "1"));
  AdjCallH5(H5Dclose(dset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Append one optimization iteration: /optimization/iteration, objective, gradient_norm, and the design
 *  (design may be NULL). Designs of at most -output_design_max entries are stored at every iteration in
 *  /optimization/design (iterations x ndesign); larger ones replace /optimization/design_last. The choice is
 *  made at the first design written. Collective. */
PetscErrorCode AdjOutputWriteOptimizationIteration(AdjOutput out, PetscInt it, PetscReal objective, PetscReal gnorm,
                                                   Vec design)
{
  const hsize_t row  = (hsize_t)out->nopt;
  const int64_t it64 = it;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteOptimizationIteration"));
  PetscCall(AdjH5AppendWrite(out->file, "/optimization/iteration", ADJ_H5_INT_FILE, H5T_NATIVE_INT64, 0, row, 0, 1,
                             (PetscBool)!out->rank, &it64));
  PetscCall(AdjH5AppendWrite(out->file, "/optimization/objective", ADJ_H5_REAL_FILE, ADJ_H5_REAL_MEM, 0, row, 0, 1,
                             (PetscBool)!out->rank, &objective));
  PetscCall(AdjH5AppendWrite(out->file, "/optimization/gradient_norm", ADJ_H5_REAL_FILE, ADJ_H5_REAL_MEM, 0, row, 0, 1,
                             (PetscBool)!out->rank, &gnorm));
  if (design) {
    PetscInt N;

    PetscCall(VecGetSize(design, &N));
    if (out->ndesign < 0) out->ndesign = N <= out->design_max ? N : 0;
    if (out->ndesign > 0) {
      PetscCheck(N == out->ndesign, out->comm, PETSC_ERR_ARG_SIZ,
                 "AdjOutputWriteOptimizationIteration: design has %" PetscInt_FMT
                 " entries, earlier ones had %" PetscInt_FMT,
                 N, out->ndesign);
      PetscCall(AdjOutputWriteDesignRow(out, row, design));
    } else
      PetscCall(AdjOutputWriteDesignLast(out, it, design));
  }
  out->nopt++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOutputAppendHistory - appends nrows rows of ncols reals to the extendable dataset
    /history/<name> (created on first use with the attribute "columns", a comma-separated list of
    column names and units). values: row-major, the same on every rank (rank 0 writes). Collective. @*/
PetscErrorCode AdjOutputAppendHistory(AdjOutput out, const char name[], const char columns[], PetscInt ncols,
                                      PetscInt nrows, const PetscReal values[])
{
  char     path[256];
  hid_t    grp, dset;
  hsize_t  dims[8];
  PetscInt nd;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputAppendHistory"));
  PetscCall(AdjIOCheckName(out->comm, "history", name));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/history/%s", name));
  PetscCall(AdjH5GroupOpen(out->file, "/history", PETSC_TRUE, &grp));
  AdjCallH5(H5Gclose(grp));
  PetscCall(AdjH5AppendOpen(out->file, path, ADJ_H5_REAL_FILE, (hsize_t)ncols, &dset));
  PetscCall(AdjH5DatasetDims(dset, &nd, dims));
  if (dims[0] == 0) PetscCall(AdjH5WriteAttrString(dset, "columns", columns));
  AdjCallH5(H5Dclose(dset));
  for (PetscInt r = 0; r < nrows; r++)
    PetscCall(AdjH5AppendWrite(out->file, path, ADJ_H5_REAL_FILE, ADJ_H5_REAL_MEM, (hsize_t)ncols, dims[0] + r, 0,
                               (hsize_t)ncols, (PetscBool)!out->rank, values + r * ncols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjOutputWriteRankArray - this rank's n values as its part of the dataset group/name: the parts of all ranks
    one after the other in rank order, with the attribute "counts" (each rank's n). For data only a run on the
    same number of ranks can read back (AdjInputReadRankArray): the resume data of a stopped gradient run, whose
    states and gradient partial sums are laid out per rank. Collective. @*/
PetscErrorCode AdjOutputWriteRankArray(AdjOutput out, const char group[], const char name[], PetscInt n,
                                       const PetscScalar a[])
{
  char     path[2 * ADJ_IO_NAME_MAX];
  int64_t  mine = n, offset = 0, total, *counts;
  hid_t    grp, space, dset;
  hsize_t  start, count = (hsize_t)n, dims;
  PetscInt size = out->size;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteRankArray"));
  PetscCall(AdjIOCheckName(out->comm, group, name));
  PetscCallMPI(MPI_Exscan(&mine, &offset, 1, MPI_INT64_T, MPI_SUM, out->comm));
  if (!out->rank) offset = 0;
  PetscCallMPI(MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, out->comm));
  PetscCall(PetscMalloc1(size, &counts));
  PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, out->comm));
  PetscCall(AdjH5GroupOpen(out->file, group, PETSC_TRUE, &grp));
  AdjCallH5(H5Gclose(grp));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", group, name));
  dims  = (hsize_t)total;
  space = H5Screate_simple(1, &dims, NULL);
  AdjCallH5(space);
  dset = H5Dcreate2(out->file, path, ADJ_H5_REAL_FILE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  AdjCallH5(dset);
  AdjCallH5(H5Sclose(space));
  start = (hsize_t)offset;
  PetscCall(AdjH5WriteSelection(dset, ADJ_H5_REAL_MEM, 1, &start, &count, PETSC_TRUE, a));
  PetscCall(AdjH5WriteAttrInt64(dset, "counts", size, counts));
  AdjCallH5(H5Dclose(dset));
  PetscCall(PetscFree(counts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOutputWriteCurvilinearGrid(AdjOutput out, const PetscReal x[], const PetscReal y[])
{
  hid_t             grp;
  const hsize_t     dims[2] = {(hsize_t)out->cells[1] + 1, (hsize_t)out->cells[0] + 1}, start[2] = {0, 0};
  const char *const names[2] = {"x_nodes", "y_nodes"};
  const PetscReal  *v[2]     = {x, y};

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCheckOpen(out, "AdjOutputWriteCurvilinearGrid"));
  PetscCheck(out->dim == 2, out->comm, PETSC_ERR_SUP, "Curvilinear grids are 2-D");
  if (out->curvilinear) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjH5GroupOpen(out->file, "/grid", PETSC_TRUE, &grp));
  for (PetscInt c = 0; c < 2; c++) {
    hid_t space, dset;
    AdjCallH5(space = H5Screate_simple(2, dims, NULL));
    AdjCallH5(dset = H5Dcreate2(grp, names[c], ADJ_H5_REAL_FILE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(AdjH5WriteAttrString(dset, "units", out->units));
    PetscCall(AdjH5WriteSelection(dset, ADJ_H5_REAL_MEM, 2, start, dims, (PetscBool)!out->rank, v[c]));
    AdjCallH5(H5Dclose(dset));
    AdjCallH5(H5Sclose(space));
  }
  PetscCall(AdjH5WriteAttrString(grp, "geometry", "curvilinear: node coordinates x_nodes, y_nodes"));
  AdjCallH5(H5Gclose(grp));
  out->curvilinear = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
