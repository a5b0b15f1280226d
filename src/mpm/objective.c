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
 * a list (-mpm_obs_markers) or every N-th particle (-mpm_obs_every).
 *
 * Grid-mass target at the final step (node masses m_i = sum_p w_ip m_p, the P2G mass transfer):
 *
 *   J += w_m/2 sum_i (m_i - m*_i)^2 / sum_i (m*_i)^2                          relative L2 misfit squared [1]
 *
 * The normalisation by the target's own square norm makes w_m dimensionless and independent of the grid
 * and the density.  The target m* is /fields/grid_mass of an earlier run (-mpm_output_grid) at this run's
 * final step, or the node masses of a union of shapes (-mpm_objective_mass_shape0, 1, ...) filled with the
 * particle lattice (-mpm_ppc) of density rho of the shape's label: exactly the grid mass a body of that shape
 * would have, so J = 0 is reachable. */
#include "mpmimpl.h"
#include <adjsim/io.h>
#include <adjsim/optcheck.h>
#include <adjsim/tables.h>

static PetscErrorCode MPMMassTargetSetFromOptions(MPM mpm);

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
    int        status, gstatus;
    PetscInt64 ntpos = 0, bad, gbad;

    if (steps[s] < 1 || steps[s] > mpm->nsteps) continue;
    PetscCheck(PetscAbsReal(times[s] - steps[s] * mpm->dt) <= 1e-9 * mpm->final_time, mpm->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s (-mpm_obs_file): step %" PetscInt64_FMT " is at time %.12g s there but %.12g s in "
               "this run: the time steps differ (give -mpm_dt)",
               path, (PetscInt64)steps[s], (double)times[s], (double)(steps[s] * mpm->dt));
    PetscCall(PetscMalloc1((size_t)mpm->nhome * MPM_DIM + 1, &mpm->obs_x[mpm->nobs]));
    /* every rank reads its home rows of the slice (serial HDF5, read-only), then all agree on the verdict */
    status = AdjTableReadRows(path, "/particles/position", s, mpm->N, MPM_DIM, mpm->hstart, mpm->nhome,
                              mpm->obs_x[mpm->nobs], &ntpos, &bad);
    PetscCallMPI(MPI_Allreduce(&status, &gstatus, 1, MPI_INT, MPI_MAX, mpm->comm));
    if (bad < 0) bad = INT64_MAX;
    PetscCallMPI(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT64, MPI_MIN, mpm->comm));
    mpm->obs_step[mpm->nobs] = steps[s];
    mpm->nobs++;
    PetscCheck(gstatus != 2, mpm->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s (-mpm_obs_file): /particles/position is not (nt, %" PetscInt_FMT
               ", 2): another particle count (bodies, -mpm_ppc or -mpm_grid differ)",
               path, mpm->N);
    PetscCheck(gstatus != 4, mpm->comm, PETSC_ERR_USER_INPUT,
               "Observation file %s (-mpm_obs_file): /particles/position holds a non-finite value (NaN or Inf) at "
               "time slice %" PetscInt_FMT " (step %" PetscInt64_FMT "), particle %" PetscInt64_FMT
               "; every value read from an input file must be finite (repair or regenerate the file)",
               path, s, (PetscInt64)steps[s], gbad);
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
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: objectives", "MPM");
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
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_obs_weight", mpm->obs_weight, ADJ_REAL_NONNEGATIVE, "1/m^2"));
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_objective_com_weight", mpm->com_weight, ADJ_REAL_NONNEGATIVE, "1/m^2"));
  if (mpm->com_on)
    PetscCall(AdjCheckRealOptionArray(mpm->comm, "-mpm_objective_com", nc, mpm->com_target, ADJ_REAL_FINITE, "m"));
  if (mpm->com_linear_on)
    PetscCall(
        AdjCheckRealOptionArray(mpm->comm, "-mpm_objective_com_linear", nl, mpm->com_linear, ADJ_REAL_FINITE, "1/m"));
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
  PetscCall(MPMMassTargetSetFromOptions(mpm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adds the node masses of the lattice points inside the union of the target shapes (density rho of each
 * point's first shape's label) to the owned nodes of mass. Every rank walks the whole lattice (cheap, like
 * the seeding) and keeps its own nodes, so the target does not depend on the rank count. Collective. */
static PetscErrorCode MPMMassTargetFromShapes(MPM mpm, PetscInt nshapes, Vec mass)
{
  const MPMGrid  *g  = &mpm->grid;
  const PetscReal V0 = g->h[0] * g->h[1] / (mpm->ppc * mpm->ppc);
  PetscScalar   **m;

  PetscFunctionBeginUser;
  PetscCall(VecZeroEntries(mass));
  PetscCall(DMDAVecGetArray(mpm->da1, mass, &m));
  for (PetscInt jy = 0; jy < g->M[1] * mpm->ppc; jy++)
    for (PetscInt ix = 0; ix < g->M[0] * mpm->ppc; ix++) {
      const PetscReal x[MPM_DIM] = {(ix + 0.5) / mpm->ppc * g->h[0], (jy + 0.5) / mpm->ppc * g->h[1]};
      PetscInt        k          = 0, base[MPM_DIM];
      PetscReal       w[MPM_DIM][MPM_STENCIL], f;

      while (k < nshapes && !MPMBodyContains(&mpm->mass_shape[k], x)) k++;
      if (k == nshapes) continue;
      for (PetscInt d = 0; d < MPM_DIM; d++) {
        MPMBSpline(x[d] / g->h[d], &base[d], w[d], &f);
        PetscCheck(base[d] >= 0 && base[d] + 2 <= g->M[d], mpm->comm, PETSC_ERR_USER_INPUT,
                   "%s %s: the point (%g, %g) m is within half a cell of the domain boundary; keep target shapes at "
                   "least h/2 inside",
                   mpm->mass_shape[k].option, mpm->mass_shape[k].spec, (double)x[0], (double)x[1]);
      }
      for (PetscInt j = 0; j < MPM_STENCIL; j++)
        for (PetscInt i = 0; i < MPM_STENCIL; i++) {
          const PetscInt ni = base[0] + i, nj = base[1] + j;

          if (ni < g->s[0] || ni >= g->s[0] + g->m[0] || nj < g->s[1] || nj >= g->s[1] + g->m[1]) continue;
          m[nj][ni] += w[0][i] * w[1][j] * mpm->rho[mpm->mass_shape[k].label] * V0;
        }
    }
  PetscCall(DMDAVecRestoreArray(mpm->da1, mass, &m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* /fields/grid_mass of a run file at this run's final step (same time step: checked). Collective. */
static PetscErrorCode MPMMassTargetFromFile(MPM mpm, const char path[], Vec mass)
{
  PetscInt      nt, s = -1;
  AdjStepIndex *steps;
  PetscReal    *times;

  PetscFunctionBeginUser;
  PetscCall(AdjInputGetFieldTimes(mpm->comm, path, "grid_mass", &nt, &steps, &times));
  for (PetscInt i = 0; i < nt; i++)
    if (steps[i] == mpm->nsteps) s = i;
  PetscCheck(s >= 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_objective_mass_file %s: /fields/grid_mass has no slice at step %" PetscInt64_FMT
             ", the final step of this run (write it with -mpm_output_grid and the same -mpm_dt, -mpm_final_time)",
             path, (PetscInt64)mpm->nsteps);
  PetscCheck(PetscAbsReal(times[s] - mpm->nsteps * mpm->dt) <= 1e-9 * mpm->final_time, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_objective_mass_file %s: step %" PetscInt64_FMT " is at time %.12g s there but %.12g s here (the "
             "time steps differ; give -mpm_dt)",
             path, (PetscInt64)mpm->nsteps, (double)times[s], (double)(mpm->nsteps * mpm->dt));
  PetscCall(PetscFree(steps));
  PetscCall(PetscFree(times));
  PetscCall(AdjInputReadFieldSlice(mpm->comm, path, "grid_mass", s, mpm->da1, mass));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mpm_objective_mass_file, -mpm_objective_mass_shape<k>, -mpm_objective_mass_weight. Collective. */
static PetscErrorCode MPMMassTargetSetFromOptions(MPM mpm)
{
  char      path[PETSC_MAX_PATH_LEN] = "";
  PetscInt  nshapes                  = 0;
  PetscBool fileset;

  PetscFunctionBeginUser;
  mpm->mass_weight = 1.0;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: grid-mass objective", "MPM");
  PetscCall(PetscOptionsString("-mpm_objective_mass_file",
                               "Run file (HDF5, written with -mpm_output_grid) whose /fields/grid_mass at this run's "
                               "final step is the target m*: J += w/2 |m - m*|^2 / |m*|^2 (node masses)",
                               "", path, path, sizeof(path), &fileset));
  for (PetscInt k = 0; k < MPM_MAX_BODIES; k++) {
    MPMBody  *b = &mpm->mass_shape[k];
    PetscBool set;

    PetscCall(PetscSNPrintf(b->option, sizeof(b->option), "-mpm_objective_mass_shape%" PetscInt_FMT, k));
    PetscCall(PetscOptionsString(b->option,
                                 "Target shape k of the grid-mass objective: box:x0,y0,x1,y1[:label] or "
                                 "disk:cx,cy,r[:label]; the union, filled like a body with density rho of the label, "
                                 "gives the target node masses m*",
                                 "", b->spec, b->spec, sizeof(b->spec), &set));
    if (!set) break;
    nshapes++;
  }
  PetscCall(PetscOptionsReal("-mpm_objective_mass_weight", "Weight w of the grid-mass objective [1]", "",
                             mpm->mass_weight, &mpm->mass_weight, NULL));
  PetscOptionsEnd();
  PetscCall(AdjCheckRealOption(mpm->comm, "-mpm_objective_mass_weight", mpm->mass_weight, ADJ_REAL_NONNEGATIVE, NULL));
  mpm->mass_on = (PetscBool)(fileset || nshapes > 0);
  if (!mpm->mass_on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!(fileset && nshapes), mpm->comm, PETSC_ERR_USER_INPUT,
             "Give -mpm_objective_mass_file or -mpm_objective_mass_shape0, ..., not both");
  for (PetscInt k = 0; k < nshapes; k++) {
    PetscBool isfile;

    PetscCall(PetscStrbeginswith(mpm->mass_shape[k].spec, "file:", &isfile));
    PetscCheck(!isfile, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: a target shape is a box or a disk",
               mpm->mass_shape[k].option, mpm->mass_shape[k].spec);
    PetscCall(MPMBodyParse(mpm, &mpm->mass_shape[k]));
  }
  PetscCall(DMCreateGlobalVector(mpm->da1, &mpm->mass_target));
  PetscCall(VecDuplicate(mpm->mass_target, &mpm->mass_work));
  if (fileset)
    PetscCall(MPMMassTargetFromFile(mpm, path, mpm->mass_target));
  else
    PetscCall(MPMMassTargetFromShapes(mpm, nshapes, mpm->mass_target));
  PetscCall(VecDot(mpm->mass_target, mpm->mass_target, &mpm->mass_norm2));
  PetscCheck(mpm->mass_norm2 > 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "The grid-mass target (%s) has no mass: it cannot normalise the misfit",
             fileset ? "-mpm_objective_mass_file" : "-mpm_objective_mass_shape0, ...");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMObjectiveDestroy(MPM mpm)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&mpm->mass_target));
  PetscCall(VecDestroy(&mpm->mass_work));
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
static PetscErrorCode MPMMoments(MPM mpm, const PetscScalar *x, const MPMMaterialPoint *mat, PetscReal *M,
                                 PetscReal c[])
{
  PetscReal loc[1 + MPM_DIM] = {0, 0, 0}, glob[1 + MPM_DIM];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    loc[0] += mat[i].mass;
    for (PetscInt a = 0; a < MPM_DIM; a++) loc[1 + a] += mat[i].mass * MPMRecordRead(x, mpm->nrec, i)->x[a];
  }
  PetscCallMPI(MPI_Allreduce(loc, glob, 1 + MPM_DIM, MPIU_REAL, MPIU_SUM, mpm->comm));
  *M = glob[0];
  for (PetscInt a = 0; a < MPM_DIM; a++) c[a] = glob[1 + a] / glob[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMObjectiveEvaluate - J_k(x_k): the misfit at an observed step, the centre-of-mass terms at the
    final step. Collective. @*/
PetscErrorCode MPMObjectiveEvaluate(void *ctx, AdjStepIndex k, Vec x, PetscReal *J)
{
  MPM                     mpm = (MPM)ctx;
  const PetscScalar      *p;
  const MPMMaterialPoint *mat;
  const PetscInt          s = MPMObservationIndex(mpm, k);

  PetscFunctionBeginUser;
  *J = 0;
  PetscCall(VecGetArrayRead(x, &p));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  if (s >= 0) {
    PetscReal loc = 0, glob;

    for (PetscInt i = 0; i < mpm->nhome; i++)
      for (PetscInt a = 0; a < MPM_DIM; a++)
        loc += mpm->obs_marker[i] * PetscSqr(MPMRecordRead(p, mpm->nrec, i)->x[a] - mpm->obs_x[s][MPM_DIM * i + a]);
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
  PetscCall(VecRestoreArrayRead(x, &p));
  if (k == mpm->nsteps && mpm->mass_on) {
    PetscReal r;

    PetscCall(MPMGridMass(mpm, k, x, mpm->mass_work));
    PetscCall(VecAXPY(mpm->mass_work, -1.0, mpm->mass_target));
    PetscCall(VecNorm(mpm->mass_work, NORM_2, &r));
    *J += 0.5 * mpm->mass_weight * r * r / mpm->mass_norm2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMObjectiveAdjoint - lambda += dJ_k/dx_k, and the density gradient += dJ_k/drho (through the
    particle masses in the centre of mass and the grid mass):
      misfit:  xb_p += w (x_p - d_p) on markers;
      c:       cb = w_c (c - c*) + a,  xb_p += cb m_p / M,  mb_p += cb . (x_p - c) / M. Collective. @*/
PetscErrorCode MPMObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda)
{
  MPM                     mpm = (MPM)ctx;
  const PetscScalar      *p;
  const MPMMaterialPoint *mat;
  PetscScalar            *lb;
  const PetscInt          s = MPMObservationIndex(mpm, k), nrec = mpm->nrec;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, &p));
  PetscCall(VecGetArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecGetArray(lambda, &lb));
  if (s >= 0)
    for (PetscInt i = 0; i < mpm->nhome; i++)
      for (PetscInt a = 0; a < MPM_DIM; a++)
        MPMRecord(lb, nrec, i)->x[a] +=
            mpm->obs_weight * mpm->obs_marker[i] * (MPMRecordRead(p, nrec, i)->x[a] - mpm->obs_x[s][MPM_DIM * i + a]);
  if (k == mpm->nsteps && (mpm->com_on || mpm->com_linear_on)) {
    PetscReal M, c[MPM_DIM], cb[MPM_DIM];

    PetscCall(MPMMoments(mpm, p, mat, &M, c));
    for (PetscInt a = 0; a < MPM_DIM; a++)
      cb[a] = (mpm->com_on ? mpm->com_weight * (c[a] - mpm->com_target[a]) : 0) +
              (mpm->com_linear_on ? mpm->com_linear[a] : 0);
    for (PetscInt i = 0; i < mpm->nhome; i++) {
      PetscReal mb = 0;

      for (PetscInt a = 0; a < MPM_DIM; a++) {
        MPMRecord(lb, nrec, i)->x[a] += cb[a] * mat[i].mass / M;
        mb += cb[a] * (MPMRecordRead(p, nrec, i)->x[a] - c[a]) / M;
      }
      mpm->grho[(PetscInt)mat[i].label] += mb * mat[i].volume;
    }
  }
  PetscCall(VecRestoreArray(lambda, &lb));
  PetscCall(VecRestoreArrayRead(mpm->mat, (const PetscScalar **)&mat));
  PetscCall(VecRestoreArrayRead(x, &p));
  if (k == mpm->nsteps && mpm->mass_on) {
    /* mb_i = w (m_i - m*_i) / |m*|^2, then through the P2G mass transfer */
    PetscCall(MPMGridMass(mpm, k, x, mpm->mass_work));
    PetscCall(VecAXPY(mpm->mass_work, -1.0, mpm->mass_target));
    PetscCall(VecScale(mpm->mass_work, mpm->mass_weight / mpm->mass_norm2));
    PetscCall(MPMGridMassAdjoint(mpm, k, x, mpm->mass_work, lambda));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
