/* Material Point Method for soft bodies: the "mpm" AdjStepper.
 *
 * 2-D MLS-MPM (Hu et al. 2018) with APIC transfers and quadratic B-spline weights, explicit time
 * stepping, on a background grid of nodes held by a PETSc DMDA split across ranks.  Elastic
 * constitutive models: fixed-corotated (Stomakhin et al. 2012) and compressible neo-Hookean,
 * with Young's modulus, Poisson ratio and density per particle, set per region (label).  Gravity,
 * sticky, slip or smoothed-Coulomb friction walls per side, bodies made of boxes and disks.  Options: prefix -mpm_
 * (adjsim -help); docs/mpm.md.
 *
 * Forward solver and its discrete adjoint: every kernel is a pure function with its hand-written
 * adjoint right below it (src/mpm/, by topic; constitutive models through the table of
 * src/mpm/mpmmodel.h, one file each in src/mpm/models/); the stepper has the full set of adjoint ops, parameter
 * blocks E, nu, rho (per label), gravity, velocity (initial velocity per body), position (translation per
 * body), friction (with friction walls), per-particle E_field, nu_field with Tikhonov regularization, and
 * objectives (particle-position misfit to an earlier run, centre-of-mass target). */
#pragma once

#include <adjsim/stepper.h>

/*@ AdjStepperCreate_MPM - the "mpm" stepper type (registered by AdjStepperRegisterAll; create it with
    AdjStepperCreate, AdjStepperSetType(st, "mpm") or -problem mpm, then AdjStepperSetFromOptions). @*/
PetscErrorCode AdjStepperCreate_MPM(AdjStepper stepper);

/*@ MPMGetNumParticles - the global number of particles. Not collective. @*/
PetscErrorCode MPMGetNumParticles(AdjStepper stepper, PetscInt *n);

/* Order-independent summaries of a state, identical on every rank (sums in a fixed order are not
   promised: they agree to round-off). */
typedef struct {
  PetscReal mass;         /* total mass [kg/m] (per unit depth in 2-D) */
  PetscReal centre[2];    /* centre of mass [m] */
  PetscReal momentum[2];  /* total momentum [kg/s] */
  PetscReal kinetic;      /* kinetic energy of the particle velocities [J/m] */
  PetscReal elastic;      /* stored elastic energy [J/m] */
  PetscReal potential;    /* gravitational potential energy relative to y = 0 [J/m] */
  PetscReal min_J, max_J; /* extreme det F */
  PetscReal max_speed;    /* largest particle speed [m/s] */
} MPMSummary;

/*@ MPMSummarize - mass, centre of mass, momentum, energies of the state x. Collective. @*/
PetscErrorCode MPMSummarize(AdjStepper stepper, Vec x, MPMSummary *s);
