/* Private part of the adjsim io component: the AdjOutput struct and the HDF5 helpers shared by the
 * writer (output*.c, restart.c, xdmf.c) and the readers (input.c). */
#pragma once

#include <adjsim/io.h>
#include <hdf5.h>

#if defined(PETSC_USE_COMPLEX)
#  error "adjsim io stores real fields; complex PetscScalar is not supported"
#endif
#if defined(PETSC_USE_REAL_SINGLE)
#  define ADJ_H5_REAL_MEM  H5T_NATIVE_FLOAT
#  define ADJ_H5_REAL_FILE H5T_IEEE_F32LE
#else
#  define ADJ_H5_REAL_MEM  H5T_NATIVE_DOUBLE
#  define ADJ_H5_REAL_FILE H5T_IEEE_F64LE
#endif
#define ADJ_H5_INT_FILE H5T_STD_I64LE

#define ADJ_IO_FORMAT_NAME  "adjsim-run"
#define ADJ_IO_NAME_MAX     256
#define ADJ_IO_MAX_DIM      3
#define ADJ_IO_MSG_MAX      (2 * PETSC_MAX_PATH_LEN + 512)
#define ADJ_IO_DESIGN_SMALL 4096

/* The part of a DMDA field one rank owns, as an HDF5 box in C order (slowest index first: z, y, x). */
typedef struct {
  PetscInt dim;
  hsize_t  gdims[ADJ_IO_MAX_DIM]; /* global cells, C order */
  hsize_t  start[ADJ_IO_MAX_DIM]; /* first owned cell, C order */
  hsize_t  count[ADJ_IO_MAX_DIM]; /* owned cells, C order */
} AdjIOBox;

/* What was written, so rank 0 can describe it in the XDMF file at close without reopening the file. */
typedef enum {
  ADJ_IO_ENTRY_FIELD,          /* /fields/<name>, time series */
  ADJ_IO_ENTRY_GRADIENT_FIELD, /* /gradients/<name>, one DMDA field */
  ADJ_IO_ENTRY_GRADIENT_ARRAY, /* /gradients/<name>, n reals */
  ADJ_IO_ENTRY_PARAMETER_FIELD,
  ADJ_IO_ENTRY_PARAMETER_ARRAY,
  ADJ_IO_ENTRY_DESIGN_FIELD,      /* /optimization/design_last */
  ADJ_IO_ENTRY_OPTIMIZATION_ARRAY /* /optimization/<name>, n reals (not in the XDMF file) */
} AdjIOEntryKind;

typedef struct {
  AdjIOEntryKind kind;
  char           path[2 * ADJ_IO_NAME_MAX]; /* full dataset path in the file */
  char           name[ADJ_IO_NAME_MAX];
  PetscInt       n;       /* arrays: length */
  PetscInt       extent;  /* time series: slices in the dataset */
  PetscBool     *written; /* time series: written[k] for output step k (unwritten slices hold NaN) */
  PetscInt       nalloc;
} AdjIOEntry;

/* The particle fields of the run file, recorded by AdjOutputWriteParticleXdmf() for the XDMF file that
 * AdjOutputClose() writes. */
#define ADJ_IO_PXDMF_MAX 32
typedef struct {
  PetscBool on;
  char      position[ADJ_IO_NAME_MAX];
  PetscInt  pcomp, nfields, ncomp[ADJ_IO_PXDMF_MAX];
  char      names[ADJ_IO_PXDMF_MAX][ADJ_IO_NAME_MAX];
  long long N; /* particles */
} AdjIOParticleXdmf;

struct _p_AdjOutput {
  MPI_Comm    comm; /* PETSc inner communicator, duplicated from the user's */
  PetscMPIInt rank, size;

  /* settings */
  char      path[PETSC_MAX_PATH_LEN];
  char      restart_path[PETSC_MAX_PATH_LEN]; /* empty: "<stem>-restart.h5" */
  char      restart_eff[PETSC_MAX_PATH_LEN];  /* the restart path in effect (returned by the getter) */
  PetscInt  interval, restart_interval, design_max;
  PetscBool restart_objective_set; /* restart writes record restart_objective (AdjOutputSetRestartObjective) */
  PetscReal restart_objective;
  PetscBool xdmf;

