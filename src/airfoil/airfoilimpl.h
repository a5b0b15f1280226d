/* Private data of the body-fitted airfoil flow solver (include/adjsim/airfoil.h, docs/airfoil.md).
 *
 * Finite volumes on the O-grid of include/adjsim/ogrid.h: ni x nc cells (i around the body, periodic;
 * j = 0 at the wall, nc - 1 at the far field), cell (i, j) having the corner nodes (i, j), (i + 1, j),
 * (i + 1, j + 1), (i, j + 1).  Cell-centred Cartesian velocities u, v and pressure p; volume fluxes
 * U on the i-faces (the face between cells i - 1 and i, from node (i, j) to (i, j + 1)) and V on the
 * j-faces (between cells j - 1 and j, from node (i, j) to (i + 1, j)), as in Zang, Street & Koseff
 * (J. Comput. Phys. 114, 1994).  The area vectors S of both face families point towards increasing i,
 * resp. j (the grid is right-handed: xi clockwise around the body, eta outward).
 *
 * Gradients on a face (non-orthogonal grids): with a the vector between the two points whose values
 * differ by da along the face's "normal" index direction (centroid to centroid, or centroid to the face
 * midpoint at a boundary) and b the face's edge vector whose end values differ by db (node values),
 * the linear field with those differences has grad q = (da (b_y, -b_x) + db (-a_y, a_x)) / (a x b), so
 *   grad q . S = alpha da + beta db,   alpha = |b|^2 / (a x b),   beta = -(a . b) / (a x b),
 * with S = (b_y, -b_x) (the edge b of an i-face runs from node (i, j) to (i, j + 1); that of a j-face from
 * node (i + 1, j) to (i, j)).  Node values are the means of the four cells around the node; at the wall
 * the wall value (velocity) or the mean of the two neighbouring cells' values extrapolated linearly to the
 * wall (pressure); at the far field the mean of the two neighbouring far-field face values.  This gives a
 * 9-point stencil, exact for linear fields, second order on smooth grids.
 *
 * Every stencil is held as an AirfoilForm: coefficients of the 3 x 3 cells around a centre cell, plus
 * coefficients of the wall data and the far-field data of the three faces i - 1, i, i + 1 (data: a
 * wall velocity, the free stream).  The forms are pure functions of the node coordinates and the
 * boundary description, so their derivatives in the coordinates can sit next to them later. */
#pragma once

#include <adjsim/airfoil.h>
#include <adjsim/ogrid.h>
#include <adjsim/stepper.h>
#include <petscdmda.h>
#include <petscksp.h>

/* An affine function of the 3 x 3 cells around a centre cell and of the boundary data of the faces
 * i - 1, i, i + 1 at the wall (w) and at the far field (f). */
typedef struct {
  PetscReal c[3][3]; /* [dj + 1][di + 1] */
  PetscReal w[3], f[3];
} AirfoilForm;

/* Geometry of the whole grid, replicated on every rank (a pure function of the node coordinates). */
typedef struct {
  PetscInt   ni, nc;       /* cells around, cells from the wall to the far field */
  PetscReal *xn;           /* node coordinates, (ni x (nc + 1)) x 2, node (i, j) at 2 (j ni + i) */
  PetscReal *xc, *area;    /* cell centroids (mean of the corners) and areas */
  PetscReal *si, *ai, *bi; /* i-face (i, j), j < nc: area vector S (2), alpha, beta */
  PetscReal *sj, *aj, *bj; /* j-face (i, j), j <= nc */
  PetscReal *ext;          /* wall extrapolation weight e_i: q_wall = (1 + e) q(i, 0) - e q(i, 1) */
} AirfoilGeometry;

/* Boundary treatment of a cell field in a stencil: at the wall, a Dirichlet value (wall data) or
 * extrapolation (no face flux: the wall face's flux is given); at the far field the face value
 * wf_i qf_i + (1 - wf_i) q(i, nc - 1) (Dirichlet where wf = 1, zero gradient where wf = 0). */
typedef struct {
  PetscBool        wall_dirichlet;
  const PetscReal *wf; /* ni far-field weights */
} AirfoilBoundary;

/* The state per cell (DMDA dof 8): u, v, p at the centre, the fluxes U (left i-face), V (bottom j-face,
 * 0 at the wall), Vt (the top face of the last row: the far-field flux; 0 elsewhere), and the
 * convection terms Nu, Nv of the step that made this state (Adams-Bashforth). */
