/* Private data of the Material Point Method solver (see include/adjsim/mpm.h, docs/mpm.md). */
#pragma once

#include <adjsim/mpm.h>
#include <adjsim/stepper.h>
#include <adjsim/geometry.h>
#include <petscdmda.h>
#include <petscsf.h>

/* Space dimension of the data structures; the kernels are 2-D for now (3-D later). */
#define MPM_DIM           2
#define MPM_MAX_LABELS    16
#define MPM_MAX_BODIES    16
#define MPM_MAX_OBSTACLES 8
/* Quadratic B-splines: 3 nodes per direction. */
#define MPM_STENCIL 3

typedef enum { MPM_WALL_NONE, MPM_WALL_STICKY, MPM_WALL_SLIP, MPM_WALL_FRICTION } MPMWallType;
/* Constitutive models: the numbers of the entries of MPMModelTable (model.c, mpmmodel.h). */
typedef enum {
  MPM_MODEL_FIXED_COROTATED,
  MPM_MODEL_NEO_HOOKEAN,
  MPM_MODEL_J2,
  MPM_MODEL_DRUCKER_PRAGER,
  MPM_NMODELS
} MPMModel;
typedef enum { MPM_SHAPE_BOX, MPM_SHAPE_DISK, MPM_SHAPE_FILE } MPMShape;
extern const char *const MPMWallTypes[];

/* The state of one particle: position, velocity, APIC affine velocity C (= B D^-1), deformation
 * gradient F.  Row-major matrices.  The state Vec is an array of per-particle records of mpm->nrec =
 * MPM_NSTATE + mpm->nz reals (its block size): this struct, then the nz reals z of the constitutive models'
 * internal state (mpmmodel.h; nz = 0 for elastic-only runs, so that the records are these structs). */
typedef struct {
  PetscScalar x[MPM_DIM];
  PetscScalar v[MPM_DIM];
  PetscScalar C[MPM_DIM][MPM_DIM];
  PetscScalar F[MPM_DIM][MPM_DIM];
} MPMParticle;
#define MPM_NSTATE ((PetscInt)(sizeof(MPMParticle) / sizeof(PetscScalar)))

/* Particle i of a state array of records of nrec reals (MPMParticle, then its internal state z). */
static inline MPMParticle *MPMRecord(PetscScalar *a, PetscInt nrec, PetscInt i)
{
  return (MPMParticle *)(a + (size_t)i * nrec);
}
static inline const MPMParticle *MPMRecordRead(const PetscScalar *a, PetscInt nrec, PetscInt i)
{
  return (const MPMParticle *)(a + (size_t)i * nrec);
}
/* The internal state z of particle i of such an array (NULL when nrec = MPM_NSTATE: no internal state). */
static inline PetscScalar *MPMRecordState(PetscScalar *a, PetscInt nrec, PetscInt i)
{
  return nrec > MPM_NSTATE ? a + (size_t)i * nrec + MPM_NSTATE : NULL;
}
static inline const PetscScalar *MPMRecordStateRead(const PetscScalar *a, PetscInt nrec, PetscInt i)
{
  return nrec > MPM_NSTATE ? a + (size_t)i * nrec + MPM_NSTATE : NULL;
}

/* What does not change during a run: mass, initial volume, material.  Stored as reals so the
 * particle exchange moves one contiguous block per particle; label and model are small integers. */
