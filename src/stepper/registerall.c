/* The solvers adjsim ships, registered by name (-problem). */
#include "stepperimpl.h"
#include <adjsim/transport.h>
#include <adjsim/fluid.h>
#include <adjsim/mpm.h>
#include <adjsim/airfoil.h>

PetscErrorCode AdjStepperRegisterAll(void)
{
  static PetscBool done = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (done) PetscFunctionReturn(PETSC_SUCCESS);
  done = PETSC_TRUE;
  PetscCall(AdjStepperRegister("transport", "advection-diffusion of a passive scalar in a prescribed flow",
                               AdjStepperCreate_Transport));
  PetscCall(AdjStepperRegister("fluid", "incompressible Navier-Stokes on a staggered grid", AdjStepperCreate_Fluid));
  PetscCall(AdjStepperRegister("mpm", "material point method for elastic soft bodies", AdjStepperCreate_MPM));
  PetscCall(AdjStepperRegister("airfoil",
                               "incompressible Navier-Stokes on a body-fitted O-grid around an airfoil or cylinder",
                               AdjStepperCreate_Airfoil));
  PetscFunctionReturn(PETSC_SUCCESS);
}