typedef struct {
  PetscScalar u, v, p, U, V, Vt, Nu, Nv;
} AirfoilCell;
#define AIRFOIL_DOF 8

typedef enum {
  AIRFOIL_BODY_CIRCLE,
  AIRFOIL_BODY_NACA4,
  AIRFOIL_BODY_DAT,
  AIRFOIL_BODY_JOUKOWSKI,
  AIRFOIL_BODY_CST
} AirfoilBodyType;
extern const char *const AirfoilBodyTypes[];

typedef struct _n_Airfoil *Airfoil;
struct _n_Airfoil {
  MPI_Comm        comm;
  const char     *prefix;
  AdjShape        shape;
  AirfoilBodyType body;
  AdjOGrid        og;
  AirfoilGeometry geo;
  DM              da, sda; /* cells (dof 1) and the state (dof 8), same ownership, ghost width 2 (the dissipation) */
  DM              mda;     /* cells, ghost width 1: the matrices' layout and the multigrid hierarchy */
  PetscInt        xs, ys, xm, ym;
  /* physics */
  PetscReal    re, alpha, speed, uinf[2], nu, lref, theta, switch_width;
  PetscReal    diss[2];    /* the convection's fourth-difference dissipation: k4 and 1 / (Pe_0 nu) (its switch) */
  PetscReal    diss_pe;    /* -airfoil_dissipation_pe: Pe_0 */
  PetscReal   *wf;         /* far-field inflow weights of the velocity per top face */
  PetscBool    vortex;     /* -airfoil_farfield_vortex */
  PetscReal   *qf[2], *pf; /* far-field velocity and pressure per top face (AirfoilFarFieldData) */
  PetscReal    final_time, dt, cfl, blowup_cfl;
  AdjStepIndex nsteps;
  /* stencils of the owned cells: the viscous operator (velocity boundary), the pressure operator and
   * the pressure-gradient flux forms of each cell's left and bottom faces and of the top face */
  AirfoilForm *lapv, *lapp, *gfi, *gfj, *gft;
  Mat          K, P; /* A/dt - theta nu Lv; the pressure Poisson operator */
  KSP          kspv, kspp;
  PetscInt     its_v, its_p;
  /* work */
  Vec xloc, x0, wloc, f[4], floc[4]; /* ghosted state, initial state, work; dof-1 work: global f, ghosted floc */
  /* forces and output */
  PetscReal    coef[3]; /* C_D, C_L, C_M of the last force evaluation */
  AdjStepIndex kforce;
  AdjOutput    run; /* the run file of the monitor (surface tables at field output steps), or NULL */
  PetscReal   *hist;
  PetscInt     nhist;
  Vec          out[4];                      /* output fields: u, v, p, vorticity */
  PetscBool    quiet, grid_written, steady; /* steady: -steady_tol given (history rows every step) */
  /* objective (forces.c): weights of C_D, C_L, C_M averaged over the steps kfirst..klast */
  PetscReal    w_coef[3], window[2];
  AdjStepIndex kfirst, klast;
  PetscInt     nwindow;
  PetscBool    selected;
  PetscReal    configured[3];
  /* adjoint (solve.c): u*, v* of the last forward step, work, bars of the far-field data and weights */
  Vec          ustar[2], xbloc, ybar, ybloc, bloc[4], bg[4];
  Mat          Pt; /* P^T and its solver (the transposed pressure solve) */
  KSP          kspt;
  PetscReal   *qfb[2], *pfb, *wfb;
  AirfoilForm *dlapv; /* dLv/dwf of the owned far-field row: 3 forms per cell (columns i - 1, i, i + 1) */
  /* parameter bars: rank-local partial sums of dJ/dnu and dJ/dU_inf, and the gradients of the blocks */
  PetscReal nub, uinfb[2], grad_alpha, grad_re;
  /* the shape gradient (only when the block `shape` is active: AirfoilShapeBarsSetUp): this rank's share of the
   * geometry bar (xn, area, ext, si, sj) and the bars of the owned cells' forms, accumulated over the whole
   * reverse sweep (the geometry is constant in time) and put through the form adjoints and AirfoilShapeAdjoint
   * by the gradient hook; the forward step keeps phi and the ghosted w, U* for them */
  PetscBool       shapebars;
  AirfoilGeometry geob;
  AirfoilForm    *lapvb, *lappb, *gfib, *gfjb, *gftb;
  Vec             phikeep, wkeep; /* ghosted phi and w, U* of the step (local vectors: no exchange in the adjoint) */
  PetscReal       grad_shape[ADJ_SHAPE_MAX_PARAMS];
  PetscInt        shape_first; /* the block's first entry of shape.p */
};

