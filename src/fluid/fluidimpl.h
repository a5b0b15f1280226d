/* Private data of the incompressible fluid solver (see include/adjsim/fluid.h, docs/fluid.md). */
#pragma once

#include <adjsim/fluid.h>
#include <adjsim/stepper.h>
#include <petscdmda.h>
#include <adjsim/fftsolver.h>
#include <petscksp.h>
#include <adjsim/geometry.h>

/* Space dimension of the data structures; the kernels are 2D for now (3D later). */
#define FLUID_DIM 2

typedef enum { FLUID_BC_PERIODIC, FLUID_BC_WALL, FLUID_BC_SLIP, FLUID_BC_INFLOW, FLUID_BC_OUTFLOW } FluidBCType;
typedef enum { FLUID_PROFILE_UNIFORM, FLUID_PROFILE_PARABOLIC } FluidProfile;
typedef enum { FLUID_POISSON_AUTO, FLUID_POISSON_KSP, FLUID_POISSON_FFTW } FluidPoissonType;
typedef enum { FLUID_INITIAL_ZERO, FLUID_INITIAL_TAYLOR_GREEN, FLUID_INITIAL_FILE } FluidInitialType;
extern const char *const FluidBCTypes[];
extern const char *const FluidProfiles[];
extern const char *const FluidPoissonTypes[];
extern const char *const FluidInitialTypes[];

/* One side of the box.  wall: velocity = tangential wall speed [m/s] (a moving lid);
 * inflow: velocity = inward normal speed [m/s] (mean of the parabolic profile's peak 3/2). */
typedef struct {
  FluidBCType  type;
  PetscReal    velocity;
  FluidProfile profile;
} FluidBC;

/* Uniform MAC grid of M[0] x M[1] cells, h = L / M.  This rank owns cells [xs, xs+xm) x [ys, ys+ym)
 * and its local (ghosted) arrays span [gxs, gxs+gxm) x [gys, gys+gym). */
typedef struct {
  PetscInt  M[FLUID_DIM];
  PetscReal L[FLUID_DIM], h[FLUID_DIM];
  PetscInt  xs, ys, xm, ym, gxs, gys, gxm, gym;
  FluidBC   bc[FLUID_DIM][2]; /* [direction][low, high side] */
} FluidGrid;

/* The state per cell (DMDA dof 3): u on the cell's left x-face, v on its bottom y-face, p at its
 * centre.  The faces on the high sides of a non-periodic box are not stored: they are boundary
 * values given by the boundary rule (FluidFillBoundary). */
typedef struct {
  PetscScalar u, v, p;
} FluidCell;

/* Is the x-face left of cell i (d = 0) / the y-face below cell j (d = 1) a boundary face? */
static inline PetscBool FluidIsBoundaryFace(const FluidGrid *g, PetscInt d, PetscInt idx)
{
  return (PetscBool)(g->bc[d][0].type != FLUID_BC_PERIODIC && (idx == 0 || idx == g->M[d]));
}

/* Objective terms (objective.c), each weighted; kinetic energy and enstrophy are averaged over
 * the steps whose time lies in [window[0], window[1]] (default: the final step only). */
typedef struct {
  PetscReal     w_energy, w_enstrophy, w_misfit, w_drag, w_lift, w_ld, w_endurance;
  PetscReal     window[2];
  PetscInt      nwindow; /* steps in the window */
  AdjStepIndex  kfirst, klast;
  PetscInt      nobs;
  AdjStepIndex *obs_step;
  Vec          *obs_u, *obs_v; /* cell-centred observed velocities on pda */
  PetscBool     selected;      /* a force functional alone (FluidObjectiveSelect): no field terms, no misfit */
  PetscReal     configured[6]; /* the weights w_energy, w_enstrophy, w_drag, w_lift, w_ld, w_endurance it replaced */
} FluidObjective;

/* Whether some force term (drag, lift, their ratio, the endurance factor) is weighted. */
static inline PetscBool FluidObjectiveHasForceWeights(const FluidObjective *o)
{
  return (PetscBool)(o->w_drag != 0 || o->w_lift != 0 || o->w_ld != 0 || o->w_endurance != 0);
}

