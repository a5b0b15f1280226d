/* Dot-product tests <J dx, y> = <dx, J^T y> (to 1e-12 relative) for every adjoint kernel of
 * scalar transport: ghost cells, advection, diffusion in c and in kappa, the RK3 step in c, in
 * the source and in kappa, and the misfit.  Run on 1, 2 and 4 ranks over boundary variants. */
#include "transport/transportimpl.h"
#include "adjtest.h"
#include "steppertest.h"

static const PetscReal tol = 1e-12;

/* Ghost fill as a map from a global vector to local vectors (halo exchange + boundary rule). */
static PetscErrorCode DotGhosts(Transport tr, PetscInt *fail)
{
  Vec           x, xt, yl, xl;
  PetscScalar **a;
  PetscReal     lhs, rhs;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &x));
  PetscCall(VecDuplicate(x, &xt));
  PetscCall(DMCreateLocalVector(tr->da, &xl));
  PetscCall(VecDuplicate(xl, &yl));
  PetscCall(AdjTestRandom(x, 1));
  PetscCall(AdjTestRandom(yl, 2));
  PetscCall(VecSet(xl, 0.0));
  PetscCall(DMGlobalToLocal(tr->da, x, INSERT_VALUES, xl));
  PetscCall(DMDAVecGetArray(tr->da, xl, &a));
  PetscCall(TransportFillGhosts(&tr->grid, &tr->crule, PETSC_TRUE, a));
  PetscCall(DMDAVecRestoreArray(tr->da, xl, &a));
  PetscCall(AdjTestLocalDot(xl, yl, &lhs));
  PetscCall(DMDAVecGetArray(tr->da, yl, &a));
  PetscCall(TransportFillGhostsAdjoint(&tr->grid, &tr->crule, a));
  PetscCall(DMDAVecRestoreArray(tr->da, yl, &a));
  PetscCall(VecSet(xt, 0.0));
  PetscCall(DMLocalToGlobal(tr->da, yl, ADD_VALUES, xt));
  PetscCall(VecDot(x, xt, &rhs));
  PetscCall(AdjTestReport("ghosts + halo exchange", lhs, rhs, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&xl));
  PetscCall(VecDestroy(&yl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Advection and diffusion as maps from local (ghosted) arrays to owned arrays. */
static PetscErrorCode DotFluxKernels(Transport tr, PetscInt *fail)
{
  Vec                 cl, kl, dl, bl, r, y;
  const PetscScalar **c, **k, **yy, **d;
  PetscScalar       **rr, **b;
  PetscReal           lhs, rhs;

  PetscFunctionBeginUser;
  PetscCall(DMCreateLocalVector(tr->da, &cl));
  PetscCall(VecDuplicate(cl, &kl));
  PetscCall(VecDuplicate(cl, &dl));
  PetscCall(VecDuplicate(cl, &bl));
  PetscCall(DMCreateGlobalVector(tr->da, &r));
  PetscCall(VecDuplicate(r, &y));
  PetscCall(AdjTestRandom(cl, 3));
  PetscCall(AdjTestRandom(kl, 4));
  PetscCall(VecShift(kl, 2.0)); /* a positive diffusivity field */
  PetscCall(AdjTestRandom(dl, 5));
  PetscCall(AdjTestRandom(y, 6));
  for (PetscInt kernel = 0; kernel < 3; kernel++) {
    const char *name[3] = {"advection", "diffusion in c", "diffusion in kappa"};
    PetscCall(VecSet(r, 0.0));
    PetscCall(VecSet(bl, 0.0));
    PetscCall(DMDAVecGetArrayRead(tr->da, cl, &c));
    PetscCall(DMDAVecGetArrayRead(tr->da, kl, &k));
    PetscCall(DMDAVecGetArrayRead(tr->da, dl, &d));
    PetscCall(DMDAVecGetArray(tr->da, r, &rr));
    PetscCall(DMDAVecGetArrayRead(tr->da, y, &yy));
    PetscCall(DMDAVecGetArray(tr->da, bl, &b));
    if (kernel == 0) {
      PetscCall(TransportAdvection(&tr->grid, &tr->vel, d, rr));
      PetscCall(TransportAdvectionAdjoint(&tr->grid, &tr->vel, yy, b));
    } else if (kernel == 1) {
      PetscCall(TransportDiffusion(&tr->grid, k, d, rr));
      PetscCall(TransportDiffusionAdjoint(&tr->grid, k, c, yy, b, NULL));
    } else {
      Vec           scratch;
      PetscScalar **s;
      PetscCall(TransportDiffusion(&tr->grid, d, c, rr));
      PetscCall(DMCreateLocalVector(tr->da, &scratch));
      PetscCall(DMDAVecGetArray(tr->da, scratch, &s));
      PetscCall(TransportDiffusionAdjoint(&tr->grid, k, c, yy, s, b));
      PetscCall(DMDAVecRestoreArray(tr->da, scratch, &s));
      PetscCall(VecDestroy(&scratch));
    }
    PetscCall(DMDAVecRestoreArray(tr->da, bl, &b));
    PetscCall(DMDAVecRestoreArrayRead(tr->da, y, &yy));
    PetscCall(DMDAVecRestoreArray(tr->da, r, &rr));
    PetscCall(DMDAVecRestoreArrayRead(tr->da, dl, &d));
    PetscCall(DMDAVecRestoreArrayRead(tr->da, kl, &k));
    PetscCall(DMDAVecRestoreArrayRead(tr->da, cl, &c));
    PetscCall(VecDot(r, y, &lhs));
    PetscCall(AdjTestLocalDot(dl, bl, &rhs));
    PetscCall(AdjTestReport(name[kernel], lhs, rhs, tol, fail));
  }
  PetscCall(VecDestroy(&cl));
  PetscCall(VecDestroy(&kl));
  PetscCall(VecDestroy(&dl));
  PetscCall(VecDestroy(&bl));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* <Phi(dx), y> = <dx, Phi^T y> for the RK3 step in c (linear: homogeneous boundary data, no source). */
static PetscErrorCode DotStepInC(Transport tr, Vec dx, Vec y, const char name[], PetscInt *fail)
{
  Vec       out, lin;
  PetscReal lhs, rhs;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(dx, &out));
  PetscCall(VecDuplicate(dx, &lin));
  PetscCall(TransportStepRK3(tr, dx, out));
  PetscCall(VecDot(out, y, &lhs));
  PetscCall(TransportStepRK3Adjoint(tr, dx, y, lin));
  PetscCall(VecDot(dx, lin, &rhs));
  PetscCall(AdjTestReport(name, lhs, rhs, tol, fail));
  PetscCall(VecDestroy(&out));
  PetscCall(VecDestroy(&lin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The RK3 step in c and in the source (linear: homogeneous boundary data), and in kappa, where
 * the step is a cubic polynomial: f'(0) = [8(f(1)-f(-1)) - (f(2)-f(-2))]/12 is then exact. */
static PetscErrorCode DotStep(Transport tr, PetscInt *fail)
{
  Vec             dx, y, out, lin, zero, kappa0, dk, f[4];
  PetscReal       lhs, rhs, dotk;
  const PetscReal t[4] = {1, -1, 2, -2};

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &dx));
  PetscCall(VecDuplicate(dx, &y));
  PetscCall(VecDuplicate(dx, &out));
  PetscCall(VecDuplicate(dx, &lin));
  PetscCall(VecDuplicate(dx, &zero));
  PetscCall(VecDuplicate(dx, &kappa0));
  PetscCall(VecDuplicate(dx, &dk));
  PetscCall(AdjTestRandom(dx, 7));
  PetscCall(AdjTestRandom(y, 8));
  PetscCall(VecSet(zero, 0.0));
  PetscCall(VecSet(tr->source, 0.0));
  /* in c, with the uniform diffusivity of the options (the k L(c) path of the stage kernel) */
  PetscCall(DotStepInC(tr, dx, y, "RK3 step in c (uniform kappa)", fail));
  /* in the source, at c = 0 */
  PetscCall(VecCopy(dx, tr->source));
  PetscCall(TransportStepRK3(tr, zero, out));
  PetscCall(VecDot(out, y, &lhs));
  PetscCall(VecSet(tr->source, 0.0));
  PetscCall(TransportStepRK3(tr, zero, out)); /* refresh stages at the base point */
  PetscCall(VecSet(tr->gsource, 0.0));
  PetscCall(TransportStepRK3Adjoint(tr, zero, y, lin));
  PetscCall(VecDot(dx, tr->gsource, &rhs));
  PetscCall(AdjTestReport("RK3 step in source", lhs, rhs, tol, fail));
  /* in kappa, around a positive field, at state dx */
  /* a non-uniform base diffusivity, so the field path of the kappa adjoint is the one tested */
  PetscCall(AdjTestRandom(kappa0, 10));
  PetscCall(VecScale(kappa0, 1e-3));
  PetscCall(VecShift(kappa0, 2e-3));
  PetscCall(VecCopy(kappa0, tr->kappa));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(DotStepInC(tr, dx, y, "RK3 step in c (kappa field)", fail));
  PetscCall(AdjTestRandom(dk, 9));
  /* an O(1) perturbation, so that the kappa part dominates the step's change and round-off
   * in the differences stays far below the tolerance */
  for (PetscInt s = 0; s < 4; s++) {
    PetscCall(VecDuplicate(dx, &f[s]));
    PetscCall(VecWAXPY(tr->kappa, t[s], dk, kappa0));
    PetscCall(TransportPrepareKappa(tr));
    PetscCall(TransportStepRK3(tr, dx, f[s]));
  }
  PetscCall(VecAXPBYPCZ(out, 8.0 / 12.0, -8.0 / 12.0, 0.0, f[0], f[1]));
  PetscCall(VecAXPBYPCZ(out, -1.0 / 12.0, 1.0 / 12.0, 1.0, f[2], f[3]));
  {
    /* lhs comes from differences, so keep it away from accidental cancellation: add to the
     * random y a part along J dk of the same size (the identity holds for every y). */
    PetscReal ny, no;
    PetscCall(VecNorm(y, NORM_2, &ny));
    PetscCall(VecNorm(out, NORM_2, &no));
    PetscCall(VecAXPY(y, ny / no, out));
  }
  PetscCall(VecDot(out, y, &lhs));
  PetscCall(VecCopy(kappa0, tr->kappa));
  PetscCall(TransportPrepareKappa(tr));
  PetscCall(TransportStepRK3(tr, dx, out));
  PetscCall(VecSet(tr->gkappa, 0.0));
  PetscCall(TransportStepRK3Adjoint(tr, dx, y, lin));
  PetscCall(VecDot(dk, tr->gkappa, &dotk));
  PetscCall(AdjTestReport("RK3 step in kappa (field)", lhs, dotk, tol, fail));
  for (PetscInt s = 0; s < 4; s++) PetscCall(VecDestroy(&f[s]));
  PetscCall(VecDestroy(&dx));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&out));
  PetscCall(VecDestroy(&lin));
  PetscCall(VecDestroy(&zero));
  PetscCall(VecDestroy(&kappa0));
  PetscCall(VecDestroy(&dk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One boundary configuration: builds the solver from options and runs every dot test. */
static PetscErrorCode RunCase(const char bcx[], const char bcy[], const char velocity[], PetscInt *fail)
{
  AdjStepper st;
  Transport  tr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-transport_bc_x", bcx));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_bc_y", bcy));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_velocity", velocity));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "-- bc_x %s, bc_y %s, velocity %s\n", bcx, bcy, velocity));
  PetscCall(AdjTestStepperFromOptions(PETSC_COMM_WORLD, "transport", &st));
  PetscCall(AdjStepperGetContext(st, &tr));
  PetscCall(DotGhosts(tr, fail));
  PetscCall(DotFluxKernels(tr, fail));
  PetscCall(DotStep(tr, fail));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_grid", "13,10"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_domain", "1.3,1"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_final_time", "0.1"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_kappa", "2e-3"));
  PetscCall(PetscOptionsSetValue(NULL, "-transport_velocity_uniform", "0.7,-0.4"));
  PetscCall(RunCase("periodic", "periodic", "uniform", &fail));
  PetscCall(RunCase("dirichlet", "neumann", "rotation", &fail));
  PetscCall(RunCase("neumann", "periodic", "rotation", &fail));
  PetscCall(RunCase("dirichlet", "dirichlet", "uniform", &fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " dot-product test(s) failed\n", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
