/* HDF5 helpers for the io component: attributes, extendable datasets, DMDA boxes, atomic commits.
 *
 * Parallel HDF5 rules that shape this file: every call that changes metadata (create/delete groups,
 * datasets, attributes; H5Dset_extent) must be made by all ranks with identical arguments, and raw
 * data writes are collective here, with ranks that have nothing to write selecting nothing. */
#define _POSIX_C_SOURCE 200809L
#include "ioimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/** File access list for MPI-IO on comm. Not collective. Caller closes with H5Pclose(). */
PetscErrorCode AdjH5FileAccess(MPI_Comm comm, hid_t *fapl)
{
  PetscFunctionBeginUser;
  *fapl = H5Pcreate(H5P_FILE_ACCESS);
  AdjCallH5(*fapl);
  AdjCallH5(H5Pset_fapl_mpio(*fapl, comm, MPI_INFO_NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Whether path (absolute, or relative to loc) names an object, checking each component so a missing
 *  parent group answers "no" instead of raising an HDF5 error. Not collective. */
PetscErrorCode AdjH5Exists(hid_t loc, const char path[], PetscBool *exists)
{
  char   prefix[2 * ADJ_IO_NAME_MAX + 8] = "", copy[2 * ADJ_IO_NAME_MAX + 8], *tok, *save = NULL;
  size_t len;

  PetscFunctionBeginUser;
  *exists = PETSC_FALSE;
  PetscCall(PetscStrlen(path, &len));
  PetscCheck(len < sizeof(copy), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "HDF5 path too long: %s", path);
  PetscCall(PetscStrncpy(copy, path, sizeof(copy)));
  if (path[0] == '/') PetscCall(PetscStrncpy(prefix, "/", sizeof(prefix)));
  for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
    htri_t e;

    if (prefix[0] && prefix[strlen(prefix) - 1] != '/') PetscCall(PetscStrlcat(prefix, "/", sizeof(prefix)));
    PetscCall(PetscStrlcat(prefix, tok, sizeof(prefix)));
    e = H5Lexists(loc, prefix, H5P_DEFAULT);
    AdjCallH5(e);
    if (!e) PetscFunctionReturn(PETSC_SUCCESS);
  }
  *exists = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Open the group at path, creating it (and missing parents) if create is true. Collective when it creates. */
PetscErrorCode AdjH5GroupOpen(hid_t loc, const char path[], PetscBool create, hid_t *grp)
{
  PetscBool exists;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Exists(loc, path, &exists));
  if (exists) {
    *grp = H5Gopen2(loc, path, H5P_DEFAULT);
  } else {
    hid_t lcpl;

    PetscCheck(create, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "HDF5 group %s does not exist", path);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    AdjCallH5(lcpl);
    AdjCallH5(H5Pset_create_intermediate_group(lcpl, 1));
    *grp = H5Gcreate2(loc, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    AdjCallH5(H5Pclose(lcpl));
  }
  AdjCallH5(*grp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write (replacing) attribute name on obj: a scalar when n == 0, else a 1-D array of n values.
 *  Collective: every rank must pass the same values (HDF5 writes metadata from one rank). */
PetscErrorCode AdjH5WriteAttr(hid_t obj, const char name[], hid_t memtype, hid_t filetype, PetscInt n,
                              const void *values)
{
  hid_t   space, attr;
  hsize_t dims[1] = {(hsize_t)n};
  htri_t  exists;

  PetscFunctionBeginUser;
  /* Delete then create: the shape or string length may differ from the previous value. */
  exists = H5Aexists(obj, name);
  AdjCallH5(exists);
  if (exists) AdjCallH5(H5Adelete(obj, name));
  space = n ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
  AdjCallH5(space);
  attr = H5Acreate2(obj, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT);
  AdjCallH5(attr);
  AdjCallH5(H5Awrite(attr, memtype, values));
  AdjCallH5(H5Aclose(attr));
  AdjCallH5(H5Sclose(space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A fixed-length, NUL-terminated UTF-8 string type holding value; fixed length because variable-length
 * data cannot be written collectively. */
static PetscErrorCode AdjH5StringType(const char value[], hid_t *type)
{
  size_t len = value ? strlen(value) : 0;

  PetscFunctionBeginUser;
  *type = H5Tcopy(H5T_C_S1);
  AdjCallH5(*type);
  AdjCallH5(H5Tset_size(*type, len + 1));
  AdjCallH5(H5Tset_strpad(*type, H5T_STR_NULLTERM));
  AdjCallH5(H5Tset_cset(*type, H5T_CSET_UTF8));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Scalar string attribute. Collective, same value on every rank. */
PetscErrorCode AdjH5WriteAttrString(hid_t obj, const char name[], const char value[])
{
  hid_t type;

  PetscFunctionBeginUser;
  PetscCall(AdjH5StringType(value, &type));
  PetscCall(AdjH5WriteAttr(obj, name, type, type, 0, value ? value : ""));
  AdjCallH5(H5Tclose(type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** int64 attribute (scalar when n == 0). Collective. */
PetscErrorCode AdjH5WriteAttrInt64(hid_t obj, const char name[], PetscInt n, const int64_t values[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjH5WriteAttr(obj, name, H5T_NATIVE_INT64, ADJ_H5_INT_FILE, n, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Real attribute (scalar when n == 0). Collective. */
PetscErrorCode AdjH5WriteAttrReal(hid_t obj, const char name[], PetscInt n, const PetscReal values[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjH5WriteAttr(obj, name, ADJ_H5_REAL_MEM, ADJ_H5_REAL_FILE, n, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read a numeric attribute of at most nmax values. count: -1 when absent or not numeric, else the number of
 *  values in the file (values is filled only when count <= nmax). Not collective. */
PetscErrorCode AdjH5ReadAttr(hid_t obj, const char name[], hid_t memtype, PetscInt nmax, void *values, PetscInt *count)
{
  hid_t       attr, space, ftype;
  hssize_t    npoints;
  H5T_class_t cls;
  htri_t      exists;

  PetscFunctionBeginUser;
  *count = -1;
  exists = H5Aexists(obj, name);
  AdjCallH5(exists);
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  AdjCallH5(attr);
  ftype = H5Aget_type(attr);
  AdjCallH5(ftype);
  cls   = H5Tget_class(ftype);
  space = H5Aget_space(attr);
  AdjCallH5(space);
  npoints = H5Sget_simple_extent_npoints(space);
  AdjCallH5(npoints);
  if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
    *count = (PetscInt)npoints;
    if (npoints <= nmax) AdjCallH5(H5Aread(attr, memtype, values));
  }
  AdjCallH5(H5Sclose(space));
  AdjCallH5(H5Tclose(ftype));
  AdjCallH5(H5Aclose(attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Read a string attribute (fixed or variable length) into value[len], truncating. found is false when the
 *  attribute is absent or not a string. Not collective. */
PetscErrorCode AdjH5ReadAttrString(hid_t obj, const char name[], size_t len, char value[], PetscBool *found)
{
  hid_t  attr, ftype, mtype;
  htri_t exists, isvar;

  PetscFunctionBeginUser;
  *found   = PETSC_FALSE;
  value[0] = 0;
  exists   = H5Aexists(obj, name);
  AdjCallH5(exists);
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  attr = H5Aopen(obj, name, H5P_DEFAULT);
  AdjCallH5(attr);
  ftype = H5Aget_type(attr);
  AdjCallH5(ftype);
  if (H5Tget_class(ftype) == H5T_STRING) {
    isvar = H5Tis_variable_str(ftype);
    AdjCallH5(isvar);
    mtype = H5Tcopy(H5T_C_S1);
    AdjCallH5(mtype);
    AdjCallH5(H5Tset_cset(mtype, H5Tget_cset(ftype))); /* HDF5 does not convert between character sets */
    if (isvar) {
      char *s = NULL;

      /* Files written by other tools (h5py) often use variable-length strings. */
      AdjCallH5(H5Tset_size(mtype, H5T_VARIABLE));
      AdjCallH5(H5Aread(attr, mtype, &s));
      PetscCall(PetscStrncpy(value, s ? s : "", len));
      if (s) AdjCallH5(H5free_memory(s));
    } else {
      size_t fsize = H5Tget_size(ftype);
      char  *buf;

      PetscCall(PetscCalloc1(fsize + 1, &buf));
      AdjCallH5(H5Tset_size(mtype, fsize + 1));
      AdjCallH5(H5Tset_strpad(mtype, H5T_STR_NULLTERM));
      AdjCallH5(H5Aread(attr, mtype, buf));
      PetscCall(PetscStrncpy(value, buf, len));
      PetscCall(PetscFree(buf));
    }
    AdjCallH5(H5Tclose(mtype));
    *found = PETSC_TRUE;
  }
  AdjCallH5(H5Tclose(ftype));
  AdjCallH5(H5Aclose(attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Rank and dimensions of a dataset (dims must hold 8 entries). Not collective. */
PetscErrorCode AdjH5DatasetDims(hid_t dset, PetscInt *ndims, hsize_t dims[])
{
  hid_t space;
  int   nd;

  PetscFunctionBeginUser;
  space = H5Dget_space(dset);
  AdjCallH5(space);
  nd = H5Sget_simple_extent_ndims(space);
  AdjCallH5(nd);
  PetscCheck(nd <= 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "dataset has %d dimensions (at most 8 supported)",
             nd);
  AdjCallH5(H5Sget_simple_extent_dims(space, dims, NULL));
  AdjCallH5(H5Sclose(space));
  *ndims = nd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Select [start, start+count) in a fresh file space of dset and a matching memory space; an empty
 * selection on both when the rank does not take part (so it can still join the collective call). */
static PetscErrorCode AdjH5Select(hid_t dset, PetscInt ndims, const hsize_t start[], const hsize_t count[],
                                  PetscBool participate, hid_t *fspace, hid_t *mspace)
{
  hsize_t n = 1, one = 1;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ndims; i++) n *= count[i];
  *fspace = H5Dget_space(dset);
  AdjCallH5(*fspace);
  if (participate && n > 0) {
    if (ndims > 0) AdjCallH5(H5Sselect_hyperslab(*fspace, H5S_SELECT_SET, start, NULL, count, NULL));
    *mspace = ndims > 0 ? H5Screate_simple((int)ndims, count, NULL) : H5Screate(H5S_SCALAR);
    AdjCallH5(*mspace);
  } else {
    AdjCallH5(H5Sselect_none(*fspace));
    *mspace = H5Screate_simple(1, &one, NULL);
    AdjCallH5(*mspace);
    AdjCallH5(H5Sselect_none(*mspace));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AdjH5CollectiveTransfer(hid_t *dxpl)
{
  PetscFunctionBeginUser;
  *dxpl = H5Pcreate(H5P_DATASET_XFER);
  AdjCallH5(*dxpl);
  AdjCallH5(H5Pset_dxpl_mpio(*dxpl, H5FD_MPIO_COLLECTIVE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective transfer of the box [start, start+count) of dset: written from buf (write) or read into it;
 * ranks with participate false move nothing but still call. */
static PetscErrorCode AdjH5TransferSelection(hid_t dset, hid_t memtype, PetscInt ndims, const hsize_t start[],
                                             const hsize_t count[], PetscBool participate, PetscBool write, void *buf)
{
  hid_t  fspace, mspace, dxpl;
  double dummy = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Select(dset, ndims, start, count, participate, &fspace, &mspace));
  PetscCall(AdjH5CollectiveTransfer(&dxpl));
  if (write)
    AdjCallH5(H5Dwrite(dset, memtype, mspace, fspace, dxpl, buf ? buf : &dummy));
  else
    AdjCallH5(H5Dread(dset, memtype, mspace, fspace, dxpl, buf ? buf : &dummy));
  AdjCallH5(H5Pclose(dxpl));
  AdjCallH5(H5Sclose(mspace));
  AdjCallH5(H5Sclose(fspace));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Collective write of the box [start, start+count) of dset from buf; ranks with participate false write
 *  nothing but must still call. */
PetscErrorCode AdjH5WriteSelection(hid_t dset, hid_t memtype, PetscInt ndims, const hsize_t start[],
                                   const hsize_t count[], PetscBool participate, const void *buf)
{
  PetscFunctionBeginUser;
  PetscCall(AdjH5TransferSelection(dset, memtype, ndims, start, count, participate, PETSC_TRUE, (void *)buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Collective read of the box [start, start+count) of dset into buf (an empty count reads nothing). */
PetscErrorCode AdjH5ReadSelection(hid_t dset, hid_t memtype, PetscInt ndims, const hsize_t start[],
                                  const hsize_t count[], void *buf)
{
  PetscFunctionBeginUser;
  PetscCall(AdjH5TransferSelection(dset, memtype, ndims, start, count, PETSC_TRUE, PETSC_FALSE, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Open, or create empty, an extendable dataset of rows: shape (0) when ncols == 0, else (0, ncols).
 *  Real datasets are filled with NaN so rows never written (e.g. no design at an iteration) read as NaN.
 *  Collective. */
PetscErrorCode AdjH5AppendOpen(hid_t loc, const char name[], hid_t filetype, hsize_t ncols, hid_t *dset)
{
  PetscBool exists;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Exists(loc, name, &exists));
  if (exists) {
    *dset = H5Dopen2(loc, name, H5P_DEFAULT);
  } else {
    int     nd      = ncols ? 2 : 1;
    hsize_t dims[2] = {0, ncols}, maxdims[2] = {H5S_UNLIMITED, ncols};
    hsize_t chunk[2] = {256, ncols};
    hid_t   space, dcpl;

    if (ncols) chunk[0] = ncols >= 1024 ? 1 : 1024 / ncols;
    space = H5Screate_simple(nd, dims, maxdims);
    AdjCallH5(space);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    AdjCallH5(dcpl);
    AdjCallH5(H5Pset_chunk(dcpl, nd, chunk));
    if (H5Tget_class(filetype) == H5T_FLOAT) {
      PetscReal nan = (PetscReal)NAN;

      AdjCallH5(H5Pset_fill_value(dcpl, ADJ_H5_REAL_MEM, &nan));
    }
    *dset = H5Dcreate2(loc, name, filetype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    AdjCallH5(H5Pclose(dcpl));
    AdjCallH5(H5Sclose(space));
  }
  AdjCallH5(*dset);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write row `row` (columns [col0, col0+ncols_local) when ncols > 0) of the extendable dataset name, growing
 *  it to row+1 rows if needed. Collective; ranks with participate false write nothing. */
PetscErrorCode AdjH5AppendWrite(hid_t loc, const char name[], hid_t filetype, hid_t memtype, hsize_t ncols, hsize_t row,
                                hsize_t col0, hsize_t ncols_local, PetscBool participate, const void *buf)
{
  hid_t    dset;
  hsize_t  dims[8], start[2] = {row, col0}, count[2] = {1, ncols_local};
  PetscInt nd;

  PetscFunctionBeginUser;
  PetscCall(AdjH5AppendOpen(loc, name, filetype, ncols, &dset));
  PetscCall(AdjH5DatasetDims(dset, &nd, dims));
  PetscCheck(nd == (ncols ? 2 : 1) && (!ncols || dims[1] == ncols), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "dataset %s has the wrong shape for %llu columns", name, (unsigned long long)ncols);
  if (dims[0] < row + 1) {
    dims[0] = row + 1;
    AdjCallH5(H5Dset_extent(dset, dims));
  }
  PetscCall(AdjH5WriteSelection(dset, memtype, nd, start, count, participate, buf));
  AdjCallH5(H5Dclose(dset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Scalar fixed-length string dataset (replacing any old one), for text too long for an attribute's 64 KiB.
 *  Collective: value must be the same on all ranks; only participating ranks write the data. */
PetscErrorCode AdjH5WriteStringDataset(hid_t loc, const char name[], const char value[], PetscBool participate)
{
  hid_t     type, space, dset;
  PetscBool exists;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Exists(loc, name, &exists));
  if (exists) AdjCallH5(H5Ldelete(loc, name, H5P_DEFAULT));
  PetscCall(AdjH5StringType(value, &type));
  space = H5Screate(H5S_SCALAR);
  AdjCallH5(space);
  dset = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  AdjCallH5(dset);
  PetscCall(AdjH5WriteSelection(dset, type, 0, NULL, NULL, participate, value ? value : ""));
  AdjCallH5(H5Dclose(dset));
  AdjCallH5(H5Sclose(space));
  AdjCallH5(H5Tclose(type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** The box of natural-ordering cells this rank owns in a DMDA (dof must be 1). Not collective.
 *  A DMDA global vector stores its owned cells x-fastest, which is exactly this box in C order, so the
 *  local array is written as-is: no scatter to natural ordering is needed. */
PetscErrorCode AdjIODAGetBox(DM da, AdjIOBox *box)
{
  PetscBool isda;
  PetscInt  dim, M, N, P, dof, xs, ys, zs, xm, ym, zm;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompare((PetscObject)da, DMDA, &isda));
  PetscCheck(isda, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG, "adjsim io needs a DMDA");
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(dof == 1, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG,
             "adjsim io stores one DMDA per field (dof 1), got dof %" PetscInt_FMT, dof);
  PetscCheck(dim >= 1 && dim <= ADJ_IO_MAX_DIM, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG,
             "DMDA dimension %" PetscInt_FMT " not supported", dim);
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  {
    const PetscInt g[3] = {M, N, P}, s[3] = {xs, ys, zs}, c[3] = {xm, ym, zm};

    box->dim = dim;
    for (PetscInt i = 0; i < dim; i++) { /* C order: reverse the x, y, z axes */
      box->gdims[i] = (hsize_t)g[dim - 1 - i];
      box->start[i] = (hsize_t)s[dim - 1 - i];
      box->count[i] = (hsize_t)c[dim - 1 - i];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Box of a DMDA global vector: its own DM, else fallback; checks the local size. Not collective. */
PetscErrorCode AdjIOVecGetBox(Vec v, DM fallback, AdjIOBox *box)
{
  DM       dm;
  PetscInt n, nbox = 1;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(v, &dm));
  if (!dm) dm = fallback;
  PetscCheck(dm, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONG, "Vec has no DMDA and no grid was set");
  PetscCall(AdjIODAGetBox(dm, box));
  PetscCall(VecGetLocalSize(v, &n));
  for (PetscInt i = 0; i < box->dim; i++) nbox *= (PetscInt)box->count[i];
  PetscCheck(n == nbox, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Vec local size %" PetscInt_FMT " does not match its DMDA's %" PetscInt_FMT " owned cells", n, nbox);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Box selection, optionally preceded by a time index `lead` (lead < 0: no time dimension). */
static void AdjIOBoxSelection(PetscInt lead, const AdjIOBox *box, PetscInt *nd, hsize_t start[], hsize_t count[])
{
  PetscInt off = lead >= 0 ? 1 : 0;

  if (lead >= 0) {
    start[0] = (hsize_t)lead;
    count[0] = 1;
  }
  for (PetscInt i = 0; i < box->dim; i++) {
    start[off + i] = box->start[i];
    count[off + i] = box->count[i];
  }
  *nd = box->dim + off;
}

/** Collective write of this rank's box (at time index lead, or none when lead < 0). */
PetscErrorCode AdjIOWriteBox(hid_t dset, PetscInt lead, const AdjIOBox *box, const PetscScalar *local)
{
  hsize_t  start[ADJ_IO_MAX_DIM + 1], count[ADJ_IO_MAX_DIM + 1];
  PetscInt nd;

  PetscFunctionBeginUser;
  AdjIOBoxSelection(lead, box, &nd, start, count);
  PetscCall(AdjH5WriteSelection(dset, ADJ_H5_REAL_MEM, nd, start, count, PETSC_TRUE, local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Collective read of this rank's box (at time index lead, or none when lead < 0). */
PetscErrorCode AdjIOReadBox(hid_t dset, PetscInt lead, const AdjIOBox *box, PetscScalar *local)
{
  hsize_t  start[ADJ_IO_MAX_DIM + 1], count[ADJ_IO_MAX_DIM + 1];
  PetscInt nd;

  PetscFunctionBeginUser;
  AdjIOBoxSelection(lead, box, &nd, start, count);
  PetscCall(AdjH5ReadSelection(dset, ADJ_H5_REAL_MEM, nd, start, count, local));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Write a DMDA vector as the non-extendable dataset loc/name shaped like the grid (C order), replacing a
 *  dataset of another shape. Collective. */
PetscErrorCode AdjIOWriteVec(hid_t loc, const char name[], const AdjIOBox *box, Vec v)
{
  PetscBool          exists;
  hid_t              dset = H5I_INVALID_HID;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(AdjH5Exists(loc, name, &exists));
  if (exists) {
    hsize_t   dims[8];
    PetscInt  nd;
    PetscBool same;

    dset = H5Dopen2(loc, name, H5P_DEFAULT);
    AdjCallH5(dset);
    PetscCall(AdjH5DatasetDims(dset, &nd, dims));
    same = (PetscBool)(nd == box->dim);
    for (PetscInt i = 0; same && i < nd; i++) same = (PetscBool)(dims[i] == box->gdims[i]);
    if (!same) {
      AdjCallH5(H5Dclose(dset));
      AdjCallH5(H5Ldelete(loc, name, H5P_DEFAULT));
      dset = H5I_INVALID_HID;
    }
  }
  if (dset == H5I_INVALID_HID) {
    hid_t space = H5Screate_simple((int)box->dim, box->gdims, NULL);

    AdjCallH5(space);
    dset = H5Dcreate2(loc, name, ADJ_H5_REAL_FILE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    AdjCallH5(dset);
    AdjCallH5(H5Sclose(space));
  }
  PetscCall(VecGetArrayRead(v, &a));
  PetscCall(AdjIOWriteBox(dset, -1, box, a));
  PetscCall(VecRestoreArrayRead(v, &a));
  AdjCallH5(H5Dclose(dset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Give every rank rank 0's string. *str on rank 0: PetscMalloc'd (or NULL for ""); on output every rank owns
 *  a PetscMalloc'd copy to PetscFree. Collective. */
PetscErrorCode AdjIOBcastString(MPI_Comm comm, char **str)
{
  PetscMPIInt        rank;
  size_t             len = 0;
  unsigned long long n;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    if (!*str) PetscCall(PetscStrallocpy("", str));
    PetscCall(PetscStrlen(*str, &len));
  } else
    *str = NULL;
  n = (unsigned long long)len;
  PetscCallMPI(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
  if (rank) PetscCall(PetscCalloc1(n + 1, str));
  PetscCallMPI(MPI_Bcast(*str, (PetscMPIInt)(n + 1), MPI_CHAR, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Current time as ISO 8601 UTC, e.g. 2024-05-01T12:00:00Z. Not collective. */
PetscErrorCode AdjIOUTCTime(char buf[], size_t len)
{
  time_t    now = time(NULL);
  struct tm utc;

  PetscFunctionBeginUser;
  PetscCheck(gmtime_r(&now, &utc), PETSC_COMM_SELF, PETSC_ERR_SYS, "gmtime_r failed");
  PetscCheck(strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &utc) > 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "strftime failed");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0's verdict on whether path can be created: 0 when it can, else an errno-like reason in msg. */
static int AdjIOProbeWritable(const char path[], char msg[], size_t len)
{
  char        dir[PETSC_MAX_PATH_LEN];
  const char *slash = strrchr(path, '/');
  struct stat st;

  if (!path[0]) {
    snprintf(msg, len, "the path is empty");
    return 1;
  }
  if (!slash)
    snprintf(dir, sizeof(dir), ".");
  else if (slash == path)
    snprintf(dir, sizeof(dir), "/");
  else
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
  if (stat(dir, &st)) {
    snprintf(msg, len, "directory %s does not exist (%s)", dir, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(msg, len, "%s is not a directory", dir);
    return 1;
  }
  if (access(dir, W_OK | X_OK)) {
    snprintf(msg, len, "directory %s is not writable (%s)", dir, strerror(errno));
    return 1;
  }
  if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
    snprintf(msg, len, "%s is a directory", path);
    return 1;
  }
  return 0;
}

/** Fail early, on every rank, when path cannot be created: rank 0 checks the directory and broadcasts the
 *  verdict, so no rank goes on into a collective create that would hang or fail obscurely. Collective. */
PetscErrorCode AdjIOCheckWritableTarget(MPI_Comm comm, const char path[], const char option[])
{
  PetscMPIInt rank;
  int         bad                 = 0;
  char        msg[ADJ_IO_MSG_MAX] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) bad = AdjIOProbeWritable(path, msg, sizeof(msg));
  PetscCallMPI(MPI_Bcast(&bad, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!bad, comm, PETSC_ERR_FILE_OPEN, "Cannot create output file %s (option %s): %s", path, option, msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Make tmp durable, then atomically give it its final name; fsync of the directory makes the rename itself
 * durable. Returns 0 or an errno. */
static int AdjIOProbeCommit(const char tmp[], const char path[])
{
  int  fd = open(tmp, O_RDONLY);
  char dir[PETSC_MAX_PATH_LEN];

  if (fd < 0) return errno;
  if (fsync(fd)) {
    int e = errno;

    close(fd);
    return e;
  }
  close(fd);
  if (rename(tmp, path)) return errno;
  {
    const char *slash = strrchr(path, '/');

    if (!slash)
      snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
      snprintf(dir, sizeof(dir), "/");
    else
      snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    fd = open(dir, O_RDONLY);
    if (fd >= 0) {
      (void)fsync(fd); /* best effort: some file systems refuse fsync on directories */
      close(fd);
    }
  }
  return 0;
}

/** Rename the closed file tmp to path on rank 0 after every rank is done with it. Collective. */
PetscErrorCode AdjIOCommitFile(MPI_Comm comm, const char tmp[], const char path[])
{
  PetscMPIInt rank;
  int         err = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Barrier(comm));
  if (!rank) err = AdjIOProbeCommit(tmp, path);
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCheck(!err, comm, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", tmp, path, strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** Check a user-given dataset name: non-empty, no '/', short enough. Collective (same name on all ranks). */
PetscErrorCode AdjIOCheckName(MPI_Comm comm, const char what[], const char name[])
{
  size_t len = 0;

  PetscFunctionBeginUser;
  PetscCheck(name, comm, PETSC_ERR_USER_INPUT, "%s name is NULL", what);
  PetscCall(PetscStrlen(name, &len));
  PetscCheck(len > 0 && len < ADJ_IO_NAME_MAX && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."), comm,
             PETSC_ERR_USER_INPUT, "%s name \"%s\" is invalid: use 1 to %d characters without '/'", what, name,
             ADJ_IO_NAME_MAX - 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** path without a trailing ".h5" (or ".hdf5"). Not collective. */
PetscErrorCode AdjIOPathStem(const char path[], char stem[], size_t len)
{
  size_t n;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(stem, path, len));
  PetscCall(PetscStrlen(stem, &n));
  if (n > 3 && !strcmp(stem + n - 3, ".h5"))
    stem[n - 3] = 0;
  else if (n > 5 && !strcmp(stem + n - 5, ".hdf5"))
    stem[n - 5] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/** "Mx x My [x Mz]" from C-order dims. Not collective. */
PetscErrorCode AdjIOFormatCells(PetscInt ndims, const hsize_t cdims[], char buf[], size_t len)
{
  size_t used = 0;

  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt i = ndims - 1; i >= 0 && used < len; i--) {
    int w = snprintf(buf + used, len - used, "%s%llu", i == ndims - 1 ? "" : " x ", (unsigned long long)cdims[i]);

    if (w > 0) used += (size_t)w;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
