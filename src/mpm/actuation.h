/* Active stress of soft-robot actuators in the MPM solver (actuation.c, docs/mpm.md "Actuation").
 *
 * An actuator group drives the particles of one label with the Kirchhoff stress
 *   fibre:      tau_act = a_g(t) s (F f)(F f)^T   (f the unit fibre direction of the reference configuration,
 *                                                 carried and stretched by F, as DiffTaichi's soft robots)
 *   isotropic:  tau_act = a_g(t) s J I           (a Cauchy pressure-like stress a s I)
 * added to the model's Kirchhoff stress inside the P2G kernel (MPMParticleToGrid: one scatter for both); s the
 * strength [Pa], a_g(t) the dimensionless level of group g.  The levels come from a signal (here: open loop, a Fourier
 * series or piecewise linear per group) or a closed-loop controller (controller.c: a neural network of state
 * features) that supplies the levels of a step (MPMActuationStepLevels) and takes their adjoints
 * (MPMActuationStepStressAdjointEnd): the stress kernels only see level[g] and give levelb[g]. */
#pragma once

#include "mpmimpl.h"

#define MPM_MAX_ACTUATORS 8
#define MPM_ACT_MAX_MODES 16 /* also at most 2 MPM_ACT_MAX_MODES + 1 knots */

typedef struct {
  PetscInt  label;     /* the label whose particles this group drives */
  PetscBool isotropic; /* tau = a s J I instead of the fibre stress */
  PetscReal fiber[MPM_DIM];
  PetscReal strength; /* s [Pa] */
  char      spec[256];
  char      option[32];
} MPMActuator;

struct _n_MPMActuation {
  PetscInt    nact;
  MPMActuator act[MPM_MAX_ACTUATORS];
  PetscInt    group_of_label[MPM_MAX_LABELS]; /* actuator group of a label, -1: none */
  PetscInt64  count[MPM_MAX_ACTUATORS];       /* particles per group, all ranks */
  /* open-loop signal per group g: u_g(t) = c0 + sum_k c_{2k-1} sin(k w t) + c_{2k} cos(k w t), w = 2 pi / period
     (Fourier), or the periodic linear interpolation of the values c_j at the knots t_j = j period / n (linear);
     level a_g = bound tanh(u_g / bound) (bound > 0) or u_g (bound = 0) */
  PetscBool linear;        /* piecewise-linear signal instead of the Fourier series */
  PetscInt  nmodes, ncoef; /* K (Fourier) or n knots (linear); 1 + 2K or n coefficients per group */
  PetscReal period, bound;
  PetscReal coef[MPM_MAX_ACTUATORS * (1 + 2 * MPM_ACT_MAX_MODES)];  /* parameter block "actuation" */
  PetscReal gcoef[MPM_MAX_ACTUATORS * (1 + 2 * MPM_ACT_MAX_MODES)]; /* this rank's partial dJ/dcoef */
  PetscReal scoef[MPM_MAX_ACTUATORS * (1 + 2 * MPM_ACT_MAX_MODES)]; /* summed over ranks */
  PetscReal level[MPM_MAX_ACTUATORS];                               /* a_g of the step being taken */
  PetscReal levelb[MPM_MAX_ACTUATORS];                              /* this rank's part of dJ/da_g of that step */
  PetscReal energy_weight;                                          /* J += w dt sum_steps sum_g a_g^2 */

  /* closed-loop controller (controller.h) of all groups; NULL: the open-loop signal */
  struct _n_MPMController *ctrl;
};

/* m = F f: the unit fibre f of actuator A carried by F (the active stress and the controller's stretch feature). */
static inline void MPMFibreImage(const MPMActuator *A, const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar m[MPM_DIM])
{
  for (PetscInt a = 0; a < MPM_DIM; a++) m[a] = F[a][0] * A->fiber[0] + F[a][1] * A->fiber[1];
}

/* Kernels (actuation.c): the active stress of a particle and its adjoint (called by the P2G kernel and its adjoint,
 * transfer.c, for the particles of actuated labels); the signal and its adjoint. */
void MPMActiveStress(const MPMActuator *A, PetscReal level, const PetscScalar F[MPM_DIM][MPM_DIM],
                     PetscScalar tau[MPM_DIM][MPM_DIM]);
void MPMActiveStressAdjoint(const MPMActuator *A, PetscReal level, const PetscScalar F[MPM_DIM][MPM_DIM],
                            const PetscScalar taub[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM],
                            PetscReal *levelb);
void MPMActuationSignal(const struct _n_MPMActuation *act, PetscReal t, PetscReal level[]);
void MPMActuationSignalAdjoint(const struct _n_MPMActuation *act, PetscReal t, const PetscReal levelb[],
                               PetscReal coefb[]);