typedef struct {
  PetscScalar mass;   /* [kg/m] (per unit depth in 2-D) */
  PetscScalar volume; /* initial volume V0 [m^2] */
  PetscScalar E;      /* Young's modulus [Pa] */
  PetscScalar nu;     /* Poisson ratio [1] */
  PetscScalar label;  /* region */
  PetscScalar model;  /* MPMModel */
  /* plasticity (models that list sigma_y in their params, e.g. j2; carried but unused by the elastic ones) */
  PetscScalar sigma_y;         /* initial yield stress [Pa] */
  PetscScalar H;               /* linear isotropic hardening modulus [Pa] */
  PetscScalar yield_smoothing; /* width of the smoothed yield kinks (relative to sigma_y for j2) [1] */
  /* granular plasticity (models that list friction_angle in their params, e.g. drucker-prager) */
  PetscScalar friction_angle; /* internal friction angle phi [degrees] */
  PetscScalar cohesion;       /* Mohr-Coulomb cohesion c [Pa] */
} MPMMaterialPoint;
#define MPM_NMAT ((PetscInt)(sizeof(MPMMaterialPoint) / sizeof(PetscScalar)))

/* A grid node: mass and momentum after the particle-to-grid transfer; the grid update replaces the
 * momentum by the new velocity. */
typedef struct {
  PetscScalar m;
  PetscScalar p[MPM_DIM];
} MPMNode;
#define MPM_NNODE ((PetscInt)(sizeof(MPMNode) / sizeof(PetscScalar)))

/* A rigid obstacle fixed in space (obstacles.c, contact.c): a shape of the geometry layer (plane, circle,
 * ellipse; include/adjsim/geometry.h) with its signed distance phi (< 0 inside) and outward normal
 * n = grad phi (AdjShapeDistanceNormal), the same code as the fluid's immersed bodies. */
typedef struct {
  AdjShape    shape;
  MPMWallType type;      /* sticky, slip or friction (never none) */
  char        spec[256]; /* the option value, for messages */
  char        option[32];
} MPMObstacle;

/* Background grid: M[d] cells of size h[d] on [0, L[d]], nodes 0..M[d] at cell corners.  This rank
 * owns nodes [s[d], s[d] + m[d]) and its ghosted arrays span [gs[d], gs[d] + gm[d]). */
typedef struct {
  PetscInt    M[MPM_DIM];
  PetscReal   L[MPM_DIM], h[MPM_DIM];
  PetscInt    s[MPM_DIM], m[MPM_DIM], gs[MPM_DIM], gm[MPM_DIM];
  MPMWallType wall[MPM_DIM][2];   /* [direction][low, high side] */
  PetscInt    wall_width;         /* walls act on nodes this many nodes deep */
  PetscReal   friction;           /* Coulomb coefficient mu of the friction walls [1] */
  PetscReal   friction_smoothing; /* regularization width eps of the friction walls [m/s] */
  PetscInt    nobstacles;
  MPMObstacle obstacle[MPM_MAX_OBSTACLES];
  PetscReal   obstacle_width; /* contact acts on nodes with phi < obstacle_width, blended smoothly [m] */
} MPMGrid;

/* Particles of a body read from an HDF5 particle file (bodyfile.c); optional arrays are NULL when absent. */
typedef struct {
  PetscInt   n;
  PetscReal *x, *volume;     /* (n, 2) positions [m], (n) initial volumes [m^2] */
  PetscReal *v, *F;          /* (n, 2) velocities [m/s], (n, 4) deformation gradients */
  PetscReal *label, *E, *nu; /* (n) labels, Young's moduli [Pa], Poisson ratios */
} MPMFileParticles;

/* A body of the initial condition: a shape filled with particles of one label and one velocity, or the
 * particles of a file (their own velocities plus the body velocity). */
typedef struct {
  MPMShape          shape;
  MPMFileParticles *file;                     /* shape file */
  char              path[PETSC_MAX_PATH_LEN]; /* shape file */
  PetscBool         label_set;
  PetscReal         geom[4]; /* box: x0, y0, x1, y1; disk: cx, cy, r */
  PetscInt          label;
  PetscReal         velocity[MPM_DIM];
  PetscReal         position[MPM_DIM]; /* translation of the seeded particles [m] (parameter block "position") */
  char              spec[256];         /* the option value, for messages */
  char              option[32];
} MPMBody;

