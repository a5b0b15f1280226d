/* adjsim io: the run file (one HDF5 file per run, written collectively) and its readers.
 *
 * The layout is specified in docs/output-format.md. In short: /provenance, /grid, /fields (time series
 * of DMDA fields in natural ordering), /gradients, /parameters, /optimization, /restart, plus an XDMF
 * file beside the run file so ParaView can open it. The file is written as "<path>.partial" and renamed
 * to <path> only by AdjOutputClose(), so nothing half-written ever carries the final name.
 */
#pragma once

#include <adjsim/sys.h>
#include <petscdmda.h>

/** Writer for one run file. Opaque; create with AdjOutputCreate(), free with AdjOutputDestroy(). */
typedef struct _p_AdjOutput *AdjOutput;

/** A file a run reads or writes, with the option that names it; a written file may also be the input of the
 *  option may_be (NULL: of none), e.g. the restart file a run resumes from. */
typedef struct {
  const char *path, *option, *may_be;
} AdjIOFileUse;

/** Root attribute "format" of adjsim's scratch files (e.g. the checkpoint file, content "checkpoints"). */
#define ADJ_IO_SCRATCH_FORMAT "adjsim-scratch"

/** A lock on a file being written (AdjIOFileLockAcquire). Opaque. */
typedef struct _p_AdjIOFileLock *AdjIOFileLock;

/** Version of the layout written by this code (root attribute format_version). */
#define ADJ_OUTPUT_FORMAT_VERSION 1

/* The command line recorded in /provenance (call in main() before PetscInitialize) */
PetscErrorCode AdjSetCommandLine(int argc, char **argv);

/* Lifecycle and settings */
PetscErrorCode AdjOutputCreate(MPI_Comm comm, AdjOutput *out);
PetscErrorCode AdjOutputSetFromOptions(AdjOutput out);
PetscErrorCode AdjOutputSetPath(AdjOutput out, const char path[]);
PetscErrorCode AdjOutputSetXdmf(AdjOutput out, PetscBool xdmf);
PetscErrorCode AdjOutputGetPath(AdjOutput out, const char *path[]);
PetscErrorCode AdjOutputSetRestartPath(AdjOutput out, const char path[]);
PetscErrorCode AdjOutputGetRestartPath(AdjOutput out, const char *path[]);
PetscErrorCode AdjOutputSetGrid(AdjOutput out, DM da, const PetscReal lower[], const PetscReal upper[],
                                const char units[]);
PetscErrorCode AdjOutputOpen(AdjOutput out);
PetscErrorCode AdjOutputClose(AdjOutput out);
PetscErrorCode AdjOutputDestroy(AdjOutput *out);
PetscErrorCode AdjOutputGetCompanionPath(AdjOutput out, const char suffix[], char path[], size_t len);
#define ADJ_OUTPUT_FILE_USES 6 /* entries AdjOutputGetFileUses() returns */
PetscErrorCode AdjOutputGetFileUses(AdjOutput out, PetscInt *n, AdjIOFileUse uses[]);

/* Files a run writes: refused when they would destroy an input or each other (before any work), and locked
 * while written so that two live runs never write one file (src/io/files.c) */
PetscErrorCode AdjIOCheckFileUses(MPI_Comm comm, PetscInt nt, const AdjIOFileUse targets[], PetscInt nin,
                                  const AdjIOFileUse inputs[]);
PetscErrorCode AdjIOFileLockAcquire(MPI_Comm comm, const char path[], const char option[], AdjIOFileLock *lock);
PetscErrorCode AdjIOFileLockRelease(AdjIOFileLock *lock);
PetscErrorCode AdjIOCheckScratchFile(MPI_Comm comm, const char path[], const char option[], const char content[]);

/* When to write */
PetscErrorCode AdjOutputIsOutputStep(AdjOutput out, AdjStepIndex step, AdjStepIndex nsteps, PetscBool *yes);
PetscErrorCode AdjOutputIsRestartStep(AdjOutput out, AdjStepIndex step, PetscBool *yes);

/* Time series of fields */
PetscErrorCode AdjOutputBeginStep(AdjOutput out, AdjStepIndex step, PetscReal time);
PetscErrorCode AdjOutputWriteField(AdjOutput out, const char name[], const char units[], Vec v);

/* Gradients, parameters, optimization history */
/* Where parameter blocks and their gradients go: /parameters/<name> or /gradients/<name>. */
typedef enum { ADJ_OUTPUT_PARAMETERS, ADJ_OUTPUT_GRADIENTS } AdjOutputGroup;
PetscErrorCode AdjOutputWriteBlockField(AdjOutput out, AdjOutputGroup group, const char name[], const char units[],
                                        Vec v);
