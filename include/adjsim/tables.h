/* Rank-local reads of small HDF5 tables (particle files, observation rows): serial HDF5, no MPI and
 * no PETSc errors, so that one rank can read and check a file and then broadcast both the data and
 * the verdict (a collective PetscCheck after the broadcast), and a bad file never hangs a run.
 * Every function returns 0 on success and nonzero with a message in msg. Physics code reads files
 * through these and through AdjInput* (include/adjsim/io.h); none includes HDF5 itself. */
#pragma once

#include <adjsim/sys.h>

typedef struct _n_AdjTableFile *AdjTableFile;

/* Opens path read-only; `what` names the file in messages ("the particle file"). HDF5's own error
 * stack is silenced until AdjTableFileClose: the caller's message is the one the user sees. */
int AdjTableFileOpen(const char path[], const char what[], AdjTableFile *file, char msg[], size_t len);
/* Whether the file holds the object (group or dataset) at `name`. */
int AdjTableFileHas(AdjTableFile file, const char name[]);
/* Dataset `name` as n rows of ncomp reals: shaped (N) for ncomp 1, (N, ncomp) otherwise, or with one
   leading time dimension, of which the last slice is taken. *data = NULL (and 0 returned) when the
   dataset is absent; free *data with free(). A NaN or an Inf in the rows taken is an error naming the
   dataset and the first such row. */
int  AdjTableFileRead(AdjTableFile file, const char name[], PetscInt ncomp, PetscInt *n, PetscReal **data, char msg[],
                      size_t len);
void AdjTableFileClose(AdjTableFile *file);

/* Rows [first, first + count) of slice `slice` of a dataset shaped (nt, N, ncomp), into buf
   (count * ncomp reals); *nt = its number of slices; *bad = the first of these rows holding a NaN or an
   Inf (a row of the dataset), or -1.  Returns 0, or 1 (cannot read), 2 (not shaped (nt, N, ncomp)),
   3 (no such slice), 4 (row *bad is not finite). */
int AdjTableReadRows(const char path[], const char name[], PetscInt64 slice, PetscInt64 N, PetscInt ncomp,
                     PetscInt64 first, PetscInt64 count, PetscReal *buf, PetscInt64 *nt, PetscInt64 *bad);

/* The index of the first NaN or Inf among a[0..n), or -1; *what (may be NULL) is "NaN", "+Inf" or "-Inf".
   Every reader of input files (these and the AdjInput* readers of include/adjsim/io.h) refuses a
   non-finite value through this one test: a NaN in a file must never pass for data. (AdjDriverForward
   uses it too, on the states it keeps.) */
PetscInt64 AdjTableFirstNonFinite(const PetscReal a[], PetscInt64 n, const char **what);
