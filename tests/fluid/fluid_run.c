/* A small driver of the fluid stepper until `adjsim -problem fluid` exists: a forward run through
 * AdjDriver with an AdjOutput run file (-output, default fluid_run.h5), then optionally the
 * lid-driven-cavity centreline comparison with Ghia, Ghia & Shin (1982):
 *   -ghia_file <csv>  table,coord,Re100,Re1000 rows (tests/fluid/ghia1982_cavity.csv)
 *   -ghia_re 100|1000 column to compare with;  -ghia_tol <max abs error>: fail above it.
 * The final state is read back from the run file's /restart group (which also exercises the
 * restart reader).  Prints steps, wall time and cell-steps per second. */
#include "fluidtest.h"
#include <adjsim/driver.h>

/* The velocity component c of x on rank 0 in natural ordering j*Mx + i (NULL elsewhere). */
static PetscErrorCode GatherComponent(Fluid fl, Vec x, PetscInt c, Vec *seq)
{
  Vec        g, nat;
  VecScatter sc;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(fl->pda, &g));
  PetscCall(VecStrideGather(x, c, g, INSERT_VALUES));
  PetscCall(DMDACreateNaturalVector(fl->pda, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(fl->pda, g, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(fl->pda, g, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, seq));
  PetscCall(VecScatterBegin(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscCall(DMRestoreGlobalVector(fl->pda, &g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Linear interpolation in the table (s[k], f[k]), s increasing. */
static PetscReal Interpolate(PetscInt n, const PetscReal s[], const PetscReal f[], PetscReal q)
{
  for (PetscInt k = 0; k + 1 < n; k++)
    if (q <= s[k + 1]) return f[k] + (f[k + 1] - f[k]) * (q - s[k]) / (s[k + 1] - s[k]);
  return f[n - 1];
}

/* Max |computed - Ghia| on the two centrelines (u along x = Lx/2, v along y = Ly/2), rank 0. */
static PetscErrorCode CompareGhia(Fluid fl, Vec x, const char file[], PetscInt re, PetscReal err[2])
{
  const FluidGrid *g = &fl->grid;
  Vec              useq, vseq;
  PetscMPIInt      rank;

  PetscFunctionBeginUser;
  PetscCheck(g->M[0] % 2 == 0 && g->M[1] % 2 == 0, fl->comm, PETSC_ERR_USER_INPUT,
             "Ghia comparison needs an even number of cells per direction (a face on each centreline)");
  PetscCall(GatherComponent(fl, x, 0, &useq));
  PetscCall(GatherComponent(fl, x, 1, &vseq));
  PetscCallMPI(MPI_Comm_rank(fl->comm, &rank));
  err[0] = err[1] = 0;
  if (rank == 0) {
    const PetscScalar *u, *v;
    PetscReal         *s, *f;
    const PetscInt     n = PetscMax(g->M[0], g->M[1]) + 2;
    FILE              *fp;
    char               line[256];
    PetscInt           npts = 0;

    PetscCall(PetscMalloc2(n, &s, n, &f));
    PetscCall(VecGetArrayRead(useq, &u));
    PetscCall(VecGetArrayRead(vseq, &v));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "r", &fp));
    while (fgets(line, sizeof(line), fp)) {
      char   table;
      double coord, r100, r1000, ref, val;
      if (sscanf(line, "%c,%lf,%lf,%lf", &table, &coord, &r100, &r1000) != 4 || (table != 'u' && table != 'v'))
        continue;
      ref = re == 1000 ? r1000 : r100;
      if (table == 'u') { /* u faces i = Mx/2 at y = (j + 1/2) hy, plus the walls */
        s[0] = 0, f[0] = 0;
        for (PetscInt j = 0; j < g->M[1]; j++) s[j + 1] = (j + 0.5) * g->h[1], f[j + 1] = u[j * g->M[0] + g->M[0] / 2];
        s[g->M[1] + 1] = g->L[1], f[g->M[1] + 1] = g->bc[1][1].velocity;
        val    = Interpolate(g->M[1] + 2, s, f, coord * g->L[1]);
        err[0] = PetscMax(err[0], PetscAbsReal(val - ref));
      } else { /* v faces j = My/2 at x = (i + 1/2) hx */
        s[0] = 0, f[0] = 0;
        for (PetscInt i = 0; i < g->M[0]; i++)
          s[i + 1] = (i + 0.5) * g->h[0], f[i + 1] = v[(g->M[1] / 2) * g->M[0] + i];
        s[g->M[0] + 1] = g->L[0], f[g->M[0] + 1] = 0;
        val    = Interpolate(g->M[0] + 2, s, f, coord * g->L[0]);
        err[1] = PetscMax(err[1], PetscAbsReal(val - ref));
      }
      npts++;
    }
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    PetscCheck(npts > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "No u/v rows in %s", file);
    PetscCall(VecRestoreArrayRead(useq, &u));
    PetscCall(VecRestoreArrayRead(vseq, &v));
    PetscCall(PetscFree2(s, f));
  }
  PetscCallMPI(MPI_Bcast(err, 2, MPIU_REAL, 0, fl->comm));
  PetscCall(VecDestroy(&useq));
  PetscCall(VecDestroy(&vseq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm             comm;
  AdjStepper           st;
  AdjParams            params;
  AdjDriver            drv;
  AdjOutput            out;
  Fluid                fl;
  DM                   da;
  Vec                  p, x;
  const PetscReal     *lower, *upper;
  const AdjStepperOps *ops;
  const char          *path;
  char                 ghia[PETSC_MAX_PATH_LEN] = "";
  PetscInt             re = 100, fail = 0;
  PetscReal            tol = PETSC_MAX_REAL, J, err[2];
  PetscLogDouble       t0, t1;
  AdjStepIndex         k;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "fluid_run test driver", "");
  PetscCall(PetscOptionsString("-ghia_file", "Ghia et al. centreline table (csv) to compare the final state with", "",
                               ghia, ghia, sizeof(ghia), NULL));
  PetscCall(PetscOptionsInt("-ghia_re", "Reynolds number column of the table: 100 or 1000", "", re, &re, NULL));
  PetscCall(PetscOptionsReal("-ghia_tol", "Largest allowed centreline error (lid speed units)", "", tol, &tol, NULL));
  PetscOptionsEnd();
  PetscCall(FluidCreate(comm, &st));
  PetscCall(AdjStepperGetContext(st, &fl));
  PetscCall(AdjStepperGetOps(st, &ops));
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjParamsSetFromOptions(params));
  PetscCall(AdjParamsSetUp(params));
  PetscCall(AdjDriverCreate(st, &drv));
  PetscCall(AdjDriverSetFromOptions(drv));
  PetscCall(AdjOutputCreate(comm, &out));
  PetscCall(AdjOutputSetPath(out, "fluid_run.h5"));
  PetscCall(AdjOutputSetFromOptions(out));
  PetscCall(AdjStepperGetGrid(st, &da, &lower, &upper));
  PetscCall(AdjOutputSetGrid(out, da, lower, upper, "m"));
  PetscCall(AdjOutputOpen(out));
  PetscCall(AdjDriverSetOutput(drv, out));
  PetscCall(AdjParamsCreateVector(params, &p));
  PetscCall(ops->getparameters(st, params, p));
  PetscCall(PetscTime(&t0));
  PetscCall(AdjDriverForward(drv, p, PETSC_TRUE, &J));
  PetscCall(PetscTime(&t1));
  PetscCall(ops->writeparameters(st, out));
  PetscCall(AdjOutputGetPath(out, &path));
  PetscCall(AdjOutputClose(out));
  PetscCall(PetscPrintf(comm,
                        "fluid_run: %" PetscInt_FMT "x%" PetscInt_FMT " cells, nu %g m^2/s, %" PetscInt64_FMT
                        " steps of %g s, wall %.2f s, %.3e cell-steps/s\n",
                        fl->grid.M[0], fl->grid.M[1], (double)fl->nu, (PetscInt64)fl->nsteps, (double)fl->dt, t1 - t0,
                        (double)fl->grid.M[0] * fl->grid.M[1] * fl->nsteps / (t1 - t0)));
  if (ghia[0]) {
    PetscCall(ops->createstate(st, &x));
    PetscCall(ops->readrestart(st, path, x, &k));
    PetscCall(CompareGhia(fl, x, ghia, re, err));
    PetscCall(PetscPrintf(comm, "ghia Re %" PetscInt_FMT ": max centreline error u %.4f, v %.4f (tolerance %g)\n", re,
                          (double)err[0], (double)err[1], (double)tol));
    if (!(PetscMax(err[0], err[1]) <= tol)) {
      PetscCall(PetscPrintf(comm, "FAIL: centreline error %.4f above the tolerance %g\n",
                            (double)PetscMax(err[0], err[1]), (double)tol));
      fail = 1;
    }
    PetscCall(VecDestroy(&x));
  }
  PetscCall(VecDestroy(&p));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(AdjDriverDestroy(&drv));
  PetscCall(AdjStepperDestroy(&st));
  PetscCall(PetscFinalize());
  return fail;
}