/* Per-particle material fields (parameter blocks "E_field", "nu_field"). */
typedef enum { MPM_FIELD_E, MPM_FIELD_NU, MPM_NFIELDS } MPMFieldKind;
extern const char *const MPMFieldNames[MPM_NFIELDS];

/* The exchange set-ups (MPMExchangeSetUp) counted by how their rebuild decision was taken (MPMExchangeView). */
typedef enum {
  MPM_EXCHANGE_SETUPS,  /* set-ups */
  MPM_EXCHANGE_LOCAL,   /* decided from what the ranks already knew: no communication */
  MPM_EXCHANGE_REDUCED, /* decided by one global reduction */
  MPM_EXCHANGE_REBUILT, /* the home -> owner SF was rebuilt (some particle changed owner, or no SF yet) */
  MPM_EXCHANGE_KEPT,    /* steps whose owners kept their particles from the step before: no home -> owner transfer */
  MPM_EXCHANGE_NCOUNTS
} MPMExchangeCount;
enum { MPM_OWNERS_UNKNOWN = 0, MPM_OWNERS_SAME = 1, MPM_OWNERS_CHANGED = 2 };

/* Soft-robot actuation (actuation.h, actuation.c): NULL when no actuator is given. */
typedef struct _n_MPMActuation *MPMActuation;

