/* Private data of the scalar-transport solver (see include/adjsim/transport.h). */
#pragma once

#include <adjsim/transport.h>
#include <adjsim/stepper.h>
#include <petscdmda.h>
#include <adjsim/fftsolver.h>

typedef enum { TRANSPORT_BC_PERIODIC, TRANSPORT_BC_DIRICHLET, TRANSPORT_BC_NEUMANN } TransportBCType;

#define TRANSPORT_DIM 2

/* Cell-centred uniform grid of M[0] x M[1] cells on [0, L[0]] x [0, L[1]], h = L / M; this rank owns
 * cells [xs, xs+xm) x [ys, ys+ym). */
typedef struct {
  PetscInt  M[TRANSPORT_DIM];
  PetscReal L[TRANSPORT_DIM], h[TRANSPORT_DIM];
  PetscInt  xs, ys, xm, ym;
} TransportGrid;

/* Ghost-cell rule on each side of a non-periodic direction: ghost = sigma * inner + beta.
 * Dirichlet value g on the face: sigma = -1, beta = 2 g (face average equals g).
 * Neumann outward derivative q:  sigma = +1, beta = h q (one-sided difference equals q).
 * Mirror (used for the diffusivity field): sigma = +1, beta = 0. */
typedef struct {
  PetscBool periodic[TRANSPORT_DIM]; /* [direction] */
  PetscReal sigma[TRANSPORT_DIM][2]; /* [direction][low, high side] */
  PetscReal beta[TRANSPORT_DIM][2];
} TransportGhostRule;

/* Face velocities of a prescribed steady field, local to this rank:
 * u[j][i] at the x-face left of cell i (i = xs..xs+xm), v[j][i] at the y-face below cell j. */
typedef struct {
  PetscReal *u, *v;
  PetscReal  umax, vmax; /* global maxima of |u| and |v| (stability limit) */
} TransportVelocity;

/* An unsteady velocity: the face velocities at the output steps of a fluid run (velocity.c). */
typedef struct {
  PetscInt   n;      /* snapshots (0: the velocity is steady) */
  PetscInt   nu, nv; /* local faces per snapshot */
  PetscReal *times;  /* output times [s] */
  PetscReal *u, *v;  /* n x nu, n x nv, layout of TransportVelocity */
} TransportUnsteadyVelocity;

typedef struct {
  PetscInt      nobs;
  AdjStepIndex *step; /* step of each observation */
  Vec          *data; /* observed field at that step */
  PetscReal     weight;
  Vec           target; /* final-time target field, or NULL */
  PetscReal     target_weight;
  PetscReal     reg_alpha[3], reg_beta[3]; /* Tikhonov weights for initial, kappa (field), source */
} TransportObjectiveData;

typedef struct _n_Transport *Transport;

/* ---- Implicit diffusion (implicit.c, step.c; FFTW solves: src/numerics/periodic.c) -------------------------------
 * -transport_diffusion implicit: Strang splitting of one step of size dt into Crank-Nicolson
 * diffusion over dt/2, SSP-RK3 of advection + source over dt, Crank-Nicolson over dt/2. */
#include <petscksp.h>

typedef enum { TRANSPORT_DIFFUSION_EXPLICIT, TRANSPORT_DIFFUSION_IMPLICIT } TransportDiffusionMode;
typedef enum { TRANSPORT_CN_AUTO, TRANSPORT_CN_FFTW, TRANSPORT_CN_KSP } TransportCNSolverType;
extern const char *const TransportDiffusionModes[];
extern const char *const TransportCNSolverTypes[];

