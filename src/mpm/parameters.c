/* MPM parameter blocks: the per-label materials or per-particle fields, gravity, per-body initial
 * velocity and translation, wall friction, as declared to AdjParams (storage, accessors, gradient
 * units, bounds); the checks and the copy to the particles when values change; the rank sums of
 * the gradients; the Tikhonov regularization of the per-particle fields. */
#include "mpmimpl.h"
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
  const PetscInt L = MPM_MAX_LABELS, nv = MPM_DIM * MPM_MAX_BODIES, n = 7 * L + MPM_DIM + 2 * nv;
  PetscReal      g[7 * MPM_MAX_LABELS + MPM_DIM * (2 * MPM_MAX_BODIES + 1)],
      G[7 * MPM_MAX_LABELS + MPM_DIM * (2 * MPM_MAX_BODIES + 1)];

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(g, mpm->gE, L));
  PetscCall(PetscArraycpy(g + L, mpm->gnu, L));
  PetscCall(PetscArraycpy(g + 2 * L, mpm->grho, L));
  PetscCall(PetscArraycpy(g + 3 * L, mpm->ggravity, MPM_DIM));
  PetscCall(PetscArraycpy(g + 3 * L + MPM_DIM, mpm->gvelocity, nv));
  PetscCall(PetscArraycpy(g + 3 * L + MPM_DIM + nv, mpm->gposition, nv));
  PetscCall(PetscArraycpy(g + 3 * L + MPM_DIM + 2 * nv, mpm->gsigma_y, L));
  PetscCall(PetscArraycpy(g + 4 * L + MPM_DIM + 2 * nv, mpm->gH, L));
  PetscCall(PetscArraycpy(g + 5 * L + MPM_DIM + 2 * nv, mpm->gfriction_angle, L));
  PetscCall(PetscArraycpy(g + 6 * L + MPM_DIM + 2 * nv, mpm->gcohesion, L));
  PetscCallMPI(MPI_Allreduce(g, G, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscCall(PetscArraycpy(mpm->sE, G, L));
  PetscCall(PetscArraycpy(mpm->snu, G + L, L));
  PetscCall(PetscArraycpy(mpm->srho, G + 2 * L, L));
  PetscCall(PetscArraycpy(mpm->sgravity, G + 3 * L, MPM_DIM));
  PetscCall(PetscArraycpy(mpm->svelocity, G + 3 * L + MPM_DIM, nv));
  PetscCall(PetscArraycpy(mpm->sposition, G + 3 * L + MPM_DIM + nv, nv));
  PetscCall(PetscArraycpy(mpm->ssigma_y, G + 3 * L + MPM_DIM + 2 * nv, L));
  PetscCall(PetscArraycpy(mpm->sH, G + 4 * L + MPM_DIM + 2 * nv, L));
  PetscCall(PetscArraycpy(mpm->sfriction_angle, G + 5 * L + MPM_DIM + 2 * nv, L));
  PetscCall(PetscArraycpy(mpm->scohesion, G + 6 * L + MPM_DIM + 2 * nv, L));
  if (mpm->has_friction)
    PetscCallMPI(MPI_Allreduce(&mpm->gfriction, &mpm->sfriction, 1, MPIU_REAL, MPIU_SUM, mpm->comm));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(MPMFieldGradient(mpm, (MPMFieldKind)f, mpm->field_grad[f]));
  PetscCall(MPMActuationGradientSums(mpm));
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
  PetscScalar       *x0;
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
  PetscCall(VecGetArray(mpm->x0, &x0));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscInt l = (PetscInt)mat[i].label;
    const MPMBody *b = &mpm->body[mpm->body_of[i]];
    MPMParticle   *p = MPMRecord(x0, mpm->nrec, i);

    mat[i].E              = fv[MPM_FIELD_E] ? fv[MPM_FIELD_E][i] : mpm->E[l];
    mat[i].nu             = fv[MPM_FIELD_NU] ? fv[MPM_FIELD_NU][i] : mpm->nu[l];
    mat[i].mass           = mpm->rho[l] * mat[i].volume;
    mat[i].sigma_y        = mpm->sigma_y[l];
    mat[i].H              = mpm->H[l];
    mat[i].friction_angle = mpm->friction_angle[l];
    mat[i].cohesion       = mpm->cohesion[l];
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      p->x[a] = mpm->seed_x[MPM_DIM * i + a] + b->position[a];
      p->v[a] = mpm->seed_v[MPM_DIM * i + a] + b->velocity[a];
    }
  }
  PetscCall(VecRestoreArray(mpm->x0, &x0));
  PetscCall(VecRestoreArray(mpm->mat, (PetscScalar **)&mat));
  for (PetscInt f = 0; f < MPM_NFIELDS; f++)
    if (mpm->field_on[f]) PetscCall(VecRestoreArrayRead(mpm->field[f], &fv[f]));
  PetscCall(MPMInitialInternalState(mpm, mpm->x0)); /* z0 may depend on the new E, nu */
  mpm->fwd_step = -1;
  PetscCall(MPMExchangeForget(mpm)); /* the states of the steps change with the parameters */
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
  for (PetscInt l = 0; l < mpm->nlabels && mpm->plastic; l++) {
    PetscCheck(mpm->sigma_y[l] > 0 && PetscIsNormalReal(mpm->sigma_y[l]), mpm->comm, PETSC_ERR_USER_INPUT,
               "Yield stress parameter sigma_y of label %" PetscInt_FMT " = %g Pa is not positive and finite", l,
               (double)mpm->sigma_y[l]);
    PetscCheck(mpm->H[l] >= 0 && PetscIsNormalReal(mpm->H[l] + 1), mpm->comm, PETSC_ERR_USER_INPUT,
               "Hardening modulus parameter H of label %" PetscInt_FMT " = %g Pa is negative or not finite", l,
               (double)mpm->H[l]);
  }
  for (PetscInt l = 0; l < mpm->nlabels && mpm->granular; l++) {
    PetscCheck(mpm->friction_angle[l] > 0 && mpm->friction_angle[l] < 90, mpm->comm, PETSC_ERR_USER_INPUT,
               "Friction angle parameter friction_angle of label %" PetscInt_FMT " = %g degrees is outside (0, 90)", l,
               (double)mpm->friction_angle[l]);
    PetscCheck(mpm->cohesion[l] >= 0 && PetscIsNormalReal(mpm->cohesion[l] + 1), mpm->comm, PETSC_ERR_USER_INPUT,
               "Cohesion parameter cohesion of label %" PetscInt_FMT " = %g Pa is negative or not finite", l,
               (double)mpm->cohesion[l]);
  }
  PetscCall(MPMBodyVectorGet(mpm, PETSC_FALSE, vel));
  PetscCall(MPMBodyVectorGet(mpm, PETSC_TRUE, pos));
  PetscCall(MPMApplyParameters(mpm, mpm->E, mpm->nu, mpm->rho, mpm->gravity, vel, pos));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tikhonov regularization of the per-particle fields, weighted by the particle volumes V0_p [m^2]:
 *   R = alpha_E/2 sum_p V0_p ((E_p - Eref_p) / Eref_p)^2 + alpha_nu/2 sum_p V0_p (nu_p - nuref_p)^2,
 *   dR/dE_p = alpha_E V0_p (E_p - Eref_p) / Eref_p^2,   dR/dnu_p = alpha_nu V0_p (nu_p - nuref_p),
 * added to the per-particle material gradient.  The relative misfit makes alpha_E independent of the unit
 * and size of E; the volume weight makes R a quadrature of the integral over the bodies, independent of
 * the particle count.  Plus the actuators' energy-use penalty (MPMActuationEnergy: it depends on the coefficients
 * only). Collective. */