/* Immersed body (body.c): Brinkman penalization with a smooth mask on the faces. */
typedef struct {
  PetscBool    on;
  AdjShape     shape;
  PetscReal    eta, smoothing, width; /* permeability [s], mask width [cells], [m] */
  PetscReal    uref, lref;            /* reference velocity and length of C_D, C_L */
  Vec          chi, chibar;           /* mask at u-faces (.u) and v-faces (.v), and dJ/dchi */
  Vec          maskc;                 /* mask at cell centres (output) */
  Vec          cpre[3];               /* the stage combinations before penalization (for the adjoint) */
  PetscScalar  Floc[2];               /* this rank's part of the force of the step being taken */
  PetscReal    coef[2], wforce[2];    /* C_D, C_L of step kforce; objective weights of step wstep */
  AdjStepIndex kforce, wstep;
  PetscReal   *hist; /* force history rows (step, t, C_D, C_L) not yet written */
  PetscInt     nhist;
} FluidBody;
extern const char *const FluidBodyTypes[];

typedef struct _n_Fluid *Fluid;
struct _n_Fluid {
  MPI_Comm         comm;
  const char      *prefix; /* options prefix of the stepper (NULL: none) */
  DM               da;     /* dof 3: the state */
  DM               pda;    /* dof 1, same ownership: pressure Poisson, output fields, the run's grid */
  FluidGrid        grid;
  PetscReal        nu; /* kinematic viscosity [m^2/s] */
  PetscReal        final_time, dt, cfl, dt_limit, uscale, blowup_cfl;
  AdjStepIndex     nsteps;
  FluidInitialType initial;
  PetscReal        tg_amplitude;
  char             initial_file[PETSC_MAX_PATH_LEN], initial_dset[2][256];
  /* pressure projection */
  FluidPoissonType poisson;                         /* resolved: KSP or FFTW */
  PetscBool        fftw_measure;                    /* FFTW_MEASURE plans, through the wisdom file below */
  char             fftw_wisdom[PETSC_MAX_PATH_LEN]; /* FFTW wisdom: imported before planning, exported after */
  AdjFFTYMethod    fftw_y;                          /* y by transforms or tridiagonal solves */
  PetscBool        output_faces;                    /* also write u_face, v_face at the output steps */
  PetscBool        singular;                        /* no Dirichlet pressure anywhere: constant null space */
  Mat              A;                               /* -D G, SPD (semi-definite when singular) */
  KSP              ksp;                             /* prefix -fluid_ */
  MatNullSpace     nullsp;
  AdjFFTSolver     fft;
  PetscBool        serial_periodic; /* one rank, periodic box: halos by row copies, the fused FFTW projection */
  PetscScalar    **fftrows;         /* [-1, My]: the FFTW solver's rows (periodic images at -1 and My), or NULL */
  PetscInt         ksp_its;         /* iterations of the last solve */
  /* work */
  Vec xloc;             /* ghosted state */
  Vec stage[2], combo;  /* RK3 stages s1, s2, the pre-projection combination */
  Vec stageloc[3];      /* ghosted, boundary-filled x, s1, s2 of the last step (its adjoint reads them) */
  Vec div, phi, philoc; /* Poisson right-hand side and solution (pda) */
  Vec out[6];           /* output fields on pda: cell-centre u, v, p, vorticity; u_face, v_face */
  /* adjoint work and parameter gradients (dJ/dvalue, this rank's partial sum for nu) */
  Vec            xbloc;                        /* ghosted adjoint of a state */
  Vec            sbar, cbar;                   /* adjoints of a stage and of a combination */
  Vec            x0sample;                     /* the sampled initial field (parameters u0, v0) before projection */
  Vec            gu0, gv0;                     /* dJ/du0, dJ/dv0 on pda */
  PetscScalar    gnu_local;                    /* dJ/dnu, this rank's part */
  PetscScalar    gbc_local[2][2];              /* dJ/d(side velocity) [direction][side], this rank's part */
  PetscReal      gnu, gbc[4];                  /* the same summed over ranks (FluidGradientSums) */
  PetscReal      gshape[ADJ_SHAPE_MAX_PARAMS]; /* dJ/d(shape parameters) of the body */
  FluidObjective obj;
  FluidBody      body;
  PetscBool      quiet;
};