typedef struct {
  TransportDiffusionMode mode;
  TransportCNSolverType  solver;         /* resolved: TRANSPORT_CN_FFTW or TRANSPORT_CN_KSP */
  Mat                    A;              /* I - tau/2 D_lin, assembled (ksp) */
  KSP                    ksp;            /* CG + algebraic multigrid, prefix -transport_ */
  AdjFFTSolver           fft;            /* (fftw) (I + tau kappa/2 K)^{-1}, K = -Laplacian */
  PetscReal              tau;            /* substep the operators are set up for (0: none yet) */
  Vec                    kappa_setup;    /* the diffusivity they were set up with */
  PetscReal              kappa_const;    /* (fftw) the constant diffusivity [m^2/s] */
  PetscBool              kappa_zero;     /* kappa = 0 everywhere: A = I */
  Vec                    bdry;           /* b(kappa) = D_full(kappa, 0), the affine boundary part */
  Vec                    half, adv, out; /* states of the last step: after the first CN half, after RK3, c' */
  Vec                    ladv, lhalf;    /* their adjoints */
  Vec                    rhs, mu;        /* work: CN right-hand side, A^{-1} lambda' */
  Vec                    cloc2;          /* a second ghosted state */
} TransportImplicit;

PetscErrorCode TransportImplicitSetFromOptions(Transport tr);
PetscErrorCode TransportImplicitUpdateKappa(Transport tr);
PetscErrorCode TransportImplicitDestroy(Transport tr);
PetscErrorCode TransportCNSetUp(Transport tr, PetscReal tau);
PetscErrorCode TransportCNSolve(Transport tr, PetscReal tau, Vec r, Vec x);
PetscErrorCode TransportDiffuseCN(Transport tr, PetscReal tau, Vec c, Vec cout);
PetscErrorCode TransportDiffuseCNAdjoint(Transport tr, PetscReal tau, Vec c, Vec cout, Vec lout, Vec lin);
PetscErrorCode TransportStepStrang(Transport tr, Vec cin, Vec cout);
PetscErrorCode TransportStepStrangAdjoint(Transport tr, Vec cin, Vec lout, Vec lin);
/* The step of the selected mode (explicit: TransportStepRK3, implicit: TransportStepStrang). */
PetscErrorCode       TransportStepAdvance(Transport tr, Vec cin, Vec cout);
PetscErrorCode       TransportStepAdvanceAdjoint(Transport tr, Vec cin, Vec lout, Vec lin);
extern PetscLogEvent TRANSPORT_DiffuseCN, TRANSPORT_DiffuseCNAdj;
/* ---- end of implicit diffusion -------------------------------------------------------------- */

struct _n_Transport {
  MPI_Comm                  comm;
  const char               *prefix; /* options prefix of the stepper (NULL: none) */
  DM                        da;
  TransportGrid             grid;
  TransportBCType           bctype[TRANSPORT_DIM];
  TransportGhostRule        crule, krule; /* ghost rules for the scalar and for the diffusivity */
  TransportVelocity         vel;          /* the velocity of the current step */
  TransportUnsteadyVelocity unsteady;     /* its history, for an unsteady velocity */
  PetscReal                 final_time, dt, cfl, dt_limit;
  AdjStepIndex              nsteps;
  PetscBool                 kappa_is_field;
  Vec                       c0, kappa, source;           /* parameter values (global vectors) */
  Vec                       gc0, gkappa, gsource;        /* their gradients dJ/dvalue */
  PetscObjectState          source_state;                /* tr->source's state when last scanned ... */
  PetscBool                 source_checked, source_zero; /* ... and whether its local part was zero */
  Vec                       cloc, kloc, lloc, klloc;     /* ghosted work vectors */
  Vec                       rhs, stage[2], rbar, lstage[2];
  Vec                       sloc[3];       /* ghosted RK3 stage states of the last step, for its adjoint */
  PetscBool                 kappa_uniform; /* kappa has one value everywhere: kappa_value */
  PetscReal                 kappa_value;
  PetscBool                 need_gkappa, need_gsource; /* gradients the active parameters need */
  PetscScalar               gkappa_uniform; /* this rank's part of dJ/dkappa accumulated on the uniform path */
  Vec                       vel_u, vel_v;   /* cell-centred velocity (mean of faces), written with the parameters */
  TransportObjectiveData    obj;
  PetscBool                 quiet;
  /* implicit diffusion (block above): rhs_without_diffusion makes TransportRHS(Adjoint) skip
   * the diffusion term, which the Crank-Nicolson substeps then carry */
  TransportImplicit impl;
  PetscBool         rhs_without_diffusion;
};

