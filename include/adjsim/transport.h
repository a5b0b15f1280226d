/* Scalar transport: 2D advection-diffusion of a passive scalar c (dye, smoke, temperature) in a
 * prescribed velocity field, on a DMDA grid split across ranks, with its exact discrete adjoint.
 *
 *   dc/dt + div(u c) = div(kappa grad c) + s   on [0,Lx] x [0,Ly],   c(0) = c0
 *
 * Cell-centred finite volumes, second order in space (centred fluxes, face-averaged diffusivity),
 * SSP-RK3 in time.  Differentiable parameters: "initial" (c0 field), "kappa" (a constant or a
 * field, m^2/s) and "source" (s field, 1/s).  Options: adjsim -help, prefix -transport_. */
#pragma once

#include <adjsim/stepper.h>

/*@ AdjStepperCreate_Transport - the "transport" stepper type (registered by AdjStepperRegisterAll; create it with
    AdjStepperCreate, AdjStepperSetType(st, "transport") or -problem transport, then AdjStepperSetFromOptions). @*/
PetscErrorCode AdjStepperCreate_Transport(AdjStepper stepper);
