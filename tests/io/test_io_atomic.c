/* Atomic output: the run file exists only as <path>.partial until AdjOutputClose() renames it over an
 * earlier run's file of the same name, which stays untouched until then (also when the new run is aborted);
 * a writer destroyed without close leaves <path>.partial and the earlier files as they were; the restart file is
 * replaced atomically and a leftover <restart>.partial from a killed write neither hides the last good restart file nor
 * stops the next write.
 *
 * Options: -tag <name> (file name prefix, distinct per rank count). */
#include "iotest.h"
#include <stdio.h>
#include <string.h>

/* Rank 0 writes text into path: stands for a stale or half-written file. */
static PetscErrorCode WriteJunk(MPI_Comm comm, const char path[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *fp = fopen(path, "w");

    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s", path);
    fputs("half-written junk\n", fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file still holds what WriteJunk() put there: an earlier run's file, untouched. */
static PetscErrorCode ExpectJunk(MPI_Comm comm, const char path[], const char when[])
{
  PetscMPIInt rank;
  int         same = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE *fp       = fopen(path, "r");
    char  line[64] = "";

    if (fp) {
      same = fgets(line, sizeof(line), fp) && !strcmp(line, "half-written junk\n");
      fclose(fp);
    }
  }
  PetscCallMPI(MPI_Bcast(&same, 1, MPI_INT, 0, comm));
  PetscCheck(same, comm, PETSC_ERR_PLIB, "%s: %s should still be the earlier run's file, but it is gone or changed",
             when, path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 removes the files (absent is fine). */
static PetscErrorCode RemoveFiles(MPI_Comm comm, const char a[], const char b[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    (void)remove(a);
    (void)remove(b);
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Names(const char tag[], const char what[], char h5[], char partial[], char xmf[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(h5, PETSC_MAX_PATH_LEN, "%s-%s.h5", tag, what));
  PetscCall(PetscSNPrintf(partial, PETSC_MAX_PATH_LEN, "%s-%s.h5.partial", tag, what));
  PetscCall(PetscSNPrintf(xmf, PETSC_MAX_PATH_LEN, "%s-%s.xmf", tag, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Closed normally: .partial while open, final name (and .xmf) only after close. */
static PetscErrorCode CheckCompleteRun(DM da, const char tag[])
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)da);
  char      h5[PETSC_MAX_PATH_LEN], partial[PETSC_MAX_PATH_LEN], xmf[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 16];
  AdjOutput out;
  Vec       v;

  PetscFunctionBeginUser;
  PetscCall(Names(tag, "complete", h5, partial, xmf));
  PetscCall(WriteJunk(comm, h5)); /* an earlier run's file under the final name */
  PetscCall(WriteJunk(comm, xmf));
  PetscCall(AdjOutputCreate(comm, &out));
  PetscCall(AdjOutputSetPath(out, h5));
  PetscCall(AdjOutputSetGrid(out, da, NULL, NULL, NULL));
  PetscCall(AdjOutputOpen(out));
  PetscCall(IOTestExpectFile(comm, partial, PETSC_TRUE, "after open"));
  PetscCall(ExpectJunk(comm, h5, "after open"));
  PetscCall(ExpectJunk(comm, xmf, "after open"));
  PetscCall(DMCreateGlobalVector(da, &v));
  PetscCall(IOTestFill(da, 3, v));
  PetscCall(AdjOutputBeginStep(out, 0, 0.0));
  PetscCall(AdjOutputWriteField(out, "u", "m/s", v));
  PetscCall(ExpectJunk(comm, h5, "after writing a step"));
  PetscCall(AdjOutputClose(out));
  PetscCall(IOTestExpectFile(comm, h5, PETSC_TRUE, "after close"));
  PetscCall(IOTestExpectFile(comm, partial, PETSC_FALSE, "after close"));
  PetscCall(IOTestExpectFile(comm, xmf, PETSC_TRUE, "after close"));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.partial", xmf));
  PetscCall(IOTestExpectFile(comm, tmp, PETSC_FALSE, "after close"));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(VecSet(v, 0.0));
  PetscCall(AdjInputReadFieldSlice(comm, h5, "u", 0, da, v));
  PetscCall(IOTestCompare(da, 3, v, "field read after close"));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An aborted run: opened, one step of v written, destroyed without close. */
static PetscErrorCode WriteAbortedRun(DM da, const char h5[], Vec v)
{
  AdjOutput out;

  PetscFunctionBeginUser;
  PetscCall(AdjOutputCreate(PetscObjectComm((PetscObject)da), &out));
  PetscCall(AdjOutputSetPath(out, h5));
  PetscCall(AdjOutputSetGrid(out, da, NULL, NULL, NULL));
  PetscCall(AdjOutputOpen(out));
  PetscCall(AdjOutputBeginStep(out, 0, 0.0));
  PetscCall(AdjOutputWriteField(out, "u", "m/s", v));
  PetscCall(AdjOutputDestroy(&out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Destroyed without close (an aborted run): .partial remains, no final file, no .xmf; an earlier run's
 * files of the same name stay as they were. */
static PetscErrorCode CheckAbortedRun(DM da, const char tag[])
{
  MPI_Comm comm = PetscObjectComm((PetscObject)da);
  char     h5[PETSC_MAX_PATH_LEN], partial[PETSC_MAX_PATH_LEN], xmf[PETSC_MAX_PATH_LEN];
  Vec      v;

  PetscFunctionBeginUser;
  PetscCall(Names(tag, "aborted", h5, partial, xmf));
  PetscCall(RemoveFiles(comm, h5, xmf)); /* the second half below leaves them; the test must be rerunnable */
  PetscCall(DMCreateGlobalVector(da, &v));
  PetscCall(IOTestFill(da, 4, v));
  PetscCall(WriteAbortedRun(da, h5, v));
  PetscCall(IOTestExpectFile(comm, partial, PETSC_TRUE, "after destroy without close"));
  PetscCall(IOTestExpectFile(comm, h5, PETSC_FALSE, "after destroy without close"));
  PetscCall(IOTestExpectFile(comm, xmf, PETSC_FALSE, "after destroy without close"));
  /* Again over an earlier run's files of the same name: they survive the aborted run. */
  PetscCall(WriteJunk(comm, h5));
  PetscCall(WriteJunk(comm, xmf));
  PetscCall(WriteAbortedRun(da, h5, v));
  PetscCall(ExpectJunk(comm, h5, "after an aborted run"));
  PetscCall(ExpectJunk(comm, xmf, "after an aborted run"));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The restart file: replaced only when complete. */
static PetscErrorCode CheckRestartFile(DM da, const char tag[])
{
  MPI_Comm          comm = PetscObjectComm((PetscObject)da);
  char              h5[PETSC_MAX_PATH_LEN], partial[PETSC_MAX_PATH_LEN], xmf[PETSC_MAX_PATH_LEN];
  const char       *restart;
  char              rpartial[PETSC_MAX_PATH_LEN + 16];
  const char *const names[] = {"q"};
  AdjOutput         out;
  Vec               v;
  AdjStepIndex      step;
  PetscReal         time;

  PetscFunctionBeginUser;
  PetscCall(Names(tag, "restart", h5, partial, xmf));
  PetscCall(AdjOutputCreate(comm, &out));
  PetscCall(AdjOutputSetPath(out, h5)); /* never opened: the restart file needs only the grid */
  PetscCall(AdjOutputSetGrid(out, da, NULL, NULL, NULL));
  PetscCall(AdjOutputGetRestartPath(out, &restart));
  PetscCall(PetscSNPrintf(rpartial, sizeof(rpartial), "%s.partial", restart));
  PetscCall(DMCreateGlobalVector(da, &v));

  PetscCall(IOTestFill(da, 30, v));
  PetscCall(AdjOutputWriteRestartFile(out, "fluid", 3, 0.3, 1, names, &v));
  PetscCall(IOTestExpectFile(comm, restart, PETSC_TRUE, "after the first restart write"));
  PetscCall(IOTestExpectFile(comm, rpartial, PETSC_FALSE, "after the first restart write"));

  PetscCall(WriteJunk(comm, rpartial)); /* a later write killed halfway */
  PetscCall(VecSet(v, 0.0));
  PetscCall(AdjInputReadRestart(comm, restart, "fluid", da, 1, names, &v, &step, &time));
  PetscCheck(step == 3, comm, PETSC_ERR_PLIB, "restart step %" PRId64 ", expected 3", (int64_t)step);
  PetscCall(IOTestCompare(da, 30, v, "restart after a killed write"));

  PetscCall(IOTestFill(da, 50, v));
  PetscCall(AdjOutputWriteRestartFile(out, "fluid", 5, 0.5, 1, names, &v));
  PetscCall(IOTestExpectFile(comm, rpartial, PETSC_FALSE, "after the second restart write"));
  PetscCall(VecSet(v, 0.0));
  PetscCall(AdjInputReadRestart(comm, restart, "fluid", da, 1, names, &v, &step, &time));
  PetscCheck(step == 5 && time == 0.5, comm, PETSC_ERR_PLIB, "restart step %" PRId64 ", expected 5", (int64_t)step);
  PetscCall(IOTestCompare(da, 50, v, "second restart"));
  PetscCall(IOTestExpectFile(comm, h5, PETSC_FALSE, "restart-only writer (no run file)"));
  PetscCall(VecDestroy(&v));
  PetscCall(AdjOutputDestroy(&out));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM   da;
  char tag[64] = "atomic";

  PetscCall(PetscInitialize(&argc, &argv, NULL, "io atomic output test"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-tag", tag, sizeof(tag), NULL));
  PetscCall(IOTestCreateGrid(PETSC_COMM_WORLD, 2, 11, 6, 1, &da));
  PetscCall(CheckCompleteRun(da, tag));
  PetscCall(CheckAbortedRun(da, tag));
  PetscCall(CheckRestartFile(da, tag));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "io atomic output (%s): OK\n", tag));
  PetscCall(PetscFinalize());
  return 0;
}