/* Log events: the two solves of a step (velocity: both components). */
extern PetscLogEvent AIRFOIL_Velocity, AIRFOIL_Pressure;

/* Geometry and stencils (metrics.c): pure functions of the node coordinates. */
PetscErrorCode AirfoilGeometryCreate(PetscInt ni, PetscInt nc, const PetscReal xn[], AirfoilGeometry *g);
PetscErrorCode AirfoilGeometryDestroy(AirfoilGeometry *g);
void           AirfoilFaceCoefficients(const PetscReal a[2], const PetscReal b[2], PetscReal *alpha, PetscReal *beta);
void           AirfoilFormIFace(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt s,
                                AirfoilForm *F);
void           AirfoilFormJFace(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt t,
                                AirfoilForm *F, PetscBool *excluded);
void AirfoilFormLaplacian(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, AirfoilForm *F);
PetscReal AirfoilFormApplyData(const AirfoilForm *F, PetscInt i, PetscInt ni, const PetscReal qw[],
                               const PetscReal qf[]);
PetscReal AirfoilFormApply(const AirfoilForm *F, PetscInt i, PetscInt j, PetscInt ni, PetscScalar **q,
                           const PetscReal qw[], const PetscReal qf[]);

/* Derivatives of the geometry and the forms (metrics.c) and the chain to the shape parameters
 * (shapeadjoint.c).  A "bar" geometry gb holds the adjoint (bar) of each array of a geometry, a tangent
 * geometry dg the derivative of each array; both have the sizes of g (AirfoilGeometryBarCreate, all zero)
 * and are destroyed by AirfoilGeometryDestroy. */
PetscErrorCode AirfoilGeometryBarCreate(const AirfoilGeometry *g, AirfoilGeometry *gb);
PetscErrorCode AirfoilGeometryBarZero(AirfoilGeometry *gb);
void           AirfoilGeometryTangent(const AirfoilGeometry *g, const PetscReal dxn[], AirfoilGeometry *dg);
void           AirfoilGeometryAdjoint(const AirfoilGeometry *g, AirfoilGeometry *gb);
void AirfoilFormIFaceAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt s,
                             const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[]);
void AirfoilFormJFaceAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j, PetscInt t,
                             const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[]);
void AirfoilFormLaplacianAdjoint(const AirfoilGeometry *g, const AirfoilBoundary *bc, PetscInt i, PetscInt j,
                                 const AirfoilForm *Fb, AirfoilGeometry *gb, PetscReal wfb[]);
PetscErrorCode AirfoilOGridGather(AdjOGrid og, Vec X, PetscReal xn[]);
PetscErrorCode AirfoilShapeTangent(AdjOGrid og, const AirfoilGeometry *g, const PetscReal dp[], AirfoilGeometry *dg);
PetscErrorCode AirfoilNodeBarToShape(AdjOGrid og, const PetscReal xnb[], PetscReal pb[]);
PetscErrorCode AirfoilShapeAdjoint(AdjOGrid og, const AirfoilGeometry *g, AirfoilGeometry *gb, PetscReal pb[]);

/* Field kernels (operators.c): owned cells from ghosted arrays. */
PetscReal AirfoilWallValue(const AirfoilGeometry *g, PetscInt i, PetscScalar **q);
PetscReal AirfoilFarValue(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscReal qinf, PetscScalar **q);
void      AirfoilCellGradient(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscScalar **q, PetscBool wall_zero,
                              PetscReal qff, PetscReal grad[2]);
PetscReal AirfoilConvection(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                            const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf);

PetscReal AirfoilDissipation(const AirfoilGeometry *g, const PetscReal diss[2], PetscInt i, PetscInt j,
                             const AirfoilCell *const *x, PetscScalar **q);

void AirfoilWallValueAdjoint(const AirfoilGeometry *g, PetscInt i, PetscReal bar, PetscScalar **qb);
void AirfoilFarValueAdjoint(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscReal qinf, PetscScalar **q,
                            PetscReal bar, PetscScalar **qb, PetscReal *qinfb, PetscReal wfb[]);
