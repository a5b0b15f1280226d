/* Fluid solver consistency checks, each on small grids (run on 1, 2 and 4 ranks):
 *  1. KSP and FFTW projections agree to solver tolerance (1e-9) on a periodic flow, the cavity, and
 *     channels with outflow (every transform kind: DFT, DCT-II, DCT-IV, DST-IV);
 *  2. a restart from a restart file continues bit-for-bit (difference exactly 0);
 *  3. the state after a few steps is the same on this rank count as on one rank (1e-10), for a
 *     periodic flow and the lid-driven cavity (FFTW and KSP each) and a channel with outflow;
 *  4. slip channel with uniform inflow and an outflow keeps the uniform flow exactly (1e-12);
 *  5. channel with no-slip walls, parabolic inflow and outflow reaches Poiseuille flow: 6e-3 with
 *     16 cells across (measured 4.8e-3: the O(h^2) error of the no-slip ghost rule at the walls). */
#include "fluidtest.h"

static const char *const Periodic[] = {"-fluid_grid",
                                       "16,16",
                                       "-fluid_nu",
                                       "0.01",
                                       "-fluid_initial",
                                       "taylor-green",
                                       "-fluid_final_time",
                                       "0.2",
                                       "-fluid_velocity_scale",
                                       "1.5",
                                       "-fluid_ksp_rtol",
                                       "1e-13",
                                       NULL};
static const char *const Cavity[]   = {"-fluid_grid",
                                       "16,16",
                                       "-fluid_re",
                                       "100",
                                       "-fluid_bc_xlo",
                                       "wall",
                                       "-fluid_bc_xhi",
                                       "wall",
                                       "-fluid_bc_ylo",
                                       "wall",
                                       "-fluid_bc_yhi",
                                       "wall",
                                       "-fluid_bc_yhi_velocity",
                                       "1",
                                       "-fluid_final_time",
                                       "0.5",
                                       "-fluid_ksp_rtol",
                                       "1e-13",
                                       NULL};

static PetscErrorCode Report(const char name[], PetscReal diff, PetscReal tol, PetscInt *fail)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-58s max |difference| %.3e  (tolerance %.1e)  %s\n", name, (double)diff,
                        (double)tol, diff <= tol ? "ok" : "FAIL"));
  if (!(diff <= tol)) (*fail)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1. KSP vs FFTW after the whole run (the KSP solves to -fluid_ksp_rtol 1e-13). */