typedef struct _n_MPM *MPM;
struct _n_MPM {
  MPI_Comm    comm;
  const char *prefix; /* options prefix of the stepper (NULL: none) */
  PetscMPIInt rank, size;
  DM          da;  /* nodes, dof MPM_NNODE, box stencil of width 1 */
  DM          da1; /* nodes, dof 1, same ownership: output fields, the run's grid */
  MPMGrid     grid;
  PetscInt   *node_rank[MPM_DIM]; /* process coordinate owning node i along direction d */
  PetscInt    nproc[MPM_DIM];
  /* materials per label */
  PetscInt  nlabels;
  PetscReal E[MPM_MAX_LABELS], nu[MPM_MAX_LABELS], rho[MPM_MAX_LABELS];
  PetscReal sigma_y[MPM_MAX_LABELS], H[MPM_MAX_LABELS], yield_smoothing[MPM_MAX_LABELS];
  PetscBool plastic; /* some label's model reads sigma_y, H: the parameter blocks "sigma_y" and "H" exist */
  PetscReal friction_angle[MPM_MAX_LABELS], cohesion[MPM_MAX_LABELS];
  PetscBool granular; /* some label's model reads friction_angle, cohesion: their parameter blocks exist */
  MPMModel  model[MPM_MAX_LABELS];
  PetscInt  nz;   /* internal-state reals per particle: the largest nstate of the labels' models (mpmmodel.h) */
  PetscInt  nrec; /* reals per particle record of the state Vec: MPM_NSTATE + nz */
  PetscReal gravity[MPM_DIM];
  /* initial condition */
  PetscInt nbodies, ppc, permute;
  MPMBody  body[MPM_MAX_BODIES];
  /* particles: home layout (fixed, contiguous global order split evenly over ranks) */
  PetscInt N, nhome, hstart;
  Vec      x0;  /* initial state (home layout) */
  Vec      mat; /* MPMMaterialPoint per particle (home layout) */
  /* time */
  PetscReal    final_time, dt, cfl, dt_limit, wave_speed, speed_bound;
  AdjStepIndex nsteps;
  PetscBool    output_grid;
  /* exchange home -> owner (rebuilt when a particle changes owner) and owner-side work arrays: the particles
   * pin, pout and their internal states zin, zout (nz reals each; NULL when nz = 0), which travel as one
   * record of the state Vec (state_type: nrec reals) through the staging array rec (NULL when nz = 0: the
   * records are the particles, exchanged in place) */
  PetscSF      sf;
  PetscMPIInt *owner; /* owner rank of each home particle when sf was built (NULL: none yet) */
  /* Which state the owners of sf belong to, and what is known of the owners of the run's states without asking the
   * other ranks (exchange.c, "Deciding without communication"): sf_state is the step index of the last state the
   * exchange was set up for (-1: none known); owners_known[s] (s = 1..nsteps) says whether the owners of state s
   * equal those of state s - 1 (MPM_OWNERS_SAME), differ (MPM_OWNERS_CHANGED) or are not known. */
  AdjStepIndex sf_state;
  char        *owners_known;
  AdjStepIndex owners_known_n;
  PetscBool    exchange_reduce_always; /* -mpm_exchange_reduce_always: one global reduction at every set-up */
  /* Particles that stay with their owners (MPMExchangeToOwnersStep): pout, zout hold the state of step out_state
   * (-1: none), as MPMStep computed and sent it home (to out_vec, of PETSc object state out_vec_state then);
   * out_checked: MPMCheckState passed that state in that Vec, unchanged; mat_sent and
   * its PETSc object state mat_sent_state: the material Vec that pmat was last filled from. */
  AdjStepIndex      out_state;
  PetscBool         out_checked;
  Vec               out_vec; /* the Vec pout was last sent to (compared, never used: not a reference) */
  PetscObjectState  out_vec_state;
  Vec               mat_sent;
  PetscObjectState  mat_sent_state;
  PetscInt64        exchange_count[MPM_EXCHANGE_NCOUNTS];
  MPI_Datatype      state_type, mat_type;
  PetscInt          nowned, capacity;
  MPMParticle      *pin, *pout;
  MPMMaterialPoint *pmat;
  PetscScalar      *zin, *zout, *rec;
  Vec               gnodes, lnodes; /* grid nodes: global and ghosted */
  Vec               gnodes_p2g;     /* the P2G result (m, m v) of the forward step: the grid update's input */
  PetscBool         has_friction;   /* some wall or obstacle is of type friction: the "friction" block exists */
  Vec               out[3];         /* grid mass, vx, vy on da1 for output */
  PetscReal        *outbuf;         /* the particle output fields of the last output step */
  /* The intermediates above (sf, pin, pmat, gnodes, lnodes) belong to the forward step fwd_step
   * (-1: none, e.g. after MPMGridFields reused them); the step adjoint reuses them. */
  AdjStepIndex fwd_step;
  /* adjoint: owner-side work arrays, node adjoints, body of each home particle */
  PetscInt          capacity_adj;
  MPMParticle      *pinb, *poutb;
  MPMMaterialPoint *pmatb;
  PetscScalar      *zinb, *zoutb; /* adjoints of zin, zout (NULL when nz = 0) */
  Vec               gnodesb, lnodesb;
  PetscInt         *body_of;
  PetscReal        *seed_x; /* seeded positions of the home particles before the body translations */
  PetscReal        *seed_v; /* seeded velocities before the body velocities (file bodies; else 0) */
  /* per-particle material fields: values, Tikhonov reference and weight, gradient work Vec (home layout) */
  PetscBool field_on[MPM_NFIELDS];
  Vec       field[MPM_NFIELDS], field_ref[MPM_NFIELDS], field_grad[MPM_NFIELDS];
  PetscReal reg_alpha[MPM_NFIELDS];
  Vec       gmat;    /* dJ/d(material) per home particle (MPMMaterialPoint layout), summed over the steps */
  Vec       lambda0; /* dJ/dx0 of the last gradient (state layout): the sensitivity maps x0, v0 */
  /* parameter gradients: this rank's partial sums (summed over ranks by getgradient/writegradient) */
  PetscReal gE[MPM_MAX_LABELS], gnu[MPM_MAX_LABELS], grho[MPM_MAX_LABELS], ggravity[MPM_DIM], gfriction;
  PetscReal gvelocity[MPM_DIM * MPM_MAX_BODIES], gposition[MPM_DIM * MPM_MAX_BODIES];
  PetscReal gsigma_y[MPM_MAX_LABELS], gH[MPM_MAX_LABELS];
  PetscReal gfriction_angle[MPM_MAX_LABELS], gcohesion[MPM_MAX_LABELS];
  /* the same summed over ranks (MPMGradientSums), where the parameter blocks find them */
  PetscReal sE[MPM_MAX_LABELS], snu[MPM_MAX_LABELS], srho[MPM_MAX_LABELS], sgravity[MPM_DIM], sfriction;
  PetscReal svelocity[MPM_DIM * MPM_MAX_BODIES], sposition[MPM_DIM * MPM_MAX_BODIES];
  PetscReal ssigma_y[MPM_MAX_LABELS], sH[MPM_MAX_LABELS];
  PetscReal sfriction_angle[MPM_MAX_LABELS], scohesion[MPM_MAX_LABELS];
  /* objectives (objective.c) */
  PetscInt      nobs;       /* observed output steps */
  AdjStepIndex *obs_step;   /* their step numbers */
  PetscReal   **obs_x;      /* observed positions of the home particles, nhome x MPM_DIM per step */
  PetscReal    *obs_marker; /* 1 for the observed (marker) home particles, else 0 */
  PetscReal     obs_weight;
  PetscReal     com_target[MPM_DIM], com_weight, com_linear[MPM_DIM];
  PetscBool     com_on, com_linear_on;
  /* grid-mass target at the final step: J += w/2 |m - m*|^2 / |m*|^2 (node masses on da1) */
  PetscBool mass_on;
  Vec       mass_target, mass_work;
  PetscReal mass_weight, mass_norm2;
  MPMBody   mass_shape[MPM_MAX_BODIES];
  /* energy history (energy.c): rows not yet written to /history/energy */
  PetscReal *energy_rows;
  PetscInt   energy_nrows;
  /* actuators and their open-loop signal (actuation.c; NULL: none) */
  MPMActuation act;
};