void AirfoilCellGradientAdjoint(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscBool wall_zero,
                                const PetscReal gb[2], PetscScalar **qb, PetscReal *qffb);
void AirfoilConvectionAdjoint(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                              const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf, PetscReal Nb,
                              AirfoilCell **xb, PetscScalar **qb, PetscReal *qwb, PetscReal *qinfb, PetscReal wfb[]);
void AirfoilFormApplyAdjoint(const AirfoilForm *F, PetscInt i, PetscInt j, PetscInt ni, PetscReal bar, PetscScalar **qb,
                             PetscReal qwb[], PetscReal qfb[]);
void AirfoilDissipationAdjoint(const AirfoilGeometry *g, const PetscReal diss[2], PetscInt i, PetscInt j,
                               const AirfoilCell *const *x, PetscScalar **q, PetscReal Db, AirfoilCell **xb,
                               PetscScalar **qb, PetscReal *wb);
/* Geometry bars of the field kernels (operators.c; the shape gradient through the grid). */
void AirfoilWallValueGeometryAdjoint(const AirfoilGeometry *g, PetscInt i, PetscScalar **q, PetscReal bar,
                                     AirfoilGeometry *geob);
void AirfoilCellGradientGeometryAdjoint(const AirfoilGeometry *g, PetscInt i, PetscInt j, PetscScalar **q,
                                        PetscBool wall_zero, PetscReal qff, const PetscReal gb[2],
                                        AirfoilGeometry *geob);
void AirfoilConvectionGeometryAdjoint(const AirfoilGeometry *g, const PetscReal wf[], PetscInt i, PetscInt j,
                                      const AirfoilCell *const *x, PetscScalar **q, PetscReal qw, PetscReal qinf,
                                      PetscReal Nb, AirfoilGeometry *geob);
void AirfoilDissipationGeometryAdjoint(const AirfoilGeometry *g, const PetscReal diss[2], PetscInt i, PetscInt j,
                                       const AirfoilCell *const *x, PetscScalar **q, PetscReal Db,
                                       AirfoilGeometry *geob);
void AirfoilFormApplyFormAdjoint(PetscInt i, PetscInt j, PetscInt ni, PetscInt nc, PetscReal bar, PetscScalar **q,
                                 const PetscReal qw[], const PetscReal qf[], AirfoilForm *Fb);

/* Solver (solve.c, forces.c). */
PetscErrorCode AirfoilOperatorsSetUp(Airfoil af);
PetscErrorCode AirfoilCheckKSP(Airfoil af, KSP ksp, const char name[]);
PetscErrorCode AirfoilFarFieldData(Airfoil af, Vec x);
PetscErrorCode AirfoilOperatorsSetTimeStep(Airfoil af);
PetscErrorCode AirfoilOperatorsDestroy(Airfoil af);
PetscErrorCode AirfoilStep(void *ctx, AdjStepIndex k, Vec xin, Vec xout);
PetscErrorCode AirfoilInitialState(void *ctx, Vec x0);
PetscErrorCode AirfoilForces(Airfoil af, Vec x, PetscReal coef[3]);
PetscErrorCode AirfoilMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x);
PetscErrorCode AirfoilOutputSurface(Airfoil af, Vec x);
PetscErrorCode AirfoilRecirculation(Airfoil af, Vec x, PetscReal *len);
/* Adjoint (solve.c, forces.c). */
PetscErrorCode AirfoilAdjointSetUp(Airfoil af);
PetscErrorCode AirfoilAdjointDestroy(Airfoil af);
PetscErrorCode AirfoilStepAdjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin);
/* The step's kernels (solve.c: owned cells from ghosted arrays) and their adjoints (exposed for the dot tests). */
PetscErrorCode AirfoilMomentumRHS(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
                                  AirfoilCell **y, PetscScalar **ru, PetscScalar **rv);
void           AirfoilMomentumRHSAdjoint(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
                                         PetscScalar **rbu, PetscScalar **rbv, const AirfoilCell *const *yb, PetscScalar ***qb,
                                         AirfoilCell **xb);
void AirfoilPredictFluxes(Airfoil af, const AirfoilCell *const *yl, PetscScalar **p, PetscScalar **us, PetscScalar **vs,
                          AirfoilCell **y);
