/* MPM output: particle fields at output steps, summaries, the sensitivity maps of a gradient, the
 * label models, restart files (the whole particle state, bit for bit). */
#include "mpmimpl.h"
#include <adjsim/io.h>
#include <adjsim/particles.h>

/* One component of the home-layout state adjoint, per particle (ncomp values each). */
static PetscErrorCode MPMWriteSensitivityMap(MPM mpm, AdjOutput out, const char name[], const char units[],
                                             PetscInt offset, PetscReal *buf)
{
  const PetscScalar *lb;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(mpm->lambda0, &lb));
  for (PetscInt i = 0; i < mpm->nhome; i++)
    for (PetscInt a = 0; a < MPM_DIM; a++) buf[MPM_DIM * i + a] = lb[mpm->nrec * i + offset + a];
  PetscCall(VecRestoreArrayRead(mpm->lambda0, &lb));
  PetscCall(AdjOutputWriteParticleGradient(out, name, units, MPM_DIM, mpm->nhome, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Besides the block gradients: the sensitivities dJ/dx0, dJ/dv0 to each particle's initial position and
 * velocity, in the global particle order (like /particles). Collective. */
PetscErrorCode MPMWriteInitialSensitivity(void *ctx, AdjParams params, AdjOutput out)
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

PetscErrorCode MPMSummarize(AdjStepper st, Vec x, MPMSummary *s)
{
  MPM                     mpm;
  const PetscScalar      *a;
  const MPMMaterialPoint *mat;
  PetscReal sum[8] = {0, 0, 0, 0, 0, 0, 0, 0}, gsum[8], ext[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, 0}, gext[3];

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &mpm));
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const MPMParticle *p = MPMRecordRead(a, mpm->nrec, i);
    const PetscReal    m = mat[i].mass, v2 = PetscSqr(p->v[0]) + PetscSqr(p->v[1]), J = MPMDeterminant(p->F);

    sum[0] += m;
    sum[1] += m * p->x[0];
    sum[2] += m * p->x[1];
    sum[3] += m * p->v[0];
    sum[4] += m * p->v[1];
    sum[5] += 0.5 * m * v2;
    sum[6] += J > 0 ? MPMStrainEnergy(&mat[i], p->F, MPMRecordStateRead(a, mpm->nrec, i)) : 0;
    sum[7] += -m * (mpm->gravity[0] * p->x[0] + mpm->gravity[1] * p->x[1]);
    ext[0] = PetscMin(ext[0], J);
    ext[1] = PetscMin(ext[1], -J);
    ext[2] = PetscMax(ext[2], PetscSqrtReal(v2));
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, &a));
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
 * initial volume V0 (so that a run file is a particle file for -mpm_bodyN file:run.h5), and the models'
 * internal state z (internal_state, nz components) when the run has one;
 * grid mass and velocity with -mpm_output_grid. */
#define MPM_NOUT 10
PetscErrorCode MPMWriteFields(void *ctx, AdjOutput out, Vec x)
{
  MPM                     mpm = (MPM)ctx;
  const PetscScalar      *xa;
  const MPMMaterialPoint *mat;
  const char             *names[MPM_NOUT + 1] = {"position", "velocity", "F",      "stress",        "J", "E", "nu",
                                                 "rho",      "label",    "volume", "internal_state"};
  const char             *units[MPM_NOUT + 1] = {"m", "m/s", "1", "Pa", "1", "Pa", "1", "kg/m^3", "1", "m^2", "1"};
  const PetscInt          ncomp[MPM_NOUT + 1] = {MPM_DIM, MPM_DIM, MPM_DIM * MPM_DIM, MPM_DIM * MPM_DIM, 1, 1, 1, 1, 1,
                                                 1,       mpm->nz};
  const PetscInt          nout                = MPM_NOUT + (mpm->nz > 0 ? 1 : 0);
  PetscReal              *buf;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1((size_t)mpm->nhome * PetscMax(MPM_DIM * MPM_DIM, mpm->nz) + 1, &buf));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt f = 0; f < nout; f++) {
    for (PetscInt i = 0; i < mpm->nhome; i++) {
      PetscReal         *b = &buf[i * ncomp[f]];
      const MPMParticle *p = MPMRecordRead(xa, mpm->nrec, i);
      const PetscScalar *z = MPMRecordStateRead(xa, mpm->nrec, i);

      switch (f) {
      case 0:
        for (PetscInt a = 0; a < MPM_DIM; a++) b[a] = p->x[a];
        break;
      case 1:
        for (PetscInt a = 0; a < MPM_DIM; a++) b[a] = p->v[a];
        break;
      case 2:
        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt c = 0; c < MPM_DIM; c++) b[a * MPM_DIM + c] = p->F[a][c];
        break;
      case 3: {
        PetscScalar     tau[MPM_DIM][MPM_DIM];
        const PetscReal J = MPMDeterminant(p->F);

        MPMKirchhoff(&mat[i], p->F, z, tau);
        for (PetscInt a = 0; a < MPM_DIM; a++)
          for (PetscInt c = 0; c < MPM_DIM; c++) b[a * MPM_DIM + c] = tau[a][c] / J; /* Cauchy sigma = tau / J */
      } break;
      case 4:
        b[0] = MPMDeterminant(p->F);
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
      case 9:
        b[0] = mat[i].volume;
        break;
      default:
        for (PetscInt s = 0; s < mpm->nz; s++) b[s] = z[s];
      }
    }
    PetscCall(AdjOutputWriteParticleField(out, names[f], units[f], ncomp[f], mpm->nhome, buf));
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscFree(buf));
  PetscCall(AdjOutputWriteParticleXdmf(out, "position", nout - 1, names + 1, ncomp + 1));
  if (mpm->output_grid) {
    PetscCall(MPMGridFields(mpm, -1, x, mpm->out[0], mpm->out + 1));
    PetscCall(AdjOutputWriteField(out, "grid_mass", "kg/m", mpm->out[0]));
    PetscCall(AdjOutputWriteField(out, "grid_vx", "m/s", mpm->out[1]));
    PetscCall(AdjOutputWriteField(out, "grid_vy", "m/s", mpm->out[2]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(MPMEnergyMonitor(mpm, out, k, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Besides the parameter blocks: the model of each label, and the label values of E and nu where
 * per-particle fields replace them as parameters. */
PetscErrorCode MPMWriteModels(void *ctx, AdjParams params, AdjOutput out)
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

/* The restart state is the whole particle state (x, v, C, F and the nz internal-state reals per particle,
 * global order) as the dataset /restart/particles (N, 12 + nz): bit for bit.  Reading refuses a dataset of
 * another width (a run with other models), naming the file. */
PetscErrorCode MPMWriteRestart(void *ctx, AdjOutput out, AdjStepIndex k, Vec x, PetscBool standalone)
{
  MPM mpm = (MPM)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputWriteParticleRestart(out, "mpm", k, k * mpm->dt, "particles", x, standalone));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMReadRestart(void *ctx, const char path[], Vec x, AdjStepIndex *k)
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
