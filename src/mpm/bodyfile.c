/* MPM bodies read from an HDF5 particle file: -mpm_bodyN file:path.h5[:label[:vx,vy]].
 *
 * The datasets sit in the group /particles if the file has one (an adjsim run file: its particle output),
 * else at the root.  Per particle (N rows):
 *
 *   position  (N, 2) [m]              required
 *   volume    (N) [m^2]               initial volume V0; or
 *   mass      (N) [kg/m]              mass (V0 = mass / rho of the particle's label); one of the two required
 *   velocity  (N, 2) [m/s]            optional (default 0)
 *   label     (N)                     optional material label (default 0; the body's :label overrides it)
 *   F         (N, 4) row-major        optional deformation gradient (default I)
 *   E (N) [Pa], nu (N)                optional; the initial values of the per-particle fields E_field,
 *                                     nu_field (-mpm_E_per_particle, -mpm_nu_per_particle), otherwise the
 *                                     label's material applies
 *
 * A dataset with one more leading dimension (nt, N[, ncomp]), as /particles/<name> of a run file, gives its
 * last slice: the state at the run's last output step.  So a run file (with /particles/volume, written since
 * this reader exists) is a starting body for the next run.  Rank 0 reads and checks the file and broadcasts
 * the particles; every error names the body option, the file and the dataset or particle. */
#define _POSIX_C_SOURCE 200809L
#include "mpmimpl.h"
#include <adjsim/tables.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MPM_FILE_MSG 512

/* The datasets of a particle file, in this order; ncomp per particle; required or not. */
typedef enum {
  MPMF_POSITION,
  MPMF_VOLUME,
  MPMF_MASS,
  MPMF_VELOCITY,
  MPMF_LABEL,
  MPMF_F,
  MPMF_E,
  MPMF_NU,
  MPMF_N
} MPMFileData;
static const char *const MPMFileDataNames[MPMF_N] = {"position", "volume", "mass", "velocity", "label", "F", "E", "nu"};
static const PetscInt    MPMFileDataComps[MPMF_N] = {MPM_DIM, 1, 1, MPM_DIM, 1, MPM_DIM *MPM_DIM, 1, 1};

/* Rank 0: checks of the particles read; fills the volumes from masses. Returns nonzero with msg. */
static int MPMFileCheck(MPM mpm, const char group[], PetscInt n[], PetscReal *data[], char msg[], size_t len)
{
  const PetscReal *x = data[MPMF_POSITION];

  if (!x) {
    snprintf(msg, len, "dataset %s/position is missing", group);
    return 1;
  }
  if (!data[MPMF_VOLUME] && !data[MPMF_MASS]) {
    snprintf(msg, len, "dataset %s/volume (or %s/mass) is missing", group, group);
    return 1;
  }
  for (int k = 1; k < MPMF_N; k++)
    if (data[k] && n[k] != n[MPMF_POSITION]) {
      snprintf(msg, len, "dataset %s/%s has %llu particles but %s/position has %llu", group, MPMFileDataNames[k],
               (unsigned long long)n[k], group, (unsigned long long)n[MPMF_POSITION]);
      return 1;
    }
  if (n[MPMF_POSITION] == 0) {
    snprintf(msg, len, "dataset %s/position holds no particle", group);
    return 1;
  }
  for (PetscInt p = 0; p < n[MPMF_POSITION]; p++) {
    const PetscReal *lab = data[MPMF_LABEL];
    const PetscReal  q   = data[MPMF_VOLUME] ? data[MPMF_VOLUME][p] : data[MPMF_MASS][p];
    PetscInt         l   = 0;

    if (lab && !(lab[p] >= 0 && lab[p] < mpm->nlabels && lab[p] == (PetscInt)lab[p])) {
      snprintf(msg, len,
               "particle %llu has label %g, which has no material (-mpm_E, -mpm_nu, -mpm_rho define labels 0..%d)",
               (unsigned long long)p, (double)lab[p], (int)mpm->nlabels - 1);
      return 1;
    }
    if (lab) l = (PetscInt)lab[p];
    if (!(q > 0 && PetscIsNormalReal(q))) {
      snprintf(msg, len, "particle %llu has %s %g %s; it must be positive", (unsigned long long)p,
               data[MPMF_VOLUME] ? "volume" : "mass", (double)q, data[MPMF_VOLUME] ? "m^2" : "kg/m");
      return 1;
    }
    for (PetscInt d = 0; d < MPM_DIM; d++) {
      PetscInt  base;
      PetscReal w[MPM_STENCIL], f, xd = x[MPM_DIM * p + d];

      MPMBSpline(xd / mpm->grid.h[d], &base, w, &f);
      if (!(xd >= 0 && xd <= mpm->grid.L[d]) || base < 0 || base + 2 > mpm->grid.M[d]) {
        snprintf(msg, len,
                 "particles outside the domain: particle %llu at (%g, %g) m is outside [0,%g] x [0,%g] m or within "
                 "half a cell of its boundary, where its B-spline stencil leaves the grid",
                 (unsigned long long)p, (double)x[MPM_DIM * p], (double)x[MPM_DIM * p + 1], (double)mpm->grid.L[0],
                 (double)mpm->grid.L[1]);
        return 1;
      }
    }
    if (data[MPMF_E] && !(data[MPMF_E][p] > 0 && PetscIsNormalReal(data[MPMF_E][p]))) {
      snprintf(msg, len, "particle %llu has E = %g Pa; it must be positive", (unsigned long long)p,
               (double)data[MPMF_E][p]);
      return 1;
    }
    if (data[MPMF_NU] && !(data[MPMF_NU][p] > -1 && data[MPMF_NU][p] < 0.5)) {
      snprintf(msg, len, "particle %llu has nu = %g; it must lie in (-1, 0.5)", (unsigned long long)p,
               (double)data[MPMF_NU][p]);
      return 1;
    }
    if (data[MPMF_F]) {
      const PetscReal *F = data[MPMF_F] + 4 * p;
      if (!(F[0] * F[3] - F[1] * F[2] > 0)) {
        snprintf(msg, len, "particle %llu has det F = %g <= 0", (unsigned long long)p,
                 (double)(F[0] * F[3] - F[1] * F[2]));
        return 1;
      }
    }
    if (!data[MPMF_VOLUME]) data[MPMF_MASS][p] /= mpm->rho[l]; /* V0 = mass / rho */
  }
  if (!data[MPMF_VOLUME]) data[MPMF_VOLUME] = data[MPMF_MASS], data[MPMF_MASS] = NULL;
  return 0;
}