/* Kernels (boundary.c, momentum.c, projection.c): pure functions of DMDA arrays.  Forward
 * kernels read a ghosted local array and write owned entries; each adjoint sits right below its kernel. */
PetscErrorCode FluidFillBoundary(const FluidGrid *g, FluidCell **x);
PetscErrorCode FluidFillPressureGhosts(const FluidGrid *g, PetscScalar **phi);
PetscErrorCode FluidMomentumRHS(const FluidGrid *g, PetscReal nu, PetscReal a, const FluidCell *const *x0, PetscReal b,
                                PetscReal w, const FluidCell *const *x, FluidCell **c);
PetscErrorCode FluidDivergence(const FluidGrid *g, const FluidCell *const *x, PetscScalar **div);
PetscErrorCode FluidGradientCorrect(const FluidGrid *g, PetscReal pscale, const FluidCell *const *x,
                                    const PetscScalar *const *phi, FluidCell **y);
PetscErrorCode FluidMomentumRHSAdjoint(const FluidGrid *g, PetscReal nu, PetscReal a, FluidCell **x0b, PetscReal b,
                                       PetscReal w, const FluidCell *const *x, const FluidCell *const *rb,
                                       FluidCell **xb, PetscScalar *nub);
PetscErrorCode FluidFillBoundaryAdjoint(const FluidGrid *g, FluidCell **xb, PetscScalar gbc[2][2]);
PetscErrorCode FluidFillPressureGhostsAdjoint(const FluidGrid *g, PetscScalar **pb);
PetscErrorCode FluidDivergenceAdjoint(const FluidGrid *g, const PetscScalar *const *db, FluidCell **xb);
PetscErrorCode FluidGradientCorrectAdjoint(const FluidGrid *g, PetscReal pscale, const FluidCell *const *yb,
                                           FluidCell **xb, PetscScalar **phib);
PetscErrorCode FluidCellCentre(const FluidGrid *g, const FluidCell *const *x, PetscScalar **uc, PetscScalar **vc,
                               PetscScalar **pc, PetscScalar **wc);
PetscReal      FluidInflowProfile(const FluidGrid *g, PetscInt d, PetscInt s, PetscReal tangential);
PetscReal      FluidInflowShape(const FluidGrid *g, PetscInt d, PetscInt s, PetscReal tangential);

/* Vec-level operations (projection.c, step.c). */
PetscErrorCode FluidGlobalToLocalFilled(Fluid fl, Vec x, Vec xloc);
PetscErrorCode FluidProject(Fluid fl, PetscReal pscale, Vec x, Vec y);
PetscErrorCode FluidProjectSumPressures(Fluid fl, PetscReal pscale, Vec x, Vec s1, Vec s2, Vec y, PetscBool *done);
PetscErrorCode FluidProjectAdjoint(Fluid fl, PetscReal pscale, Vec yb, Vec xb);
PetscErrorCode FluidLocalToGlobalFilledAdjoint(Fluid fl, Vec xbloc, Vec xb);
PetscErrorCode FluidPoissonSolveAdjoint(Fluid fl, Vec phib, Vec bb);
PetscErrorCode FluidStageCombinationAdjoint(Fluid fl, PetscReal a, Vec x0b, PetscReal b, Vec xloc, PetscReal w, Vec cb,
                                            Vec xb, PetscScalar *nub);