  /* grid */
  DM        da;
  PetscInt  dim;
  PetscInt  cells[ADJ_IO_MAX_DIM]; /* x, y, z order */
  PetscReal lower[ADJ_IO_MAX_DIM], upper[ADJ_IO_MAX_DIM];
  PetscBool curvilinear; /* 2-D node coordinates in /grid/x_nodes, y_nodes (AdjOutputWriteCurvilinearGrid) */
  char      units[64];

  /* state of the open file */
  hid_t             file;
  PetscBool         isopen, closed;
  char              partial[PETSC_MAX_PATH_LEN + 16];
  PetscInt          nt; /* output steps begun */
  AdjStepIndex     *steps;
  PetscReal        *times;
  PetscInt          nt_alloc;
  PetscInt          nopt, ndesign; /* optimization rows; design columns (-1: not yet known, 0: none or large) */
  AdjIOParticleXdmf pxdmf;         /* what <stem>-particles.xmf describes; AdjOutputClose() writes it */

  AdjIOEntry *entries;
  PetscInt    nentries, entries_alloc;

  /* the files this run writes (AdjOutputGetFileUses) and the locks held on them while it runs */
  char          xmf_path[PETSC_MAX_PATH_LEN + 32], pxmf_path[PETSC_MAX_PATH_LEN + 32];
  char          restart_partial[PETSC_MAX_PATH_LEN + 16];
  AdjIOFileLock lock_output, lock_restart;
};

/* HDF5 helpers (h5util.c). All are collective on the file's communicator unless noted. */
PetscErrorCode AdjH5FileAccess(MPI_Comm comm, hid_t *fapl);
PetscErrorCode AdjH5Exists(hid_t loc, const char path[], PetscBool *exists);
PetscErrorCode AdjH5GroupOpen(hid_t loc, const char path[], PetscBool create, hid_t *grp);
PetscErrorCode AdjH5WriteAttr(hid_t obj, const char name[], hid_t memtype, hid_t filetype, PetscInt n,
                              const void *values);
PetscErrorCode AdjH5WriteAttrString(hid_t obj, const char name[], const char value[]);
PetscErrorCode AdjH5WriteAttrInt64(hid_t obj, const char name[], PetscInt n, const int64_t values[]);
PetscErrorCode AdjH5WriteAttrReal(hid_t obj, const char name[], PetscInt n, const PetscReal values[]);
PetscErrorCode AdjH5ReadAttr(hid_t obj, const char name[], hid_t memtype, PetscInt nmax, void *values, PetscInt *count);
PetscErrorCode AdjH5ReadAttrString(hid_t obj, const char name[], size_t len, char value[], PetscBool *found);
PetscErrorCode AdjH5DatasetDims(hid_t dset, PetscInt *ndims, hsize_t dims[]);
PetscErrorCode AdjH5WriteSelection(hid_t dset, hid_t memtype, PetscInt ndims, const hsize_t start[],
                                   const hsize_t count[], PetscBool participate, const void *buf);
PetscErrorCode AdjH5ReadSelection(hid_t dset, hid_t memtype, PetscInt ndims, const hsize_t start[],
                                  const hsize_t count[], void *buf);
PetscErrorCode AdjH5AppendOpen(hid_t loc, const char name[], hid_t filetype, hsize_t ncols, hid_t *dset);
PetscErrorCode AdjH5AppendWrite(hid_t loc, const char name[], hid_t filetype, hid_t memtype, hsize_t ncols, hsize_t row,
                                hsize_t col0, hsize_t ncols_local, PetscBool participate, const void *buf);
PetscErrorCode AdjH5WriteStringDataset(hid_t loc, const char name[], const char value[], PetscBool participate);