/* Kernels: pure functions.  Each forward kernel's adjoint (same name + Adjoint) sits right below it in
 * its file. */
/* transfer.c: B-spline weights, particle-to-grid, grid-to-particle */
void           MPMBSpline(PetscReal t, PetscInt *base, PetscReal w[MPM_STENCIL], PetscReal *frac);
PetscReal      MPMBSplineAdjoint(PetscReal t, const PetscReal wb[MPM_STENCIL]);
PetscErrorCode MPMParticleToGrid(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                                 const MPMMaterialPoint mat[], PetscInt nz, const PetscScalar z[], PetscScalar znew[],
                                 const struct _n_MPMActuation *act, const PetscReal level[], MPMNode **nodes);
PetscErrorCode MPMParticleToGridAdjoint(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle p[],
                                        const MPMMaterialPoint mat[], PetscInt nz, const PetscScalar z[],
                                        const PetscScalar znewb[], const struct _n_MPMActuation *act,
                                        const PetscReal level[], const MPMNode *const *nodesb, MPMParticle pb[],
                                        PetscScalar zb[], MPMMaterialPoint matb[], PetscReal levelb[]);
PetscErrorCode MPMGridToParticle(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle pin[],
                                 const MPMNode *const *nodes, MPMParticle pout[]);
PetscErrorCode MPMGridToParticleAdjoint(const MPMGrid *g, PetscReal dt, PetscInt n, const MPMParticle pin[],
                                        const MPMNode *const *nodes, const MPMParticle poutb[], MPMParticle pinb[],
                                        MPMNode **nodesb);
/* grid.c: grid update (gravity, walls: sticky, slip, friction; obstacles) */
PetscErrorCode MPMGridUpdate(const MPMGrid *g, PetscReal dt, const PetscReal gravity[], MPMNode **nodes);
PetscErrorCode MPMGridUpdateAdjoint(const MPMGrid *g, PetscReal dt, const PetscReal gravity[], const MPMNode *const *in,
                                    MPMNode **nodesb, PetscReal gravityb[], PetscReal *frictionb);
