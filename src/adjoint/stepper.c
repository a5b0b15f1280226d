/* AdjStepper: generic time-stepper object; the physics lives behind its ops table. */
#include <adjsim/stepper.h>

struct _p_AdjStepper {
  MPI_Comm      comm;
  char          name[64];
  void         *ctx; /* the implementation's own data, only touched through ops */
  AdjStepperOps ops;
  AdjParams     params;
  AdjStepIndex  nsteps;
  PetscReal     dt;
  DM            da; /* borrowed from the implementation */
  PetscReal     lower[3], upper[3];
};

PetscErrorCode AdjStepperCreate(MPI_Comm comm, AdjStepper *stepper)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(stepper));
  (*stepper)->comm   = comm;
  (*stepper)->nsteps = 0;
  (*stepper)->dt     = 0;
  PetscCall(AdjParamsCreate(comm, &(*stepper)->params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperDestroy(AdjStepper *stepper)
{
  PetscFunctionBeginUser;
  if (!*stepper) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*stepper)->ops.destroy) PetscCall((*stepper)->ops.destroy(*stepper));
  PetscCall(AdjParamsDestroy(&(*stepper)->params));
  PetscCall(PetscFree(*stepper));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetContext(AdjStepper stepper, const char name[], void *ctx, const AdjStepperOps *ops)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(stepper->name, name, sizeof(stepper->name)));
  stepper->ctx = ctx;
  stepper->ops = *ops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetContext(AdjStepper stepper, void *ctx)
{
  PetscFunctionBeginUser;
  *(void **)ctx = stepper->ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetTimes(AdjStepper stepper, AdjStepIndex nsteps, PetscReal dt)
{
  PetscFunctionBeginUser;
  stepper->nsteps = nsteps;
  stepper->dt     = dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetTimes(AdjStepper stepper, AdjStepIndex *nsteps, PetscReal *dt)
{
  PetscFunctionBeginUser;
  if (nsteps) *nsteps = stepper->nsteps;
  if (dt) *dt = stepper->dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetName(AdjStepper stepper, const char **name)
{
  PetscFunctionBeginUser;
  *name = stepper->name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetParams(AdjStepper stepper, AdjParams *params)
{
  PetscFunctionBeginUser;
  *params = stepper->params;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetComm(AdjStepper stepper, MPI_Comm *comm)
{
  PetscFunctionBeginUser;
  *comm = stepper->comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetOps(AdjStepper stepper, const AdjStepperOps **ops)
{
  PetscFunctionBeginUser;
  *ops = &stepper->ops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperSetGrid(AdjStepper stepper, DM da, const PetscReal lower[], const PetscReal upper[])
{
  PetscInt dim;

  PetscFunctionBeginUser;
  PetscCall(DMGetDimension(da, &dim));
  stepper->da = da;
  for (PetscInt d = 0; d < dim; d++) {
    stepper->lower[d] = lower[d];
    stepper->upper[d] = upper[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperGetGrid(AdjStepper stepper, DM *da, const PetscReal **lower, const PetscReal **upper)
{
  PetscFunctionBeginUser;
  *da    = stepper->da;
  *lower = stepper->lower;
  *upper = stepper->upper;
  PetscFunctionReturn(PETSC_SUCCESS);
}