/* DMDA <-> HDF5 boxes (h5util.c) */
PetscErrorCode AdjIODAGetBox(DM da, AdjIOBox *box);
PetscErrorCode AdjIOVecGetBox(Vec v, DM fallback, AdjIOBox *box);
PetscErrorCode AdjIOWriteBox(hid_t dset, PetscInt lead, const AdjIOBox *box, const PetscScalar *local);
PetscErrorCode AdjIOReadBox(hid_t dset, PetscInt lead, const AdjIOBox *box, PetscScalar *local);
PetscErrorCode AdjIOWriteVec(hid_t loc, const char name[], const AdjIOBox *box, Vec v);

/* Small shared utilities (h5util.c) */
PetscErrorCode AdjIOBcastString(MPI_Comm comm, char **str);
PetscErrorCode AdjIOUTCTime(char buf[], size_t len);
PetscErrorCode AdjOutputLockFiles(AdjOutput out);
PetscErrorCode AdjIOCheckWritableTarget(MPI_Comm comm, const char path[], const char option[]);
PetscErrorCode AdjIOCommitFile(MPI_Comm comm, const char tmp[], const char path[]);
PetscErrorCode AdjIOCheckName(MPI_Comm comm, const char what[], const char name[]);
PetscErrorCode AdjIOPathStem(const char path[], char stem[], size_t len);
PetscErrorCode AdjIOFormatCells(PetscInt ndims, const hsize_t cdims[], char buf[], size_t len);

/* Readers (input.c): open a dataset of numbers, check that every value read from an input file is finite */
typedef enum { ADJ_INPUT_CELL, ADJ_INPUT_PARTICLE, ADJ_INPUT_ENTRY } AdjInputPlace; /* how to name a position */
PetscErrorCode AdjInputOpenDataset(MPI_Comm comm, hid_t file, const char path[], const char dset[], hid_t *d);
PetscErrorCode AdjInputReadDataEnd(const char path[], const char dset[], PetscErrorCode ierr);
/* A reader's read `call` of dataset dset of file path: an HDF5 failure names the file and the dataset */
#define AdjInputReadData(path, dset, call)                                                                             \
  (PetscPushErrorHandler(PetscReturnErrorHandler, NULL) ? PETSC_ERR_LIB : AdjInputReadDataEnd(path, dset, (call)))
PetscErrorCode AdjInputCheckFinite(MPI_Comm comm, hid_t file, const char path[], const char dset[], PetscInt slice,
                                   AdjInputPlace place, const AdjIOBox *box, const PetscReal a[]);

/* Writer internals shared between files */
PetscErrorCode AdjOutputWriteProvenance(AdjOutput out, hid_t file, PetscBool full);
PetscErrorCode AdjOutputWriteGridGroup(AdjOutput out, hid_t file);
/* A standalone restart file: Begin creates <restart path>.partial with the root attributes, a short
 * /provenance and /grid; the caller writes /restart; End closes it and renames it over the old one. */
PetscErrorCode AdjOutputRestartFileBegin(AdjOutput out, const char caller[], char tmp[], size_t len, hid_t *file);
PetscErrorCode AdjOutputRestartFileEnd(AdjOutput out, const char tmp[], hid_t file);
PetscErrorCode AdjOutputWriteRestartGroup(AdjOutput out, hid_t file, const char solver[], AdjStepIndex step,
                                          PetscReal time, PetscInt nfields, const char *const names[], Vec fields[]);
PetscErrorCode AdjOutputCheckOpen(AdjOutput out, const char caller[]);
PetscErrorCode AdjOutputGetEntry(AdjOutput out, AdjIOEntryKind kind, const char path[], const char name[],
                                 AdjIOEntry **entry);
PetscErrorCode AdjOutputWriteXdmf(AdjOutput out, const char xmf[], const char h5name[]);
PetscErrorCode AdjOutputGetXdmfPath(AdjOutput out, char xmf[], size_t len);
PetscErrorCode AdjOutputGetParticleXdmfPath(AdjOutput out, char xmf[], size_t len);
PetscErrorCode AdjOutputCommitParticleXdmf(AdjOutput out);
