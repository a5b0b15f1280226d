/* Round trip of a run file: fields (time series), gradients, parameters, optimization history, restart
 * group and restart file are written on N ranks and read back bit for bit, on the same or another number
 * of ranks (the values are functions of natural indices, so they do not depend on the decomposition).
 *
 * Options: -output <file> (required), -mode write|read|both (default both), -dim 1|2|3 (default 2), plus
 * the AdjOutput options (-output_interval, -output_design_max, ...). */
#include "iotest.h"
#include <hdf5.h>

#define NSTEPS 6
#define DT     0.1

static const char *const restart_names[] = {"rho", "T"};

/* Slice k of /fields/<name> was never written, so it holds NaN (the writer's fill), and the reader refuses it
 * as it refuses every non-finite input value (PETSC_ERR_USER_INPUT on every rank). */
static PetscErrorCode ExpectUnwritten(MPI_Comm comm, const char path[], const char name[], PetscInt k, DM da, Vec v)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = AdjInputReadFieldSlice(comm, path, name, k, da, v);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_USER_INPUT, comm, PETSC_ERR_PLIB,
             "reading the unwritten slice %" PetscInt_FMT " of %s returned %d, expected the non-finite input error %d",
             k, name, (int)ierr, (int)PETSC_ERR_USER_INPUT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Design of iteration `it` on the design vector (natural-index values for DMDA designs). */
