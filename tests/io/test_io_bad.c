/* Bad input must fail cleanly on every rank with a message naming the file: this program sets up one bad
 * case and makes the call that must fail. It exits 0 only if the call unexpectedly succeeds, so it is run
 * through expect_fail.sh, which requires a nonzero exit and greps the message.
 *
 * Options: -case missing|nothdf5|truncated|notadjsim|wronggrid|wrongsolver|missingfield|baddir|badrestartdir
 *          -tag <prefix for the files this case creates> */
#include "iotest.h"
#include <hdf5.h>
#include <stdio.h>

/* A small valid run file (with a restart group) on an 8 x 6 grid. */
static PetscErrorCode WriteValidRun(MPI_Comm comm, const char path[])
{
  DM                da;
  Vec               v;
  AdjOutput         out;
  const char *const names[] = {"q"};

  PetscFunctionBeginUser;
  PetscCall(IOTestCreateGrid(comm, 2, 8, 6, 1, &da));
  PetscCall(DMCreateGlobalVector(da, &v));
  PetscCall(IOTestFill(da, 1, v));
  PetscCall(AdjOutputCreate(comm, &out));
  PetscCall(AdjOutputSetPath(out, path));
  PetscCall(AdjOutputSetGrid(out, da, NULL, NULL, NULL));
  PetscCall(AdjOutputOpen(out));
  for (PetscInt k = 0; k < 3; k++) {
    PetscCall(AdjOutputBeginStep(out, k, 0.1 * k));
    PetscCall(AdjOutputWriteField(out, "q", "1", v));
  }
  PetscCall(AdjOutputWriteRestart(out, "fluid", 2, 0.2, 1, names, &v));
  PetscCall(AdjOutputClose(out));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(VecDestroy(&v));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 copies the first half of src to dst: a truncated file, as left by a full disk or a killed copy. */
static PetscErrorCode WriteTruncatedCopy(MPI_Comm comm, const char src[], const char dst[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    long  size;
    char *buf;

    PetscCheck(in && out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot copy %s to %s", src, dst);
    fseek(in, 0, SEEK_END);
    size = ftell(in);
    fseek(in, 0, SEEK_SET);
    PetscCall(PetscMalloc1(size / 2 + 1, &buf));
    PetscCheck(fread(buf, 1, (size_t)(size / 2), in) == (size_t)(size / 2), PETSC_COMM_SELF, PETSC_ERR_FILE_READ,
               "short read of %s", src);
    fwrite(buf, 1, (size_t)(size / 2), out);
    fclose(in);
    fclose(out);
    PetscCall(PetscFree(buf));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 writes a file that is not HDF5, or (hdf5) a valid HDF5 file that is not an adjsim file. */
static PetscErrorCode WriteForeignFile(MPI_Comm comm, const char path[], PetscBool hdf5)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank && hdf5) {
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

    AdjCallH5(f);
    AdjCallH5(H5Fclose(f));
  } else if (!rank) {
    FILE *fp = fopen(path, "w");

    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s", path);
    fputs("step,time\n0,0.0\n", fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm          comm;
  char              which[32] = "", tag[64] = "bad", path[PETSC_MAX_PATH_LEN], good[PETSC_MAX_PATH_LEN];
  const char *const names[] = {"q"};
  DM                da;
  Vec               v;
  PetscBool         is;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "io bad input test"));
  comm = PETSC_COMM_WORLD; /* valid only after PetscInitialize */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof(which), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tag", tag, sizeof(tag), NULL));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s-%s.h5", tag, which));
  PetscCall(PetscSNPrintf(good, sizeof(good), "%s-%s-valid.h5", tag, which));
  PetscCall(IOTestCreateGrid(comm, 2, 8, 6, 1, &da));
  PetscCall(DMCreateGlobalVector(da, &v));

  PetscCall(PetscStrcmp(which, "missing", &is));
  if (is) PetscCall(AdjInputReadRestart(comm, "no-such-dir/missing.h5", "fluid", da, 1, names, &v, NULL, NULL));
  PetscCall(PetscStrcmp(which, "nothdf5", &is));
  if (is) {
    PetscCall(WriteForeignFile(comm, path, PETSC_FALSE));
    PetscCall(AdjInputReadRestart(comm, path, "fluid", da, 1, names, &v, NULL, NULL));
  }
  PetscCall(PetscStrcmp(which, "notadjsim", &is));
  if (is) {
    PetscCall(WriteForeignFile(comm, path, PETSC_TRUE));
    PetscCall(AdjInputReadFieldSlice(comm, path, "q", 0, da, v));
  }
  PetscCall(PetscStrcmp(which, "truncated", &is));
  if (is) {
    PetscCall(WriteValidRun(comm, good));
    PetscCall(WriteTruncatedCopy(comm, good, path));
    PetscCall(AdjInputReadRestart(comm, path, "fluid", da, 1, names, &v, NULL, NULL));
  }
  PetscCall(PetscStrcmp(which, "wronggrid", &is));
  if (is) {
    DM  da2;
    Vec v2;

    PetscCall(WriteValidRun(comm, path));
    PetscCall(IOTestCreateGrid(comm, 2, 9, 6, 1, &da2));
    PetscCall(DMCreateGlobalVector(da2, &v2));
    PetscCall(AdjInputReadRestart(comm, path, "fluid", da2, 1, names, &v2, NULL, NULL));
    PetscCall(VecDestroy(&v2));
    PetscCall(DMDestroy(&da2));
  }
  PetscCall(PetscStrcmp(which, "wrongsolver", &is));
  if (is) {
    PetscCall(WriteValidRun(comm, path));
    PetscCall(AdjInputReadRestart(comm, path, "mpm", da, 1, names, &v, NULL, NULL));
  }
  PetscCall(PetscStrcmp(which, "missingfield", &is));
  if (is) {
    PetscCall(WriteValidRun(comm, path));
    PetscCall(AdjInputReadFieldSlice(comm, path, "nope", 0, da, v));
  }
  PetscCall(PetscStrcmp(which, "baddir", &is));
  if (is) { /* through the option, as a user would */
    AdjOutput out;

    PetscCall(AdjOutputCreate(comm, &out));
    PetscCall(AdjOutputSetFromOptions(out));
    PetscCall(AdjOutputSetGrid(out, da, NULL, NULL, NULL));
    PetscCall(AdjOutputOpen(out));
    PetscCall(AdjOutputDestroy(&out));
  }
  PetscCall(PetscStrcmp(which, "badrestartdir", &is));
  if (is) {
    AdjOutput out;

    PetscCall(AdjOutputCreate(comm, &out));
    PetscCall(AdjOutputSetFromOptions(out));
    PetscCall(AdjOutputSetGrid(out, da, NULL, NULL, NULL));
    PetscCall(AdjOutputWriteRestartFile(out, "fluid", 1, 0.1, 1, names, &v));
    PetscCall(AdjOutputDestroy(&out));
  }

  PetscCall(VecDestroy(&v));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscPrintf(comm, "test_io_bad: case \"%s\" did not fail, but it must\n", which));
  PetscCall(PetscFinalize());
  return 0;
}
