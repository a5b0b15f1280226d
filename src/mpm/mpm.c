/* The MPM solver as an AdjStepper: the ops that connect the physics to the driver, forward and
 * adjoint.  Parameter blocks (arrays): "E", "nu", "rho" (one value per label), "gravity" (gx, gy),
 * "velocity" (vx, vy of each body's initial velocity), "position" (translation of each body's initial
 * particles), "friction"; per-particle fields (with -mpm_E_per_particle, -mpm_nu_per_particle): "E_field",
 * "nu_field" (replacing "E", "nu" per label), with Tikhonov regularization.  Objectives: objective.c. */
#include "mpmimpl.h"
#include <adjsim/io.h>
#include <adjsim/particles.h>
#include <adjsim/stepperimpl.h>

const char *const MPMFieldNames[MPM_NFIELDS] = {"E_field", "nu_field"};

PetscLogEvent MPM_Exchange, MPM_P2G, MPM_Grid, MPM_G2P, MPM_Step, MPM_StepAdjoint;

/* Log events of the class MPM, registered once by the create function. */
static const AdjLogEvent MPMEvents[] = {{"MPMExchange", &MPM_Exchange}, {"MPMP2G", &MPM_P2G},
                                        {"MPMGrid", &MPM_Grid},         {"MPMG2P", &MPM_G2P},
                                        {"MPMStep", &MPM_Step},         {"MPMStepAdjoint", &MPM_StepAdjoint}};

/* x0 = seeded position + translation of the body, velocity of the body: the position and velocity gradients
 * of body b += sums of lambda0.x and lambda0.v over its particles; z0 = stateinit(E, nu, ...) of the models
 * with internal state: the material gradients += (dz0/d(E, nu))^T lambda0.z (MPMInitialInternalStateAdjoint).
 * lambda0 itself is kept: the per-particle sensitivity maps dJ/dx0, dJ/dv0 of the gradient output. */