static PetscErrorCode FillDesign(Vec design, PetscInt it)
{
  DM dm;

  PetscFunctionBeginUser;
  PetscCall(VecGetDM(design, &dm));
  if (dm)
    PetscCall(IOTestFill(dm, 100 + it, design));
  else {
    PetscInt     rs, re;
    PetscScalar *a;

    PetscCall(VecGetOwnershipRange(design, &rs, &re));
    PetscCall(VecGetArray(design, &a));
    for (PetscInt i = rs; i < re; i++) a[i - rs] = (PetscReal)it + (PetscReal)i / 7.0;
    PetscCall(VecRestoreArray(design, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteRun(DM da, PetscInt dim)
{
  AdjOutput       out;
  Vec             rho, T, late, g, kappa, design;
  const PetscReal lower[3] = {-1.0, 0.5, 0.0}, upper[3] = {2.0, 3.0, 1.5};
  const PetscReal dtheta[3] = {1.0 / 3.0, -0.0, 4.9406564584124654e-324}, theta[3] = {0.1, 0.2, 0.3};
  MPI_Comm        comm = PetscObjectComm((PetscObject)da);
  PetscInt        k    = 0;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCreate(comm, &out));
  PetscCall(AdjOutputSetFromOptions(out));
  PetscCall(AdjOutputSetGrid(out, da, lower, upper, "m"));
  PetscCall(AdjOutputOpen(out));
  PetscCall(DMCreateGlobalVector(da, &rho));
  PetscCall(VecDuplicate(rho, &T));
  PetscCall(VecDuplicate(rho, &late));
  for (AdjStepIndex step = 0; step <= NSTEPS; step++) {
    PetscBool yes;

    PetscCall(AdjOutputIsOutputStep(out, step, NSTEPS, &yes));
    if (!yes) continue;
    PetscCall(AdjOutputBeginStep(out, step, (PetscReal)step * DT));
    PetscCall(IOTestFill(da, 10 * k + 1, rho));
    PetscCall(IOTestFill(da, 10 * k + 2, T));
    PetscCall(AdjOutputWriteField(out, "rho", "kg/m^3", rho));
    PetscCall(AdjOutputWriteField(out, "T", "K", T));
    if (k >= 2) { /* a field that appears late: earlier slices hold NaN, which the reader refuses */
      PetscCall(IOTestFill(da, 10 * k + 3, late));
      PetscCall(AdjOutputWriteField(out, "late", "1", late));
    }
    k++;
  }
  PetscCheck(k == 4, comm, PETSC_ERR_PLIB, "expected 4 output steps with -output_interval 2, got %" PetscInt_FMT, k);

  PetscCall(VecDuplicate(rho, &g));
  PetscCall(VecDuplicate(rho, &kappa));
  PetscCall(IOTestFill(da, 50, g));
  PetscCall(IOTestFill(da, 51, kappa));
  PetscCall(AdjOutputWriteBlockField(out, ADJ_OUTPUT_GRADIENTS, "kappa", "J s/m^2", g));
  PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_GRADIENTS, "theta", "J", 3, dtheta));
  PetscCall(AdjOutputWriteBlockField(out, ADJ_OUTPUT_PARAMETERS, "kappa", "m^2/s", kappa));
  PetscCall(AdjOutputWriteBlockArray(out, ADJ_OUTPUT_PARAMETERS, "theta", "1", 3, theta));

  if (dim < 3)
    PetscCall(VecCreateMPI(comm, PETSC_DECIDE, 5, &design));
  else
    PetscCall(VecDuplicate(rho, &design)); /* large: only design_last is kept (-output_design_max 100) */
  for (PetscInt it = 0; it < 3; it++) {
    PetscCall(FillDesign(design, it));
    PetscCall(AdjOutputWriteOptimizationIteration(out, it, 1.0 / (PetscReal)(it + 2), pow(0.5, (PetscReal)it),
                                                  it == 1 && dim < 3 ? NULL : design));
  }
  PetscCall(AdjOutputSetAttribute(out, "/optimization", "objective_description", "L2 misfit of rho at t_end"));
  PetscCall(AdjOutputSetAttributeReal(out, "/", "cfl", 0.5));

  {
    Vec state[2] = {rho, T};

    PetscCall(IOTestFill(da, 61, rho));
    PetscCall(IOTestFill(da, 62, T));
    PetscCall(AdjOutputWriteRestart(out, "transport", NSTEPS, NSTEPS * DT, 2, restart_names, state));
    PetscCall(AdjOutputWriteRestartFile(out, "transport", NSTEPS, NSTEPS * DT, 2, restart_names, state));
  }
  PetscCall(AdjOutputClose(out));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(VecDestroy(&rho));
  PetscCall(VecDestroy(&T));
  PetscCall(VecDestroy(&late));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&kappa));
  PetscCall(VecDestroy(&design));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckArray(MPI_Comm comm, const char path[], const char dset[], PetscInt n,
                                 const PetscReal want[])
{
  PetscInt   m;
  PetscReal *got;

  PetscFunctionBeginUser;
  PetscCall(AdjInputReadArray(comm, path, dset, &m, &got));
  PetscCheck(m == n, comm, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " values, expected %" PetscInt_FMT, dset, m, n);
  PetscCheck(!memcmp(got, want, sizeof(PetscReal) * (size_t)n), comm, PETSC_ERR_PLIB, "%s: values differ bitwise",
             dset);
  PetscCall(PetscFree(got));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ReadRun(DM da, PetscInt dim, const char path[], const char restart[])
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)da);
  Vec             v, w;
  PetscInt        nt;
  AdjStepIndex   *steps;
  PetscReal      *times;
  const PetscReal dtheta[3] = {1.0 / 3.0, -0.0, 4.9406564584124654e-324}, theta[3] = {0.1, 0.2, 0.3};
  const char     *files[2] = {path, restart};

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(da, &v));
  PetscCall(VecDuplicate(v, &w));

  PetscCall(AdjInputGetFieldTimes(comm, path, "rho", &nt, &steps, &times));
  PetscCheck(nt == 4, comm, PETSC_ERR_PLIB, "rho has %" PetscInt_FMT " slices, expected 4", nt);
  for (PetscInt k = 0; k < nt; k++) {
    const PetscReal t = (PetscReal)(2 * k) * DT;

    PetscCheck(steps[k] == 2 * k && !memcmp(&times[k], &t, sizeof(t)), comm, PETSC_ERR_PLIB,
               "slice %" PetscInt_FMT ": step %" PRId64 " time %g, expected step %" PetscInt_FMT " time %g", k,
               (int64_t)steps[k], (double)times[k], 2 * k, (double)t);
    PetscCall(AdjInputReadFieldSlice(comm, path, "rho", k, da, v));
    PetscCall(IOTestCompare(da, 10 * k + 1, v, "rho slice"));
    PetscCall(AdjInputReadFieldSlice(comm, path, "T", k, da, v));
    PetscCall(IOTestCompare(da, 10 * k + 2, v, "T slice"));
    if (k >= 2) {
      PetscCall(AdjInputReadFieldSlice(comm, path, "late", k, da, v));
      PetscCall(IOTestCompare(da, 10 * k + 3, v, "late slice"));
    } else
      PetscCall(ExpectUnwritten(comm, path, "late", k, da, v));
  }
  PetscCall(PetscFree(steps));
  PetscCall(PetscFree(times));

  PetscCall(AdjInputReadField(comm, path, "/gradients/kappa", da, v));
  PetscCall(IOTestCompare(da, 50, v, "gradient kappa"));
  PetscCall(AdjInputReadField(comm, path, "/parameters/kappa", da, v));
  PetscCall(IOTestCompare(da, 51, v, "parameter kappa"));
  PetscCall(CheckArray(comm, path, "/gradients/theta", 3, dtheta));
  PetscCall(CheckArray(comm, path, "/parameters/theta", 3, theta));
  if (dim == 3) {
    PetscCall(AdjInputReadField(comm, path, "/optimization/design_last", da, v));
    PetscCall(IOTestCompare(da, 102, v, "design_last"));
  } else { /* the 2-D design rows are checked by check_run.py */
    PetscInt   n;
    PetscReal *obj;

    PetscCall(AdjInputReadArray(comm, path, "/optimization/objective", &n, &obj));
    PetscCheck(n == 3 && obj[2] == 0.25, comm, PETSC_ERR_PLIB, "objective history wrong");
    PetscCall(PetscFree(obj));
  }

  for (PetscInt f = 0; f < 2; f++) {
    Vec          state[2] = {v, w};
    AdjStepIndex step;
    PetscReal    time;

    PetscCall(VecSet(v, -1.0));
    PetscCall(VecSet(w, -1.0));
    PetscCall(AdjInputReadRestart(comm, files[f], "transport", da, 2, restart_names, state, &step, &time));
    PetscCheck(step == NSTEPS && time == NSTEPS * DT, comm, PETSC_ERR_PLIB, "%s: restart step/time wrong", files[f]);
    PetscCall(IOTestCompare(da, 61, v, "restart rho"));
    PetscCall(IOTestCompare(da, 62, w, "restart T"));
  }
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A plain HDF5 file made by another tool (here: serial HDF5 on rank 0) holding /u in natural C order is
 * readable with AdjInputReadField on any number of ranks. */