/* Rank 0: opens the file and reads every dataset. Returns nonzero with msg. */
static int MPMFileRead(MPM mpm, const char path[], PetscInt n[], PetscReal *data[], char msg[], size_t len)
{
  AdjTableFile file;
  const char  *group;
  int          status;

  status = AdjTableFileOpen(path, "the particle file", &file, msg, len);
  if (status) return status;
  group = AdjTableFileHas(file, "/particles") ? "/particles" : "";
  for (int k = 0; k < MPMF_N && !status; k++) {
    char name[300];
    snprintf(name, sizeof(name), "%s/%s", group, MPMFileDataNames[k]);
    status = AdjTableFileRead(file, name, MPMFileDataComps[k], &n[k], &data[k], msg, len);
  }
  AdjTableFileClose(&file);
  if (!status) status = MPMFileCheck(mpm, group, n, data, msg, len);
  return status;
}

/* Broadcast one optional per-particle array from rank 0 into PETSc memory (NULL when absent). */
static PetscErrorCode MPMFileBcast(MPM mpm, PetscInt n, PetscInt ncomp, PetscReal *src, PetscReal **dst)
{
  int present = src != NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(&present, 1, MPI_INT, 0, mpm->comm));
  *dst = NULL;
  if (!present) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(n * ncomp, dst));
  if (!mpm->rank) PetscCall(PetscArraycpy(*dst, src, n * ncomp));
  PetscCallMPI(MPI_Bcast(*dst, (PetscMPIInt)(n * ncomp), MPIU_REAL, 0, mpm->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMBodyFileLoad - reads the particles of body b (shape file) on rank 0, checks them and gives every rank a
    copy. Collective; errors name the option, the file and the dataset or particle. @*/
PetscErrorCode MPMBodyFileLoad(MPM mpm, MPMBody *b)
{
  PetscInt   n[MPMF_N]         = {0};
  PetscReal *data[MPMF_N]      = {NULL};
  char       msg[MPM_FILE_MSG] = "";
  int        status            = 0;
  PetscInt   np;

  PetscFunctionBeginUser;
  if (!mpm->rank) status = MPMFileRead(mpm, b->path, n, data, msg, sizeof(msg));
  PetscCallMPI(MPI_Bcast(&status, 1, MPI_INT, 0, mpm->comm));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, mpm->comm));
  if (status)
    for (int k = 0; k < MPMF_N; k++) free(data[k]);
  PetscCheck(!status, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: %s", b->option, b->spec, msg);
  np = (PetscInt)n[MPMF_POSITION];
  PetscCallMPI(MPI_Bcast(&np, 1, MPIU_INT, 0, mpm->comm));
  PetscCall(PetscNew(&b->file));
  b->file->n = np;
  PetscCall(MPMFileBcast(mpm, np, MPM_DIM, data[MPMF_POSITION], &b->file->x));
  PetscCall(MPMFileBcast(mpm, np, 1, data[MPMF_VOLUME], &b->file->volume));
  PetscCall(MPMFileBcast(mpm, np, MPM_DIM, data[MPMF_VELOCITY], &b->file->v));
  PetscCall(MPMFileBcast(mpm, np, 1, data[MPMF_LABEL], &b->file->label));
  PetscCall(MPMFileBcast(mpm, np, MPM_DIM * MPM_DIM, data[MPMF_F], &b->file->F));
  PetscCall(MPMFileBcast(mpm, np, 1, data[MPMF_E], &b->file->E));
  PetscCall(MPMFileBcast(mpm, np, 1, data[MPMF_NU], &b->file->nu));
  for (int k = 0; k < MPMF_N; k++) free(data[k]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMBodyFileDestroy(MPMBody *b)
{
  PetscFunctionBeginUser;
  if (!b->file) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(b->file->x));
  PetscCall(PetscFree(b->file->volume));
  PetscCall(PetscFree(b->file->v));
  PetscCall(PetscFree(b->file->label));
  PetscCall(PetscFree(b->file->F));
  PetscCall(PetscFree(b->file->E));
  PetscCall(PetscFree(b->file->nu));
  PetscCall(PetscFree(b->file));
  PetscFunctionReturn(PETSC_SUCCESS);
}
