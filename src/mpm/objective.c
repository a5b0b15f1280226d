/* Objectives of the MPM solver and their adjoints.  With weights w_d, w_c and a direction a:
 *
 *   J = w_d/2 sum_{k observed} sum_{p markers} |x_p(k) - d_p(k)|^2          position misfit [m^2]
 *     + w_c/2 |c(n) - c*|^2  +  a . c(n)                                     centre of mass at the final step
 *
 *   c = sum_p m_p x_p / sum_p m_p,   m_p = rho_label V0_p  (so c depends on the densities when they differ
 *   between labels)
 *
 * Observations d_p(k) are the particle positions /particles/position of an earlier run file at its output
 * steps k in 1..n (same particles in the same global order, same time step); the markers are all particles,
 * a list (-mpm_obs_markers) or every N-th particle (-mpm_obs_every). */
#include "mpmimpl.h"
#include <adjsim/io.h>
#include <hdf5.h>

/* Reads rows [hstart, hstart + nhome) of slice s of /particles/position (nt, N, 2) with serial HDF5 on
 * every rank (read-only).  Returns a nonzero status instead of failing, so that the caller can stop
 * every rank together. */
static int MPMReadPositionRows(const char path[], hsize_t s, hsize_t N, hsize_t hstart, hsize_t nhome, PetscReal *buf,
                               hsize_t *nt)
{
  hid_t   file, dset, space, mem;
  hsize_t dims[3], start[3] = {s, hstart, 0}, count[3] = {1, nhome, MPM_DIM}, nmem = nhome * MPM_DIM;
  int     status = 1;

  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return 1;
  dset = H5Dopen2(file, "/particles/position", H5P_DEFAULT);
  if (dset >= 0) {
    space = H5Dget_space(dset);
    if (space >= 0 && H5Sget_simple_extent_ndims(space) == 3 && H5Sget_simple_extent_dims(space, dims, NULL) == 3) {
      *nt = dims[0];
      if (dims[1] != N || dims[2] != MPM_DIM)
        status = 2;
      else if (s >= dims[0])
        status = 3;
      else if (nhome == 0)
        status = 0;
      else if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0) {
        mem = H5Screate_simple(1, &nmem, NULL);
        if (mem >= 0 && H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf) >= 0) status = 0;
        if (mem >= 0) H5Sclose(mem);
      }
    }
    if (space >= 0) H5Sclose(space);
    H5Dclose(dset);
  }
  H5Fclose(file);
  return status;
}