static PetscErrorCode CheckUserFile(DM da, PetscInt dim, const char path[])
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)da);
  PetscMPIInt rank;
  PetscInt    M, N, P;
  Vec         v;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  if (!rank) {
    hsize_t    dims[3] = {(hsize_t)P, (hsize_t)N, (hsize_t)M};
    PetscReal *u;
    PetscInt   n = 0;
    hid_t      f, s, d;

    PetscCall(PetscMalloc1(M * N * P, &u));
    for (PetscInt k = 0; k < P; k++)
      for (PetscInt j = 0; j < N; j++)
        for (PetscInt i = 0; i < M; i++) u[n++] = IOTestValue(7, i, j, k);
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    s = H5Screate_simple((int)dim, dims + 3 - dim, NULL);
    d = H5Dcreate2(f, "/u", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    AdjCallH5(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, u));
    AdjCallH5(H5Dclose(d));
    AdjCallH5(H5Sclose(s));
    AdjCallH5(H5Fclose(f));
    PetscCall(PetscFree(u));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(DMCreateGlobalVector(da, &v));
  PetscCall(AdjInputReadField(comm, path, "/u", da, v));
  PetscCall(IOTestCompare(da, 7, v, "user file /u"));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM        da;
  char      path[PETSC_MAX_PATH_LEN] = "", mode[16] = "both", restart[PETSC_MAX_PATH_LEN], user[PETSC_MAX_PATH_LEN];
  PetscInt  dim = 2;
  PetscBool set, write, read;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "io round trip test"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-output", path, sizeof(path), &set));
  PetscCheck(set, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give -output <file>");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCheck(dim >= 1 && dim <= 3, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-dim must be 1, 2 or 3");
  PetscCall(PetscStrcmp(mode, "read", &read));
  PetscCall(PetscStrcmp(mode, "write", &write));
  if (!read && !write) read = write = PETSC_TRUE;
  {
    AdjOutput   out; /* only to learn the default restart file name */
    const char *r;

    PetscCall(AdjOutputCreate(PETSC_COMM_WORLD, &out));
    PetscCall(AdjOutputSetFromOptions(out));
    PetscCall(AdjOutputGetRestartPath(out, &r));
    PetscCall(PetscStrncpy(restart, r, sizeof(restart)));
    PetscCall(AdjOutputDestroy(&out));
  }
  /* odd sizes, so 2 and 4 ranks split the grid unevenly */
  PetscCall(IOTestCreateGrid(PETSC_COMM_WORLD, dim, dim == 1 ? 29 : (dim == 2 ? 13 : 7), dim == 2 ? 9 : 5, 4, &da));
  if (write) PetscCall(WriteRun(da, dim));
  if (read) {
    PetscCall(ReadRun(da, dim, path, restart));
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(PetscSNPrintf(user, sizeof(user), "%s.user%d.h5", path, (int)size));
    PetscCall(CheckUserFile(da, dim, user));
  }
  PetscCall(DMDestroy(&da));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "io round trip (%s, %" PetscInt_FMT "-D, %s): OK\n", mode, dim, path));
  PetscCall(PetscFinalize());
  return 0;
}
