/* Adjoints of the quadratic objective terms: Tikhonov regularization of a field and the
 * observation misfit.  For a homogeneous quadratic R(p) = 1/2 p^T H p with gradient G(p) = H p,
 * G is the gradient exactly when (1) G is linear and symmetric, <G(x), y> = <x, G(y)> (the
 * dot-product test), and (2) <p, G(p)> = 2 R(p) (Euler's identity).  Both are checked to 1e-12. */
#include "transport/transportimpl.h"
#include <adjsim/regularization.h>
#include "adjtest.h"
#include "steppertest.h"

static const PetscReal tol = 1e-12;

static PetscErrorCode Tikhonov(DM da, PetscReal alpha, PetscReal beta, Vec p, PetscReal *R, Vec g)
{
  const PetscReal h[2] = {0.1, 0.07};

  PetscFunctionBeginUser;
  *R = 0;
  PetscCall(VecSet(g, 0.0));
  PetscCall(AdjTikhonovField(da, h, alpha, beta, p, R, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckTikhonov(DMBoundaryType bx, DMBoundaryType by, PetscInt *fail)
{
  DM        da;
  Vec       x, y, gx, gy;
  PetscReal R, lhs, rhs, dot;
  char      name[64];

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bx, by, DMDA_STENCIL_STAR, 11, 9, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL,
                         NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &gx));
  PetscCall(VecDuplicate(x, &gy));
  PetscCall(AdjTestRandom(x, 11));
  PetscCall(AdjTestRandom(y, 12));
  PetscCall(Tikhonov(da, 0.3, 0.02, x, &R, gx));
  PetscCall(Tikhonov(da, 0.3, 0.02, y, &dot, gy));
  PetscCall(VecDot(gx, y, &lhs));
  PetscCall(VecDot(x, gy, &rhs));
  PetscCall(PetscSNPrintf(name, sizeof(name), "Tikhonov symmetry (%s,%s)", DMBoundaryTypes[bx], DMBoundaryTypes[by]));
  PetscCall(AdjTestReport(name, lhs, rhs, tol, fail));
  PetscCall(VecDot(x, gx, &dot));
  PetscCall(
      PetscSNPrintf(name, sizeof(name), "Tikhonov <p,G(p)> = 2R (%s,%s)", DMBoundaryTypes[bx], DMBoundaryTypes[by]));
  PetscCall(AdjTestReport(name, dot, 2 * R, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&gx));
  PetscCall(VecDestroy(&gy));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Misfit with a zero target (both weights active at the final step). */
static PetscErrorCode CheckMisfit(PetscInt *fail)
{
  AdjStepper st;
  Transport  tr;
  Vec        x, y, gx, gy;
  PetscReal  J, lhs, rhs, dot;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-transport_grid", "12,10"));
  PetscCall(AdjTestStepperFromOptions(PETSC_COMM_WORLD, "transport", &st));
  PetscCall(AdjStepperGetContext(st, &tr));
  PetscCall(DMCreateGlobalVector(tr->da, &tr->obj.target));
  PetscCall(VecSet(tr->obj.target, 0.0));
  tr->obj.target_weight = 1.7;
  PetscCall(DMCreateGlobalVector(tr->da, &x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecDuplicate(x, &gx));
  PetscCall(VecDuplicate(x, &gy));
  PetscCall(AdjTestRandom(x, 13));
  PetscCall(AdjTestRandom(y, 14));
  PetscCall(VecSet(gx, 0.0));
  PetscCall(VecSet(gy, 0.0));
  PetscCall(TransportMisfit(tr, tr->nsteps, x, &J));
  PetscCall(TransportMisfitAdjoint(tr, tr->nsteps, x, gx));
  PetscCall(TransportMisfitAdjoint(tr, tr->nsteps, y, gy));
  PetscCall(VecDot(gx, y, &lhs));
  PetscCall(VecDot(x, gy, &rhs));
  PetscCall(AdjTestReport("misfit symmetry", lhs, rhs, tol, fail));
  PetscCall(VecDot(x, gx, &dot));
  PetscCall(AdjTestReport("misfit <c,G(c)> = 2J", dot, 2 * J, tol, fail));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&gx));
  PetscCall(VecDestroy(&gy));
  PetscCall(AdjStepperDestroy(&st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CheckTikhonov(DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC, &fail));
  PetscCall(CheckTikhonov(DM_BOUNDARY_GHOSTED, DM_BOUNDARY_PERIODIC, &fail));
  PetscCall(CheckTikhonov(DM_BOUNDARY_GHOSTED, DM_BOUNDARY_GHOSTED, &fail));
  PetscCall(CheckMisfit(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " check(s) failed\n", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
