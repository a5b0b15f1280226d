/* Helpers shared by the io tests: grids, reproducible field values from natural indices, bitwise checks. */
#pragma once

#include <adjsim/io.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* A cell-centred DMDA of dof 1 and dimension dim with mx [x my [x mz]] cells. */
static inline PetscErrorCode IOTestCreateGrid(MPI_Comm comm, PetscInt dim, PetscInt mx, PetscInt my, PetscInt mz,
                                              DM *da)
{
  PetscFunctionBeginUser;
  if (dim == 1)
    PetscCall(DMDACreate1d(comm, DM_BOUNDARY_NONE, mx, 1, 1, NULL, da));
  else if (dim == 2)
    PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, mx, my, PETSC_DECIDE,
                           PETSC_DECIDE, 1, 1, NULL, NULL, da));
  else
    PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, mx, my, mz,
                           PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Value of field `seed` at natural cell (i,j,k): irrational-looking doubles plus a few special bit
 * patterns (-0, a subnormal, the largest double) so a lossy round trip cannot hide. */
static inline PetscReal IOTestValue(PetscInt seed, PetscInt i, PetscInt j, PetscInt k)
{
  if (i == 0 && j == 0 && k == 0) return -0.0;
  if (i == 1 && j == 0 && k == 0) return 4.9406564584124654e-322 * (PetscReal)(seed + 1); /* subnormal */
  if (i == 2 && j == 0 && k == 0) return DBL_MAX;
  return sin(1.0 + 0.37 * (PetscReal)i + 1.13 * (PetscReal)j + 0.71 * (PetscReal)k + 0.123 * (PetscReal)seed) *
         exp(0.01 * (PetscReal)seed) / 3.0;
}

/* Fill a DMDA global vector from natural indices: the result does not depend on the number of ranks. */
static inline PetscErrorCode IOTestFill(DM da, PetscInt seed, Vec v)
{
  PetscInt     xs, ys, zs, xm, ym, zm, n = 0;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) a[n++] = IOTestValue(seed, i, j, k);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compare v with the values of `seed` bit for bit (seed < 0: expect NaN everywhere); fail with the first
 * difference on every rank. */
static inline PetscErrorCode IOTestCompare(DM da, PetscInt seed, Vec v, const char what[])
{
  PetscInt           xs, ys, zs, xm, ym, zm, n = 0, bad = 0, gbad, fi = -1, fj = -1, fk = -1;
  PetscReal          got = 0, want = 0;
  const PetscScalar *a;
  MPI_Comm           comm = PetscObjectComm((PetscObject)da);

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(VecGetArrayRead(v, &a));
  for (PetscInt k = zs; k < zs + zm; k++)
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++, n++) {
        PetscReal w  = seed < 0 ? (PetscReal)NAN : IOTestValue(seed, i, j, k);
        PetscBool ok = seed < 0 ? (PetscBool)isnan(a[n]) : (PetscBool)!memcmp(&w, &a[n], sizeof(w));

        if (!ok && !bad++) fi = i, fj = j, fk = k, got = a[n], want = w;
      }
  PetscCall(VecRestoreArrayRead(v, &a));
  if (bad)
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "%s: %" PetscInt_FMT " cells differ; first at (%" PetscInt_FMT ",%" PetscInt_FMT
                          ",%" PetscInt_FMT "): got %a want %a\n",
                          what, bad, fi, fj, fk, got, want));
  PetscCallMPI(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, comm));
  PetscCheck(!gbad, comm, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " cells are not bitwise equal after the round trip",
             what, gbad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a file exists, as seen by rank 0, on every rank. */
static inline PetscErrorCode IOTestExists(MPI_Comm comm, const char path[], PetscBool *exists)
{
  PetscMPIInt rank;
  int         e = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) e = access(path, F_OK) == 0;
  PetscCallMPI(MPI_Bcast(&e, 1, MPI_INT, 0, comm));
  *exists = (PetscBool)e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode IOTestExpectFile(MPI_Comm comm, const char path[], PetscBool want, const char when[])
{
  PetscBool e;

  PetscFunctionBeginUser;
  PetscCall(IOTestExists(comm, path, &e));
  PetscCheck(e == want, comm, PETSC_ERR_PLIB, "%s: %s should %s but %s", when, path, want ? "exist" : "not exist",
             e ? "does" : "does not");
  PetscFunctionReturn(PETSC_SUCCESS);
}
