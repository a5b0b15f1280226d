/* AdjParams as a solver declares it: an array block in storage, an array block behind accessors, a
 * field block on a DMDA in storage, with scales, one change hook shared by the two array blocks and
 * a gradient hook.  Checks: pack gives value / scale; unpack gives scale * design and runs the shared
 * hook once; the gradient hook runs before gradients are packed and the packed gradient is
 * scale * dJ/dvalue; the generic Tikhonov term equals AdjTikhonovField's; values written to a run
 * file and read back are bit for bit the same and run the hooks. */
#include <adjsim/params.h>
#include <adjsim/io.h>
#include <adjsim/regularization.h>
#include "adjtest.h"

typedef struct {
  PetscReal a[3], ga[3], b[2], gb[2];
  PetscInt  changed, summed;
} Solver;

static PetscErrorCode GetB(void *ctx, PetscReal v[])
{
  Solver *s = (Solver *)ctx;
  v[0] = s->b[0], v[1] = s->b[1];
  return PETSC_SUCCESS;
}
static PetscErrorCode SetB(void *ctx, PetscReal v[])
{
  Solver *s = (Solver *)ctx;
  s->b[0] = v[0], s->b[1] = v[1];
  return PETSC_SUCCESS;
}
static PetscErrorCode GradB(void *ctx, PetscReal g[])
{
  Solver *s = (Solver *)ctx;
  g[0] = s->gb[0], g[1] = s->gb[1];
  return PETSC_SUCCESS;
}
static PetscErrorCode Changed(void *ctx)
{
  ((Solver *)ctx)->changed++;
  return PETSC_SUCCESS;
}
static PetscErrorCode Summed(void *ctx)
{
  ((Solver *)ctx)->summed++;
  return PETSC_SUCCESS;
}

static void Check(const char what[], PetscBool ok, PetscInt *fail)
{
  PetscCallVoid(PetscPrintf(PETSC_COMM_WORLD, "%-66s %s\n", what, ok ? "ok" : "FAIL"));
  if (!ok) (*fail)++;
}