static PetscErrorCode MPMInitialStateAdjoint(void *ctx, Vec lambda0)
{
  MPM                mpm = (MPM)ctx;
  const PetscScalar *lb;

  PetscFunctionBeginUser;
  if (!mpm->lambda0) PetscCall(VecDuplicate(lambda0, &mpm->lambda0));
  PetscCall(VecCopy(lambda0, mpm->lambda0));
  PetscCall(VecGetArrayRead(lambda0, &lb));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const MPMParticle *l = MPMRecordRead(lb, mpm->nrec, i);

    for (PetscInt a = 0; a < MPM_DIM; a++) {
      mpm->gvelocity[MPM_DIM * mpm->body_of[i] + a] += l->v[a];
      mpm->gposition[MPM_DIM * mpm->body_of[i] + a] += l->x[a];
    }
  }
  PetscCall(VecRestoreArrayRead(lambda0, &lb));
  PetscCall(MPMInitialInternalStateAdjoint(mpm, lambda0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMHasObjective(void *ctx, PetscBool *has)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(mpm->nobs > 0 || mpm->com_on || mpm->com_linear_on || mpm->mass_on);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What can go wrong with a particle, in the order checked. */
typedef enum { MPM_BAD_NONE, MPM_BAD_NAN, MPM_BAD_INVERTED, MPM_BAD_OUTSIDE, MPM_BAD_FAST } MPMBadKind;

static MPMBadKind MPMParticleCheck(const MPM mpm, const MPMParticle *p)
{
  const PetscScalar *a = (const PetscScalar *)p;

  for (PetscInt c = 0; c < mpm->nrec; c++) /* the whole record: the internal state too */
    if (PetscIsInfOrNanScalar(a[c])) return MPM_BAD_NAN;
  if (!(MPMDeterminant(p->F) > 0)) return MPM_BAD_INVERTED;
  for (PetscInt d = 0; d < MPM_DIM; d++) {
    PetscInt  base;
    PetscReal w[MPM_STENCIL], f;

    MPMBSpline(p->x[d] / mpm->grid.h[d], &base, w, &f);
    if (base < 0 || base + 2 > mpm->grid.M[d]) return MPM_BAD_OUTSIDE;
  }
  if (mpm->dt * PetscSqrtReal(PetscSqr(p->v[0]) + PetscSqr(p->v[1])) > PetscMin(mpm->grid.h[0], mpm->grid.h[1]))
    return MPM_BAD_FAST;
  return MPM_BAD_NONE;
}

/* Stops a run whose state holds NaN/Inf (internal state included), an inverted or degenerate F (J <= 0), a
 * particle whose stencil left the grid, or a particle moving more than a cell per step, naming the first such
 * particle (global index), the step and the particle's position. */
static PetscErrorCode MPMCheckState(void *ctx, AdjStepIndex k, Vec x)
{
  MPM                mpm = (MPM)ctx;
  const PetscScalar *a;
  PetscInt64         mine    = PETSC_MAX_INT, first, both[2];
  PetscReal          info[5] = {0, 0, 0, 0, 0}; /* kind, x, y, J, speed */
  PetscMPIInt        holder, root;
  PetscBool          moved;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, &a));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const MPMParticle *p    = MPMRecordRead(a, mpm->nrec, i);
    const MPMBadKind   kind = MPMParticleCheck(mpm, p);

    if (kind == MPM_BAD_NONE) continue;
    mine    = mpm->hstart + i;
    info[0] = kind, info[1] = p->x[0], info[2] = p->x[1], info[3] = MPMDeterminant(p->F);
    info[4] = PetscSqrtReal(PetscSqr(p->v[0]) + PetscSqr(p->v[1]));
    break;
  }
  /* the same reduction tells the exchange whether some particle changed rank in this step (exchange.c): the next
     step then needs no reduction of its own to decide */
  PetscCall(MPMExchangeOwnersMoved(mpm, k, a, &moved));
  PetscCall(VecRestoreArrayRead(x, &a));
  both[0] = mine, both[1] = moved ? 0 : 1;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, both, 2, MPIU_INT64, MPI_MIN, mpm->comm));
  first = both[0];
  if (first == PETSC_MAX_INT) PetscCall(MPMExchangeRecordOwners(mpm, k, x, (PetscBool)(both[1] == 0)));
  if (first == PETSC_MAX_INT) PetscFunctionReturn(PETSC_SUCCESS);
  holder = first == mine ? mpm->rank : mpm->size;
  PetscCallMPI(MPI_Allreduce(&holder, &root, 1, MPI_INT, MPI_MIN, mpm->comm));
  PetscCallMPI(MPI_Bcast(info, 5, MPIU_REAL, root, mpm->comm));
  switch ((MPMBadKind)(PetscInt)info[0]) {
  case MPM_BAD_NAN:
    SETERRQ(mpm->comm, PETSC_ERR_FP,
            "MPM state became NaN/Inf at step %" PetscInt64_FMT " (t = %g s), first at particle %" PetscInt64_FMT
            " (at (%g, %g) m); reduce -mpm_dt or -mpm_cfl",
            (PetscInt64)k, (double)(k * mpm->dt), first, (double)info[1], (double)info[2]);
  case MPM_BAD_INVERTED:
    SETERRQ(mpm->comm, PETSC_ERR_FP,
            "Particle %" PetscInt64_FMT
            " has an inverted or degenerate deformation gradient, J = det F = %g <= 0, at step "
            "%" PetscInt64_FMT " (t = %g s) at (%g, %g) m; reduce -mpm_dt or -mpm_cfl, or refine -mpm_grid",
            first, (double)info[3], (PetscInt64)k, (double)(k * mpm->dt), (double)info[1], (double)info[2]);
  case MPM_BAD_OUTSIDE:
    SETERRQ(mpm->comm, PETSC_ERR_USER_INPUT,
            "Particle %" PetscInt64_FMT " left the domain at step %" PetscInt64_FMT
            ": it is at (%g, %g) m, where its B-spline stencil needs nodes outside the grid [0,%g] x [0,%g] m; add "
            "walls (-mpm_wall_<side> sticky or slip) or enlarge -mpm_domain",
            first, (PetscInt64)k, (double)info[1], (double)info[2], (double)mpm->grid.L[0], (double)mpm->grid.L[1]);
  default:
    SETERRQ(mpm->comm, PETSC_ERR_FP,
            "Particle %" PetscInt64_FMT " moves more than a cell per step at step %" PetscInt64_FMT
            " (t = %g s): speed %g m/s at (%g, %g) m with dt %g s and h %g m; the run is unstable: reduce -mpm_cfl",
            first, (PetscInt64)k, (double)(k * mpm->dt), (double)info[4], (double)info[1], (double)info[2],
            (double)mpm->dt, (double)PetscMin(mpm->grid.h[0], mpm->grid.h[1]));
  }
}

