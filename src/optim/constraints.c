/* AdjConstraints: design constraints, flow functionals and geometric measures (include/adjsim/constraints.h). */
#include <adjsim/constraints.h>
#include <adjsim/optcheck.h>

const char *const AdjConstraintSenses[] = {"eq", "ge", "le", "AdjConstraintSense", "ADJ_CONSTRAINT_", NULL};

/* The constraint names -optimize_constraints accepts: the flow functionals, then the geometric measures in the
 * order of AdjShapeMeasures. */
static const char *const AdjFlowFunctionals[] = {"lift", "drag", "lift_to_drag"};
#define ADJ_NFLOW 3

typedef struct {
  char               name[64]; /* lift, thickness@0.3, ... */
  char               option[96];
  PetscBool          flow;
  const char        *functional; /* flow: the solver's functional */
  AdjShapeMeasure    measure;    /* geometric */
  PetscReal          station;    /* thickness: x/c */
  PetscInt           point;      /* flow: the design point whose flow gives the value (multipoint.h) */
  AdjConstraintSense sense;
  PetscReal          bound;
  PetscBool          bound_set; /* else: the value at the initial design */
} AdjConstraint;

struct _p_AdjConstraints {
  MPI_Comm                    comm;
  AdjDriver                   drv;
  AdjStepper                  st;
  PetscInt                    n;
  AdjConstraint               c[ADJ_MAX_CONSTRAINTS];
  PetscBool                   setup;
  PetscInt                    nforward, nadjoint;
  Vec                         greg;     /* gradient of the regularization, taken out of flow gradients */
  PetscInt                    npoints;  /* design points (1 without multipoint) */
  AdjConstraintFlowEvaluation flowfn;   /* evaluates flow constraints instead of the driver (multipoint) */
  AdjConstraintFlowHold       flowhold; /* ... and holds their run lengths in gradient checks */
  void                       *flowctx;
};

