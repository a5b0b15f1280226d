/* Disk level of AdjCheckpoint: raw parallel HDF5.

   Why raw HDF5 rather than PetscViewerHDF5 + VecView/VecLoad: a checkpoint slot is rewritten many
   times with a vector of the same size. Here every slot is one contiguous dataset of fixed global
   length N, created once and then overwritten in place, so the file never grows past
   (disk slots) x N x sizeof(PetscScalar) and a write is a single collective MPI-IO call of each rank's
   ownership range, with no attribute or extent bookkeeping per write. The bytes moved are then known
   exactly for the statistics. */
#include "checkpointimpl.h"

#include <stdio.h>
#include <string.h>

/* Storage type: PetscScalar as 1 (real) or 2 (complex) PetscReal in the file. */
#if defined(PETSC_USE_REAL_DOUBLE)
#  define ADJ_H5_REAL H5T_NATIVE_DOUBLE
#elif defined(PETSC_USE_REAL_SINGLE)
#  define ADJ_H5_REAL H5T_NATIVE_FLOAT
#else
#  error "AdjCheckpoint disk level supports single or double precision PetscReal only"
#endif
#define ADJ_REALS_PER_SCALAR ((hsize_t)(sizeof(PetscScalar) / sizeof(PetscReal)))

/* Root attributes that mark the file as adjsim's own scratch file (AdjIOCheckScratchFile), so a run killed
   before it could delete the file does not block the next run. Collective (metadata). */
