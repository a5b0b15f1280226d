/* Checks of option values shared by every solver: one clear message naming the option and the value. */
#pragma once

#include <adjsim/sys.h>

/* What a real option may hold besides being finite (inf and nan are never accepted). */
typedef enum { ADJ_REAL_FINITE, ADJ_REAL_NONNEGATIVE, ADJ_REAL_POSITIVE } AdjRealRange;

/*@ AdjCheckRealOption - refuses a value of a real option that is inf, nan or outside range, with
    "<option> <value>: must be a finite number > 0 [units]".  units may be NULL.  Collective (every rank
    holds the same option value, so every rank raises the same error). @*/
PetscErrorCode AdjCheckRealOption(MPI_Comm comm, const char option[], PetscReal value, AdjRealRange range,
                                  const char units[]);
/*@ AdjCheckRealOptionArray - the same for each of the n values of an array option. Collective. @*/
PetscErrorCode AdjCheckRealOptionArray(MPI_Comm comm, const char option[], PetscInt n, const PetscReal values[],
                                       AdjRealRange range, const char units[]);
