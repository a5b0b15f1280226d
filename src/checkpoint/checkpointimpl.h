/* Private definition of AdjCheckpoint, shared by checkpoint.c (object, schedule, RAM level) and
   checkpointhdf5.c (disk level). */
#pragma once

#include <adjsim/checkpoint.h>
#include <adjsim/io.h>
#include <hdf5.h>

/* Disk level: one parallel HDF5 file, one contiguous dataset of N scalars per disk stack position. */
typedef struct {
  hid_t         file;                     /* H5I_INVALID_HID while closed */
  char          path[PETSC_MAX_PATH_LEN]; /* path the open file was created with */
  hid_t        *dsets;                    /* dsets[k]: dataset "/slot_<k>", H5I_INVALID_HID until first written */
  PetscInt      ndsets;                   /* capacity of dsets */
  PetscInt      global_size, local_size, rstart; /* layout the file was created for */
  AdjIOFileLock lock;                            /* held while the file exists, so no other run uses it */
} AdjCheckpointDisk;

struct _p_AdjCheckpoint {
  MPI_Comm comm;

  /* configuration */
  PetscInt  ram, disk;                     /* requested slots per level */
  PetscBool store_all;                     /* c = n, all in RAM */
  PetscBool online;                        /* AdjRevolveOnline: n decided while running (AdjCheckpointStop) */
  PetscBool monitor;                       /* print every action */
  char      disk_file[PETSC_MAX_PATH_LEN]; /* -checkpoint_disk_file */
  PetscBool slots_set, store_all_set;      /* set programmatically: options do not override */
  PetscBool disk_file_set;                 /* named by the option or AdjCheckpointSetDiskFile(): no default */

  /* current schedule (built by SetUp) */
  AdjRevolve       rev;
  AdjRevolveOnline onl;                 /* the schedule instead of rev with -checkpoint_type online */
  AdjStepIndex     nsteps;              /* n; with online the maximum until AdjCheckpointStop, then the final n */
  AdjStepIndex     next_reverse;        /* online: next step to reverse (a snapshot of a step >= it is dead) */
  PetscInt         nslots, nram, ndisk; /* effective: positions 0..ndisk-1 on disk, ndisk..nslots-1 in RAM */
  AdjStepIndex    *slot_step;           /* step stored in each stack position, -1 if none */
  AdjRevolveAction last;                /* action handed out last, to validate Store/Load */
  int64_t          nactions;            /* actions handed out since SetUp */
  int64_t          stopped_after;       /* online: nactions when AdjCheckpointStop was called, else -1 */
  PetscBool        summary_done;        /* TERMINATE summary printed */

  /* RAM level: ramvecs[k] holds stack position ndisk + k, duplicated lazily from the template */
  Vec      template_vec;
  Vec     *ramvecs;
  PetscInt nramvecs;

  AdjCheckpointDisk  diskio;
  AdjCheckpointStats stats;
};

/* disk level (checkpointhdf5.c) */
PETSC_INTERN PetscErrorCode AdjCheckpointDiskOpen(AdjCheckpoint ckpt, Vec layout, PetscInt ndisk);
PETSC_INTERN PetscErrorCode AdjCheckpointDiskWrite(AdjCheckpoint ckpt, PetscInt position, Vec x);
PETSC_INTERN PetscErrorCode AdjCheckpointDiskRead(AdjCheckpoint ckpt, PetscInt position, Vec x);
PETSC_INTERN PetscErrorCode AdjCheckpointDiskClose(AdjCheckpoint ckpt);

/* bookkeeping shared by Store and the replay of a stopped schedule (resume.c) */
PETSC_INTERN PetscErrorCode AdjCheckpointMarkShot(AdjCheckpoint ckpt, PetscInt pos, AdjStepIndex step);
PETSC_INTERN PetscErrorCode AdjCheckpointWriteSlot(AdjCheckpoint ckpt, PetscInt pos, Vec x);