PetscErrorCode AdjOutputWriteBlockArray(AdjOutput out, AdjOutputGroup group, const char name[], const char units[],
                                        PetscInt n, const PetscReal values[]);
PetscErrorCode AdjOutputWriteOptimizationIteration(AdjOutput out, PetscInt it, PetscReal objective, PetscReal gnorm,
                                                   Vec design);
PetscErrorCode AdjOutputWriteRankArray(AdjOutput out, const char group[], const char name[], PetscInt n,
                                       const PetscScalar a[]);
PetscErrorCode AdjOutputWriteOptimizationArray(AdjOutput out, const char name[], const char units[], PetscInt n,
                                               const PetscReal values[]);

/*@ AdjOutputWriteCurvilinearGrid - the node coordinates of a curvilinear 2-D grid of the output's cells
    ((cells[1] + 1) x (cells[0] + 1) nodes, row-major, the same on every rank; a periodic direction repeats
    its first node column) to /grid/x_nodes and /grid/y_nodes; the XDMF file then describes the grid as a
    2DSMesh with X_Y geometry, so ParaView shows the fields on the real geometry. Once per run file (later
    calls do nothing). Collective. @*/
PetscErrorCode AdjOutputWriteCurvilinearGrid(AdjOutput out, const PetscReal x[], const PetscReal y[]);

/* Per-step scalar histories (e.g. force coefficients): rows appended to /history/<name> */
PetscErrorCode AdjOutputAppendHistory(AdjOutput out, const char name[], const char columns[], PetscInt ncols,
                                      PetscInt nrows, const PetscReal values[]);

/* Restart state */
PetscErrorCode AdjOutputWriteRestart(AdjOutput out, const char solver[], AdjStepIndex step, PetscReal time,
                                     PetscInt nfields, const char *const names[], Vec fields[]);
PetscErrorCode AdjOutputWriteRestartFile(AdjOutput out, const char solver[], AdjStepIndex step, PetscReal time,
                                         PetscInt nfields, const char *const names[], Vec fields[]);
/* The objective summed over steps 1..step of the state the following restart writes record (attribute
   objective of /restart), so a run continued from it reports the objective of the whole run. */
PetscErrorCode AdjOutputSetRestartObjective(AdjOutput out, PetscReal objective);

/* Free-form metadata */
PetscErrorCode AdjOutputSetAttribute(AdjOutput out, const char group[], const char name[], const char value[]);
PetscErrorCode AdjOutputSetAttributeReal(AdjOutput out, const char group[], const char name[], PetscReal value);
PetscErrorCode AdjOutputSetAttributeInts(AdjOutput out, const char group[], const char name[], PetscInt n,
                                         const PetscInt values[]);
PetscErrorCode AdjOutputSetAttributeReals(AdjOutput out, const char group[], const char name[], PetscInt n,
                                          const PetscReal values[]);

/* Readers. Every failure is a PETSc error raised on all ranks of comm, naming the file and the problem. */
PetscErrorCode AdjInputReadRestart(MPI_Comm comm, const char path[], const char solver[], DM da, PetscInt nfields,
                                   const char *const names[], Vec fields[], AdjStepIndex *step, PetscReal *time);
PetscErrorCode AdjInputGetFieldTimes(MPI_Comm comm, const char path[], const char name[], PetscInt *nt,
                                     AdjStepIndex **steps, PetscReal **times);
PetscErrorCode AdjInputReadFieldSlice(MPI_Comm comm, const char path[], const char name[], PetscInt index, DM da,
                                      Vec v);
PetscErrorCode AdjInputReadFieldSlices(MPI_Comm comm, const char path[], const char name[], PetscInt first,
                                       PetscInt count, DM da, Vec v[]);
PetscErrorCode AdjInputReadField(MPI_Comm comm, const char path[], const char dataset[], DM da, Vec v);
PetscErrorCode AdjInputReadRankArray(MPI_Comm comm, const char path[], const char option[], const char dataset[],
                                     PetscInt n, PetscScalar a[]);
PetscErrorCode AdjInputReadAttributeString(MPI_Comm comm, const char path[], const char group[], const char name[],
                                           size_t len, char value[], PetscBool *found);
PetscErrorCode AdjInputHasDataset(MPI_Comm comm, const char path[], const char dataset[], PetscBool *has);
PetscErrorCode AdjInputReadRestartObjective(MPI_Comm comm, const char path[], PetscReal *objective, PetscBool *found);
PetscErrorCode AdjInputReadArray(MPI_Comm comm, const char path[], const char dataset[], PetscInt *n,
                                 PetscReal **values);
