/* MPM output: particle fields at output steps, summaries, the sensitivity maps of a gradient, the
 * label models, restart files (the whole particle state, bit for bit). */
#include "mpmimpl.h"
#include <adjsim/stepperimpl.h>
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
  PetscCall(AdjOutputWriteParticleBlock(out, ADJ_OUTPUT_GRADIENTS, name, units, MPM_DIM, mpm->nhome, buf));
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
 * initial volume V0 (so that a run file is a particle file for -mpm_bodyN file:run.h5), the models' internal
 * state z (internal_state, nz components) when the run has one, and grid mass and velocity with
 * -mpm_output_grid (on the run file's grid, whose cells are centred on the nodes).  The restart state is the
 * whole particle state (x, v, C, F and the nz internal-state reals per particle, global order) as the dataset
 * /restart/particles (N, 12 + nz): bit for bit; reading refuses a dataset of another width (a run with other
 * models), naming the file. */
#define MPM_NOUT  10
#define MPM_OUT_Z (MPM_NOUT + 3)
static const AdjFieldDesc MPMOutputFields[MPM_NOUT + 4] = {
    {.name = "position", .units = "m", .location = ADJ_FIELD_PARTICLE, .ncomp = MPM_DIM, .geometry = PETSC_TRUE},
    {.name = "velocity", .units = "m/s", .location = ADJ_FIELD_PARTICLE, .ncomp = MPM_DIM},
    {.name = "F", .units = "1", .location = ADJ_FIELD_PARTICLE, .ncomp = MPM_DIM * MPM_DIM},
    {.name = "stress", .units = "Pa", .location = ADJ_FIELD_PARTICLE, .ncomp = MPM_DIM * MPM_DIM},
    {.name = "J", .units = "1", .location = ADJ_FIELD_PARTICLE, .ncomp = 1},
    {.name = "E", .units = "Pa", .location = ADJ_FIELD_PARTICLE, .ncomp = 1},
    {.name = "nu", .units = "1", .location = ADJ_FIELD_PARTICLE, .ncomp = 1},
    {.name = "rho", .units = "kg/m^3", .location = ADJ_FIELD_PARTICLE, .ncomp = 1},
    {.name = "label", .units = "1", .location = ADJ_FIELD_PARTICLE, .ncomp = 1},
    {.name = "volume", .units = "m^2", .location = ADJ_FIELD_PARTICLE, .ncomp = 1},
    {.name = "grid_mass", .units = "kg/m", .location = ADJ_FIELD_NODE, .ncomp = 1},
    {.name = "grid_vx", .units = "m/s", .location = ADJ_FIELD_NODE, .ncomp = 1},
    {.name = "grid_vy", .units = "m/s", .location = ADJ_FIELD_NODE, .ncomp = 1},
    {.name = "internal_state", .units = "1", .location = ADJ_FIELD_PARTICLE, .ncomp = 1}}; /* ncomp: nz */
static const AdjFieldDesc MPMRestartField = {
    .name = "particles", .units = "1", .location = ADJ_FIELD_PARTICLE, .ncomp = MPM_NSTATE}; /* ncomp: nrec */

PetscErrorCode MPMDescribeFields(MPM mpm, AdjStepper st)
{
  AdjFieldDesc z = MPMOutputFields[MPM_OUT_Z], r = MPMRestartField;

  PetscFunctionBeginUser;
  z.ncomp = mpm->nz;
  r.ncomp = mpm->nrec;
  for (PetscInt f = 0; f < MPM_NOUT; f++) PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &MPMOutputFields[f]));
  if (mpm->nz > 0) PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &z));
  for (PetscInt f = MPM_NOUT; f < MPM_NOUT + 3 && mpm->output_grid; f++)
    PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &MPMOutputFields[f]));
  PetscCall(AdjStepperAddField(st, ADJ_FIELDS_RESTART, &r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Output field f of a particle (state p, internal state z of nz reals, material mat) into b (ncomp values). */
static void MPMParticleOutput(PetscInt f, const MPMParticle *p, const PetscScalar *z, PetscInt nz,
                              const MPMMaterialPoint *mat, PetscReal b[])
{
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

    MPMKirchhoff(mat, p->F, z, tau);
    for (PetscInt a = 0; a < MPM_DIM; a++)
      for (PetscInt c = 0; c < MPM_DIM; c++) b[a * MPM_DIM + c] = tau[a][c] / J; /* Cauchy sigma = tau / J */
  } break;
  case 4:
    b[0] = MPMDeterminant(p->F);
    break;
  case 5:
    b[0] = mat->E;
    break;
  case 6:
    b[0] = mat->nu;
    break;
  case 7:
    b[0] = mat->mass / mat->volume;
    break;
  case 8:
    b[0] = mat->label;
    break;
  case 9:
    b[0] = mat->volume;
    break;
  default:
    for (PetscInt c = 0; c < nz; c++) b[c] = z[c];
  }
}

/* The particle fields into mpm->outbuf (one block of nhome * ncomp values per field), the grid fields into
 * mpm->out; the restart table is the state itself. */
PetscErrorCode MPMFieldValues(void *ctx, AdjFieldSet set, Vec x, AdjFieldValues values)
{
  MPM                     mpm = (MPM)ctx;
  const PetscScalar      *xa;
  const MPMMaterialPoint *mat;
  PetscReal              *b;
  size_t                  nvalues = 0;

  PetscFunctionBeginUser;
  if (set == ADJ_FIELDS_RESTART) {
    PetscCall(MPMExchangeForget(mpm)); /* a restart state read into x is not the state the records describe */
    PetscCall(AdjFieldValuesSetVec(values, MPMRestartField.name, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscFree(mpm->outbuf));
  for (PetscInt f = 0; f < MPM_NOUT; f++) nvalues += (size_t)mpm->nhome * MPMOutputFields[f].ncomp;
  PetscCall(PetscMalloc1(nvalues + (size_t)mpm->nhome * mpm->nz + 1, &mpm->outbuf));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  b = mpm->outbuf;
  for (PetscInt f = 0; f < MPM_NOUT + (mpm->nz > 0 ? 1 : 0); f++) {
    const PetscInt id = f < MPM_NOUT ? f : MPM_OUT_Z, nc = f < MPM_NOUT ? MPMOutputFields[f].ncomp : mpm->nz;

    for (PetscInt i = 0; i < mpm->nhome; i++)
      MPMParticleOutput(f, MPMRecordRead(xa, mpm->nrec, i), MPMRecordStateRead(xa, mpm->nrec, i), mpm->nz, &mat[i],
                        &b[i * nc]);
    PetscCall(AdjFieldValuesSetParticles(values, MPMOutputFields[id].name, mpm->nhome, b));
    b += mpm->nhome * nc;
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (mpm->output_grid) {
    PetscCall(MPMGridFields(mpm, -1, x, mpm->out[0], mpm->out + 1));
    for (PetscInt c = 0; c < 3; c++)
      PetscCall(AdjFieldValuesSetVec(values, MPMOutputFields[MPM_NOUT + c].name, mpm->out[c]));
  }
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
  if (mpm->field_on[MPM_FIELD_E])
    PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_PARAMETERS, "E", "Pa", mpm->nlabels, mpm->E));
  if (mpm->field_on[MPM_FIELD_NU])
    PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_PARAMETERS, "nu", "1", mpm->nlabels, mpm->nu));
  PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_PARAMETERS, "model", "1", mpm->nlabels, model));
  PetscFunctionReturn(PETSC_SUCCESS);
}