static PetscErrorCode DiskMarkFile(hid_t file)
{
  const char *names[] = {"format", "content"}, *values[] = {ADJ_IO_SCRATCH_FORMAT, "checkpoints"};

  PetscFunctionBeginUser;
  for (int i = 0; i < 2; i++) {
    hid_t type, space, attr;

    AdjCallH5(type = H5Tcopy(H5T_C_S1));
    AdjCallH5(H5Tset_size(type, strlen(values[i]) + 1));
    AdjCallH5(space = H5Screate(H5S_SCALAR));
    AdjCallH5(attr = H5Acreate2(file, names[i], type, space, H5P_DEFAULT, H5P_DEFAULT));
    AdjCallH5(H5Awrite(attr, type, values[i]));
    AdjCallH5(H5Aclose(attr));
    AdjCallH5(H5Sclose(space));
    AdjCallH5(H5Tclose(type));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DiskCreateFile(AdjCheckpoint ckpt)
{
  AdjCheckpointDisk *d = &ckpt->diskio;
  hid_t              fapl, file;
  H5E_auto2_t        handler;
  void              *handler_data;
  int                created, created_everywhere;

  PetscFunctionBeginUser;
  /* never truncate (and later delete) a file adjsim did not make, nor one another live run is using */
  PetscCall(AdjIOCheckScratchFile(ckpt->comm, ckpt->disk_file, "-checkpoint_disk_file", "checkpoints"));
  PetscCall(AdjIOFileLockAcquire(ckpt->comm, ckpt->disk_file, "-checkpoint_disk_file", &d->lock));
  AdjCallH5(fapl = H5Pcreate(H5P_FILE_ACCESS));
  AdjCallH5(H5Pset_fapl_mpio(fapl, ckpt->comm, MPI_INFO_NULL));
  /* a file that cannot be created is a user error reported below; silence HDF5's own error stack */
  AdjCallH5(H5Eget_auto2(H5E_DEFAULT, &handler, &handler_data));
  AdjCallH5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  file = H5Fcreate(ckpt->disk_file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  AdjCallH5(H5Eset_auto2(H5E_DEFAULT, handler, handler_data));
  AdjCallH5(H5Pclose(fapl));
  created = file >= 0;
  PetscCallMPI(MPI_Allreduce(&created, &created_everywhere, 1, MPI_INT, MPI_LAND, ckpt->comm));
  if (!created_everywhere && file >= 0) AdjCallH5(H5Fclose(file));
  if (!created_everywhere) PetscCall(AdjIOFileLockRelease(&d->lock));
  PetscCheck(created_everywhere, ckpt->comm, PETSC_ERR_USER_INPUT,
             "-checkpoint_disk_file %s: cannot create this HDF5 file for %" PetscInt_FMT
             " disk checkpoint slots; check that the directory exists and is writable, or use -checkpoint_disk 0",
             ckpt->disk_file, ckpt->ndisk);
  d->file = file;
  PetscCall(PetscStrncpy(d->path, ckpt->disk_file, sizeof(d->path)));
  PetscCall(DiskMarkFile(file));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Opens (or keeps) the file for `ndisk` slots of vectors shaped like `layout`. A file created for another
   layout or path is closed and removed first. */
PetscErrorCode AdjCheckpointDiskOpen(AdjCheckpoint ckpt, Vec layout, PetscInt ndisk)
{
  AdjCheckpointDisk *d = &ckpt->diskio;
  PetscInt           N, nlocal, rstart;

  PetscFunctionBeginUser;
  PetscCall(VecGetSize(layout, &N));
  PetscCall(VecGetLocalSize(layout, &nlocal));
  PetscCall(VecGetOwnershipRange(layout, &rstart, NULL));
  if (d->file != H5I_INVALID_HID) {
    PetscBool same_path, same_layout = (N == d->global_size && nlocal == d->local_size && rstart == d->rstart);
    PetscCall(PetscStrcmp(d->path, ckpt->disk_file, &same_path));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &same_layout, 1, MPIU_BOOL, MPI_LAND, ckpt->comm));
    if (!same_path || !same_layout) PetscCall(AdjCheckpointDiskClose(ckpt));
  }
  if (d->file == H5I_INVALID_HID) {
    PetscCall(DiskCreateFile(ckpt));
    d->global_size = N;
    d->local_size  = nlocal;
    d->rstart      = rstart;
  }
  if (ndisk > d->ndsets) {
    PetscCall(PetscRealloc(sizeof(hid_t) * (size_t)ndisk, &d->dsets));
    for (PetscInt k = d->ndsets; k < ndisk; k++) d->dsets[k] = H5I_INVALID_HID;
    d->ndsets = ndisk;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Selects this rank's ownership range in the file and the matching memory space (none if empty). */
static PetscErrorCode DiskSelect(AdjCheckpointDisk *d, hid_t dset, hid_t *memspace, hid_t *filespace)
{
  hsize_t start = (hsize_t)d->rstart * ADJ_REALS_PER_SCALAR, count = (hsize_t)d->local_size * ADJ_REALS_PER_SCALAR;
  hsize_t mdims = count > 0 ? count : 1;

  PetscFunctionBeginUser;
  AdjCallH5(*filespace = H5Dget_space(dset));
  AdjCallH5(*memspace = H5Screate_simple(1, &mdims, NULL));
  if (count > 0) {
    AdjCallH5(H5Sselect_hyperslab(*filespace, H5S_SELECT_SET, &start, NULL, &count, NULL));
  } else { /* ranks without entries still take part in the collective transfer */
    AdjCallH5(H5Sselect_none(*filespace));
    AdjCallH5(H5Sselect_none(*memspace));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Writes x into disk stack position `position` (collective). */
PetscErrorCode AdjCheckpointDiskWrite(AdjCheckpoint ckpt, PetscInt position, Vec x)
{
  AdjCheckpointDisk *d = &ckpt->diskio;
  hid_t              memspace, filespace, dxpl;
  const PetscScalar *xa;

  PetscFunctionBeginUser;
  if (d->dsets[position] == H5I_INVALID_HID) {
    char    name[64];
    hsize_t dims = (hsize_t)d->global_size * ADJ_REALS_PER_SCALAR;
    hid_t   space;

    PetscCall(PetscSNPrintf(name, sizeof(name), "/slot_%" PetscInt_FMT, position));
    AdjCallH5(space = H5Screate_simple(1, &dims, NULL));
    AdjCallH5(d->dsets[position] =
                  H5Dcreate2(d->file, name, ADJ_H5_REAL, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    AdjCallH5(H5Sclose(space));
  }
  PetscCall(DiskSelect(d, d->dsets[position], &memspace, &filespace));
  AdjCallH5(dxpl = H5Pcreate(H5P_DATASET_XFER));
  AdjCallH5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  PetscCall(VecGetArrayRead(x, &xa));
  AdjCallH5(H5Dwrite(d->dsets[position], ADJ_H5_REAL, memspace, filespace, dxpl, xa));
  PetscCall(VecRestoreArrayRead(x, &xa));
  AdjCallH5(H5Pclose(dxpl));
  AdjCallH5(H5Sclose(memspace));
  AdjCallH5(H5Sclose(filespace));
  ckpt->stats.disk_bytes_written += (PetscInt64)d->global_size * (PetscInt64)sizeof(PetscScalar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads disk stack position `position` into x (collective). */
PetscErrorCode AdjCheckpointDiskRead(AdjCheckpoint ckpt, PetscInt position, Vec x)
{
  AdjCheckpointDisk *d = &ckpt->diskio;
  hid_t              memspace, filespace, dxpl;
  PetscScalar       *xa;

  PetscFunctionBeginUser;
  PetscCheck(d->dsets[position] != H5I_INVALID_HID, ckpt->comm, PETSC_ERR_PLIB,
             "disk checkpoint slot %" PetscInt_FMT " read before it was written", position);
  PetscCall(DiskSelect(d, d->dsets[position], &memspace, &filespace));
  AdjCallH5(dxpl = H5Pcreate(H5P_DATASET_XFER));
  AdjCallH5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  PetscCall(VecGetArrayWrite(x, &xa));
  AdjCallH5(H5Dread(d->dsets[position], ADJ_H5_REAL, memspace, filespace, dxpl, xa));
  PetscCall(VecRestoreArrayWrite(x, &xa));
  AdjCallH5(H5Pclose(dxpl));
  AdjCallH5(H5Sclose(memspace));
  AdjCallH5(H5Sclose(filespace));
  ckpt->stats.disk_bytes_read += (PetscInt64)d->global_size * (PetscInt64)sizeof(PetscScalar);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Closes the file and removes it (collective); no-op if no file is open. */
PetscErrorCode AdjCheckpointDiskClose(AdjCheckpoint ckpt)
{
  AdjCheckpointDisk *d = &ckpt->diskio;
  PetscMPIInt        rank;

  PetscFunctionBeginUser;
  if (d->file == H5I_INVALID_HID) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < d->ndsets; k++) {
    if (d->dsets[k] != H5I_INVALID_HID) AdjCallH5(H5Dclose(d->dsets[k]));
    d->dsets[k] = H5I_INVALID_HID;
  }
  AdjCallH5(H5Fclose(d->file));
  d->file = H5I_INVALID_HID;
  /* every rank has closed its handle before the file disappears */
  PetscCallMPI(MPI_Barrier(ckpt->comm));
  PetscCallMPI(MPI_Comm_rank(ckpt->comm, &rank));
  if (rank == 0)
    PetscCheck(remove(d->path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
               "could not remove the checkpoint file %s", d->path);
  PetscCall(AdjIOFileLockRelease(&d->lock));
  PetscFunctionReturn(PETSC_SUCCESS);
}