/* Velocity from a fluid run (velocity.c). */
PetscErrorCode TransportFacesFromFluidVecs(Transport tr, Vec uf, Vec vf, PetscReal *ufaces, PetscReal *vfaces);
PetscErrorCode TransportSetUpUnsteadyVelocity(Transport tr, const char file[]);
PetscErrorCode TransportUnsteadyLocalMax(Transport tr, PetscReal lmax[2]);
PetscErrorCode TransportCheckUnsteadyTime(Transport tr);
PetscErrorCode TransportVelocityAtStep(Transport tr, AdjStepIndex k);

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
                                         const PetscScalar *const *c, const PetscScalar *const *rbar,
                                         PetscScalar **cbar, PetscScalar **kbar);

/* Fused Runge-Kutta stage  out = a c0 + b c + gamma R(c),  R(c) = A(c) + D(kappa, c) + s, and the
 * adjoint of its gamma R(c) part (kernels.c).  kappa NULL: uniform diffusivity kuniform. */
typedef struct {
  PetscReal                 a, b, gamma, kuniform;
  const PetscScalar *const *c0, *const *s, *const *kappa;
  PetscBool diffusion;
} TransportStageCoeffs;
PetscErrorCode TransportStage(const TransportGrid *g, const TransportVelocity *vel, const TransportStageCoeffs *sc,
                              const PetscScalar *const *c, PetscScalar **out);
PetscErrorCode TransportStageAdjoint(const TransportGrid *g, const TransportVelocity *vel,
                                     const TransportStageCoeffs *sc, const PetscScalar *const *c,
                                     const PetscScalar *const *y, PetscScalar **cbar, PetscScalar **kbar,
                                     PetscScalar *ksum);

/* The same on Vecs, with halo exchange and boundary ghosts (rhs.c). */
PetscErrorCode TransportPrepareKappa(Transport tr);
PetscErrorCode TransportGhostState(Transport tr, Vec c, Vec cl);
PetscErrorCode TransportStageVec(Transport tr, Vec cl, PetscReal a, Vec c0, PetscReal b, PetscReal gamma, Vec out);
PetscErrorCode TransportStageAdjointVec(Transport tr, Vec cl, PetscReal gamma, Vec y, Vec cbar);
PetscErrorCode TransportKappaGradientConstant(Transport tr, PetscScalar *g);

/* One SSP-RK3 step and its adjoint (step.c). */
PetscErrorCode TransportStepRK3(Transport tr, Vec cin, Vec cout);
PetscErrorCode TransportStepRK3Adjoint(Transport tr, Vec cin, Vec lout, Vec lin);
PetscErrorCode TransportStabilityLimit(Transport tr, PetscReal *dtmax);

/* Objective terms (objective.c). */
PetscErrorCode TransportObjectiveSetUp(Transport tr);
PetscErrorCode TransportObjectiveDestroy(Transport tr);
PetscErrorCode TransportMisfit(void *ctx, AdjStepIndex k, Vec c, PetscReal *J);
PetscErrorCode TransportMisfitAdjoint(void *ctx, AdjStepIndex k, Vec c, Vec lambda);

/* Set-up from options (setup.c). */
PetscErrorCode TransportSetUpGrid(Transport tr);
PetscErrorCode TransportSetUpVelocity(Transport tr);
PetscErrorCode TransportSetUpParameters(Transport tr);
PetscErrorCode TransportSetUpTime(Transport tr);
PetscErrorCode TransportCheckBoundaryPeclet(Transport tr);

/* Log events, one per kernel and per adjoint. */
extern PetscLogEvent TRANSPORT_Ghosts, TRANSPORT_GhostsAdj, TRANSPORT_Advect, TRANSPORT_AdvectAdj, TRANSPORT_Diffuse,
    TRANSPORT_DiffuseAdj, TRANSPORT_Stage, TRANSPORT_StageAdj, TRANSPORT_Step, TRANSPORT_StepAdj, TRANSPORT_Misfit,
    TRANSPORT_MisfitAdj;