/* Observations: every output step of the file within 1..n. Collective. */
static PetscErrorCode MPMLoadObservations(MPM mpm, const char path[])
{
  PetscInt      nt;
  AdjStepIndex *steps;
  PetscReal    *times;

  PetscFunctionBeginUser;
  PetscCall(AdjInputGetFieldTimes(mpm->comm, path, NULL, &nt, &steps, &times));
  PetscCall(PetscMalloc2(nt, &mpm->obs_step, nt, &mpm->obs_x));
  mpm->nobs = 0;
  for (PetscInt s = 0; s < nt; s++) {
    int     status, gstatus;
    hsize_t ntpos = 0;

    if (steps[s] < 1 || steps[s] > mpm->nsteps) continue;
    PetscCheck(PetscAbsReal(times[s] - steps[s] * mpm->dt) <= 1e-9 * mpm->final_time, mpm->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s (-mpm_obs_file): step %" PetscInt64_FMT " is at time %.12g s there but %.12g s in "
               "this run: the time steps differ (give -mpm_dt)",
               path, (PetscInt64)steps[s], (double)times[s], (double)(steps[s] * mpm->dt));
    PetscCall(PetscMalloc1((size_t)mpm->nhome * MPM_DIM + 1, &mpm->obs_x[mpm->nobs]));
    status = MPMReadPositionRows(path, (hsize_t)s, (hsize_t)mpm->N, (hsize_t)mpm->hstart, (hsize_t)mpm->nhome,
                                 mpm->obs_x[mpm->nobs], &ntpos);
    PetscCallMPI(MPI_Allreduce(&status, &gstatus, 1, MPI_INT, MPI_MAX, mpm->comm));
    mpm->obs_step[mpm->nobs] = steps[s];
    mpm->nobs++;
    PetscCheck(gstatus != 2, mpm->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s (-mpm_obs_file): /particles/position is not (nt, %" PetscInt_FMT
               ", 2): another particle count (bodies, -mpm_ppc or -mpm_grid differ)",
               path, mpm->N);
    PetscCheck(gstatus == 0, mpm->comm, PETSC_ERR_FILE_READ,
               "Observation file %s (-mpm_obs_file): cannot read slice %" PetscInt_FMT
               " of /particles/position (it needs particle output at its output steps)",
               path, s);
  }
  PetscCall(PetscFree(steps));
  PetscCall(PetscFree(times));
  PetscCheck(mpm->nobs > 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "Observation file %s (-mpm_obs_file) has no output step in 1..%" PetscInt64_FMT, path,
             (PetscInt64)mpm->nsteps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMObjectiveSetFromOptions - -mpm_obs_file, -mpm_obs_weight, -mpm_obs_markers, -mpm_obs_every,
    -mpm_objective_com, -mpm_objective_com_weight, -mpm_objective_com_linear. Call after the particles
    are seeded and the time step is set. Collective. @*/
PetscErrorCode MPMObjectiveSetFromOptions(MPM mpm)
{
  char      path[PETSC_MAX_PATH_LEN] = "";
  PetscInt  markers[256] = {0}, nmarkers = 256, every = 0, nc = MPM_DIM, nl = MPM_DIM;
  PetscBool mset;

  PetscFunctionBeginUser;
  mpm->obs_weight = 1.0;
  mpm->com_weight = 1.0;
  PetscOptionsBegin(mpm->comm, NULL, "MPM: objectives", "MPM");
  PetscCall(PetscOptionsString("-mpm_obs_file",
                               "Run file (HDF5) whose particle positions /particles/position at its output steps are "
                               "observations: J += w/2 sum |x_p - d_p|^2 [m^2] over the marker particles",
                               "", path, path, sizeof(path), NULL));
  PetscCall(PetscOptionsReal("-mpm_obs_weight", "Weight w of the position misfit [1/m^2]", "", mpm->obs_weight,
                             &mpm->obs_weight, NULL));
  PetscCall(PetscOptionsIntArray("-mpm_obs_markers",
                                 "Observed (marker) particles: global indices i,j,k,... (default: all particles)", "",
                                 markers, &nmarkers, &mset));
  PetscCall(PetscOptionsInt("-mpm_obs_every", "Observed particles: every N-th particle (0, N, 2N, ...); 0: all", "",
                            every, &every, NULL));
  PetscCall(PetscOptionsRealArray("-mpm_objective_com",
                                  "Target x,y [m] of the centre of mass at the final step: J += w/2 |c - c*|^2", "",
                                  mpm->com_target, &nc, &mpm->com_on));
  PetscCall(PetscOptionsReal("-mpm_objective_com_weight", "Weight w of the centre-of-mass target [1/m^2]", "",
                             mpm->com_weight, &mpm->com_weight, NULL));
  PetscCall(PetscOptionsRealArray("-mpm_objective_com_linear",
                                  "Direction ax,ay [1/m]: J += a . c, c the centre of mass at the final step", "",
                                  mpm->com_linear, &nl, &mpm->com_linear_on));
  PetscOptionsEnd();
  PetscCheck(!mpm->com_on || nc == MPM_DIM, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_objective_com needs two coordinates x,y, got %" PetscInt_FMT, nc);
  PetscCheck(!mpm->com_linear_on || nl == MPM_DIM, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_objective_com_linear needs two components ax,ay, got %" PetscInt_FMT, nl);
  PetscCheck(every >= 0, mpm->comm, PETSC_ERR_USER_INPUT, "-mpm_obs_every %" PetscInt_FMT " must be >= 0", every);
  PetscCheck(!(mset && every), mpm->comm, PETSC_ERR_USER_INPUT, "Give -mpm_obs_markers or -mpm_obs_every, not both");
  PetscCall(PetscMalloc1(mpm->nhome + 1, &mpm->obs_marker));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    const PetscInt g   = mpm->hstart + i;
    mpm->obs_marker[i] = (!mset && (every == 0 || g % every == 0)) ? 1.0 : 0.0;
  }
  if (mset)
    for (PetscInt m = 0; m < nmarkers; m++) {
      PetscCheck(markers[m] >= 0 && markers[m] < mpm->N, mpm->comm, PETSC_ERR_USER_INPUT,
                 "-mpm_obs_markers: particle %" PetscInt_FMT " does not exist (0..%" PetscInt_FMT ")", markers[m],
                 mpm->N - 1);
      if (markers[m] >= mpm->hstart && markers[m] < mpm->hstart + mpm->nhome)
        mpm->obs_marker[markers[m] - mpm->hstart] = 1.0;
    }
  if (path[0]) PetscCall(MPMLoadObservations(mpm, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMObjectiveDestroy(MPM mpm)
{
  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < mpm->nobs; s++) PetscCall(PetscFree(mpm->obs_x[s]));
  PetscCall(PetscFree2(mpm->obs_step, mpm->obs_x));
  PetscCall(PetscFree(mpm->obs_marker));
  mpm->nobs = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt MPMObservationIndex(MPM mpm, AdjStepIndex k)
{
  for (PetscInt s = 0; s < mpm->nobs; s++)
    if (mpm->obs_step[s] == k) return s;
  return -1;
}

/* Total mass and first moment sum m x of the home particles, summed over ranks. Collective. */
static PetscErrorCode MPMMoments(MPM mpm, const MPMParticle *p, const MPMMaterialPoint *mat, PetscReal *M,
                                 PetscReal c[])
{
  PetscReal loc[1 + MPM_DIM] = {0, 0, 0}, glob[1 + MPM_DIM];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    loc[0] += mat[i].mass;
    for (PetscInt a = 0; a < MPM_DIM; a++) loc[1 + a] += mat[i].mass * p[i].x[a];
  }
  PetscCallMPI(MPI_Allreduce(loc, glob, 1 + MPM_DIM, MPIU_REAL, MPIU_SUM, mpm->comm));
  *M = glob[0];
  for (PetscInt a = 0; a < MPM_DIM; a++) c[a] = glob[1 + a] / glob[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMObjectiveEvaluate - J_k(x_k): the misfit at an observed step, the centre-of-mass terms at the
    final step. Collective. @*/
PetscErrorCode MPMObjectiveEvaluate(MPM mpm, AdjStepIndex k, Vec x, PetscReal *J)
{
  const MPMParticle      *p;
  const MPMMaterialPoint *mat;
  const PetscInt          s = MPMObservationIndex(mpm, k);

  PetscFunctionBeginUser;
  *J = 0;
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  if (s >= 0) {
    PetscReal loc = 0, glob;

    for (PetscInt i = 0; i < mpm->nhome; i++)
      for (PetscInt a = 0; a < MPM_DIM; a++)
        loc += mpm->obs_marker[i] * PetscSqr(p[i].x[a] - mpm->obs_x[s][MPM_DIM * i + a]);
    PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPIU_REAL, MPIU_SUM, mpm->comm));
    *J += 0.5 * mpm->obs_weight * glob;
  }
  if (k == mpm->nsteps && (mpm->com_on || mpm->com_linear_on)) {
    PetscReal M, c[MPM_DIM];

    PetscCall(MPMMoments(mpm, p, mat, &M, c));
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      if (mpm->com_on) *J += 0.5 * mpm->com_weight * PetscSqr(c[a] - mpm->com_target[a]);
      if (mpm->com_linear_on) *J += mpm->com_linear[a] * c[a];
    }
  }
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMObjectiveAdjoint - lambda += dJ_k/dx_k, and the density gradient += dJ_k/drho (through the
    particle masses in the centre of mass):
      misfit:  xb_p += w (x_p - d_p) on markers;
      c:       cb = w_c (c - c*) + a,  xb_p += cb m_p / M,  mb_p += cb . (x_p - c) / M. Collective. @*/
PetscErrorCode MPMObjectiveAdjoint(MPM mpm, AdjStepIndex k, Vec x, Vec lambda)
{
  const MPMParticle      *p;
  const MPMMaterialPoint *mat;
  MPMParticle            *lb;
  const PetscInt          s = MPMObservationIndex(mpm, k);

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, (const PetscScalar **)&p));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecGetArray(lambda, (PetscScalar **)&lb));
  if (s >= 0)
    for (PetscInt i = 0; i < mpm->nhome; i++)
      for (PetscInt a = 0; a < MPM_DIM; a++)
        lb[i].x[a] += mpm->obs_weight * mpm->obs_marker[i] * (p[i].x[a] - mpm->obs_x[s][MPM_DIM * i + a]);
  if (k == mpm->nsteps && (mpm->com_on || mpm->com_linear_on)) {
    PetscReal M, c[MPM_DIM], cb[MPM_DIM];

    PetscCall(MPMMoments(mpm, p, mat, &M, c));
    for (PetscInt a = 0; a < MPM_DIM; a++)
      cb[a] = (mpm->com_on ? mpm->com_weight * (c[a] - mpm->com_target[a]) : 0) +
              (mpm->com_linear_on ? mpm->com_linear[a] : 0);
    for (PetscInt i = 0; i < mpm->nhome; i++) {
      PetscReal mb = 0;

      for (PetscInt a = 0; a < MPM_DIM; a++) {
        lb[i].x[a] += cb[a] * mat[i].mass / M;
        mb += cb[a] * (p[i].x[a] - c[a]) / M;
      }
      mpm->grho[(PetscInt)mat[i].label] += mb * mat[i].volume;
    }
  }
  PetscCall(VecRestoreArray(lambda, (PetscScalar **)&lb));
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, (const PetscScalar **)&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}
