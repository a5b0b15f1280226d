/* Checks of option values shared by every solver (see include/adjsim/optcheck.h). */
#include <adjsim/optcheck.h>
#include <stdio.h>

static const char *const AdjRealRangeText[] = {"a finite number", "a finite number >= 0", "a finite number > 0"};

/* The value as the user wrote it: C's %g (inf, nan, 1e-05), not PETSc's (which writes "inf."). */
static const char *AdjRealText(PetscReal v, char buf[], size_t len)
{
  snprintf(buf, len, "%g", (double)v);
  return buf;
}

static PetscBool AdjRealInRange(PetscReal v, AdjRealRange range)
{
  if (PetscIsInfOrNanReal(v)) return PETSC_FALSE;
  if (range == ADJ_REAL_NONNEGATIVE) return (PetscBool)(v >= 0);
  if (range == ADJ_REAL_POSITIVE) return (PetscBool)(v > 0);
  return PETSC_TRUE;
}

PetscErrorCode AdjCheckRealOption(MPI_Comm comm, const char option[], PetscReal value, AdjRealRange range,
                                  const char units[])
{
  char text[32];

  PetscFunctionBeginUser;
  PetscCheck(AdjRealInRange(value, range), comm, PETSC_ERR_USER_INPUT, "%s %s: must be %s%s%s%s", option,
             AdjRealText(value, text, sizeof(text)), AdjRealRangeText[range], units && units[0] ? " [" : "",
             units && units[0] ? units : "", units && units[0] ? "]" : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjCheckRealOptionArray(MPI_Comm comm, const char option[], PetscInt n, const PetscReal values[],
                                       AdjRealRange range, const char units[])
{
  char text[32];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++)
    PetscCheck(AdjRealInRange(values[i], range), comm, PETSC_ERR_USER_INPUT,
               "%s: value %" PetscInt_FMT " of %" PetscInt_FMT " is %s, must be %s%s%s%s", option, i + 1, n,
               AdjRealText(values[i], text, sizeof(text)), AdjRealRangeText[range], units && units[0] ? " [" : "",
               units && units[0] ? units : "", units && units[0] ? "]" : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}