static PetscErrorCode MPMDestroy(AdjStepper st)
{
  MPM mpm;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(MPMExchangeDestroy(mpm));
  PetscCall(MPMObjectiveDestroy(mpm));
  PetscCall(MPMEnergyDestroy(mpm));
  PetscCall(MPMActuationDestroy(mpm));
  PetscCall(PetscFree(mpm->body_of));
  PetscCall(PetscFree(mpm->seed_x));
  PetscCall(PetscFree(mpm->seed_v));
  for (PetscInt b = 0; b < mpm->nbodies; b++) PetscCall(MPMBodyFileDestroy(&mpm->body[b]));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++) {
    PetscCall(VecDestroy(&mpm->field[f]));
    PetscCall(VecDestroy(&mpm->field_ref[f]));
    PetscCall(VecDestroy(&mpm->field_grad[f]));
  }
  PetscCall(VecDestroy(&mpm->gmat));
  PetscCall(VecDestroy(&mpm->lambda0));
  PetscCall(VecDestroy(&mpm->gnodesb));
  PetscCall(VecDestroy(&mpm->lnodesb));
  if (mpm->state_type != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&mpm->state_type));
  if (mpm->mat_type != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&mpm->mat_type));
  PetscCall(VecDestroy(&mpm->x0));
  PetscCall(VecDestroy(&mpm->mat));
  PetscCall(VecDestroy(&mpm->gnodes));
  PetscCall(VecDestroy(&mpm->gnodes_p2g));
  PetscCall(VecDestroy(&mpm->lnodes));
  for (PetscInt c = 0; c < 3; c++) PetscCall(VecDestroy(&mpm->out[c]));
  PetscCall(PetscFree(mpm->outbuf));
  for (PetscInt d = 0; d < MPM_DIM; d++) PetscCall(PetscFree(mpm->node_rank[d]));
  PetscCall(DMDestroy(&mpm->da1));
  PetscCall(DMDestroy(&mpm->da));
  PetscCall(PetscFree(mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the case from the options database (with the stepper's prefix) and builds the solver. */
/* What the adjoint adds to (this rank's partial sums, added over ranks by the gradient hook; per-particle material
   sensitivities): zeroed before each gradient, saved when a gradient run stops. */
static PetscErrorCode MPMDeclareGradients(MPM mpm, AdjStepper st)
{
  const struct {
    const char  *name;
    PetscScalar *a;
    PetscInt     n;
  } arrays[] = {
      {"E", mpm->gE, MPM_MAX_LABELS},
      {"nu", mpm->gnu, MPM_MAX_LABELS},
      {"rho", mpm->grho, MPM_MAX_LABELS},
      {"sigma_y", mpm->gsigma_y, MPM_MAX_LABELS},
      {"H", mpm->gH, MPM_MAX_LABELS},
      {"friction_angle", mpm->gfriction_angle, MPM_MAX_LABELS},
      {"cohesion", mpm->gcohesion, MPM_MAX_LABELS},
      {"gravity", mpm->ggravity, MPM_DIM},
      {"velocity", mpm->gvelocity, MPM_DIM * MPM_MAX_BODIES},
      {"position", mpm->gposition, MPM_DIM * MPM_MAX_BODIES},
      {"friction", &mpm->gfriction, 1},
  };

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
    PetscCall(AdjStepperAddGradientArray(st, arrays[i].name, arrays[i].a, arrays[i].n));
  if (mpm->gmat) PetscCall(AdjStepperAddGradientVec(st, "material", mpm->gmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMSetFromOptions(AdjStepper st)
{
  MPM       mpm;
  AdjParams params;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(AdjStepperGetOptionsPrefix(st, &mpm->prefix));
  PetscCall(MPMSetUpGrid(mpm));
  PetscCall(MPMSetUpObstacles(mpm));
  PetscCall(MPMSetUpMaterials(mpm));
  PetscCall(MPMSetUpBodies(mpm));
  PetscCall(MPMSeedParticles(mpm));
  PetscCall(MPMSetUpTime(mpm));
  PetscCall(MPMObjectiveSetFromOptions(mpm));
  PetscCall(MPMSetUpFields(mpm));
  PetscCall(MPMActuationSetUp(mpm));
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: output", "MPM");
  PetscCall(PetscOptionsBool("-mpm_output_grid",
                             "Also write the grid mass [kg/m] and velocity [m/s] (grid_mass, grid_vx, grid_vy) at "
                             "output steps (the run file's grid cells are centred on the nodes)",
                             "", mpm->output_grid, &mpm->output_grid, NULL));
  PetscCall(
      PetscOptionsBool("-mpm_exchange_reduce_always",
                       "Decide at every step by a global reduction whether the particle exchange must be rebuilt, "
                       "instead of from what the ranks already know (the same results; for tests and timing)",
                       "", mpm->exchange_reduce_always, &mpm->exchange_reduce_always, NULL));
  PetscOptionsEnd();
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)mpm->nrec, MPIU_SCALAR, &mpm->state_type));
  PetscCallMPI(MPI_Type_commit(&mpm->state_type));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)MPM_NMAT, MPIU_SCALAR, &mpm->mat_type));
  PetscCallMPI(MPI_Type_commit(&mpm->mat_type));
  PetscCall(AdjStepperSetTimes(st, mpm->nsteps, mpm->dt));
  PetscCall(AdjStepperSetStateTemplate(st, mpm->x0, "mpm_state"));
  PetscCall(AdjStepperSetInitialStateVec(st, mpm->x0));
  {
    /* Output cells are centred on the nodes: node i is the cell [(i - 1/2) h, (i + 1/2) h]. */
    const PetscReal lower[2] = {-0.5 * mpm->grid.h[0], -0.5 * mpm->grid.h[1]};
    const PetscReal upper[2] = {mpm->grid.L[0] + 0.5 * mpm->grid.h[0], mpm->grid.L[1] + 0.5 * mpm->grid.h[1]};
    PetscCall(AdjStepperSetGrid(st, mpm->da1, lower, upper));
  }
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(MPMRegisterParameters(mpm, params));
  PetscCall(MPMDeclareGradients(mpm, st));
  PetscCall(MPMActuationRegister(mpm, st, params));
  PetscCall(MPMDescribeFields(mpm, st));
  PetscCall(PetscInfo(NULL,
                      "mpm: %" PetscInt_FMT " particles, grid %" PetscInt_FMT " x %" PetscInt_FMT
                      ", dt %g s (CFL limit %g s), %" PetscInt64_FMT " steps\n",
                      mpm->N, mpm->grid.M[0], mpm->grid.M[1], (double)mpm->dt, (double)mpm->dt_limit,
                      (PetscInt64)mpm->nsteps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -adjoint_steady: MPM has no damping (docs/mpm.md, "Not yet done"), so an elastic body oscillates about its static
   equilibrium and is only slowly damped by the transfers: no steady state is reached by marching. */
static PetscErrorCode MPMSetSteady(void *ctx, AdjSteadyInfo *info)
{
  PetscFunctionBeginUser;
  (void)ctx;
  info->nosteady = "MPM has no damping: an elastic body oscillates about its static equilibrium instead of settling "
                   "into it (docs/mpm.md)";
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps MPMOps = {.setfromoptions      = MPMSetFromOptions,
                                     .destroy             = MPMDestroy,
                                     .initialstateadjoint = MPMInitialStateAdjoint,
                                     .step                = MPMStep,
                                     .stepadjoint         = MPMStepAdjoint,
                                     .objective           = MPMObjectiveEvaluate,
                                     .objectiveadjoint    = MPMObjectiveAdjoint,
                                     .regularization      = MPMRegularization,
                                     .hasobjective        = MPMHasObjective,
                                     .setsteady           = MPMSetSteady,
                                     .checkstate          = MPMCheckState,
                                     .fieldvalues         = MPMFieldValues,
                                     .monitor             = MPMEnergyMonitor,
                                     .writeparameters     = MPMWriteModels,
                                     .writegradient       = MPMWriteInitialSensitivity};

PetscErrorCode AdjStepperCreate_MPM(AdjStepper st)
{
  MPM mpm;

  PetscFunctionBeginUser;
  PetscCall(AdjLogRegisterEvents("MPM", ADJ_NUM_EVENTS(MPMEvents), MPMEvents));
  PetscCall(PetscNew(&mpm));
  PetscCall(AdjStepperGetComm(st, &mpm->comm));
  mpm->state_type = MPI_DATATYPE_NULL;
  mpm->mat_type   = MPI_DATATYPE_NULL;
  mpm->fwd_step   = -1;
  mpm->sf_state   = -1;
  mpm->out_state  = -1;
  PetscCallMPI(MPI_Comm_rank(mpm->comm, &mpm->rank));
  PetscCallMPI(MPI_Comm_size(mpm->comm, &mpm->size));
  PetscCall(AdjStepperSetImplementation(st, mpm, &MPMOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMGetNumParticles(AdjStepper stepper, PetscInt *n)
{
  MPM mpm;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(stepper, &mpm));
  *n = mpm->N;
  PetscFunctionReturn(PETSC_SUCCESS);
}