static PetscErrorCode Declare(Solver *s, DM da, Vec f, Vec gf, AdjParams *params)
{
  const PetscReal h[2] = {0.1, 0.07};

  PetscFunctionBeginUser;
  PetscCall(AdjParamsCreate(PETSC_COMM_WORLD, params));
  PetscCall(AdjParamsAddArray(*params, "a", "m", 3));
  PetscCall(AdjParamsSetArrayStorage(*params, "a", s->a, s->ga));
  PetscCall(AdjParamsSetScale(*params, "a", 2.0));
  PetscCall(AdjParamsSetChangeHook(*params, "a", Changed, s));
  PetscCall(AdjParamsAddArray(*params, "b", "s", 2));
  PetscCall(AdjParamsSetArrayAccess(*params, "b", GetB, SetB, GradB, s));
  PetscCall(AdjParamsSetScale(*params, "b", 0.5));
  PetscCall(AdjParamsSetChangeHook(*params, "b", Changed, s));
  PetscCall(AdjParamsAddField(*params, "f", "1", da));
  PetscCall(AdjParamsSetFieldStorage(*params, "f", f, gf));
  PetscCall(AdjParamsSetFieldSpacing(*params, "f", h));
  PetscCall(AdjParamsSetRegularization(*params, "f", 0.3, 0.02));
  PetscCall(AdjParamsSetGradientHook(*params, Summed, s));
  PetscCall(AdjParamsSetUp(*params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Solver    s = {{1, 2, 3}, {0.1, 0.2, 0.3}, {4, 5}, {0.4, 0.5}, 0, 0};
  DM        da;
  Vec       f, gf, fcopy, g0, p, g;
  AdjParams params;
  PetscInt  fail = 0, n;
  PetscReal R, R0, diff;
  char      what[128];
  const PetscReal h[2] = {0.1, 0.07};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_PERIODIC, DMDA_STENCIL_STAR, 9, 7,
                         PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateGlobalVector(da, &f));
  PetscCall(VecDuplicate(f, &gf));
  PetscCall(VecDuplicate(f, &fcopy));
  PetscCall(VecDuplicate(f, &g0));
  PetscCall(AdjTestRandom(f, 1));
  PetscCall(VecCopy(f, fcopy));
  PetscCall(Declare(&s, da, f, gf, &params));
  PetscCall(AdjParamsCreateVector(params, &p));
  PetscCall(VecGetSize(p, &n));
  Check("design holds 3 + 2 + 63 entries", (PetscBool)(n == 68), &fail);

  /* pack: value / scale; sum of the design = (1+2+3)/2 + (4+5)/0.5 + sum(f) */
  {
    PetscScalar sum, fsum;
    PetscCall(AdjParamsPack(params, p));
    PetscCall(VecSum(p, &sum));
    PetscCall(VecSum(f, &fsum));
    Check("pack: design = value / scale", (PetscBool)(PetscAbsReal(sum - (3.0 + 18.0 + fsum)) < 1e-12), &fail);
  }
  /* unpack of a doubled design: every value doubles, the shared hook runs once */
  PetscCall(VecScale(p, 2.0));
  PetscCall(AdjParamsUnpack(params, p));
  Check("unpack: array storage = scale * design", (PetscBool)(s.a[0] == 2 && s.a[1] == 4 && s.a[2] == 6), &fail);
  Check("unpack: array accessor = scale * design", (PetscBool)(s.b[0] == 8 && s.b[1] == 10), &fail);
  PetscCall(VecAXPBY(fcopy, -1.0, 2.0, f)); /* 2 f0 - f */
  PetscCall(VecNorm(fcopy, NORM_INFINITY, &diff));
  Check("unpack: field storage = scale * design", (PetscBool)(diff < 1e-14), &fail);
  PetscCall(PetscSNPrintf(what, sizeof(what), "unpack: the hook shared by a and b ran once (ran %" PetscInt_FMT ")",
                          s.changed));
  Check(what, (PetscBool)(s.changed == 1), &fail);

  /* gradient: scale * dJ/dvalue, after the gradient hook */
  PetscCall(AdjTestRandom(gf, 2));
  PetscCall(VecDuplicate(p, &g));
  PetscCall(AdjParamsPackGradient(params, g));
  Check("gradient hook ran before packing", (PetscBool)(s.summed == 1), &fail);
  {
    PetscScalar sum, gsum;
    PetscCall(VecSum(g, &sum));
    PetscCall(VecSum(gf, &gsum));
    Check("packed gradient = scale * dJ/dvalue", (PetscBool)(PetscAbsReal(sum - (2 * 0.6 + 0.5 * 0.9 + gsum)) < 1e-12),
          &fail);
  }

  /* the generic Tikhonov term is the kernel's, gradient included */
  PetscCall(VecCopy(gf, g0));
  PetscCall(AdjParamsRegularization(params, &R));
  R0 = 0;
  PetscCall(AdjTikhonovField(da, h, 0.3, 0.02, f, &R0, g0));
  PetscCall(VecAXPY(g0, -1.0, gf));
  PetscCall(VecNorm(g0, NORM_INFINITY, &diff));
  Check("Tikhonov term and gradient equal AdjTikhonovField's", (PetscBool)(R == R0 && R > 0 && diff == 0), &fail);

  /* write, change, read back: bit for bit, hooks run */
  {
    AdjOutput       out;
    const PetscReal lower[2] = {0, 0}, upper[2] = {0.9, 0.49};
    PetscReal       a0[3] = {s.a[0], s.a[1], s.a[2]}, b0[2] = {s.b[0], s.b[1]};
    PetscCall(VecCopy(f, fcopy));
    PetscCall(AdjOutputCreate(PETSC_COMM_WORLD, &out));
    PetscCall(AdjOutputSetPath(out, "test_params.h5"));
    PetscCall(AdjOutputSetXdmf(out, PETSC_FALSE));
    PetscCall(AdjOutputSetGrid(out, da, lower, upper, "m"));
    PetscCall(AdjOutputOpen(out));
    PetscCall(AdjParamsWrite(params, out));
    PetscCall(AdjParamsWriteGradient(params, out));
    PetscCall(AdjOutputClose(out));
    PetscCall(AdjOutputDestroy(&out));
    s.a[0] = s.a[1] = s.a[2] = s.b[0] = s.b[1] = -1;
    PetscCall(VecSet(f, -1.0));
    s.changed = 0;
    PetscCall(AdjParamsRead(params, "test_params.h5"));
    PetscCall(VecAXPY(fcopy, -1.0, f));
    PetscCall(VecNorm(fcopy, NORM_INFINITY, &diff));
    Check("read back: arrays and field bit for bit",
          (PetscBool)(s.a[0] == a0[0] && s.a[1] == a0[1] && s.a[2] == a0[2] && s.b[0] == b0[0] && s.b[1] == b0[1] &&
                      diff == 0),
          &fail);
    Check("read back: the change hook ran once", (PetscBool)(s.changed == 1), &fail);
  }
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&gf));
  PetscCall(VecDestroy(&fcopy));
  PetscCall(VecDestroy(&g0));
  PetscCall(AdjParamsDestroy(&params));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", fail ? "FAIL" : "PASS", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