static PetscErrorCode KSPvsFFTW(const char name[], const char *const base[], PetscInt *fail)
{
  const char *ksp[]  = {"-fluid_poisson", "ksp", "-fluid_ksp_rtol", "1e-13", NULL},
             *fftw[] = {"-fluid_poisson", "fftw", NULL};
  AdjStepper a, b;
  Vec        xa, xb;
  PetscReal  diff;

  PetscFunctionBeginUser;
  PetscCall(FluidTestCreate(PETSC_COMM_WORLD, base, ksp, &a));
  PetscCall(FluidTestCreate(PETSC_COMM_WORLD, base, fftw, &b));
  {
    PetscCall(AdjStepperCreateState(a, &xa));
    PetscCall(AdjStepperCreateState(a, &xb));
  }
  PetscCall(FluidTestRun(a, -1, xa));
  PetscCall(FluidTestRun(b, -1, xb));
  PetscCall(FluidTestVelocityDiff(xa, xb, &diff, NULL));
  PetscCall(Report(name, diff, 1e-9, fail));
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&xb));
  PetscCall(AdjStepperDestroy(&a));
  PetscCall(AdjStepperDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A channel with a parabolic inflow, an outflow (Dirichlet pressure: DST/DCT-IV in x) and walls. */
static const char *const ChannelOutflow[] = {"-fluid_grid",
                                             "24,12",
                                             "-fluid_domain",
                                             "2,1",
                                             "-fluid_nu",
                                             "0.05",
                                             "-fluid_bc_xlo",
                                             "inflow",
                                             "-fluid_bc_xlo_velocity",
                                             "1",
                                             "-fluid_bc_xlo_profile",
                                             "parabolic",
                                             "-fluid_bc_xhi",
                                             "outflow",
                                             "-fluid_bc_ylo",
                                             "wall",
                                             "-fluid_bc_yhi",
                                             "slip",
                                             "-fluid_final_time",
                                             "0.3",
                                             NULL};
/* Outflow at the low side of y (DST-IV in y), periodic in x. */
static const char *const VerticalOutflow[] = {"-fluid_grid",
                                              "12,16",
                                              "-fluid_nu",
                                              "0.05",
                                              "-fluid_bc_xlo",
                                              "periodic",
                                              "-fluid_bc_xhi",
                                              "periodic",
                                              "-fluid_bc_ylo",
                                              "outflow",
                                              "-fluid_bc_yhi",
                                              "inflow",
                                              "-fluid_bc_yhi_velocity",
                                              "0.5",
                                              "-fluid_initial",
                                              "taylor-green",
                                              "-fluid_final_time",
                                              "0.2",
                                              NULL};

/* 2. 2n steps in one go against n steps, restart file, read back into a fresh state, n steps. */
static PetscErrorCode RestartBitForBit(PetscInt *fail)
{
  AdjStepper         st;
  AdjOutput          out;
  DM                 da;
  const PetscReal   *lower, *upper;
  Vec                full, half, back, y;
  AdjStepIndex       k;
  PetscReal          diff;
  const AdjStepIndex n = 5;

  PetscFunctionBeginUser;
  PetscCall(FluidTestCreate(PETSC_COMM_WORLD, Cavity, NULL, &st));
  PetscCall(AdjStepperCreateState(st, &full));
  PetscCall(AdjStepperCreateState(st, &half));
  PetscCall(AdjStepperCreateState(st, &back));
  PetscCall(AdjStepperCreateState(st, &y));
  PetscCall(FluidTestRun(st, 2 * n, full));
  PetscCall(FluidTestRun(st, n, half));
  PetscCall(AdjOutputCreate(PETSC_COMM_WORLD, &out));
  PetscCall(AdjOutputSetRestartPath(out, "fluid_restart_test.h5"));
  PetscCall(AdjStepperGetGrid(st, &da, &lower, &upper));
  PetscCall(AdjOutputSetGrid(out, da, lower, upper, "m"));
  PetscCall(AdjStepperWriteRestart(st, out, n, half, PETSC_TRUE));
  PetscCall(VecSet(back, 12345.0));
  PetscCall(AdjStepperReadRestart(st, "fluid_restart_test.h5", back, &k));
  PetscCheck(k == n, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "restart step %" PetscInt64_FMT " != %" PetscInt64_FMT,
             (PetscInt64)k, (PetscInt64)n);
  for (k = n + 1; k <= 2 * n; k++) {
    PetscCall(AdjStepperStep(st, k, back, y));
    PetscCall(VecSwap(back, y));
  }
  PetscCall(FluidTestVelocityDiff(full, back, &diff, NULL));
  PetscCall(Report("cavity: restart after 5 of 10 steps, bit for bit", diff, 0.0, fail));
  PetscCall(AdjOutputDestroy(&out));
  PetscCall(VecDestroy(&full));
  PetscCall(VecDestroy(&half));
  PetscCall(VecDestroy(&back));
  PetscCall(VecDestroy(&y));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state in natural ordering on rank 0 of its communicator. */
static PetscErrorCode NaturalOnZero(AdjStepper st, Vec x, Vec *seq)
{
  DM         da;
  Vec        nat;
  VecScatter sc;

  PetscFunctionBeginUser;
  PetscCall(FluidGetStateDM(st, &da));
  PetscCall(DMDACreateNaturalVector(da, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, x, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, x, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, seq));
  PetscCall(VecScatterBegin(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. The run on all ranks against the same run on rank 0 alone. */
static PetscErrorCode RankInvariance(const char name[], const char *const base[], const char *const extra[],
                                     PetscInt *fail)
{
  AdjStepper  st;
  Vec         x, all;
  PetscMPIInt rank;
  PetscReal   diff = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(FluidTestCreate(PETSC_COMM_WORLD, base, extra, &st));
  PetscCall(AdjStepperCreateState(st, &x));
  PetscCall(FluidTestRun(st, 8, x));
  PetscCall(NaturalOnZero(st, x, &all));
  PetscCall(VecDestroy(&x));
  PetscCall(AdjStepperDestroy(&st));
  if (rank == 0) {
    AdjStepper one;
    Vec        xone, seq;
    PetscCall(FluidTestCreate(PETSC_COMM_SELF, base, extra, &one));
    PetscCall(AdjStepperCreateState(one, &xone));
    PetscCall(FluidTestRun(one, 8, xone));
    PetscCall(NaturalOnZero(one, xone, &seq));
    PetscCall(FluidTestVelocityDiff(seq, all, &diff, NULL));
    PetscCall(VecDestroy(&seq));
    PetscCall(VecDestroy(&xone));
    PetscCall(AdjStepperDestroy(&one));
  }
  PetscCallMPI(MPI_Bcast(&diff, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));
  PetscCall(Report(name, diff, 1e-10, fail));
  PetscCall(VecDestroy(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4, 5. Channels on [0,2] x [0,1] with inflow at x = 0 and outflow at x = 2. */
static PetscErrorCode Channel(PetscBool poiseuille, PetscInt *fail)
{
  const char *opts[] = {"-fluid_grid",
                        "32,16",
                        "-fluid_domain",
                        "2,1",
                        "-fluid_nu",
                        poiseuille ? "0.2" : "0.1",
                        "-fluid_bc_xlo",
                        "inflow",
                        "-fluid_bc_xlo_velocity",
                        "1",
                        "-fluid_bc_xlo_profile",
                        poiseuille ? "parabolic" : "uniform",
                        "-fluid_bc_xhi",
                        "outflow",
                        "-fluid_bc_ylo",
                        poiseuille ? "wall" : "slip",
                        "-fluid_bc_yhi",
                        poiseuille ? "wall" : "slip",
                        "-fluid_final_time",
                        poiseuille ? "4" : "0.2",
                        NULL};
  AdjStepper  st;
  Fluid       fl;
  Vec         x;
  FluidCell **a;
  PetscReal   lerr = 0, err;

  PetscFunctionBeginUser;
  PetscCall(FluidTestCreate(PETSC_COMM_WORLD, opts, NULL, &st));
  PetscCall(AdjStepperGetContext(st, &fl));
  PetscCall(DMCreateGlobalVector(fl->da, &x));
  PetscCall(FluidTestRun(st, -1, x));
  /* exact: u = U (slip) or the Poiseuille parabola 6 U y (1 - y) (walls), v = 0 */
  PetscCall(DMDAVecGetArray(fl->da, x, &a));
  for (PetscInt j = fl->grid.ys; j < fl->grid.ys + fl->grid.ym; j++)
    for (PetscInt i = fl->grid.xs; i < fl->grid.xs + fl->grid.xm; i++) {
      const PetscReal y = (j + 0.5) * fl->grid.h[1], u = poiseuille ? 6 * y * (1 - y) : 1.0;
      lerr = AdjTestMax(lerr, AdjTestMax(PetscAbsScalar(a[j][i].u - u), PetscAbsScalar(a[j][i].v))); /* keeps NaN */
    }
  PetscCall(DMDAVecRestoreArray(fl->da, x, &a));
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, lerr, &err));
  if (poiseuille)
    PetscCall(Report("channel: parabolic inflow, walls, outflow -> Poiseuille", err, 6e-3, fail));
  else
    PetscCall(Report("channel: uniform inflow, slip walls, outflow stays uniform", err, 1e-12, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    fail  = 0;
  const char *ksp[] = {"-fluid_poisson", "ksp", NULL};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(KSPvsFFTW("periodic Taylor-Green: KSP vs FFTW (DFT) projection", Periodic, &fail));
  PetscCall(KSPvsFFTW("lid-driven cavity: KSP vs FFTW (DCT) projection", Cavity, &fail));
  PetscCall(KSPvsFFTW("channel with outflow: KSP vs FFTW (DCT-IV x DCT) projection", ChannelOutflow, &fail));
  PetscCall(KSPvsFFTW("outflow below, inflow above: KSP vs FFTW (DFT x DST-IV)", VerticalOutflow, &fail));
  PetscCall(RestartBitForBit(&fail));
  PetscCall(RankInvariance("periodic Taylor-Green (FFTW): this rank count vs 1 rank", Periodic, NULL, &fail));
  PetscCall(RankInvariance("periodic Taylor-Green (KSP): this rank count vs 1 rank", Periodic, ksp, &fail));
  PetscCall(RankInvariance("lid-driven cavity (KSP): this rank count vs 1 rank", Cavity, ksp, &fail));
  PetscCall(RankInvariance("lid-driven cavity (FFTW): this rank count vs 1 rank", Cavity, NULL, &fail));
  PetscCall(RankInvariance("channel with outflow (FFTW): this rank count vs 1 rank", ChannelOutflow, NULL, &fail));
  PetscCall(Channel(PETSC_FALSE, &fail));
  PetscCall(Channel(PETSC_TRUE, &fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
