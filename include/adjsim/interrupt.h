/* Graceful interruption of forward runs (batch-system time limits).
 * On SIGUSR1 or SIGTERM a forward run finishes its current step, writes its restart file and
 * exits with ADJ_EXIT_INTERRUPTED, so that a job script can requeue itself and continue with
 * -restart.  The signal only sets a flag; the ranks agree on it collectively once per step. */
#pragma once

#include <adjsim/sys.h>

/* Exit status of a run stopped by a signal after writing its restart state. */
#define ADJ_EXIT_INTERRUPTED 85

PetscErrorCode AdjInterruptInstall(void);
PetscErrorCode AdjInterruptRequested(MPI_Comm comm, PetscBool *requested);
PetscErrorCode AdjInterruptRaise(void);