/* walls.c: the friction wall */
PetscInt MPMFrictionWall(PetscReal mu, PetscReal eps, PetscInt d, PetscReal sgn, PetscScalar v[MPM_DIM]);
void     MPMFrictionWallAdjoint(PetscReal mu, PetscReal eps, PetscInt d, PetscReal sgn, const PetscScalar vin[MPM_DIM],
                                PetscScalar vb[MPM_DIM], PetscReal *mub);
/* contact.c: rigid obstacles */
PetscReal MPMObstacleDistance(const MPMObstacle *o, const PetscReal x[MPM_DIM], PetscReal n[MPM_DIM]);
PetscReal MPMObstacleWeight(PetscReal phi, PetscReal width);
void      MPMObstacleContact(MPMWallType type, PetscReal s, const PetscReal n[MPM_DIM], PetscReal mu, PetscReal eps,
                             PetscScalar v[MPM_DIM]);
void MPMObstacleContactAdjoint(MPMWallType type, PetscReal s, const PetscReal n[MPM_DIM], PetscReal mu, PetscReal eps,
                               const PetscScalar vin[MPM_DIM], PetscScalar vb[MPM_DIM], PetscReal *mub);
/* model.c: the particle's constitutive model through its table entry (mpmmodel.h) at (F, z) (z: the
 * particle's internal state, NULL when the run has none): Kirchhoff stress tau(F, z) (the updated state is
 * discarded), stored energy V0 psi(F, z) [J/m]; the initial internal state of the home particles and its
 * adjoint */
void      MPMKirchhoff(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[],
                       PetscScalar tau[MPM_DIM][MPM_DIM]);
PetscReal MPMStrainEnergy(const MPMMaterialPoint *mp, const PetscScalar F[MPM_DIM][MPM_DIM], const PetscScalar z[]);
PetscErrorCode MPMInitialInternalState(MPM mpm, Vec x0);
PetscErrorCode MPMInitialInternalStateAdjoint(MPM mpm, Vec lambda0);

/* models/kinematics.h: Lame parameters, determinant, cofactor, polar rotation (static inline) */
#include "models/kinematics.h"

/* Distribution (exchange.c): scatter home -> owner by position, and back. */
PetscErrorCode MPMExchangeSetUp(MPM mpm, AdjStepIndex k, AdjStepIndex s, Vec x);
PetscErrorCode MPMExchangeOwnersMoved(MPM mpm, AdjStepIndex s, const PetscScalar *home, PetscBool *moved);
PetscErrorCode MPMExchangeRecordOwners(MPM mpm, AdjStepIndex s, Vec x, PetscBool moved);
PetscErrorCode MPMExchangeForget(MPM mpm);
PetscErrorCode MPMExchangeView(MPM mpm);
PetscErrorCode MPMExchangeToOwners(MPM mpm, Vec x);
PetscErrorCode MPMExchangeToOwnersStep(MPM mpm, AdjStepIndex s, Vec x);
PetscErrorCode MPMExchangeSentHome(MPM mpm, AdjStepIndex k);
PetscErrorCode MPMExchangeToHome(MPM mpm, Vec x);
PetscErrorCode MPMExchangeDestroy(MPM mpm);
PetscErrorCode MPMExchangeToOwnersAdjoint(MPM mpm, Vec xb);
PetscErrorCode MPMExchangeToHomeAdjoint(MPM mpm, Vec xb);
PetscErrorCode MPMExchangeMaterialToOwnersAdjoint(MPM mpm, Vec matb);

/* Vec-level operations (step.c) */
PetscErrorCode MPMStep(void *ctx, AdjStepIndex k, Vec xin, Vec xout);
PetscErrorCode MPMStepAdjoint(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin);
PetscErrorCode MPMAccumulateMaterialGradient(MPM mpm, PetscInt n, const MPMMaterialPoint mat[],
                                             const MPMMaterialPoint matb[]);

