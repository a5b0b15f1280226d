/* Closed-loop neural-network controller of the MPM actuators (controller.c, docs/mpm.md "Closed-loop controller").
 *
 * At the start of step k (state x_{k-1}, time t = (k - 1) dt) the controller maps documented state features f
 * (MPMFeatures) through a dense network with tanh hidden layers (MPMNetworkForward) to the levels a_g of the actuator
 * groups, which the P2G kernel turns into the active stress (actuation.c).  The weights and biases are the parameter
 * block "controller"; the gradient flows back through the network into the weights and through the features into
 * the state adjoint of x_{k-1}. */
#pragma once

#include "actuation.h"

#define MPM_CTRL_MAX_HIDDEN   4                                   /* hidden layers */
#define MPM_CTRL_MAX_WIDTH    64                                  /* units per hidden layer */
#define MPM_CTRL_MAX_PERIODS  4                                   /* clock periods */
#define MPM_CTRL_MAX_GROUPS   MPM_MAX_ACTUATORS                   /* the controller drives every actuator group */
#define MPM_CTRL_NSUMS        (2 * MPM_DIM + MPM_CTRL_MAX_GROUPS) /* particle sums: x, v, stretch per group */
#define MPM_CTRL_MAX_FEATURES (2 * MPM_DIM + MPM_CTRL_MAX_GROUPS + 2 * MPM_CTRL_MAX_PERIODS)
#define MPM_CTRL_MAX_UNITS    (MPM_CTRL_MAX_FEATURES + MPM_CTRL_MAX_HIDDEN * MPM_CTRL_MAX_WIDTH + MPM_CTRL_MAX_GROUPS)

/* A dense network: layer l maps width[l] units to width[l + 1] units by z = W h + b (W row-major width[l + 1] x
 * width[l], then b: the weights of layer l follow those of layer l - 1), h' = tanh(z) for the hidden layers and
 * a = B tanh(z / B) (B > 0) or a = z (B = 0) for the output layer. */
typedef struct {
  PetscInt  nlayers; /* weight layers: hidden layers + 1 */
  PetscInt  width[MPM_CTRL_MAX_HIDDEN + 2];
  PetscInt  nweights;
  PetscReal bound;
} MPMNetwork;

/* The features of a state, from the sums over its particles (MPMFeatureSums); the groups, their labels, fibres and
 * particle counts are the actuation's (actuation.h, not copied):
 *   f_0, f_1 = (xbar - xbar_0) / ell,  f_2, f_3 = vbar / U   (xbar, vbar: particle averages, equal weights),
 *   f_{4+g} = (lambda_g - 1) / eps,  lambda_g the average over group g's particles of the fibre stretch |F f_g|
 *             (isotropic group: J = det F),
 *   then sin(2 pi t / T_j), cos(2 pi t / T_j) per clock period T_j. */
typedef struct {
  const struct _n_MPMActuation *act; /* the actuator groups (act->nact = ngroups once set up) */
  PetscInt                      ngroups;
  PetscReal                     nparticles;         /* all ranks */
  PetscReal                     centroid0[MPM_DIM]; /* xbar_0: the particle average of the initial state at set-up */
  PetscReal                     length, speed, stretch; /* ell [m], U [m/s], eps [1] */
  PetscInt                      nperiods;
  PetscReal                     period[MPM_CTRL_MAX_PERIODS];
} MPMFeatureMap;

static inline PetscInt MPMFeatureCount(const MPMFeatureMap *m)
{
  return 2 * MPM_DIM + m->ngroups + 2 * m->nperiods;
}

struct _n_MPMController {
  MPMNetwork    net;
  MPMFeatureMap map;
  PetscReal    *w;  /* weights and biases: the parameter block "controller" */
  PetscReal    *gw; /* dJ/dw: rank 0 accumulates (the level adjoints are summed over ranks first) */
  PetscReal    *sw; /* summed over ranks */
  PetscReal     units[MPM_CTRL_MAX_UNITS]; /* the network's units of the step being taken (input first) */
};
typedef struct _n_MPMController *MPMController;

/* Kernels: each followed by its adjoint. */
void MPMFeatureSums(const MPMFeatureMap *m, PetscInt n, PetscInt nrec, const PetscScalar *x,
                    const MPMMaterialPoint mat[], PetscReal sums[]);
void MPMFeatureSumsAdjoint(const MPMFeatureMap *m, PetscInt n, PetscInt nrec, const PetscScalar *x,
                           const MPMMaterialPoint mat[], const PetscReal sumsb[], PetscScalar *xb);
void MPMFeatures(const MPMFeatureMap *m, const PetscReal sums[], PetscReal t, PetscReal f[]);
void MPMFeaturesAdjoint(const MPMFeatureMap *m, const PetscReal fb[], PetscReal sumsb[]);
void MPMNetworkForward(const MPMNetwork *net, const PetscReal w[], const PetscReal in[], PetscReal units[]);
void MPMNetworkAdjoint(const MPMNetwork *net, const PetscReal w[], const PetscReal units[], const PetscReal outb[],
                       PetscReal wb[], PetscReal inb[]);
void MPMNetworkInitialize(const MPMNetwork *net, PetscReal gain, PetscInt seed, PetscReal w[]);

/* The network's output (the levels) in units[]. */
static inline PetscInt MPMNetworkOutputOffset(const MPMNetwork *net)
{
  PetscInt off = 0;
  for (PetscInt l = 0; l < net->nlayers; l++) off += net->width[l];
  return off;
}

/* Set-up and the step's hooks (controller.c; called by actuation.c) */
PetscErrorCode MPMControllerCreate(MPM mpm, PetscInt nact, PetscReal period, PetscReal bound, MPMController *ctrl);
PetscErrorCode MPMControllerSetUp(MPM mpm);
PetscErrorCode MPMControllerDestroy(MPMController *ctrl);
PetscErrorCode MPMControllerLevels(MPM mpm, AdjStepIndex k, Vec x, PetscReal level[]);
PetscErrorCode MPMControllerLevelsAdjoint(MPM mpm, Vec x, const PetscReal levelb[], Vec lambda);
PetscErrorCode MPMControllerGradientSums(MPM mpm);
PetscErrorCode MPMControllerRegister(MPM mpm, AdjStepper st, AdjParams params);
