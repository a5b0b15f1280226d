/* Energy history of an MPM run: /history/energy of the run file, one row per step (docs/mpm.md,
 * docs/output-format.md).  Diagnostics only: nothing here enters the state, the objective or the
 * adjoint. */
#include "mpmimpl.h"
#include <adjsim/io.h>

#define MPM_ENERGY_COLUMNS "step [1], time [s], kinetic [J/m], elastic [J/m], potential [J/m], total [J/m]"
/* Rows buffered between two writes: an append per row would cost a collective HDF5 call per step. */
#define MPM_ENERGY_ROWS 256

/* The energies of the home particles' state x, summed over the ranks (as in MPMSummarize):
 *   kinetic   K = sum_p m_p |v_p|^2 / 2            (translational, particle velocities; the APIC
 *                                                   affine part m_p C_p : C_p h^2/4 is not included),
 *   elastic   U = sum_p V0_p psi(F_p, z_p)         (MPMStrainEnergy: the energy op of the particle's
 *                                                   model, mpmmodel.h: tau = (dpsi/dF) F^T if elastic),
 *   potential G = -sum_p m_p g . x_p               (relative to the origin). */
static PetscErrorCode MPMEnergies(MPM mpm, Vec x, PetscReal e[3])
{
  const PetscScalar      *a;
  const MPMMaterialPoint *mat;
  PetscReal               sum[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscReal    m = mat[i].mass;
    const MPMParticle *p = MPMRecordRead(a, mpm->nrec, i);

    for (PetscInt d = 0; d < MPM_DIM; d++) {
      sum[0] += 0.5 * m * PetscSqr(p->v[d]);
      sum[2] -= m * mpm->gravity[d] * p->x[d];
    }
    sum[1] += MPMStrainEnergy(&mat[i], p->F, MPMRecordStateRead(a, mpm->nrec, i));
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCallMPI(MPI_Allreduce(sum, e, 3, MPIU_REAL, MPIU_SUM, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMEnergyMonitor - records the energies of step k (state x) and appends the buffered rows
    (step, time, kinetic, elastic, potential, total) to /history/energy at output and restart steps, every
    MPM_ENERGY_ROWS steps and at the last step. Collective.

    Input: mpm, out - the run file, k - the step, x - the state after step k @*/
PetscErrorCode MPMEnergyMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x)
{
  MPM        mpm = (MPM)ctx;
  PetscReal *row, e[3];
  PetscBool  write;

  PetscFunctionBeginUser;
  if (!mpm->energy_rows) PetscCall(PetscMalloc1(6 * MPM_ENERGY_ROWS, &mpm->energy_rows));
  PetscCall(MPMEnergies(mpm, x, e));
  row    = mpm->energy_rows + 6 * mpm->energy_nrows++;
  row[0] = (PetscReal)k;
  row[1] = k * mpm->dt;
  row[2] = e[0];
  row[3] = e[1];
  row[4] = e[2];
  row[5] = e[0] + e[1] + e[2];
  PetscCall(AdjOutputIsOutputStep(out, k, mpm->nsteps, &write));
  if (!write) PetscCall(AdjOutputIsRestartStep(out, k, &write));
  if (write || mpm->energy_nrows == MPM_ENERGY_ROWS || k == mpm->nsteps) {
    PetscCall(AdjOutputAppendHistory(out, "energy", MPM_ENERGY_COLUMNS, 6, mpm->energy_nrows, mpm->energy_rows));
    mpm->energy_nrows = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMEnergyDestroy - frees the history buffer. Not collective. @*/
PetscErrorCode MPMEnergyDestroy(MPM mpm)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(mpm->energy_rows));
  mpm->energy_nrows = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