void AirfoilPredictFluxesAdjoint(Airfoil af, const AirfoilCell *const *sb, PetscScalar **us, PetscScalar **vs,
                                 AirfoilCell **wbl, PetscScalar **pb, PetscScalar **usb, PetscScalar **vsb);
void AirfoilDivergenceRHS(Airfoil af, const AirfoilCell *const *yl, PetscScalar **b);
void AirfoilDivergenceRHSAdjoint(Airfoil af, PetscScalar **bb, AirfoilCell **sbl);
void AirfoilCorrect(Airfoil af, PetscScalar **phi, PetscScalar **us, PetscScalar **vs, const AirfoilCell *const *x,
                    AirfoilCell **y);
void AirfoilCorrectAdjoint(Airfoil af, const AirfoilCell *const *yb, PetscScalar **usb, PetscScalar **vsb,
                           AirfoilCell **sb, AirfoilCell **xb, PetscScalar **phib);
PetscErrorCode AirfoilFarWeightsAdjoint(Airfoil af, const PetscReal wfb[], PetscReal Ub[2]);
PetscErrorCode AirfoilForcesAdjoint(Airfoil af, Vec x, const PetscReal cb[3], Vec lambda, PetscReal *nub,
                                    PetscReal Ub[2]);
PetscErrorCode AirfoilFarWeightsSet(Airfoil af);
PetscErrorCode AirfoilLocalFieldsAdd(Airfoil af, Vec *bl, Vec lambda);
PetscErrorCode AirfoilObjectiveSetUp(Airfoil af);
PetscErrorCode AirfoilObjective(void *ctx, AdjStepIndex k, Vec x, PetscReal *J);
PetscErrorCode AirfoilObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda);
PetscErrorCode AirfoilHasObjective(void *ctx, PetscBool *has);
PetscErrorCode AirfoilObjectiveFinalStep(void *ctx, const char **term);
PetscErrorCode AirfoilSetSteady(void *ctx, AdjSteadyInfo *info);
PetscErrorCode AirfoilSelectObjective(void *ctx, const char name[], PetscBool *known);
PetscErrorCode AirfoilInitialStateAdjoint(void *ctx, Vec lambda0);
/* The shape gradient through the grid (solve.c, forces.c, airfoil.c). */
PetscErrorCode AirfoilShapeBarsSetUp(Airfoil af);
PetscErrorCode AirfoilShapeBarsDestroy(Airfoil af);
PetscErrorCode AirfoilShapeGeometryBar(Airfoil af, AirfoilGeometry *t);
PetscErrorCode AirfoilShapeGradient(Airfoil af, PetscReal pb[]);
PetscErrorCode AirfoilOperatorsSetGeometry(Airfoil af);
PetscErrorCode AirfoilForcesGeometryAdjoint(Airfoil af, Vec x, const PetscReal cb[3], AirfoilGeometry *geob);
PetscErrorCode AirfoilFarWeightsGeometryAdjoint(Airfoil af, const PetscReal wfb[], AirfoilGeometry *geob);
void AirfoilMomentumRHSGeometryAdjoint(Airfoil af, AdjStepIndex k, const AirfoilCell *const *x, PetscScalar ***q,
                                       PetscScalar **rbu, PetscScalar **rbv, const AirfoilCell *const *yb,
                                       AirfoilGeometry *geob, AirfoilForm *lapvb);
void AirfoilViscousSolveGeometryAdjoint(Airfoil af, PetscScalar **us, PetscScalar **rb, AirfoilGeometry *geob,
                                        AirfoilForm *lapvb);
void AirfoilPredictFluxesGeometryAdjoint(Airfoil af, const AirfoilCell *const *sb, const AirfoilCell *const *wl,
                                         PetscScalar **p, PetscScalar **us, PetscScalar **vs, AirfoilGeometry *geob,
                                         AirfoilForm *gfib, AirfoilForm *gfjb);
void AirfoilPressureSolveGeometryAdjoint(Airfoil af, PetscScalar **bb, PetscScalar **phi, AirfoilForm *lappb);
void AirfoilCorrectGeometryAdjoint(Airfoil af, const AirfoilCell *const *yb, PetscScalar **phi, AirfoilGeometry *geob,
                                   AirfoilForm *gfib, AirfoilForm *gfjb, AirfoilForm *gftb);