PetscErrorCode AdjConstraintsCreate(AdjDriver drv, AdjConstraints *cs)
{
  AdjConstraints c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  c->drv     = drv;
  c->npoints = 1;
  PetscCall(AdjDriverGetStepper(drv, &c->st));
  PetscCall(AdjStepperGetComm(c->st, &c->comm));
  *cs = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Index of `name` among the flow functionals (0..2) and the measures (3..), -1 if none. */
static PetscInt AdjConstraintKind(const char name[])
{
  PetscBool same;

  for (PetscInt k = 0; k < ADJ_NFLOW; k++)
    if (!PetscStrcmp(name, AdjFlowFunctionals[k], &same) && same) return k;
  for (PetscInt k = 0; k <= ADJ_SHAPE_MEASURE_TE_ANGLE; k++)
    if (!PetscStrcmp(name, AdjShapeMeasures[k], &same) && same) return ADJ_NFLOW + k;
  return -1;
}

/* Adds one constraint (one station of a thickness) of the given kind. */
static PetscErrorCode AdjConstraintsAdd(AdjConstraints cs, const char kind[], PetscInt k, AdjConstraintSense sense,
                                        PetscReal station, PetscInt point, PetscBool bset, PetscReal bound)
{
  AdjConstraint *c = &cs->c[cs->n];

  PetscFunctionBeginUser;
  PetscCheck(cs->n < ADJ_MAX_CONSTRAINTS, cs->comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints: at most %d constraints (thickness stations count one each)", ADJ_MAX_CONSTRAINTS);
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->flow       = (PetscBool)(k < ADJ_NFLOW);
  c->functional = c->flow ? AdjFlowFunctionals[k] : NULL;
  c->measure    = (AdjShapeMeasure)(c->flow ? 0 : k - ADJ_NFLOW);
  c->station    = station;
  c->point      = point;
  c->sense      = sense;
  c->bound      = bound;
  c->bound_set  = bset;
  if (!c->flow && c->measure == ADJ_SHAPE_MEASURE_THICKNESS)
    PetscCall(PetscSNPrintf(c->name, sizeof(c->name), "%s@%g", kind, (double)station));
  else if (c->flow && cs->npoints > 1)
    PetscCall(PetscSNPrintf(c->name, sizeof(c->name), "%s@point%" PetscInt_FMT, kind, point));
  else
    PetscCall(PetscStrncpy(c->name, kind, sizeof(c->name)));
  PetscCall(PetscSNPrintf(c->option, sizeof(c->option), "-optimize_constraint_%s", kind));
  cs->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options of one listed kind: sense, bounds, stations. */
static PetscErrorCode AdjConstraintsKindFromOptions(AdjConstraints cs, const char kind[], PetscInt k)
{
  char      opt[128], optv[128], opta[128], optp[128];
  PetscInt  sense = -1, nv = ADJ_MAX_CONSTRAINTS, na = ADJ_MAX_CONSTRAINTS, np = ADJ_MAX_CONSTRAINTS;
  PetscInt  points[ADJ_MAX_CONSTRAINTS] = {0};
  PetscReal values[ADJ_MAX_CONSTRAINTS], at[ADJ_MAX_CONSTRAINTS] = {0};
  PetscBool set, vset, aset = PETSC_FALSE, pset = PETSC_FALSE;
  PetscBool thick = (PetscBool)(k == ADJ_NFLOW + ADJ_SHAPE_MEASURE_THICKNESS), flow = (PetscBool)(k < ADJ_NFLOW);

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-optimize_constraint_%s", kind));
  PetscCall(PetscSNPrintf(optv, sizeof(optv), "-optimize_constraint_%s_value", kind));
  PetscCall(PetscSNPrintf(opta, sizeof(opta), "-optimize_constraint_%s_at", kind));
  PetscCall(PetscSNPrintf(optp, sizeof(optp), "-optimize_constraint_%s_point", kind));
  PetscOptionsBegin(cs->comm, NULL, "Optimization: design constraints", "AdjConstraints");
  PetscCall(PetscOptionsEList(opt,
                              "Sense of the constraint: eq (value = bound), ge (value >= bound), le (value <= bound)",
                              "AdjConstraintsSetFromOptions", AdjConstraintSenses, 3, "ge", &sense, &set));
  PetscCall(PetscOptionsRealArray(optv,
                                  "Bound of the constraint (C_L, C_D, C_L/C_D; t/c, area/c^2, r_LE/c, TE angle [deg]); "
                                  "a thickness takes one per station or one for all (default: the value at the "
                                  "initial design)",
                                  "AdjConstraintsSetFromOptions", values, &nv, &vset));
  if (thick)
    PetscCall(PetscOptionsRealArray(opta, "Chord stations x/c of the thickness constraint, in (0, 1)",
                                    "AdjConstraintsSetFromOptions", at, &na, &aset));
  if (flow)
    PetscCall(PetscOptionsIntArray(optp,
                                   "Multipoint design (-design_points): the points whose flow the constraint holds at, "
                                   "one constraint each (default 0)",
                                   "AdjConstraintsSetFromOptions", points, &np, &pset));
  PetscOptionsEnd();
  if (!pset) np = 1;
  PetscCheck(!pset || np > 0, cs->comm, PETSC_ERR_USER_INPUT, "%s needs at least one point index", optp);
  for (PetscInt s = 0; s < np; s++)
    PetscCheck(points[s] >= 0 && points[s] < cs->npoints, cs->comm, PETSC_ERR_USER_INPUT,
               "%s %" PetscInt_FMT ": there %s %" PetscInt_FMT " design point%s (-design_points), numbered from 0",
               optp, points[s], cs->npoints == 1 ? "is" : "are", cs->npoints, cs->npoints == 1 ? "" : "s");
  PetscCheck(set, cs->comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints lists %s but %s is not given: say eq, ge or le (e.g. %s ge)", kind, opt, opt);
  if (!thick) na = flow ? np : 1;
  PetscCheck(!thick || (aset && na > 0), cs->comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints lists thickness but %s is not given: the chord stations x/c, e.g. %s 0.3", opta,
             opta);
  PetscCheck(!vset || nv == 1 || nv == na, cs->comm, PETSC_ERR_USER_INPUT,
             "%s has %" PetscInt_FMT " values for %" PetscInt_FMT " %s: give one for all or one per %s", optv, nv, na,
             flow ? "points" : "stations", flow ? "point" : "station");
  if (vset) PetscCall(AdjCheckRealOptionArray(cs->comm, optv, nv, values, ADJ_REAL_FINITE, NULL));
  for (PetscInt s = 0; s < na; s++) {
    PetscCheck(!thick || (at[s] > 0 && at[s] < 1), cs->comm, PETSC_ERR_USER_INPUT,
               "%s %g: a chord station x/c must lie strictly between 0 and 1", opta, (double)at[s]);
    PetscCall(AdjConstraintsAdd(cs, kind, k, (AdjConstraintSense)sense, at[s], flow ? points[s] : 0, vset,
                                vset ? values[nv == 1 ? 0 : s] : 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsSetFromOptions(AdjConstraints cs)
{
  char     *names[ADJ_MAX_CONSTRAINTS];
  PetscInt  n = ADJ_MAX_CONSTRAINTS;
  PetscBool set;

  PetscFunctionBeginUser;
  cs->n = 0;
  PetscOptionsBegin(cs->comm, NULL, "Optimization: design constraints", "AdjConstraints");
  PetscCall(
      PetscOptionsStringArray("-optimize_constraints",
                              "Design constraints, solved with TAO's augmented Lagrangian method (almm): flow "
                              "lift, drag, lift_to_drag (each one more forward and adjoint solve per evaluation); "
                              "geometric thickness, max_thickness, area, le_radius, te_angle (analytic); each "
                              "with -optimize_constraint_NAME eq|ge|le and -optimize_constraint_NAME_value",
                              "AdjConstraintsSetFromOptions", names, &n, &set));
  PetscOptionsEnd();
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < n; i++) {
    const PetscInt k = AdjConstraintKind(names[i]);
    PetscCheck(k >= 0, cs->comm, PETSC_ERR_USER_INPUT,
               "-optimize_constraints: unknown constraint '%s'; known: lift, drag, lift_to_drag (flow), thickness, "
               "max_thickness, area, le_radius, te_angle (geometric)",
               names[i]);
    for (PetscInt j = 0; j < i; j++) {
      PetscBool same;
      PetscCall(PetscStrcmp(names[i], names[j], &same));
      PetscCheck(!same, cs->comm, PETSC_ERR_USER_INPUT,
                 "-optimize_constraints lists %s twice (several thickness stations go in "
                 "-optimize_constraint_thickness_at)",
                 names[i]);
    }
    PetscCall(AdjConstraintsKindFromOptions(cs, names[i], k));
  }
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscFree(names[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The shape (at the stepper's current parameters) and its block, refusing a solver without one. */
static PetscErrorCode AdjConstraintsGetShape(AdjConstraints cs, const AdjConstraint *c, const AdjShape **shape,
                                             const char **block)
{
  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetShape(cs->st, shape, block));
  PetscCheck(*shape, cs->comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints %s: a geometric constraint needs a solver with a body shape (e.g. -fluid_body "
             "naca4 or cst, -airfoil_body naca4 or cst)",
             c->name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Geometric constraint at the stepper's current parameters: value and design gradient (g NULL: the value only). */
static PetscErrorCode AdjConstraintGeometric(AdjConstraints cs, const AdjConstraint *c, PetscReal *v, Vec g)
{
  const AdjShape *shape;
  const char     *block;
  PetscReal       grad[ADJ_SHAPE_MAX_PARAMS] = {0};
  AdjParams       params;
  PetscInt        nblock;

  PetscFunctionBeginUser;
  PetscCall(AdjConstraintsGetShape(cs, c, &shape, &block));
  AdjShapeMeasureEvaluate(shape, c->measure, c->station, v, grad);
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperGetParams(cs->st, &params));
  PetscCall(VecSet(g, 0.0));
  /* the block holds the shape's last nblock parameters, p[np - nblock..np) (the fluid's body_shape: p[3..np), with the
     chord; the airfoil's shape: p[4..np)); the measures do not depend on x0, y0, alpha, nor on the chord (chord units)
   */
  PetscCall(AdjParamsGetBlockSize(params, block, &nblock));
  PetscCall(AdjParamsPackGradientArray(params, block, grad + shape->np - nblock, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsFlowFunctional(AdjDriver drv, const char functional[], Vec p, PetscReal *v, Vec g,
                                            Vec work, AdjStepIndex *stopped)
{
  AdjStepper st;
  MPI_Comm   comm;
  PetscBool  known;
  PetscReal  R;

  PetscFunctionBeginUser;
  PetscCall(AdjDriverGetStepper(drv, &st));
  PetscCall(AdjStepperGetComm(st, &comm));
  PetscCall(AdjStepperSelectObjective(st, functional, &known));
  PetscCheck(known, comm, PETSC_ERR_USER_INPUT,
             "-optimize_constraints: this solver has no output functional '%s' (the fluid has lift, drag and "
             "lift_to_drag with an immersed body)",
             functional);
  *stopped = -1;
  if (g) {
    PetscCall(AdjDriverGradient(drv, p, v, g));
    PetscCall(AdjDriverGetInterruptedStep(drv, stopped));
  } else
    PetscCall(AdjDriverForward(drv, p, PETSC_FALSE, v));
  PetscCall(AdjStepperSelectObjective(st, NULL, &known));
  if (*stopped >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  /* R(p) and its gradient, as the run just added them (the stepper's parameters are p) */
  PetscCall(AdjStepperZeroGradient(st));
  PetscCall(AdjStepperRegularization(st, &R));
  *v -= R;
  if (!g) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperGetGradient(st, work));
  PetscCall(VecAXPY(g, -1.0, work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Flow constraint c at p: value and gradient (g NULL: the value only, by a forward run), on the driver or, with a
 * flow evaluation set (multipoint.c), on the constraint's design point. */
static PetscErrorCode AdjConstraintFlow(AdjConstraints cs, const AdjConstraint *c, Vec p, PetscReal *v, Vec g,
                                        AdjStepIndex *stopped)
{
  PetscFunctionBeginUser;
  if (cs->flowfn)
    PetscCall(cs->flowfn(cs->flowctx, 1, &c->functional, &c->point, p, v, g ? &g : NULL, stopped));
  else {
    if (g && !cs->greg) PetscCall(VecDuplicate(g, &cs->greg));
    PetscCall(AdjConstraintsFlowFunctional(cs->drv, c->functional, p, v, g, cs->greg, stopped));
  }
  cs->nforward++;
  if (g) cs->nadjoint++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsEvaluate(AdjConstraints cs, Vec p, PetscReal value[], Vec grad[], AdjStepIndex *stopped)
{
  PetscFunctionBeginUser;
  *stopped = -1;
  if (cs->flowfn) { /* all flow constraints in one call: those of different design points run concurrently */
    const char *functional[ADJ_MAX_CONSTRAINTS];
    PetscInt    point[ADJ_MAX_CONSTRAINTS], index[ADJ_MAX_CONSTRAINTS], nf = 0;
    PetscReal   v[ADJ_MAX_CONSTRAINTS];
    Vec         g[ADJ_MAX_CONSTRAINTS];
    for (PetscInt i = 0; i < cs->n; i++)
      if (cs->c[i].flow)
        functional[nf] = cs->c[i].functional, point[nf] = cs->c[i].point, g[nf] = grad[i], index[nf++] = i;
    if (nf) PetscCall(cs->flowfn(cs->flowctx, nf, functional, point, p, v, g, stopped));
    for (PetscInt j = 0; j < nf && *stopped < 0; j++) value[index[j]] = v[j];
    cs->nforward += nf, cs->nadjoint += nf;
  } else
    for (PetscInt i = 0; i < cs->n && *stopped < 0; i++)
      if (cs->c[i].flow) PetscCall(AdjConstraintFlow(cs, &cs->c[i], p, &value[i], grad[i], stopped));
  if (*stopped >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperSetParameters(cs->st, p));
  for (PetscInt i = 0; i < cs->n; i++)
    if (!cs->c[i].flow) PetscCall(AdjConstraintGeometric(cs, &cs->c[i], &value[i], grad[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsSetUp(AdjConstraints cs, Vec p0)
{
  PetscReal    v[ADJ_MAX_CONSTRAINTS];
  Vec          g[ADJ_MAX_CONSTRAINTS];
  AdjStepIndex stopped;
  PetscBool    need = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (cs->setup || !cs->n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AdjStepperSetParameters(cs->st, p0));
  for (PetscInt i = 0; i < cs->n; i++) {
    AdjConstraint *c = &cs->c[i];
    if (c->flow) {
      PetscBool known;
      PetscBool restored;
      PetscCall(AdjStepperSelectObjective(cs->st, c->functional, &known));
      PetscCall(AdjStepperSelectObjective(cs->st, NULL, &restored));
      PetscCheck(known, cs->comm, PETSC_ERR_USER_INPUT,
                 "-optimize_constraints %s: this solver has no output functional '%s' (the fluid has lift, drag and "
                 "lift_to_drag with an immersed body)",
                 c->name, c->functional);
    } else {
      const AdjShape *shape;
      const char     *block;
      PetscCall(AdjConstraintsGetShape(cs, c, &shape, &block));
      PetscCall(AdjShapeMeasureCheck(cs->comm, shape, c->measure, c->station, c->option));
    }
    need = (PetscBool)(need || !c->bound_set);
  }
  if (need) { /* bounds at the initial design: v(p0) (a forward and adjoint run per flow constraint) */
    for (PetscInt i = 0; i < cs->n; i++) PetscCall(VecDuplicate(p0, &g[i]));
    PetscCall(AdjConstraintsEvaluate(cs, p0, v, g, &stopped));
    PetscCheck(stopped < 0, cs->comm, PETSC_ERR_USER_INPUT,
               "Stopped by a signal while computing the constraint bounds at the initial design: nothing to resume");
    for (PetscInt i = 0; i < cs->n; i++) {
      if (!cs->c[i].bound_set) cs->c[i].bound = v[i];
      PetscCall(VecDestroy(&g[i]));
    }
  }
  cs->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsGetSize(AdjConstraints cs, PetscInt *n, PetscInt *neq, PetscInt *nineq)
{
  PetscFunctionBeginUser;
  if (n) *n = cs->n;
  if (neq) *neq = 0;
  if (nineq) *nineq = 0;
  for (PetscInt i = 0; i < cs->n; i++) {
    if (neq && cs->c[i].sense == ADJ_CONSTRAINT_EQ) (*neq)++;
    if (nineq && cs->c[i].sense != ADJ_CONSTRAINT_EQ) (*nineq)++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsGetInfo(AdjConstraints cs, PetscInt i, const char **name, AdjConstraintSense *sense,
                                     PetscReal *bound, PetscBool *flow)
{
  PetscFunctionBeginUser;
  if (name) *name = cs->c[i].name;
  if (sense) *sense = cs->c[i].sense;
  if (bound) *bound = cs->c[i].bound;
  if (flow) *flow = cs->c[i].flow;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsGetSolveCount(AdjConstraints cs, PetscInt *nforward, PetscInt *nadjoint)
{
  PetscFunctionBeginUser;
  *nforward = cs->nforward;
  *nadjoint = cs->nadjoint;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One constraint's value and gradient at p (g NULL: the value only; a flow constraint by a forward run). */
static PetscErrorCode AdjConstraintsEvaluateOne(AdjConstraints cs, PetscInt i, Vec p, PetscReal *v, Vec g)
{
  AdjStepIndex stopped = -1;

  PetscFunctionBeginUser;
  if (cs->c[i].flow)
    PetscCall(AdjConstraintFlow(cs, &cs->c[i], p, v, g, &stopped));
  else {
    PetscCall(AdjStepperSetParameters(cs->st, p));
    PetscCall(AdjConstraintGeometric(cs, &cs->c[i], v, g));
  }
  PetscCheck(stopped < 0, cs->comm, PETSC_ERR_USER_INPUT, "Stopped by a signal");
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  AdjConstraints cs;
  PetscInt       i;
} AdjConstraintTaylorCtx;

/* v_i(q) for AdjTaylorSweep. */
static PetscErrorCode AdjConstraintsTaylorValue(void *ctx, Vec q, PetscReal *v)
{
  AdjConstraintTaylorCtx *t = (AdjConstraintTaylorCtx *)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjConstraintsEvaluateOne(t->cs, t->i, q, v, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Holds (or releases) the run length of flow constraint i's runs at the n reached at p (AdjDriverHoldFinalStep). */
static PetscErrorCode AdjConstraintsHold(AdjConstraints cs, PetscInt i, PetscBool hold)
{
  PetscFunctionBeginUser;
  if (!cs->c[i].flow) PetscFunctionReturn(PETSC_SUCCESS);
  if (cs->flowfn && cs->flowhold)
    PetscCall(cs->flowhold(cs->flowctx, cs->c[i].point, hold));
  else if (!cs->flowfn)
    PetscCall(AdjDriverHoldFinalStep(cs->drv, hold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsTaylorTest(AdjConstraints cs, PetscInt i, Vec p, PetscReal h0, PetscInt levels,
                                        PetscReal *min_rate)
{
  AdjConstraintTaylorCtx t = {cs, i};
  Vec                    g;
  PetscReal              v0;
  char                   title[128];
  AdjTaylorSettings      ts = {title, "v", h0, levels, 12345}; /* the direction this test always had */

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(p, &g));
  PetscCall(AdjConstraintsEvaluateOne(cs, i, p, &v0, g));
  PetscCall(AdjConstraintsHold(cs, i, PETSC_TRUE));
  PetscCall(PetscSNPrintf(title, sizeof(title), " of constraint %s", cs->c[i].name));
  PetscCall(AdjTaylorSweep(&ts, AdjConstraintsTaylorValue, &t, p, g, min_rate));
  PetscCall(AdjConstraintsHold(cs, i, PETSC_FALSE));
  PetscCall(AdjStepperSetParameters(cs->st, p));
  PetscCall(VecDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsSetFlowEvaluation(AdjConstraints cs, PetscInt npoints, AdjConstraintFlowEvaluation fn,
                                               AdjConstraintFlowHold hold, void *ctx)
{
  PetscFunctionBeginUser;
  cs->npoints  = npoints;
  cs->flowfn   = fn;
  cs->flowhold = hold;
  cs->flowctx  = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjConstraintsDestroy(AdjConstraints *cs)
{
  PetscFunctionBeginUser;
  if (!*cs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDestroy(&(*cs)->greg));
  PetscCall(PetscFree(*cs));
  PetscFunctionReturn(PETSC_SUCCESS);
}