/* Objectives (objective.c) */
PetscErrorCode MPMObjectiveSetFromOptions(MPM mpm);
PetscErrorCode MPMObjectiveDestroy(MPM mpm);
PetscErrorCode MPMObjectiveEvaluate(void *ctx, AdjStepIndex k, Vec x, PetscReal *J);
PetscErrorCode MPMObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda);
PetscErrorCode MPMGridFields(MPM mpm, AdjStepIndex k, Vec x, Vec mass, Vec vel[MPM_DIM]);
PetscErrorCode MPMGridMass(MPM mpm, AdjStepIndex k, Vec x, Vec mass);
PetscErrorCode MPMGridMassAdjoint(MPM mpm, AdjStepIndex k, Vec x, Vec massb, Vec lambda);

/* Actuation (actuation.c): set-up, the step's active stress and its adjoint, energy penalty, parameter block */
PetscErrorCode MPMActuationSetUp(MPM mpm);
PetscErrorCode MPMActuationDestroy(MPM mpm);
PetscErrorCode MPMActuationStepLevels(MPM mpm, AdjStepIndex k, Vec xin);
PetscErrorCode MPMActuationStepStress(MPM mpm, PetscReal dt, const struct _n_MPMActuation **act,
                                      const PetscReal **level);
PetscErrorCode MPMActuationStepStressAdjointBegin(MPM mpm, AdjStepIndex k, const struct _n_MPMActuation **act,
                                                  const PetscReal **level, PetscReal **levelb);
PetscErrorCode MPMActuationStepStressAdjointEnd(MPM mpm, AdjStepIndex k, Vec xin, Vec lin);
PetscErrorCode MPMActuationEnergy(MPM mpm, PetscReal *E);
PetscErrorCode MPMActuationGradientSums(MPM mpm);
PetscErrorCode MPMActuationRegister(MPM mpm, AdjStepper st, AdjParams params);

/* Energy history (energy.c) */
PetscErrorCode MPMEnergyMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x);
PetscErrorCode MPMEnergyDestroy(MPM mpm);

/* Set-up from options (setup.c, bodies.c) */
PetscErrorCode MPMSetUpGrid(MPM mpm);
PetscErrorCode MPMSetUpMaterials(MPM mpm);
PetscErrorCode MPMSetUpObstacles(MPM mpm);
PetscErrorCode MPMCheckOutsideObstacles(MPM mpm, const PetscReal x[MPM_DIM], const MPMBody *b);
PetscBool      MPMParseReals(const char *s, PetscInt n, PetscReal v[]);
PetscErrorCode MPMSetUpBodies(MPM mpm);
PetscErrorCode MPMSeedParticles(MPM mpm);
PetscErrorCode MPMSetUpTime(MPM mpm);
PetscErrorCode MPMBodyFileLoad(MPM mpm, MPMBody *b);
PetscErrorCode MPMBodyParse(MPM mpm, MPMBody *b);
PetscBool      MPMBodyContains(const MPMBody *b, const PetscReal x[]);
PetscErrorCode MPMBodyFileDestroy(MPMBody *b);

extern PetscLogEvent MPM_Exchange, MPM_P2G, MPM_Grid, MPM_G2P, MPM_Step, MPM_StepAdjoint;

/* Parameter blocks, their checks and regularization (parameters.c); output and restart (output.c). */
PetscErrorCode MPMRegularization(void *ctx, AdjParams params, PetscReal *R);
PetscErrorCode MPMSetUpFields(MPM mpm);
PetscErrorCode MPMRegisterParameters(MPM mpm, AdjParams params);
PetscErrorCode MPMWriteInitialSensitivity(void *ctx, AdjParams params, AdjOutput out);
PetscErrorCode MPMDescribeFields(MPM mpm, AdjStepper st);
PetscErrorCode MPMFieldValues(void *ctx, AdjFieldSet set, Vec x, AdjFieldValues values);
PetscErrorCode MPMWriteModels(void *ctx, AdjParams params, AdjOutput out);