PetscErrorCode MPMRegularization(void *ctx, AdjParams params, PetscReal *R)
{
  MPM                     mpm = (MPM)ctx;
  MPMMaterialPoint       *gm;
  const MPMMaterialPoint *mat;
  PetscReal               local = 0, Rf;

  PetscFunctionBeginUser;
  PetscCall(MPMActuationEnergy(mpm, R)); /* the actuators' energy-use penalty (0 without) */
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
  PetscCallMPI(MPI_Allreduce(&local, &Rf, 1, MPIU_REAL, MPIU_SUM, mpm->comm));
  *R += Rf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mpm_E_per_particle, -mpm_nu_per_particle and their regularization: the per-particle fields start from the
 * label values of the seeded particles; the reference of the regularization defaults to them. Collective. */
PetscErrorCode MPMSetUpFields(MPM mpm)
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

/* Default bounds of the parameters the models refuse at their end points (E, rho, sigma_y > 0; 0 < friction angle
 * < 90 degrees): a bound-constrained optimizer may step exactly onto a bound, so the bounds lie inside the valid
 * range, at 1e-6 of the start value for the positive ones and 0.1 degree from the ends for the friction angle
 * (-lower_NAME / -upper_NAME still set any other bounds). */
#define MPM_POSITIVE_FLOOR        1e-6
#define MPM_FRICTION_ANGLE_MARGIN 0.1

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
PetscErrorCode MPMRegisterParameters(MPM mpm, AdjParams params)
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
    PetscCall(AdjParamsSetBounds(params, "E", MPM_POSITIVE_FLOOR * mpm->E[0], PETSC_INFINITY));
  }
  if (!mpm->field_on[MPM_FIELD_NU]) {
    PetscCall(MPMAddArray(mpm, params, "nu", "1", mpm->nlabels, mpm->nu, mpm->snu, "objective per unit"));
    PetscCall(AdjParamsSetBounds(params, "nu", -0.99, 0.49));
  }
  PetscCall(MPMAddArray(mpm, params, "rho", "kg/m^3", mpm->nlabels, mpm->rho, mpm->srho, "objective per kg/m^3"));
  PetscCall(AdjParamsSetScale(params, "rho", mpm->rho[0]));
  PetscCall(AdjParamsSetBounds(params, "rho", MPM_POSITIVE_FLOOR * mpm->rho[0], PETSC_INFINITY));
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
      PetscCall(AdjParamsSetBounds(params, name, MPM_POSITIVE_FLOOR * mpm->E[0], PETSC_INFINITY));
    else
      PetscCall(AdjParamsSetBounds(params, name, -0.99, 0.49));
  }
  if (mpm->plastic) { /* the plastic models' yield stress and hardening modulus per label */
    PetscCall(MPMAddArray(mpm, params, "sigma_y", "Pa", mpm->nlabels, mpm->sigma_y, mpm->ssigma_y, "objective per Pa"));
    PetscCall(AdjParamsSetScale(params, "sigma_y", mpm->sigma_y[0]));
    PetscCall(AdjParamsSetBounds(params, "sigma_y", MPM_POSITIVE_FLOOR * mpm->sigma_y[0], PETSC_INFINITY));
    PetscCall(MPMAddArray(mpm, params, "H", "Pa", mpm->nlabels, mpm->H, mpm->sH, "objective per Pa"));
    PetscCall(AdjParamsSetScale(params, "H", mpm->H[0] > 0 ? mpm->H[0] : mpm->sigma_y[0]));
    PetscCall(AdjParamsSetBounds(params, "H", 0.0, PETSC_INFINITY));
  }
  if (mpm->granular) { /* the granular models' friction angle and cohesion per label */
    PetscCall(MPMAddArray(mpm, params, "friction_angle", "deg", mpm->nlabels, mpm->friction_angle, mpm->sfriction_angle,
                          "objective per degree"));
    PetscCall(AdjParamsSetScale(params, "friction_angle", mpm->friction_angle[0]));
    PetscCall(AdjParamsSetBounds(params, "friction_angle", MPM_FRICTION_ANGLE_MARGIN, 90.0 - MPM_FRICTION_ANGLE_MARGIN));
    PetscCall(
        MPMAddArray(mpm, params, "cohesion", "Pa", mpm->nlabels, mpm->cohesion, mpm->scohesion, "objective per Pa"));
    PetscCall(AdjParamsSetScale(params, "cohesion", mpm->cohesion[0] > 0 ? mpm->cohesion[0] : 1e-3 * mpm->E[0]));
    PetscCall(AdjParamsSetBounds(params, "cohesion", 0.0, PETSC_INFINITY));
  }
  if (mpm->has_friction) {
    PetscCall(MPMAddArray(mpm, params, "friction", "1", 1, &mpm->grid.friction, &mpm->sfriction, "objective per unit"));
    PetscCall(AdjParamsSetBounds(params, "friction", 0.0, PETSC_INFINITY));
  }
  PetscCall(AdjParamsSetGradientHook(params, MPMGradientSums, mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
