/* Private data of the scalar-transport solver (see include/adjsim/transport.h). */
#pragma once

#include <adjsim/transport.h>
#include <adjsim/stepper.h>
#include <petscdmda.h>

typedef enum { TRANSPORT_BC_PERIODIC, TRANSPORT_BC_DIRICHLET, TRANSPORT_BC_NEUMANN } TransportBCType;

/* Cell-centred uniform grid; this rank owns cells [xs, xs+xm) x [ys, ys+ym). */
typedef struct {
  PetscInt  Mx, My, xs, ys, xm, ym;
  PetscReal Lx, Ly, hx, hy;
} TransportGrid;

/* Ghost-cell rule on each side of a non-periodic direction: ghost = sigma * inner + beta.
 * Dirichlet value g on the face: sigma = -1, beta = 2 g (face average equals g).
 * Neumann outward derivative q:  sigma = +1, beta = h q (one-sided difference equals q).
 * Mirror (used for the diffusivity field): sigma = +1, beta = 0. */
typedef struct {
  PetscBool periodic[2];    /* [direction] */
  PetscReal sigma[2][2];    /* [direction][low, high side] */
  PetscReal beta[2][2];
} TransportGhostRule;

/* Face velocities of a prescribed steady field, local to this rank:
 * u[j][i] at the x-face left of cell i (i = xs..xs+xm), v[j][i] at the y-face below cell j. */
typedef struct {
  PetscReal *u, *v;
  PetscReal  umax, vmax; /* global maxima of |u| and |v| (stability limit) */
} TransportVelocity;

typedef struct {
  PetscInt     nobs;
  AdjStepIndex *step;     /* step of each observation */
  Vec          *data;     /* observed field at that step */
  PetscReal     weight;
  Vec           target;   /* final-time target field, or NULL */
  PetscReal     target_weight;
  PetscReal     reg_alpha[3], reg_beta[3]; /* Tikhonov weights for initial, kappa (field), source */
} TransportObjectiveData;

typedef struct _n_Transport *Transport;
struct _n_Transport {
  MPI_Comm           comm;
  DM                 da;
  TransportGrid      grid;
  TransportBCType    bctype[2];
  TransportGhostRule crule, krule; /* ghost rules for the scalar and for the diffusivity */
  TransportVelocity  vel;
  PetscReal          final_time, dt, cfl, dt_limit;
  AdjStepIndex       nsteps;
  PetscBool          kappa_is_field;
  Vec                c0, kappa, source;    /* parameter values (global vectors) */
  Vec                gc0, gkappa, gsource; /* their gradients dJ/dvalue */
  Vec                cloc, kloc, lloc, klloc; /* ghosted work vectors */
  Vec                rhs, stage[2], rbar, lstage[2];
  Vec                vel_u, vel_v;         /* cell-centred velocity for output */
  TransportObjectiveData obj;
  PetscBool          quiet;
};

/* Kernels (kernels.c): pure functions on DMDA arrays, each followed by its adjoint. */
PetscErrorCode TransportFillGhosts(const TransportGrid *g, const TransportGhostRule *rule, PetscBool homogeneous,
                                   PetscScalar **c);
PetscErrorCode TransportFillGhostsAdjoint(const TransportGrid *g, const TransportGhostRule *rule, PetscScalar **cbar);
PetscErrorCode TransportAdvection(const TransportGrid *g, const TransportVelocity *vel, const PetscScalar *const *c,
                                  PetscScalar **rhs);
PetscErrorCode TransportAdvectionAdjoint(const TransportGrid *g, const TransportVelocity *vel,
                                         const PetscScalar *const *rbar, PetscScalar **cbar);
PetscErrorCode TransportDiffusion(const TransportGrid *g, const PetscScalar *const *kappa, const PetscScalar *const *c,
                                  PetscScalar **rhs);
PetscErrorCode TransportDiffusionAdjoint(const TransportGrid *g, const PetscScalar *const *kappa,
                                         const PetscScalar *const *c, const PetscScalar *const *rbar, PetscScalar **cbar,
                                         PetscScalar **kbar);

/* Semi-discrete right-hand side R(c) = -div(u c) + div(kappa grad c) + s and its adjoint (rhs.c). */
PetscErrorCode TransportRHS(Transport tr, Vec c, Vec rhs);
PetscErrorCode TransportRHSAdjoint(Transport tr, Vec c, Vec rbar, Vec cbar);
PetscErrorCode TransportPrepareKappa(Transport tr);

/* One SSP-RK3 step and its adjoint (step.c). */
PetscErrorCode TransportStepRK3(Transport tr, Vec cin, Vec cout);
PetscErrorCode TransportStepRK3Adjoint(Transport tr, Vec cin, Vec lout, Vec lin);
PetscErrorCode TransportStabilityLimit(Transport tr, PetscReal *dtmax);

/* Objective terms (objective.c). */
PetscErrorCode TransportObjectiveSetUp(Transport tr);
PetscErrorCode TransportObjectiveDestroy(Transport tr);
PetscErrorCode TransportMisfit(Transport tr, AdjStepIndex k, Vec c, PetscReal *J);
PetscErrorCode TransportMisfitAdjoint(Transport tr, AdjStepIndex k, Vec c, Vec lambda);

/* Set-up from options (setup.c). */
PetscErrorCode TransportSetFromOptions(Transport tr);
PetscErrorCode TransportSetUpGrid(Transport tr);
PetscErrorCode TransportSetUpVelocity(Transport tr);
PetscErrorCode TransportSetUpParameters(Transport tr);
PetscErrorCode TransportSetUpTime(Transport tr);

/* Log events, one per kernel and per adjoint. */
extern PetscLogEvent TRANSPORT_Ghosts, TRANSPORT_GhostsAdj, TRANSPORT_Advect, TRANSPORT_AdvectAdj, TRANSPORT_Diffuse,
  TRANSPORT_DiffuseAdj, TRANSPORT_Step, TRANSPORT_StepAdj, TRANSPORT_Misfit, TRANSPORT_MisfitAdj;
PetscErrorCode TransportRegisterEvents(void);
