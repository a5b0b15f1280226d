/* Small system helpers shared by every component. */
#include <adjsim/sys.h>

/*@ AdjLogRegisterEvents - registers a PETSc log class and its events, once: a later call (a second
    solver of the same type) finds the first event registered and does nothing. Not collective. @*/
PetscErrorCode AdjLogRegisterEvents(const char classname[], PetscInt n, const AdjLogEvent events[])
{
  PetscClassId id;

  PetscFunctionBeginUser;
  if (n == 0 || *events[0].event) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscClassIdRegister(classname, &id));
  for (PetscInt e = 0; e < n; e++) PetscCall(PetscLogEventRegister(events[e].name, id, events[e].event));
  PetscFunctionReturn(PETSC_SUCCESS);
}