PetscErrorCode FluidStepRK3Adjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin);
PetscErrorCode FluidPoissonSetUp(Fluid fl);
PetscErrorCode FluidPoissonSolve(Fluid fl, Vec b, Vec phi);
PetscErrorCode FluidPoissonDestroy(Fluid fl);
PetscErrorCode FluidStageCombination(Fluid fl, PetscReal a, Vec x0, PetscReal b, Vec x, Vec xloc, PetscReal w, Vec c);
PetscErrorCode FluidStepRK3(void *ctx, AdjStepIndex k, Vec xin, Vec xout);
PetscErrorCode FluidStabilityLimit(const FluidGrid *g, PetscReal nu, PetscReal umax, PetscReal vmax, PetscReal *dtmax);
PetscErrorCode FluidMaxVelocity(Fluid fl, Vec x, PetscReal *umax, PetscReal *vmax);
PetscErrorCode FluidFillInitial(Fluid fl, Vec x);
PetscErrorCode FluidExactTaylorGreen(Fluid fl, PetscReal t, Vec x);

/* Objective terms and their adjoints (objective.c). */
PetscErrorCode FluidObjectiveSetUp(Fluid fl);
PetscErrorCode FluidObjectiveDestroy(Fluid fl);
PetscErrorCode FluidObjectiveEvaluate(void *ctx, AdjStepIndex k, Vec x, PetscReal *J);
PetscErrorCode FluidObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda);
PetscErrorCode FluidObjectiveSelect(void *ctx, const char name[], PetscBool *known);
PetscErrorCode FluidKineticEnergy(const FluidGrid *g, const FluidCell *const *x, PetscScalar *E);
PetscErrorCode FluidKineticEnergyAdjoint(const FluidGrid *g, PetscReal w, const FluidCell *const *x, FluidCell **xb);
PetscErrorCode FluidEnstrophy(const FluidGrid *g, const FluidCell *const *x, PetscScalar *Z);
PetscErrorCode FluidEnstrophyAdjoint(const FluidGrid *g, PetscReal w, const FluidCell *const *x, FluidCell **xb);

/* Immersed body (body.c). */
PetscErrorCode FluidBodySetUp(Fluid fl);
PetscErrorCode FluidBodyDestroy(Fluid fl);
PetscErrorCode FluidBodyMask(Fluid fl);
PetscErrorCode FluidPenalize(const FluidGrid *g, PetscReal k, const FluidCell *const *chi, FluidCell **c);
PetscErrorCode FluidPenalizeAdjoint(const FluidGrid *g, PetscReal k, const FluidCell *const *chi,
                                    const FluidCell *const *c, FluidCell **cb, FluidCell **chib);
PetscErrorCode FluidPenalizeRemoved(const FluidGrid *g, PetscReal k, PetscReal beta, const FluidCell *const *chi,
                                    const FluidCell *const *c, PetscScalar R[2]);
PetscErrorCode FluidPenalizeRemovedAdjoint(const FluidGrid *g, PetscReal k, PetscReal beta, const PetscReal w[2],
                                           const FluidCell *const *chi, const FluidCell *const *c, FluidCell **cb,
                                           FluidCell **chib);
PetscErrorCode FluidBodyCoefficients(Fluid fl, AdjStepIndex k, PetscReal coef[2]);
PetscErrorCode FluidBodySetForceWeights(Fluid fl, AdjStepIndex k, const PetscReal w[2]);
PetscErrorCode FluidBodyShapeGradient(Fluid fl, PetscReal g[]);
PetscErrorCode FluidBodyPenalizeStage(Fluid fl, PetscInt s, PetscReal a, Vec c);
PetscErrorCode FluidBodyMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x);
PetscErrorCode FluidBodyPenalizeStageAdjoint(Fluid fl, AdjStepIndex k, PetscInt s, PetscReal a, Vec cb);

/* Set-up from options (setup.c). */
PetscErrorCode FluidSetUpGrid(Fluid fl);
PetscErrorCode FluidSetUpPhysics(Fluid fl);
PetscErrorCode FluidSetUpTime(Fluid fl);

/* Log events, one per kernel. */
extern PetscLogEvent FLUID_Boundary, FLUID_Momentum, FLUID_Divergence, FLUID_Poisson, FLUID_Correct, FLUID_Step;
extern PetscLogEvent FLUID_MomentumAdj, FLUID_DivergenceAdj, FLUID_CorrectAdj, FLUID_StepAdj, FLUID_Objective,
    FLUID_ObjectiveAdj;
