/* The body-fitted airfoil flow solver (issue 13): incompressible Navier-Stokes on the O-grid of
 * include/adjsim/ogrid.h around a circle, a NACA 4-digit airfoil or a Selig .dat airfoil, in the free
 * stream U_inf (cos alpha, sin alpha) at the Reynolds number of the chord (diameter).  Run as
 * `adjsim -problem airfoil`; the method and the options: docs/airfoil.md.  Forward runs only for now: a
 * gradient, optimization or adjoint check is refused (the stepper has no adjoint operations). */
#pragma once

#include <adjsim/stepper.h>

/*@ AdjStepperCreate_Airfoil - the "airfoil" stepper type (registered by AdjStepperRegisterAll). @*/
PetscErrorCode AdjStepperCreate_Airfoil(AdjStepper stepper);
