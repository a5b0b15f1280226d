/* Rank-local reads of small HDF5 tables (see include/adjsim/tables.h). */
#define _POSIX_C_SOURCE 200809L
#include <adjsim/tables.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PetscInt64 AdjTableFirstNonFinite(const PetscReal a[], PetscInt64 n, const char **what)
{
  PetscReal probe = 0;

  /* x - x is 0 for every finite x and NaN for a NaN or an Inf: one vectorizable pass, and the search for
     the first bad value only when there is one */
  for (PetscInt64 i = 0; i < n; i++) probe += a[i] - a[i];
  if (probe == 0) return -1;
  for (PetscInt64 i = 0; i < n; i++)
    if (!isfinite(a[i])) {
      if (what) *what = isnan(a[i]) ? "NaN" : (a[i] > 0 ? "+Inf" : "-Inf");
      return i;
    }
  return -1;
}

struct _n_AdjTableFile {
  hid_t       id;
  H5E_auto2_t func; /* HDF5's error reporting, restored at close */
  void       *cdata;
};

int AdjTableFileOpen(const char path[], const char what[], AdjTableFile *file, char msg[], size_t len)
{
  AdjTableFile f;

  *file = NULL;
  if (access(path, R_OK)) {
    snprintf(msg, len, "cannot read %s: it does not exist or is not readable", what);
    return 1;
  }
  if (H5Fis_hdf5(path) <= 0) {
    snprintf(msg, len, "%s is not an HDF5 file", what);
    return 1;
  }
  if (!(f = (AdjTableFile)calloc(1, sizeof(*f)))) {
    snprintf(msg, len, "out of memory opening %s", what);
    return 1;
  }
  H5Eget_auto2(H5E_DEFAULT, &f->func, &f->cdata);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  f->id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f->id < 0) {
    snprintf(msg, len, "cannot open %s", what);
    AdjTableFileClose(&f);
    return 1;
  }
  *file = f;
  return 0;
}

int AdjTableFileHas(AdjTableFile file, const char name[])
{
  return H5Lexists(file->id, name, H5P_DEFAULT) > 0;
}

/* The shape checks and the read of one dataset (dset open). */
static int AdjTableReadOpen(hid_t dset, const char name[], PetscInt ncomp, PetscInt *n, PetscReal **data, char msg[],
                            size_t len)
{
  hid_t   space = H5Dget_space(dset);
  hsize_t dims[8], total = 1, slice;
  int     nd = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1, status = 0;

  if (nd < 1 || nd > 3 || (ncomp == 1 && nd > 2) || (ncomp > 1 && (nd < 2 || dims[nd - 1] != (hsize_t)ncomp))) {
    snprintf(msg, len, "dataset %s must be shaped %s (or with a leading time dimension)", name,
             ncomp == 1 ? "(N)" : (ncomp == 2 ? "(N, 2)" : "(N, 4)"));
    status = 1;
  } else {
    const int lead = ncomp == 1 ? nd - 1 : nd - 2; /* 1 with a time dimension */

    for (int d = 0; d < nd; d++) total *= dims[d];
    *n    = (PetscInt)dims[lead];
    slice = dims[lead] * (hsize_t)ncomp;
    if (lead && dims[0] == 0) {
      snprintf(msg, len, "dataset %s has no time slice", name);
      status = 1;
    } else if (!(*data = (PetscReal *)malloc((size_t)(total ? total : 1) * sizeof(PetscReal)))) {
      snprintf(msg, len, "out of memory reading %s", name);
      status = 1;
    } else if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) < 0) {
      snprintf(msg, len, "cannot read dataset %s", name);
      status = 1;
    } else {
      const char *what = "";
      PetscInt64  bad;

      if (lead) memmove(*data, *data + (total - slice), (size_t)slice * sizeof(PetscReal));
      if ((bad = AdjTableFirstNonFinite(*data, (PetscInt64)slice, &what)) >= 0) {
        if (ncomp > 1)
          snprintf(msg, len, "dataset %s holds a non-finite value (%s) at row %lld, column %lld%s", name, what,
                   (long long)(bad / ncomp), (long long)(bad % ncomp), lead ? " of its last time slice" : "");
        else
          snprintf(msg, len, "dataset %s holds a non-finite value (%s) at row %lld%s", name, what, (long long)bad,
                   lead ? " of its last time slice" : "");
        status = 1;
      }
    }
  }
  if (space >= 0) H5Sclose(space);
  return status;
}

int AdjTableFileRead(AdjTableFile file, const char name[], PetscInt ncomp, PetscInt *n, PetscReal **data, char msg[],
                     size_t len)
{
  hid_t dset;
  int   status;

  *data = NULL;
  if (!AdjTableFileHas(file, name)) return 0;
  dset = H5Dopen2(file->id, name, H5P_DEFAULT);
  if (dset < 0) {
    snprintf(msg, len, "cannot open dataset %s", name);
    return 1;
  }
  status = AdjTableReadOpen(dset, name, ncomp, n, data, msg, len);
  H5Dclose(dset);
  return status;
}

void AdjTableFileClose(AdjTableFile *file)
{
  if (!*file) return;
  if ((*file)->id >= 0) H5Fclose((*file)->id);
  H5Eset_auto2(H5E_DEFAULT, (*file)->func, (*file)->cdata);
  free(*file);
  *file = NULL;
}

/* The hyperslab read of AdjTableReadRows (dset open and shaped (nt, N, ncomp)). */
static int AdjTableReadSlab(hid_t dset, hid_t space, PetscInt64 slice, PetscInt ncomp, PetscInt64 first,
                            PetscInt64 count, PetscReal *buf)
{
  hsize_t start[3] = {(hsize_t)slice, (hsize_t)first, 0}, cnt[3] = {1, (hsize_t)count, (hsize_t)ncomp},
          nmem = (hsize_t)count * (hsize_t)ncomp;
  hid_t mem;
  int   status = 1;

  if (count == 0) return 0;
  if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0) return 1;
  mem = H5Screate_simple(1, &nmem, NULL);
  if (mem >= 0 && H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf) >= 0) status = 0;
  if (mem >= 0) H5Sclose(mem);
  return status;
}

int AdjTableReadRows(const char path[], const char name[], PetscInt64 slice, PetscInt64 N, PetscInt ncomp,
                     PetscInt64 first, PetscInt64 count, PetscReal *buf, PetscInt64 *nt, PetscInt64 *bad)
{
  hid_t   file, dset, space;
  hsize_t dims[3];
  int     status = 1;

  *bad = -1;

  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return 1;
  dset = H5Dopen2(file, name, H5P_DEFAULT);
  if (dset >= 0) {
    space = H5Dget_space(dset);
    if (space >= 0 && H5Sget_simple_extent_ndims(space) == 3 && H5Sget_simple_extent_dims(space, dims, NULL) == 3) {
      *nt = (PetscInt64)dims[0];
      if (dims[1] != (hsize_t)N || dims[2] != (hsize_t)ncomp)
        status = 2;
      else if ((hsize_t)slice >= dims[0])
        status = 3;
      else if (!(status = AdjTableReadSlab(dset, space, slice, ncomp, first, count, buf))) {
        const PetscInt64 i = AdjTableFirstNonFinite(buf, count * ncomp, NULL);

        if (i >= 0) *bad = first + i / ncomp, status = 4;
      }
    }
    if (space >= 0) H5Sclose(space);
    H5Dclose(dset);
  }
  H5Fclose(file);
  return status;
}
