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

PetscErrorCode MPMRegisterEvents(void)
{
  static PetscBool registered = PETSC_FALSE;
  PetscClassId     id;

  PetscFunctionBeginUser;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  registered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("MPM", &id));
  PetscCall(PetscLogEventRegister("MPMExchange", id, &MPM_Exchange));
  PetscCall(PetscLogEventRegister("MPMP2G", id, &MPM_P2G));
  PetscCall(PetscLogEventRegister("MPMGrid", id, &MPM_Grid));
  PetscCall(PetscLogEventRegister("MPMG2P", id, &MPM_G2P));
  PetscCall(PetscLogEventRegister("MPMStep", id, &MPM_Step));
  PetscCall(PetscLogEventRegister("MPMStepAdjoint", id, &MPM_StepAdjoint));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMCreateState(void *ctx, Vec *x)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(mpm->x0, x));
  PetscCall(PetscObjectSetName((PetscObject)*x, "mpm_state"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dJ/d(field) per home particle: the material adjoint summed over the steps (gmat), one component. */
static PetscErrorCode MPMFieldGradient(MPM mpm, MPMFieldKind f, Vec grad)
{
  const MPMMaterialPoint *gm;
  PetscScalar            *g;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(mpm->gmat, (const PetscScalar **)&gm));
  PetscCall(VecGetArrayWrite(grad, &g));
  for (PetscInt i = 0; i < mpm->nhome; i++) g[i] = f == MPM_FIELD_E ? gm[i].E : gm[i].nu;
  PetscCall(VecRestoreArrayWrite(grad, &g));
  PetscCall(VecRestoreArrayRead(mpm->gmat, (const PetscScalar **)&gm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before gradients are packed or written: the rank-local partial sums of the array gradients summed
 * over ranks (one reduction), and the per-particle field gradients from the material adjoint. */
static PetscErrorCode MPMGradientSums(void *ctx)
{
  MPM            mpm = (MPM)ctx;
  const PetscInt L = MPM_MAX_LABELS, nv = MPM_DIM * MPM_MAX_BODIES, n = 3 * L + MPM_DIM + 2 * nv;
  PetscReal      g[4 * MPM_MAX_LABELS + MPM_DIM * (2 * MPM_MAX_BODIES + 1)],
      G[4 * MPM_MAX_LABELS + MPM_DIM * (2 * MPM_MAX_BODIES + 1)];

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(g, mpm->gE, L));
  PetscCall(PetscArraycpy(g + L, mpm->gnu, L));
  PetscCall(PetscArraycpy(g + 2 * L, mpm->grho, L));
  PetscCall(PetscArraycpy(g + 3 * L, mpm->ggravity, MPM_DIM));
  PetscCall(PetscArraycpy(g + 3 * L + MPM_DIM, mpm->gvelocity, nv));
  PetscCall(PetscArraycpy(g + 3 * L + MPM_DIM + nv, mpm->gposition, nv));
  PetscCallMPI(MPI_Allreduce(g, G, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscCall(PetscArraycpy(mpm->sE, G, L));
  PetscCall(PetscArraycpy(mpm->snu, G + L, L));
  PetscCall(PetscArraycpy(mpm->srho, G + 2 * L, L));
  PetscCall(PetscArraycpy(mpm->sgravity, G + 3 * L, MPM_DIM));
  PetscCall(PetscArraycpy(mpm->svelocity, G + 3 * L + MPM_DIM, nv));
  PetscCall(PetscArraycpy(mpm->sposition, G + 3 * L + MPM_DIM + nv, nv));
  if (mpm->has_friction)
    PetscCallMPI(MPI_Allreduce(&mpm->gfriction, &mpm->sfriction, 1, MPIU_REAL, MPIU_SUM, mpm->comm));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(MPMFieldGradient(mpm, (MPMFieldKind)f, mpm->field_grad[f]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The initial velocity (vx, vy per body) and translation of the bodies, kept in the body structs. */
static PetscErrorCode MPMBodyVectorGet(MPM mpm, PetscBool position, PetscReal v[])
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < mpm->nbodies; b++)
    for (PetscInt a = 0; a < MPM_DIM; a++)
      v[MPM_DIM * b + a] = position ? mpm->body[b].position[a] : mpm->body[b].velocity[a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMBodyVectorSet(MPM mpm, PetscBool position, const PetscReal v[])
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < mpm->nbodies; b++)
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      if (position)
        mpm->body[b].position[a] = v[MPM_DIM * b + a];
      else
        mpm->body[b].velocity[a] = v[MPM_DIM * b + a];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMVelocityGet(void *ctx, PetscReal v[])
{
  PetscFunctionBeginUser;
  PetscCall(MPMBodyVectorGet((MPM)ctx, PETSC_FALSE, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMVelocitySet(void *ctx, PetscReal v[])
{
  PetscFunctionBeginUser;
  PetscCall(MPMBodyVectorSet((MPM)ctx, PETSC_FALSE, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMPositionGet(void *ctx, PetscReal v[])
{
  PetscFunctionBeginUser;
  PetscCall(MPMBodyVectorGet((MPM)ctx, PETSC_TRUE, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMPositionSet(void *ctx, PetscReal v[])
{
  PetscFunctionBeginUser;
  PetscCall(MPMBodyVectorSet((MPM)ctx, PETSC_TRUE, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lowest global index among the ranks' candidates `mine` (PETSC_MAX_INT: none) and the value `val`
 * its rank holds, on every rank. Collective. */
static PetscErrorCode MPMFirstParticle(MPM mpm, PetscInt64 mine, PetscReal val[2], PetscInt64 *first)
{
  PetscMPIInt holder, root;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, first, 1, MPIU_INT64, MPI_MIN, mpm->comm));
  if (*first == PETSC_MAX_INT) PetscFunctionReturn(PETSC_SUCCESS);
  holder = *first == mine ? mpm->rank : mpm->size;
  PetscCallMPI(MPI_Allreduce(&holder, &root, 1, MPI_INT, MPI_MIN, mpm->comm));
  PetscCallMPI(MPI_Bcast(val, 2, MPIU_REAL, root, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per-particle fields: every E positive and finite, every nu in (-1, 0.5), naming the first bad particle.
 * Collective. */
static PetscErrorCode MPMCheckFields(MPM mpm)
{
  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < MPM_NFIELDS; f++) {
    const PetscScalar *v;
    PetscInt64         mine   = PETSC_MAX_INT, first;
    PetscReal          val[2] = {0, 0};

    if (!mpm->field_on[f]) continue;
    PetscCall(VecGetArrayRead(mpm->field[f], &v));
    for (PetscInt i = 0; i < mpm->nhome && mine == PETSC_MAX_INT; i++) {
      const PetscBool ok =
          f == MPM_FIELD_E ? (PetscBool)(v[i] > 0 && PetscIsNormalReal(v[i])) : (PetscBool)(v[i] > -1 && v[i] < 0.5);
      if (!ok) mine = mpm->hstart + i, val[0] = v[i];
    }
    PetscCall(VecRestoreArrayRead(mpm->field[f], &v));
    PetscCall(MPMFirstParticle(mpm, mine, val, &first));
    PetscCheck(first == PETSC_MAX_INT, mpm->comm, PETSC_ERR_USER_INPUT,
               "Parameter %s: particle %" PetscInt64_FMT " has %s = %g%s", MPMFieldNames[f], first,
               f == MPM_FIELD_E ? "E" : "nu", (double)val[0],
               f == MPM_FIELD_E ? " Pa; it must be positive" : "; it must lie in (-1, 0.5)");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Translated initial particles must keep their B-spline stencil on the grid; names the first that does not. */
static PetscErrorCode MPMCheckTranslation(MPM mpm, const PetscReal pos[])
{
  PetscInt64 mine   = PETSC_MAX_INT, first;
  PetscReal  val[2] = {0, 0};

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < mpm->nhome && mine == PETSC_MAX_INT; i++)
    for (PetscInt d = 0; d < MPM_DIM; d++) {
      const PetscReal x = mpm->seed_x[MPM_DIM * i + d] + pos[MPM_DIM * mpm->body_of[i] + d];
      PetscInt        base;
      PetscReal       w[MPM_STENCIL], fr;

      MPMBSpline(x / mpm->grid.h[d], &base, w, &fr);
      if (!(x >= 0) || base < 0 || base + 2 > mpm->grid.M[d]) {
        mine   = mpm->hstart + i;
        val[0] = mpm->seed_x[MPM_DIM * i] + pos[MPM_DIM * mpm->body_of[i]];
        val[1] = mpm->seed_x[MPM_DIM * i + 1] + pos[MPM_DIM * mpm->body_of[i] + 1];
      }
    }
  PetscCall(MPMFirstParticle(mpm, mine, val, &first));
  PetscCheck(first == PETSC_MAX_INT, mpm->comm, PETSC_ERR_USER_INPUT,
             "Parameter position: the translation moves initial particle %" PetscInt64_FMT
             " to (%g, %g) m, where its B-spline stencil leaves the grid [0,%g] x [0,%g] m",
             first, (double)val[0], (double)val[1], (double)mpm->grid.L[0], (double)mpm->grid.L[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest P-wave speed sqrt((lambda + 2 mu) / rho) over the particles (their own E, nu). Collective. */
static PetscErrorCode MPMWaveSpeed(MPM mpm, const PetscReal E[], const PetscReal nu[], const PetscReal rho[],
                                   PetscReal *wave)
{
  const MPMMaterialPoint *mat;
  const PetscScalar      *fv[MPM_NFIELDS] = {NULL, NULL};
  PetscReal               local           = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(VecGetArrayRead(mpm->field[f], &fv[f]));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscInt  l  = (PetscInt)mat[i].label;
    const PetscReal Ei = fv[MPM_FIELD_E] ? fv[MPM_FIELD_E][i] : E[l],
                    ni = fv[MPM_FIELD_NU] ? fv[MPM_FIELD_NU][i] : nu[l];
    PetscReal mu, lambda;

    MPMLameParameters(Ei, ni, &mu, &lambda);
    local = PetscMax(local, PetscSqrtReal((lambda + 2 * mu) / rho[l]));
  }
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(VecRestoreArrayRead(mpm->field[f], &fv[f]));
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCallMPI(MPI_Allreduce(&local, wave, 1, MPIU_REAL, MPIU_MAX, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest initial particle speed |v_seed + v_body| with the body velocities vel. Collective. */
static PetscErrorCode MPMInitialSpeed(MPM mpm, const PetscReal vel[], PetscReal *speed)
{
  PetscReal local = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscReal *vb = &vel[MPM_DIM * mpm->body_of[i]], *vs = &mpm->seed_v[MPM_DIM * i];

    local = PetscMax(local, PetscSqrtReal(PetscSqr(vs[0] + vb[0]) + PetscSqr(vs[1] + vb[1])));
  }
  PetscCallMPI(MPI_Allreduce(&local, speed, 1, MPIU_REAL, MPIU_MAX, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New materials, gravity, body velocities and translations: checked, then copied to the particles (their E,
 * nu, from the label or the per-particle field, and mass = rho V0; the initial positions and velocities in
 * x0).  The time step must stay below the stability limit h_min / (c + v) (CFL number 1, not -mpm_cfl: a
 * gradient check or an optimizer moves the parameters a little past the values the time step was chosen
 * for). */
static PetscErrorCode MPMApplyParameters(MPM mpm, const PetscReal E[], const PetscReal nu[], const PetscReal rho[],
                                         const PetscReal gravity[], const PetscReal vel[], const PetscReal pos[])
{
  PetscReal          wave = 0, speed = 0, limit;
  MPMMaterialPoint  *mat;
  MPMParticle       *x0;
  const PetscScalar *fv[MPM_NFIELDS] = {NULL, NULL};

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < mpm->nlabels; l++) {
    PetscCheck(E[l] > 0 && PetscIsNormalReal(E[l]), mpm->comm, PETSC_ERR_USER_INPUT,
               "Young's modulus parameter E of label %" PetscInt_FMT " = %g Pa is not positive", l, (double)E[l]);
    PetscCheck(nu[l] > -1 && nu[l] < 0.5, mpm->comm, PETSC_ERR_USER_INPUT,
               "Poisson ratio parameter nu of label %" PetscInt_FMT " = %g is outside (-1, 0.5)", l, (double)nu[l]);
    PetscCheck(rho[l] > 0 && PetscIsNormalReal(rho[l]), mpm->comm, PETSC_ERR_USER_INPUT,
               "Density parameter rho of label %" PetscInt_FMT " = %g kg/m^3 is not positive", l, (double)rho[l]);
  }
  PetscCall(MPMCheckFields(mpm));
  PetscCall(MPMCheckTranslation(mpm, pos));
  PetscCall(MPMWaveSpeed(mpm, E, nu, rho, &wave));
  PetscCall(MPMInitialSpeed(mpm, vel, &speed));
  speed += PetscSqrtReal(PetscSqr(gravity[0]) + PetscSqr(gravity[1])) * mpm->final_time;
  limit = PetscMin(mpm->grid.h[0], mpm->grid.h[1]) / (wave + speed);
  PetscCheck(mpm->dt <= limit, mpm->comm, PETSC_ERR_USER_INPUT,
             "The parameters (E, nu, rho, gravity, velocity) make the time step %g s exceed the stability limit %g s "
             "(wave speed %g m/s, speed bound %g m/s)",
             (double)mpm->dt, (double)limit, (double)wave, (double)speed);
  for (PetscInt l = 0; l < mpm->nlabels; l++) mpm->E[l] = E[l], mpm->nu[l] = nu[l], mpm->rho[l] = rho[l];
  for (PetscInt a = 0; a < MPM_DIM; a++) mpm->gravity[a] = gravity[a];
  for (PetscInt b = 0; b < mpm->nbodies; b++)
    for (PetscInt a = 0; a < MPM_DIM; a++)
      mpm->body[b].velocity[a] = vel[MPM_DIM * b + a], mpm->body[b].position[a] = pos[MPM_DIM * b + a];
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(VecGetArrayRead(mpm->field[f], &fv[f]));
  PetscCall(VecGetArray(mpm->mat, (PetscScalar **)&mat));
  PetscCall(VecGetArray(mpm->x0, (PetscScalar **)&x0));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscInt l = (PetscInt)mat[i].label;
    const MPMBody *b = &mpm->body[mpm->body_of[i]];

    mat[i].E    = fv[MPM_FIELD_E] ? fv[MPM_FIELD_E][i] : mpm->E[l];
    mat[i].nu   = fv[MPM_FIELD_NU] ? fv[MPM_FIELD_NU][i] : mpm->nu[l];
    mat[i].mass = mpm->rho[l] * mat[i].volume;
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      x0[i].x[a] = mpm->seed_x[MPM_DIM * i + a] + b->position[a];
      x0[i].v[a] = mpm->seed_v[MPM_DIM * i + a] + b->velocity[a];
    }
  }
  PetscCall(VecRestoreArray(mpm->x0, (PetscScalar **)&x0));
  PetscCall(VecRestoreArray(mpm->mat, (PetscScalar **)&mat));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(VecRestoreArrayRead(mpm->field[f], &fv[f]));
  mpm->fwd_step = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New parameter values arrived: checked, then copied to the particles (MPMApplyParameters). */
static PetscErrorCode MPMParametersChanged(void *ctx)
{
  MPM       mpm = (MPM)ctx;
  PetscReal vel[MPM_DIM * MPM_MAX_BODIES], pos[MPM_DIM * MPM_MAX_BODIES];

  PetscFunctionBeginUser;
  PetscCheck(mpm->grid.friction >= 0 && PetscIsNormalReal(mpm->grid.friction + 1), mpm->comm, PETSC_ERR_USER_INPUT,
             "Friction parameter mu = %g is negative", (double)mpm->grid.friction);
  PetscCall(MPMBodyVectorGet(mpm, PETSC_FALSE, vel));
  PetscCall(MPMBodyVectorGet(mpm, PETSC_TRUE, pos));
  PetscCall(MPMApplyParameters(mpm, mpm->E, mpm->nu, mpm->rho, mpm->gravity, vel, pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMInitialState(void *ctx, Vec x0)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecCopy(mpm->x0, x0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x0 = seeded position + translation of the body, velocity of the body: the position and velocity gradients
 * of body b += sums of lambda0.x and lambda0.v over its particles.  lambda0 itself is kept: the per-particle
 * sensitivity maps dJ/dx0, dJ/dv0 of the gradient output. */
static PetscErrorCode MPMInitialStateAdjoint(void *ctx, Vec lambda0)
{
  MPM                mpm = (MPM)ctx;
  const MPMParticle *lb;

  PetscFunctionBeginUser;
  if (!mpm->lambda0) PetscCall(VecDuplicate(lambda0, &mpm->lambda0));
  PetscCall(VecCopy(lambda0, mpm->lambda0));
  PetscCall(VecGetArrayRead(lambda0, (const PetscScalar **)&lb));
  for (PetscInt i = 0; i < mpm->nhome; i++)
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      mpm->gvelocity[MPM_DIM * mpm->body_of[i] + a] += lb[i].v[a];
      mpm->gposition[MPM_DIM * mpm->body_of[i] + a] += lb[i].x[a];
    }
  PetscCall(VecRestoreArrayRead(lambda0, (const PetscScalar **)&lb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMStepOp(void *ctx, AdjStepIndex k, Vec xin, Vec xout)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(MPMStep(mpm, k, xin, xout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMStepAdjointOp(void *ctx, AdjStepIndex k, Vec xin, Vec xout, Vec lout, Vec lin)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(MPMStepAdjoint(mpm, k, xin, lout, lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMObjective(void *ctx, AdjStepIndex k, Vec x, PetscReal *J)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(MPMObjectiveEvaluate(mpm, k, x, J));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMObjectiveAdjointOp(void *ctx, AdjStepIndex k, Vec x, Vec lambda)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(MPMObjectiveAdjoint(mpm, k, x, lambda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tikhonov regularization of the per-particle fields, weighted by the particle volumes V0_p [m^2]:
 *   R = alpha_E/2 sum_p V0_p ((E_p - Eref_p) / Eref_p)^2 + alpha_nu/2 sum_p V0_p (nu_p - nuref_p)^2,
 *   dR/dE_p = alpha_E V0_p (E_p - Eref_p) / Eref_p^2,   dR/dnu_p = alpha_nu V0_p (nu_p - nuref_p),
 * added to the per-particle material gradient.  The relative misfit makes alpha_E independent of the unit
 * and size of E; the volume weight makes R a quadrature of the integral over the bodies, independent of
 * the particle count. Collective. */
static PetscErrorCode MPMRegularization(void *ctx, AdjParams params, PetscReal *R)
{
  MPM                     mpm = (MPM)ctx;
  MPMMaterialPoint       *gm;
  const MPMMaterialPoint *mat;
  PetscReal               local = 0;

  PetscFunctionBeginUser;
  *R = 0;
  if (!mpm->gmat) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecGetArray(mpm->gmat, (PetscScalar **)&gm));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++) {
    const PetscScalar *v, *ref;
    const PetscReal    alpha = mpm->reg_alpha[f];

    if (!mpm->field_on[f] || alpha == 0) continue;
    PetscCall(VecGetArrayRead(mpm->field[f], &v));
    PetscCall(VecGetArrayRead(mpm->field_ref[f], &ref));
    for (PetscInt i = 0; i < mpm->nhome; i++) {
      const PetscReal V = mat[i].volume;

      if (f == MPM_FIELD_E) {
        const PetscReal r = (v[i] - ref[i]) / ref[i];
        local += 0.5 * alpha * V * r * r;
        gm[i].E += alpha * V * r / ref[i];
      } else {
        const PetscReal r = v[i] - ref[i];
        local += 0.5 * alpha * V * r * r;
        gm[i].nu += alpha * V * r;
      }
    }
    PetscCall(VecRestoreArrayRead(mpm->field_ref[f], &ref));
    PetscCall(VecRestoreArrayRead(mpm->field[f], &v));
  }
  PetscCall(VecRestoreArray(mpm->gmat, (PetscScalar **)&gm));
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCallMPI(MPI_Allreduce(&local, R, 1, MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMHasObjective(void *ctx, PetscBool *has)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(mpm->nobs > 0 || mpm->com_on || mpm->com_linear_on || mpm->mass_on);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMZeroGradient(void *ctx)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(mpm->gE, MPM_MAX_LABELS));
  PetscCall(PetscArrayzero(mpm->gnu, MPM_MAX_LABELS));
  PetscCall(PetscArrayzero(mpm->grho, MPM_MAX_LABELS));
  PetscCall(PetscArrayzero(mpm->ggravity, MPM_DIM));
  PetscCall(PetscArrayzero(mpm->gvelocity, MPM_DIM * MPM_MAX_BODIES));
  PetscCall(PetscArrayzero(mpm->gposition, MPM_DIM * MPM_MAX_BODIES));
  mpm->gfriction = 0;
  if (mpm->gmat) PetscCall(VecZeroEntries(mpm->gmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One component of the home-layout state adjoint, per particle (ncomp values each). */
static PetscErrorCode MPMWriteSensitivityMap(MPM mpm, AdjOutput out, const char name[], const char units[],
                                             PetscInt offset, PetscReal *buf)
{
  const PetscScalar *lb;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(mpm->lambda0, &lb));
  for (PetscInt i = 0; i < mpm->nhome; i++)
    for (PetscInt a = 0; a < MPM_DIM; a++) buf[MPM_DIM * i + a] = lb[MPM_NSTATE * i + offset + a];
  PetscCall(VecRestoreArrayRead(mpm->lambda0, &lb));
  PetscCall(AdjOutputWriteParticleGradient(out, name, units, MPM_DIM, mpm->nhome, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Besides the block gradients: the sensitivities dJ/dx0, dJ/dv0 to each particle's initial position and
 * velocity, in the global particle order (like /particles). Collective. */
static PetscErrorCode MPMWriteInitialSensitivity(void *ctx, AdjParams params, AdjOutput out)
{
  MPM        mpm = (MPM)ctx;
  PetscReal *buf;

  PetscFunctionBeginUser;
  if (!mpm->lambda0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(MPM_DIM * mpm->nhome + 1, &buf));
  PetscCall(MPMWriteSensitivityMap(mpm, out, "x0", "objective per m", 0, buf));
  PetscCall(MPMWriteSensitivityMap(mpm, out, "v0", "objective per m/s", MPM_DIM, buf));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What can go wrong with a particle, in the order checked. */
typedef enum { MPM_BAD_NONE, MPM_BAD_NAN, MPM_BAD_INVERTED, MPM_BAD_OUTSIDE, MPM_BAD_FAST } MPMBadKind;

static MPMBadKind MPMParticleCheck(const MPM mpm, const MPMParticle *p)
{
  const PetscScalar *a = (const PetscScalar *)p;

  for (PetscInt c = 0; c < MPM_NSTATE; c++)
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

/* Stops a run whose state holds NaN/Inf, an inverted or degenerate F (J <= 0), a particle whose
 * stencil left the grid, or a particle moving more than a cell per step, naming the first such
 * particle (global index), the step and the particle's position. */
static PetscErrorCode MPMCheckState(void *ctx, AdjStepIndex k, Vec x)
{
  MPM                mpm = (MPM)ctx;
  const MPMParticle *p;
  PetscInt64         mine    = PETSC_MAX_INT, first;
  PetscReal          info[5] = {0, 0, 0, 0, 0}; /* kind, x, y, J, speed */
  PetscMPIInt        holder, root;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const MPMBadKind kind = MPMParticleCheck(mpm, &p[i]);

    if (kind == MPM_BAD_NONE) continue;
    mine    = mpm->hstart + i;
    info[0] = kind, info[1] = p[i].x[0], info[2] = p[i].x[1], info[3] = MPMDeterminant(p[i].F);
    info[4] = PetscSqrtReal(PetscSqr(p[i].v[0]) + PetscSqr(p[i].v[1]));
    break;
  }
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPIU_INT64, MPI_MIN, mpm->comm));
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

PetscErrorCode MPMSummarize(AdjStepper st, Vec x, MPMSummary *s)
{
  MPM                     mpm;
  const MPMParticle      *p;
  const MPMMaterialPoint *mat;
  PetscReal sum[8] = {0, 0, 0, 0, 0, 0, 0, 0}, gsum[8], ext[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, 0}, gext[3];

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscReal m = mat[i].mass, v2 = PetscSqr(p[i].v[0]) + PetscSqr(p[i].v[1]), J = MPMDeterminant(p[i].F);

    sum[0] += m;
    sum[1] += m * p[i].x[0];
    sum[2] += m * p[i].x[1];
    sum[3] += m * p[i].v[0];
    sum[4] += m * p[i].v[1];
    sum[5] += 0.5 * m * v2;
    sum[6] += J > 0 ? MPMStrainEnergy(&mat[i], p[i].F) : 0;
    sum[7] += -m * (mpm->gravity[0] * p[i].x[0] + mpm->gravity[1] * p[i].x[1]);
    ext[0] = PetscMin(ext[0], J);
    ext[1] = PetscMin(ext[1], -J);
    ext[2] = PetscMax(ext[2], PetscSqrtReal(v2));
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  PetscCallMPI(MPI_Allreduce(sum, gsum, 8, MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscCallMPI(MPI_Allreduce(ext, gext, 3, MPIU_REAL, MPIU_MIN, mpm->comm));
  s->min_J = gext[0], s->max_J = -gext[1];
  PetscCallMPI(MPI_Allreduce(&ext[2], &s->max_speed, 1, MPIU_REAL, MPIU_MAX, mpm->comm));
  s->mass        = gsum[0];
  s->centre[0]   = gsum[1] / gsum[0];
  s->centre[1]   = gsum[2] / gsum[0];
  s->momentum[0] = gsum[3];
  s->momentum[1] = gsum[4];
  s->kinetic     = gsum[5];
  s->elastic     = gsum[6];
  s->potential   = gsum[7];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Particle fields of the output step: positions, velocities, F, Cauchy stress, J, the material and the
 * initial volume V0 (so that a run file is a particle file for -mpm_bodyN file:run.h5);
 * grid mass and velocity with -mpm_output_grid. */
#define MPM_NOUT 10
static PetscErrorCode MPMWriteFields(void *ctx, AdjOutput out, Vec x)
{
  MPM                     mpm = (MPM)ctx;
  const MPMParticle      *p;
  const MPMMaterialPoint *mat;
  const char    *names[MPM_NOUT] = {"position", "velocity", "F", "stress", "J", "E", "nu", "rho", "label", "volume"};
  const char    *units[MPM_NOUT] = {"m", "m/s", "1", "Pa", "1", "Pa", "1", "kg/m^3", "1", "m^2"};
  const PetscInt ncomp[MPM_NOUT] = {MPM_DIM, MPM_DIM, MPM_DIM * MPM_DIM, MPM_DIM * MPM_DIM, 1, 1, 1, 1, 1, 1};
  PetscReal     *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1((size_t)mpm->nhome * MPM_DIM * MPM_DIM + 1, &buf));
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt f = 0; f < MPM_NOUT; f++) {
    for (PetscInt i = 0; i < mpm->nhome; i++) {
      PetscReal *b = &buf[i * ncomp[f]];

      switch (f) {
      case 0:
        for (PetscInt a = 0; a < MPM_DIM; a++) b[a] = p[i].x[a];
        break;
      case 1:
        for (PetscInt a = 0; a < MPM_DIM; a++) b[a] = p[i].v[a];
        break;
      case 2:
        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt c = 0; c < MPM_DIM; c++) b[a * MPM_DIM + c] = p[i].F[a][c];
        break;
      case 3: {
        PetscScalar     tau[MPM_DIM][MPM_DIM];
        const PetscReal J = MPMDeterminant(p[i].F);

        MPMKirchhoff(&mat[i], p[i].F, tau);
        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt c = 0; c < MPM_DIM; c++) b[a * MPM_DIM + c] = tau[a][c] / J; /* Cauchy sigma = tau / J */
      } break;
      case 4:
        b[0] = MPMDeterminant(p[i].F);
        break;
      case 5:
        b[0] = mat[i].E;
        break;
      case 6:
        b[0] = mat[i].nu;
        break;
      case 7:
        b[0] = mat[i].mass / mat[i].volume;
        break;
      case 8:
        b[0] = mat[i].label;
        break;
      default:
        b[0] = mat[i].volume;
      }
    }
    PetscCall(AdjOutputWriteParticleField(out, names[f], units[f], ncomp[f], mpm->nhome, buf));
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  PetscCall(PetscFree(buf));
  PetscCall(AdjOutputWriteParticleXdmf(out, "position", MPM_NOUT - 1, names + 1, ncomp + 1));
  if (mpm->output_grid) {
    PetscCall(MPMGridFields(mpm, -1, x, mpm->out[0], mpm->out + 1));
    PetscCall(AdjOutputWriteField(out, "grid_mass", "kg/m", mpm->out[0]));
    PetscCall(AdjOutputWriteField(out, "grid_vx", "m/s", mpm->out[1]));
    PetscCall(AdjOutputWriteField(out, "grid_vy", "m/s", mpm->out[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(MPMEnergyMonitor(mpm, out, k, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Besides the parameter blocks: the model of each label, and the label values of E and nu where
 * per-particle fields replace them as parameters. */
static PetscErrorCode MPMWriteModels(void *ctx, AdjParams params, AdjOutput out)
{
  MPM       mpm = (MPM)ctx;
  PetscReal model[MPM_MAX_LABELS];

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < mpm->nlabels; l++) model[l] = mpm->model[l];
  if (mpm->field_on[MPM_FIELD_E]) PetscCall(AdjOutputWriteParameterArray(out, "E", "Pa", mpm->nlabels, mpm->E));
  if (mpm->field_on[MPM_FIELD_NU]) PetscCall(AdjOutputWriteParameterArray(out, "nu", "1", mpm->nlabels, mpm->nu));
  PetscCall(AdjOutputWriteParameterArray(out, "model", "1", mpm->nlabels, model));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The restart state is the whole particle state (x, v, C, F per particle, global order) as the
 * dataset /restart/particles (N, 12): bit for bit. */
static PetscErrorCode MPMWriteRestart(void *ctx, AdjOutput out, AdjStepIndex k, Vec x, PetscBool standalone)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteParticleRestart(out, "mpm", k, k * mpm->dt, "particles", x, standalone));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMReadRestart(void *ctx, const char path[], Vec x, AdjStepIndex *k)
{
  MPM       mpm = (MPM)ctx;
  PetscReal t;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadParticleRestart(mpm->comm, path, "mpm", mpm->da1, "particles", x, k, &t));
  PetscCheck(*k >= 0 && *k <= mpm->nsteps, mpm->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s is at step %" PetscInt64_FMT ", outside 0..%" PetscInt64_FMT " of this run", path,
             (PetscInt64)*k, (PetscInt64)mpm->nsteps);
  PetscCheck(PetscAbsReal(t - *k * mpm->dt) <= 1e-9 * mpm->final_time, mpm->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s: step %" PetscInt64_FMT " is at time %.12g s there but %.12g s in this run (time step "
             "differs)",
             path, (PetscInt64)*k, (double)t, (double)(*k * mpm->dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMDestroy(AdjStepper st)
{
  MPM mpm;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(MPMExchangeDestroy(mpm));
  PetscCall(MPMObjectiveDestroy(mpm));
  PetscCall(MPMEnergyDestroy(mpm));
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
  for (PetscInt d = 0; d < MPM_DIM; d++) PetscCall(PetscFree(mpm->node_rank[d]));
  PetscCall(DMDestroy(&mpm->da1));
  PetscCall(DMDestroy(&mpm->da));
  PetscCall(PetscFree(mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mpm_E_per_particle, -mpm_nu_per_particle and their regularization: the per-particle fields start from the
 * label values of the seeded particles; the reference of the regularization defaults to them. Collective. */
static PetscErrorCode MPMSetUpFields(MPM mpm)
{
  const char *what[MPM_NFIELDS] = {"Young's modulus", "Poisson ratio"}, *unit[MPM_NFIELDS] = {"Pa", "1"};
  PetscBool   set_alpha[MPM_NFIELDS], set_ref[MPM_NFIELDS];
  PetscReal   ref[MPM_NFIELDS] = {0, 0};
  char        opt[4][64], help[4][256];

  PetscFunctionBeginUser;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: per-particle material fields", "MPM");
  for (PetscInt f = 0; f < MPM_NFIELDS; f++) {
    const char *q = f == MPM_FIELD_E ? "E" : "nu";

    PetscCall(PetscSNPrintf(opt[0], sizeof(opt[0]), "-mpm_%s_per_particle", q));
    PetscCall(PetscSNPrintf(help[0], sizeof(help[0]),
                            "%s per particle: parameter block %s (one value per particle, starting from -mpm_%s of "
                            "its label) replaces the per-label block %s",
                            what[f], MPMFieldNames[f], q, q));
    PetscCall(PetscOptionsBool(opt[0], help[0], "", mpm->field_on[f], &mpm->field_on[f], NULL));
    PetscCall(PetscSNPrintf(opt[1], sizeof(opt[1]), "-mpm_reg_%s", q));
    PetscCall(PetscSNPrintf(help[1], sizeof(help[1]),
                            f == MPM_FIELD_E
                                ? "Tikhonov weight alpha [1/m^2] of %s: R = alpha/2 sum_p V0_p ((E_p - E_ref)/E_ref)^2"
                                : "Tikhonov weight alpha [1/m^2] of %s: R = alpha/2 sum_p V0_p (nu_p - nu_ref)^2",
                            MPMFieldNames[f]));
    PetscCall(PetscOptionsReal(opt[1], help[1], "", mpm->reg_alpha[f], &mpm->reg_alpha[f], &set_alpha[f]));
    PetscCall(PetscSNPrintf(opt[2], sizeof(opt[2]), "-mpm_reg_%s_ref", q));
    PetscCall(PetscSNPrintf(help[2], sizeof(help[2]),
                            "Reference %s [%s] of the regularization of %s (default: each particle's initial value)", q,
                            unit[f], MPMFieldNames[f]));
    PetscCall(PetscOptionsReal(opt[2], help[2], "", ref[f], &ref[f], &set_ref[f]));
    PetscCheck(!(set_alpha[f] || set_ref[f]) || mpm->field_on[f], mpm->comm, PETSC_ERR_USER_INPUT,
               "%s regularizes the per-particle field %s: give -mpm_%s_per_particle", set_alpha[f] ? opt[1] : opt[2],
               MPMFieldNames[f], q);
    PetscCheck(mpm->reg_alpha[f] >= 0 && PetscIsNormalReal(mpm->reg_alpha[f] + 1), mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %g: the regularization weight must be non-negative", opt[1], (double)mpm->reg_alpha[f]);
    PetscCheck(!set_ref[f] || f != MPM_FIELD_E || (ref[f] > 0 && PetscIsNormalReal(ref[f])), mpm->comm,
               PETSC_ERR_USER_INPUT, "%s %g Pa: the reference modulus must be positive", opt[2], (double)ref[f]);
    PetscCheck(!set_ref[f] || f != MPM_FIELD_NU || (ref[f] > -1 && ref[f] < 0.5), mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %g: the reference Poisson ratio must lie in (-1, 0.5)", opt[2], (double)ref[f]);
  }
  PetscOptionsEnd();
  for (PetscInt f = 0; f < MPM_NFIELDS; f++) {
    const MPMMaterialPoint *mat;
    PetscScalar            *v;

    if (!mpm->field_on[f]) continue;
    PetscCall(VecCreateMPI(mpm->comm, mpm->nhome, PETSC_DETERMINE, &mpm->field[f]));
    PetscCall(PetscObjectSetName((PetscObject)mpm->field[f], MPMFieldNames[f]));
    PetscCall(VecGetArrayWrite(mpm->field[f], &v));
    PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
    for (PetscInt i = 0; i < mpm->nhome; i++) v[i] = f == MPM_FIELD_E ? mat[i].E : mat[i].nu;
    PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
    PetscCall(VecRestoreArrayWrite(mpm->field[f], &v));
    PetscCall(VecDuplicate(mpm->field[f], &mpm->field_ref[f]));
    PetscCall(VecDuplicate(mpm->field[f], &mpm->field_grad[f]));
    if (set_ref[f])
      PetscCall(VecSet(mpm->field_ref[f], ref[f]));
    else
      PetscCall(VecCopy(mpm->field[f], mpm->field_ref[f]));
  }
  if (mpm->field_on[MPM_FIELD_E] || mpm->field_on[MPM_FIELD_NU]) PetscCall(VecDuplicate(mpm->mat, &mpm->gmat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An array block with its storage, gradient units and bounds. */
static PetscErrorCode MPMAddArray(MPM mpm, AdjParams params, const char name[], const char units[], PetscInt n,
                                  PetscReal value[], const PetscReal gradient[], const char gunits[])
{
  PetscFunctionBeginUser;
  PetscCall(AdjParamsAddArray(params, name, units, n));
  PetscCall(AdjParamsSetArrayStorage(params, name, value, gradient));
  PetscCall(AdjParamsSetGradientUnits(params, name, gunits));
  PetscCall(AdjParamsSetChangeHook(params, name, MPMParametersChanged, mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameter blocks: per-label materials (or per-particle fields), gravity, per-body initial
 * velocity and translation, wall friction; scales of the typical magnitudes. */
static PetscErrorCode MPMRegisterParameters(MPM mpm, AdjParams params)
{
  const PetscInt  nb     = MPM_DIM * mpm->nbodies;
  const PetscReal gscale = PetscSqrtReal(PetscSqr(mpm->gravity[0]) + PetscSqr(mpm->gravity[1]));
  PetscReal       vscale = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < mpm->nbodies; b++)
    vscale = PetscMax(vscale, PetscSqrtReal(PetscSqr(mpm->body[b].velocity[0]) + PetscSqr(mpm->body[b].velocity[1])));
  if (!mpm->field_on[MPM_FIELD_E]) {
    PetscCall(MPMAddArray(mpm, params, "E", "Pa", mpm->nlabels, mpm->E, mpm->sE, "objective per Pa"));
    PetscCall(AdjParamsSetScale(params, "E", mpm->E[0]));
    PetscCall(AdjParamsSetBounds(params, "E", 0.0, PETSC_INFINITY));
  }
  if (!mpm->field_on[MPM_FIELD_NU]) {
    PetscCall(MPMAddArray(mpm, params, "nu", "1", mpm->nlabels, mpm->nu, mpm->snu, "objective per unit"));
    PetscCall(AdjParamsSetBounds(params, "nu", -0.99, 0.49));
  }
  PetscCall(MPMAddArray(mpm, params, "rho", "kg/m^3", mpm->nlabels, mpm->rho, mpm->srho, "objective per kg/m^3"));
  PetscCall(AdjParamsSetScale(params, "rho", mpm->rho[0]));
  PetscCall(AdjParamsSetBounds(params, "rho", 0.0, PETSC_INFINITY));
  PetscCall(MPMAddArray(mpm, params, "gravity", "m/s^2", MPM_DIM, mpm->gravity, mpm->sgravity, "objective per m/s^2"));
  PetscCall(AdjParamsSetScale(params, "gravity", gscale > 0 ? gscale : 1.0));
  PetscCall(MPMAddArray(mpm, params, "velocity", "m/s", nb, NULL, mpm->svelocity, "objective per m/s"));
  PetscCall(AdjParamsSetArrayAccess(params, "velocity", MPMVelocityGet, MPMVelocitySet, NULL, mpm));
  PetscCall(AdjParamsSetScale(params, "velocity", vscale > 0 ? vscale : 1.0));
  /* translations of order a cell; files of runs before translations existed lack them */
  PetscCall(MPMAddArray(mpm, params, "position", "m", nb, NULL, mpm->sposition, "objective per m"));
  PetscCall(AdjParamsSetArrayAccess(params, "position", MPMPositionGet, MPMPositionSet, NULL, mpm));
  PetscCall(AdjParamsSetScale(params, "position", PetscMin(mpm->grid.h[0], mpm->grid.h[1])));
  PetscCall(AdjParamsSetOptionalInFiles(params, "position"));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++) {
    const char *name = MPMFieldNames[f];
    if (!mpm->field_on[f]) continue;
    PetscCall(AdjParamsAddVector(params, name, f == MPM_FIELD_E ? "Pa" : "1", mpm->field[f]));
    PetscCall(AdjParamsSetFieldStorage(params, name, mpm->field[f], mpm->field_grad[f]));
    PetscCall(AdjParamsSetGradientUnits(params, name, f == MPM_FIELD_E ? "objective per Pa" : "objective per unit"));
    PetscCall(AdjParamsSetChangeHook(params, name, MPMParametersChanged, mpm));
    if (f == MPM_FIELD_E) PetscCall(AdjParamsSetScale(params, name, mpm->E[0]));
    if (f == MPM_FIELD_E)
      PetscCall(AdjParamsSetBounds(params, name, 0.0, PETSC_INFINITY));
    else
      PetscCall(AdjParamsSetBounds(params, name, -0.99, 0.49));
  }
  if (mpm->has_friction) {
    PetscCall(MPMAddArray(mpm, params, "friction", "1", 1, &mpm->grid.friction, &mpm->sfriction, "objective per unit"));
    PetscCall(AdjParamsSetBounds(params, "friction", 0.0, PETSC_INFINITY));
  }
  PetscCall(AdjParamsSetGradientHook(params, MPMGradientSums, mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the case from the options database (with the stepper's prefix) and builds the solver. */
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
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: output", "MPM");
  PetscCall(PetscOptionsBool("-mpm_output_grid",
                             "Also write the grid mass [kg/m] and velocity [m/s] (grid_mass, grid_vx, grid_vy) at "
                             "output steps (the run file's grid cells are centred on the nodes)",
                             "", mpm->output_grid, &mpm->output_grid, NULL));
  PetscOptionsEnd();
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)MPM_NSTATE, MPIU_SCALAR, &mpm->state_type));
  PetscCallMPI(MPI_Type_commit(&mpm->state_type));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)MPM_NMAT, MPIU_SCALAR, &mpm->mat_type));
  PetscCallMPI(MPI_Type_commit(&mpm->mat_type));
  PetscCall(AdjStepperSetTimes(st, mpm->nsteps, mpm->dt));
  {
    /* Output cells are centred on the nodes: node i is the cell [(i - 1/2) h, (i + 1/2) h]. */
    const PetscReal lower[2] = {-0.5 * mpm->grid.h[0], -0.5 * mpm->grid.h[1]};
    const PetscReal upper[2] = {mpm->grid.L[0] + 0.5 * mpm->grid.h[0], mpm->grid.L[1] + 0.5 * mpm->grid.h[1]};
    PetscCall(AdjStepperSetGrid(st, mpm->da1, lower, upper));
  }
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(MPMRegisterParameters(mpm, params));
  PetscCall(PetscInfo(NULL,
                      "mpm: %" PetscInt_FMT " particles, grid %" PetscInt_FMT " x %" PetscInt_FMT
                      ", dt %g s (CFL limit %g s), %" PetscInt64_FMT " steps\n",
                      mpm->N, mpm->grid.M[0], mpm->grid.M[1], (double)mpm->dt, (double)mpm->dt_limit,
                      (PetscInt64)mpm->nsteps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const AdjStepperOps MPMOps = {.setfromoptions      = MPMSetFromOptions,
                                     .destroy             = MPMDestroy,
                                     .createstate         = MPMCreateState,
                                     .initialstate        = MPMInitialState,
                                     .initialstateadjoint = MPMInitialStateAdjoint,
                                     .step                = MPMStepOp,
                                     .stepadjoint         = MPMStepAdjointOp,
                                     .objective           = MPMObjective,
                                     .objectiveadjoint    = MPMObjectiveAdjointOp,
                                     .regularization      = MPMRegularization,
                                     .hasobjective        = MPMHasObjective,
                                     .zerogradient        = MPMZeroGradient,
                                     .checkstate          = MPMCheckState,
                                     .writefields         = MPMWriteFields,
                                     .monitor             = MPMMonitor,
                                     .writeparameters     = MPMWriteModels,
                                     .writegradient       = MPMWriteInitialSensitivity,
                                     .writerestart        = MPMWriteRestart,
                                     .readrestart         = MPMReadRestart};

PetscErrorCode AdjStepperCreate_MPM(AdjStepper st)
{
  MPM mpm;

  PetscFunctionBeginUser;
  PetscCall(MPMRegisterEvents());
  PetscCall(PetscNew(&mpm));
  PetscCall(AdjStepperGetComm(st, &mpm->comm));
  mpm->state_type = MPI_DATATYPE_NULL;
  mpm->mat_type   = MPI_DATATYPE_NULL;
  mpm->fwd_step   = -1;
  PetscCallMPI(MPI_Comm_rank(mpm->comm, &mpm->rank));
  PetscCallMPI(MPI_Comm_size(mpm->comm, &mpm->size));
  PetscCall(AdjStepperSetImplementation(st, mpm, &MPMOps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMGetNodeDM(AdjStepper stepper, DM *da)
{
  MPM mpm;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(stepper, &mpm));
  *da = mpm->da1;
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
