/* The body-fitted airfoil flow solver (issue 13): incompressible Navier-Stokes on the O-grid of
 * include/adjsim/ogrid.h around a circle, a NACA 4-digit, CST, Joukowski or Selig .dat airfoil, in the free
 * stream U_inf (cos alpha, sin alpha) at the Reynolds number of the chord (diameter).  Run as
 * `adjsim -problem airfoil`; the method and the options: docs/airfoil.md.  Its exact adjoint gives gradients in
 * the angle of attack, the Reynolds number and the block shape (NACA m, p, t; CST; Joukowski: through the grid) for
 * force objectives. */
#pragma once

#include <adjsim/stepper.h>

/*@ AdjStepperCreate_Airfoil - the "airfoil" stepper type (registered by AdjStepperRegisterAll). @*/
PetscErrorCode AdjStepperCreate_Airfoil(AdjStepper stepper);
