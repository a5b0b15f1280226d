/* The body-fitted airfoil solver as an AdjStepper (its adjoint: solve.c, forces.c, operators.c): options, the grid and
 * its geometry, the time step, the described fields (output and restart), the state checks. */
#include "airfoilimpl.h"
#include <adjsim/grid.h>
#include <adjsim/optcheck.h>
#include <adjsim/stepperimpl.h>
#include <adjsim/timeaxis.h>

const char *const AirfoilBodyTypes[] = {"circle", "naca4",           "dat",           "joukowski",
                                        "cst",    "AirfoilBodyType", "AIRFOIL_BODY_", NULL};

#define AIRFOIL_CST_MAX 9 /* coefficients per surface: Bernstein order 8 (the shape layer's dual numbers hold 23) */

/* The body from -airfoil_body and its options (position (0, 0): the circle's centre or the airfoil's
 * quarter chord; the angle of attack is the free stream's, -airfoil_alpha). */
/* The accepted range of a NACA 4-digit block shape (m, p, t): -airfoil_naca_mpt's check and the block's bounds. */
static const PetscReal NacaLo[3] = {0, 0.05, 0.01}, NacaHi[3] = {0.19, 0.95, 0.45};
#define NACA_RANGE "[0, 0.19], p in [0.05, 0.95], t in [0.01, 0.45]" /* NacaLo, NacaHi in words */

static PetscErrorCode AirfoilBodyFromOptions(Airfoil af)
{
  PetscInt  body     = AIRFOIL_BODY_NACA4;
  char      naca[16] = "0012", dat[PETSC_MAX_PATH_LEN] = "";
  PetscReal chord = 1, diameter = 1, jk[2] = {0.1, 0.05};
  PetscReal up[AIRFOIL_CST_MAX] = {0.17, 0.16, 0.15, 0.14}, lo[AIRFOIL_CST_MAX] = {-0.17, -0.16, -0.15, -0.14};
  PetscReal mpt[3] = {0, 0, 0};
  PetscInt  njk = 2, nu = AIRFOIL_CST_MAX, nl = AIRFOIL_CST_MAX, nmpt = 3;
  PetscBool jset, setu, setl, mptset                                  = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscOptionsBegin(af->comm, af->prefix, "Airfoil: body", "Airfoil");
  PetscCall(PetscOptionsEList("-airfoil_body", "Body: circle, naca4, dat (a Selig-format file), joukowski or cst", "",
                              AirfoilBodyTypes, 5, AirfoilBodyTypes[body], &body, NULL));
  PetscCall(PetscOptionsRealArray("-airfoil_cst_upper",
                                  "CST coefficients Au_0..Au_n of the upper surface (class function N1 = 0.5, N2 = 1; "
                                  "up to 9: Bernstein order 8; default 0.17,0.16,0.15,0.14, near a NACA 0012)",
                                  "", up, &nu, &setu));
  PetscCall(PetscOptionsRealArray("-airfoil_cst_lower", "CST coefficients Al_0..Al_n of the lower surface (as many)",
                                  "", lo, &nl, &setl));
  PetscCall(
      PetscOptionsRealArray("-airfoil_joukowski",
                            "Joukowski thickness and camber parameters eps,kappa (t/c about 1.3 eps, camber about "
                            "kappa/2 of the chord; docs/airfoil.md)",
                            "", jk, &njk, &jset));
  PetscCall(PetscOptionsString("-airfoil_naca", "NACA 4-digit designation, e.g. 0012 or 2412", "", naca, naca,
                               sizeof(naca), NULL));
  PetscCall(PetscOptionsRealArray("-airfoil_naca_mpt",
                                  "NACA 4-digit camber m, camber position p, thickness t as numbers (e.g. a design's "
                                  "block shape), instead of -airfoil_naca's digits",
                                  "", mpt, &nmpt, &mptset));
  PetscCall(
      PetscOptionsReal("-airfoil_chord", "Chord of the airfoil [m] (the reference length)", "", chord, &chord, NULL));
  PetscCall(PetscOptionsReal("-airfoil_diameter", "Diameter of the circle [m] (the reference length)", "", diameter,
                             &diameter, NULL));
  PetscCall(PetscOptionsString("-airfoil_dat", "Selig-format airfoil coordinate file (with -airfoil_body dat)", "", dat,
                               dat, sizeof(dat), NULL));
  PetscOptionsEnd();
  af->body = (AirfoilBodyType)body;
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_chord", chord, ADJ_REAL_POSITIVE, "m"));
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_diameter", diameter, ADJ_REAL_POSITIVE, "m"));
  PetscCall(PetscMemzero(&af->shape, sizeof(af->shape)));
  if (af->body == AIRFOIL_BODY_CIRCLE) {
    af->shape.type = ADJ_SHAPE_CIRCLE, af->shape.np = 4, af->shape.p[3] = 0.5 * diameter;
  } else if (af->body == AIRFOIL_BODY_NACA4) {
    size_t len;
    PetscCall(PetscStrlen(naca, &len));
    PetscCheck(len == 4 && naca[0] >= '0' && naca[0] <= '9' && naca[1] >= '0' && naca[1] <= '9' && naca[2] >= '0' &&
                   naca[2] <= '9' && naca[3] >= '0' && naca[3] <= '9',
               af->comm, PETSC_ERR_USER_INPUT, "-airfoil_naca %s: give four digits, e.g. 0012", naca);
    af->shape.type = ADJ_SHAPE_NACA4, af->shape.np = 7, af->shape.p[3] = chord;
    af->shape.p[4] = (naca[0] - '0') / 100.0;
    af->shape.p[5] = naca[1] == '0' ? 0.4 : (naca[1] - '0') / 10.0;
    af->shape.p[6] = ((naca[2] - '0') * 10 + (naca[3] - '0')) / 100.0;
    if (mptset) { /* the ranges of the block shape's bounds; AdjShapeSetUp checks the shape */
      PetscCheck(nmpt == 3, af->comm, PETSC_ERR_USER_INPUT,
                 "-airfoil_naca_mpt: give three numbers m,p,t, got %" PetscInt_FMT, nmpt);
      for (PetscInt i = 0; i < 3; i++)
        PetscCheck(mpt[i] >= NacaLo[i] && mpt[i] <= NacaHi[i], af->comm, PETSC_ERR_USER_INPUT,
                   "-airfoil_naca_mpt %g,%g,%g: m must lie in " NACA_RANGE, (double)mpt[0], (double)mpt[1],
                   (double)mpt[2]);
      for (PetscInt i = 0; i < 3; i++) af->shape.p[4 + i] = mpt[i];
    }
  } else if (af->body == AIRFOIL_BODY_CST) { /* the surfaces' thickness is checked by AdjShapeSetUp */
    if (!setu) nu = 4;
    if (!setl) nl = nu;
    PetscCheck(nu == nl && nu >= 1, af->comm, PETSC_ERR_USER_INPUT,
               "-airfoil_cst_upper has %" PetscInt_FMT " coefficients, -airfoil_cst_lower %" PetscInt_FMT
               ": give as many (at least one) for both",
               nu, nl);
    PetscCall(AdjCheckRealOptionArray(af->comm, "-airfoil_cst_upper", nu, up, ADJ_REAL_FINITE, NULL));
    PetscCall(AdjCheckRealOptionArray(af->comm, "-airfoil_cst_lower", nl, lo, ADJ_REAL_FINITE, NULL));
    af->shape.type = ADJ_SHAPE_CST, af->shape.ncst = nu, af->shape.np = 4 + 2 * nu, af->shape.p[3] = chord;
    for (PetscInt i = 0; i < nu; i++) af->shape.p[4 + i] = up[i], af->shape.p[4 + nu + i] = lo[i];
  } else if (af->body == AIRFOIL_BODY_JOUKOWSKI) { /* the parameters are checked by AdjShapeSetUp */
    PetscCheck(!jset || njk == 2, af->comm, PETSC_ERR_USER_INPUT, "-airfoil_joukowski: give two numbers eps,kappa");
    af->shape.type = ADJ_SHAPE_JOUKOWSKI, af->shape.np = 6, af->shape.p[3] = chord;
    af->shape.p[4] = jk[0], af->shape.p[5] = jk[1];
  } else {
    PetscCheck(dat[0], af->comm, PETSC_ERR_USER_INPUT, "-airfoil_body dat needs -airfoil_dat <Selig-format file>");
    PetscCall(AdjShapeReadSelig(af->comm, dat, "-airfoil_dat", 0, &af->shape));
    af->shape.p[3] = chord;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reynolds number, free stream, time discretization and far-field switch. */
static PetscErrorCode AirfoilPhysicsFromOptions(Airfoil af)
{
  PetscReal speed = 1, alpha = 0;

  PetscFunctionBeginUser;
  af->re = 1000, af->theta = 0.5, af->switch_width = 0.1, af->blowup_cfl = 5, af->vortex = PETSC_FALSE;
  af->diss[0] = 1.0 / 16, af->diss_pe = 10;
  PetscOptionsBegin(af->comm, af->prefix, "Airfoil: flow", "Airfoil");
  PetscCall(PetscOptionsReal("-airfoil_re", "Reynolds number U_inf L / nu (L: chord or diameter)", "", af->re, &af->re,
                             NULL));
  PetscCall(PetscOptionsReal("-airfoil_alpha",
                             "Angle of attack [degrees]: the free stream is U_inf (cos alpha, sin alpha)", "", alpha,
                             &alpha, NULL));
  PetscCall(PetscOptionsReal("-airfoil_velocity", "Free-stream speed U_inf [m/s]", "", speed, &speed, NULL));
  PetscCall(PetscOptionsReal("-airfoil_theta",
                             "Implicitness of the viscous terms: 0.5 Crank-Nicolson (second order), 1 backward Euler",
                             "", af->theta, &af->theta, NULL));
  PetscCall(PetscOptionsReal("-airfoil_farfield_switch",
                             "Width of the smooth switch between Dirichlet (inflow) and zero-gradient (outflow) "
                             "velocity at the far field, in units of n . U_inf / |U_inf|",
                             "", af->switch_width, &af->switch_width, NULL));
  PetscCall(PetscOptionsBool("-airfoil_farfield_vortex",
                             "Far-field velocity U_inf plus a point vortex of the current lift's circulation "
                             "(pressure by Bernoulli)",
                             "", af->vortex, &af->vortex, NULL));
  PetscCall(
      PetscOptionsReal("-airfoil_dissipation",
                       "Fourth-difference dissipation k4 of the convection: face flux k4 |F| (D2_R - D2_L), D2 the "
                       "second difference (1/16: the dissipative part of QUICK; 0: central convection, whose "
                       "two-cell waves only viscosity damps)",
                       "", af->diss[0], &af->diss[0], NULL));
  PetscCall(PetscOptionsReal(
      "-airfoil_dissipation_pe",
      "Cell Reynolds number Pe_0 of the dissipation's switch: a face's weight is |F| where |F| / nu >= Pe_0 and fades "
      "out below (1.5 F^2 / (Pe_0 nu) near 0), where the viscosity damps two-cell waves itself",
      "", af->diss_pe, &af->diss_pe, NULL));
  PetscCall(PetscOptionsReal("-airfoil_blowup_cfl",
                             "Stop the run when the convective Courant number dt sum|F| / (2 A) of a cell exceeds this",
                             "", af->blowup_cfl, &af->blowup_cfl, NULL));
  PetscCall(
      PetscOptionsBool("-airfoil_quiet", "No force line on stdout at output steps", "", af->quiet, &af->quiet, NULL));
  PetscOptionsEnd();
  { /* the driver's -steady_tol (checked there): a run may end at any step, so the monitor writes every row */
    PetscReal tol = 0;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-steady_tol", &tol, NULL));
    af->steady = (PetscBool)(tol > 0);
  }
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_re", af->re, ADJ_REAL_POSITIVE, NULL));
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_alpha", alpha, ADJ_REAL_FINITE, "degrees"));
  PetscCheck(PetscAbsReal(alpha) <= 180, af->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_alpha %g degrees: give an angle in [-180, 180]", (double)alpha);
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_velocity", speed, ADJ_REAL_POSITIVE, "m/s"));
  PetscCheck(af->theta >= 0.5 && af->theta <= 1, af->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_theta %g: give a value in [0.5, 1] (unconditionally stable viscous terms)", (double)af->theta);
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_farfield_switch", af->switch_width, ADJ_REAL_POSITIVE, NULL));
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_blowup_cfl", af->blowup_cfl, ADJ_REAL_POSITIVE, NULL));
  PetscCheck(
      af->diss[0] >= 0 && af->diss[0] <= 0.25, af->comm, PETSC_ERR_USER_INPUT,
      "-airfoil_dissipation %g: give a value in [0, 1/4] (1/16 by default; above 1/4 the explicit term limits the "
      "time step)",
      (double)af->diss[0]);
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_dissipation_pe", af->diss_pe, ADJ_REAL_POSITIVE, NULL));
  af->alpha   = alpha;
  af->speed   = speed;
  af->uinf[0] = speed * PetscCosReal(alpha * PETSC_PI / 180);
  af->uinf[1] = speed * PetscSinReal(alpha * PETSC_PI / 180);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The geometry of the O-grid's current nodes (gathered on every rank in natural order); again after a new shape. */
static PetscErrorCode AirfoilGeometryFromGrid(Airfoil af)
{
  Vec        X;
  PetscInt   ni, nj;
  PetscReal *xn;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetCoordinates(af->og, NULL, &X));
  PetscCall(AdjOGridGetSizes(af->og, &ni, &nj, NULL, NULL));
  PetscCall(PetscMalloc1(2 * ni * nj, &xn));
  PetscCall(AirfoilOGridGather(af->og, X, xn));
  if (af->geo.xn) PetscCall(AirfoilGeometryDestroy(&af->geo));
  PetscCall(AirfoilGeometryCreate(ni, nj - 1, xn, &af->geo));
  PetscCall(PetscFree(xn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The O-grid, its geometry and the cell DMDAs. */
static PetscErrorCode AirfoilSetUpGrid(Airfoil af)
{
  PetscInt  ni, nj;
  PetscReal thick;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridCreate(af->comm, &af->og));
  PetscCall(AdjOGridSetOptionsPrefix(af->og, af->prefix));
  PetscCall(AdjOGridSetShape(af->og, &af->shape));
  PetscCall(AdjOGridSetFromOptions(af->og));
  PetscCall(AdjOGridSetUp(af->og));
  PetscCall(AdjOGridGetSizes(af->og, &ni, &nj, NULL, NULL));
  PetscCheck(nj >= 4, af->comm, PETSC_ERR_USER_INPUT,
             "The O-grid has %" PetscInt_FMT " nodes from the wall to the far field: the flow solver needs at least 4 "
             "(-airfoil_grid_normal, -airfoil_growth)",
             nj);
  PetscCall(AirfoilGeometryFromGrid(af));
  {
    const PetscInt       cells[2] = {ni, nj - 1};
    const DMBoundaryType bc[2]    = {DM_BOUNDARY_PERIODIC, DM_BOUNDARY_GHOSTED};
    const PetscInt      *lx, *ly;
    PetscMPIInt          m, n;
    /* two ghost cells for the convection's fourth-difference dissipation; the matrices (9-point stencils) and the
       multigrid hierarchy on a width-1 twin with the same ownership */
    PetscCall(AdjGridCreateDMDA(af->comm, 2, cells, bc, ADJ_GRID_CELL, 1, DMDA_STENCIL_BOX, 2, NULL, &af->da));
    PetscCall(DMDAGetInfo(af->da, NULL, NULL, NULL, NULL, &m, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMDAGetOwnershipRanges(af->da, &lx, &ly, NULL));
    PetscCall(DMDACreate2d(af->comm, bc[0], bc[1], DMDA_STENCIL_BOX, cells[0], cells[1], m, n, 1, 1, lx, ly, &af->mda));
    PetscCall(DMSetUp(af->mda));
  }
  PetscCall(DMDASetFieldName(af->da, 0, "cell"));
  PetscCall(DMDACreateCompatibleDMDA(af->da, AIRFOIL_DOF, &af->sda));
  PetscCall(DMDAGetCorners(af->da, &af->xs, &af->ys, NULL, &af->xm, &af->ym, NULL));
  AdjShapeSizes(&af->shape, &thick, &af->lref);
  af->nu      = PetscHypotReal(af->uinf[0], af->uinf[1]) * af->lref / af->re;
  af->diss[1] = 1 / (af->diss_pe * af->nu); /* the dissipation's switch (operators.c) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The convective limit dt <= 2 A / (U_s sum_f |F_f|) over all cells, F_f the face fluxes of the projected
 * impulsive start (the potential-like flow of AirfoilInitialState, whose speed near the body is up to twice
 * the free stream) and U_s = -airfoil_velocity_scale (default 0.6: the real flow is slower than that start
 * near the wall, and the implicit viscous terms damp the weak instability of Adams-Bashforth 2 with central
 * fluxes; measured stable down to 0.4 with -airfoil_cfl 1 on both decks' coarse grids).  The viscous terms
 * set no limit. */
static PetscErrorCode AirfoilSetUpTime(Airfoil af)
{
  PetscReal           scale = 0.6, limit = PETSC_MAX_REAL, speed = PetscHypotReal(af->uinf[0], af->uinf[1]);
  AdjTimeAxis         ta;
  char                detail[256];
  const AirfoilCell **xa;

  PetscFunctionBeginUser;
  PetscCall(AdjTimeAxisCreate(af->comm, &ta));
  PetscCall(AdjTimeAxisSetOptionsPrefix(ta, af->prefix, "airfoil"));
  PetscCall(AdjTimeAxisSetDefaults(ta, 50 * af->lref / speed, 1.0));
  PetscOptionsBegin(af->comm, af->prefix, "Airfoil: time stepping", "Airfoil");
  PetscCall(AdjTimeAxisSetFromOptions(ta, PetscOptionsObject));
  PetscCall(PetscOptionsReal("-airfoil_velocity_scale",
                             "Factor on the speeds of the projected impulsive start in the convective time-step limit "
                             "(dt = -airfoil_cfl x the limit)",
                             "", scale, &scale, NULL));
  PetscOptionsEnd();
  PetscCall(AdjCheckRealOption(af->comm, "-airfoil_velocity_scale", scale, ADJ_REAL_POSITIVE, NULL));
  PetscCall(AirfoilInitialState(af, af->x0));
  PetscCall(DMGlobalToLocal(af->sda, af->x0, INSERT_VALUES, af->xloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->xloc, &xa));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal top = j == af->geo.nc - 1 ? xa[j][i].Vt : xa[j + 1][i].V;
      const PetscReal sum =
          PetscAbsReal(xa[j][i].U) + PetscAbsReal(xa[j][i + 1].U) + PetscAbsReal(xa[j][i].V) + PetscAbsReal(top);
      limit = PetscMin(limit, 2 * af->geo.area[j * af->geo.ni + i] / (scale * sum));
    }
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->xloc, &xa));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &limit, 1, MPIU_REAL, MPIU_MIN, af->comm));
  PetscCall(PetscSNPrintf(detail, sizeof(detail),
                          " of Adams-Bashforth 2 with central convection (the speeds of the projected impulsive start "
                          "times %g; viscous terms implicit)",
                          (double)scale));
  PetscCall(AdjTimeAxisSetLimit(ta, ADJ_TIME_LIMIT_STABILITY, limit, "convective limit", detail));
  PetscCall(AdjTimeAxisSetUp(ta));
  PetscCall(AdjTimeAxisGetSteps(ta, &af->nsteps, &af->dt));
  PetscCall(AdjTimeAxisDestroy(&ta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Output: u, v, p and the vorticity at the cell centroids, and the centroid coordinates x, y (the grid is
 * curvilinear). Restart: the whole state, bit for bit. */
static const AdjFieldDesc AirfoilOutputFields[] = {
    {.name = "u", .units = "m/s", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "v", .units = "m/s", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "p", .units = "m^2/s^2", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "vorticity", .units = "1/s", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "x", .units = "m", .location = ADJ_FIELD_CELL, .ncomp = 1},
    {.name = "y", .units = "m", .location = ADJ_FIELD_CELL, .ncomp = 1}};
static const char *const AirfoilRestartNames[AIRFOIL_DOF] = {"u", "v", "p", "U", "V", "Vt", "Nu", "Nv"};
static const char *const AirfoilRestartUnits[AIRFOIL_DOF] = {"m/s",   "m/s",   "m^2/s^2", "m^2/s",
                                                             "m^2/s", "m^2/s", "m/s^2",   "m/s^2"};

static PetscErrorCode AirfoilDescribeFields(AdjStepper st)
{
  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < 6; f++) PetscCall(AdjStepperAddField(st, ADJ_FIELDS_OUTPUT, &AirfoilOutputFields[f]));
  for (PetscInt f = 0; f < AIRFOIL_DOF; f++) {
    const AdjFieldDesc d = {
        .name = AirfoilRestartNames[f], .units = AirfoilRestartUnits[f], .location = ADJ_FIELD_CELL, .ncomp = 1};
    PetscCall(AdjStepperAddField(st, ADJ_FIELDS_RESTART, &d));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The output fields of state x in out[0..3] and f[0..1] (x, y). */
static PetscErrorCode AirfoilOutputValues(Airfoil af, Vec x)
{
  const AirfoilGeometry *g = &af->geo;
  PetscScalar          **o[4], **q[2], **cx, **cy;
  const AirfoilCell    **xa;
  PetscInt               gxs, gys, gxm, gym;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(af->sda, x, INSERT_VALUES, af->xloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->xloc, &xa));
  PetscCall(DMDAGetGhostCorners(af->da, &gxs, &gys, NULL, &gxm, &gym, NULL));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecGetArray(af->da, af->floc[c], &q[c]));
  for (PetscInt j = gys; j < gys + gym; j++)
    for (PetscInt i = gxs; i < gxs + gxm; i++)
      for (PetscInt c = 0; c < 2; c++) q[c][j][i] = j >= 0 && j < g->nc ? (&xa[j][i].u)[c] : 0;
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMDAVecGetArray(af->da, af->out[c], &o[c]));
  PetscCall(DMDAVecGetArray(af->da, af->f[0], &cx));
  PetscCall(DMDAVecGetArray(af->da, af->f[1], &cy));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      PetscReal       gu[2], gv[2];
      const PetscBool top = (PetscBool)(j == g->nc - 1); /* the far-field row: only there is row nc - 1 a neighbour */
      AirfoilCellGradient(g, i, j, q[0], PETSC_TRUE, top ? AirfoilFarValue(g, af->wf, i, af->qf[0][i], q[0]) : 0, gu);
      AirfoilCellGradient(g, i, j, q[1], PETSC_TRUE, top ? AirfoilFarValue(g, af->wf, i, af->qf[1][i], q[1]) : 0, gv);
      o[0][j][i] = xa[j][i].u, o[1][j][i] = xa[j][i].v, o[2][j][i] = xa[j][i].p, o[3][j][i] = gv[0] - gu[1];
      cx[j][i] = g->xc[2 * (j * g->ni + i)], cy[j][i] = g->xc[2 * (j * g->ni + i) + 1];
    }
  PetscCall(DMDAVecRestoreArray(af->da, af->f[0], &cx));
  PetscCall(DMDAVecRestoreArray(af->da, af->f[1], &cy));
  for (PetscInt c = 0; c < 4; c++) PetscCall(DMDAVecRestoreArray(af->da, af->out[c], &o[c]));
  for (PetscInt c = 0; c < 2; c++) PetscCall(DMDAVecRestoreArray(af->da, af->floc[c], &q[c]));
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->xloc, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Restart values use f[0..3] and out[0..3] as the eight component vectors. */
static Vec AirfoilComponentVec(Airfoil af, PetscInt c)
{
  return c < 4 ? af->out[c] : af->f[c - 4];
}

static PetscErrorCode AirfoilFieldValues(void *ctx, AdjFieldSet set, Vec x, AdjFieldValues values)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  if (set == ADJ_FIELDS_RESTART) {
    for (PetscInt c = 0; c < AIRFOIL_DOF; c++) {
      PetscCall(VecStrideGather(x, c, AirfoilComponentVec(af, c), INSERT_VALUES));
      PetscCall(AdjFieldValuesSetVec(values, AirfoilRestartNames[c], AirfoilComponentVec(af, c)));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(AirfoilOutputValues(af, x));
  PetscCall(AirfoilOutputSurface(af, x));
  for (PetscInt c = 0; c < 4; c++) PetscCall(AdjFieldValuesSetVec(values, AirfoilOutputFields[c].name, af->out[c]));
  PetscCall(AdjFieldValuesSetVec(values, "x", af->f[0]));
  PetscCall(AdjFieldValuesSetVec(values, "y", af->f[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilRestartState(void *ctx, AdjFieldValues values, Vec x)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < AIRFOIL_DOF; c++)
    PetscCall(VecStrideScatter(AirfoilComponentVec(af, c), c, x, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stops a run whose state holds NaN/Inf or whose convective Courant number dt sum|F| / (2 A) exceeds
 * -airfoil_blowup_cfl, naming the step and the cell. */
static PetscErrorCode AirfoilCheckState(void *ctx, AdjStepIndex k, Vec x)
{
  Airfoil             af = (Airfoil)ctx;
  const AirfoilCell **xa;
  struct {
    double val;
    int    rank;
  } loc = {0, 0}, glob;
  PetscMPIInt rank;
  PetscReal   where[2] = {0, 0};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(af->comm, &rank));
  loc.rank = rank;
  PetscCall(DMGlobalToLocal(af->sda, x, INSERT_VALUES, af->xloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->xloc, &xa));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const AirfoilCell *c   = &xa[j][i];
      const PetscReal    top = j == af->geo.nc - 1 ? c->Vt : xa[j + 1][i].V;
      PetscReal          cfl = af->dt *
                      (PetscAbsReal(c->U) + PetscAbsReal(xa[j][i + 1].U) + PetscAbsReal(c->V) + PetscAbsReal(top)) /
                      (2 * af->geo.area[j * af->geo.ni + i]);
      if (PetscIsInfOrNanReal(cfl + c->u + c->v + c->p)) cfl = PETSC_MAX_REAL;
      if (cfl > loc.val)
        loc.val = cfl, where[0] = af->geo.xc[2 * (j * af->geo.ni + i)],
        where[1] = af->geo.xc[2 * (j * af->geo.ni + i) + 1];
    }
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->xloc, &xa));
  PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE_INT, MPI_MAXLOC, af->comm));
  if (glob.val <= af->blowup_cfl) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Bcast(where, 2, MPIU_REAL, glob.rank, af->comm));
  PetscCheck(glob.val < PETSC_MAX_REAL, af->comm, PETSC_ERR_FP,
             "Airfoil flow became NaN/Inf at step %" PetscInt64_FMT " (t = %g s) near (x, y) = (%g, %g) m; reduce "
             "-airfoil_cfl or -airfoil_dt",
             (PetscInt64)k, (double)(k * af->dt), (double)where[0], (double)where[1]);
  SETERRQ(af->comm, PETSC_ERR_FP,
          "Airfoil flow blew up at step %" PetscInt64_FMT
          " (t = %g s): Courant number %g > -airfoil_blowup_cfl %g near "
          "(x, y) = (%g, %g) m; reduce -airfoil_cfl or -airfoil_dt, or raise -airfoil_velocity_scale",
          (PetscInt64)k, (double)(k * af->dt), glob.val, (double)af->blowup_cfl, (double)where[0], (double)where[1]);
}

/* A new angle of attack or Reynolds number (parameter blocks alpha, re): the free stream, the far-field weights and
 * data, the stencils and K.  The time step stays the one set up for the first values (it is a smooth function of
 * nothing: gradients keep it fixed). */
static PetscErrorCode AirfoilFreeStreamChanged(void *ctx)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  PetscCheck(af->re > 0 && PetscIsNormalReal(af->re), af->comm, PETSC_ERR_USER_INPUT,
             "Parameter re = %g: the Reynolds number must be positive", (double)af->re);
  PetscCheck(PetscAbsReal(af->alpha) <= 180, af->comm, PETSC_ERR_USER_INPUT,
             "Parameter alpha = %g degrees: give an angle in [-180, 180]", (double)af->alpha);
  af->uinf[0] = af->speed * PetscCosReal(af->alpha * PETSC_PI / 180);
  af->uinf[1] = af->speed * PetscSinReal(af->alpha * PETSC_PI / 180);
  af->nu      = PetscHypotReal(af->uinf[0], af->uinf[1]) * af->lref / af->re; /* as in AirfoilSetUpGrid */
  af->diss[1] = 1 / (af->diss_pe * af->nu);
  PetscCall(AirfoilFarWeightsSet(af));
  PetscCall(AirfoilFarFieldData(af, NULL));
  PetscCall(AirfoilOperatorsSetTimeStep(af));
  PetscCall(AirfoilAdjointSetUp(af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new shape (parameter block shape): the O-grid regenerated (and checked), the geometry, the far-field weights and
 * data, the stencils, both matrices and their solvers, the adjoint's weight forms.  The time step stays the one set up
 * for the first shape (it is a minimum over the cells: a kink; gradients keep it fixed), as do the reference length
 * and point (the chord and the position are not block entries). */
static PetscErrorCode AirfoilShapeChanged(void *ctx)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridSetShapeParameters(af->og, af->shape.p));
  PetscCall(AirfoilGeometryFromGrid(af));
  PetscCall(AirfoilOperatorsSetGeometry(af));
  PetscCall(AirfoilAdjointSetUp(af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before gradients are packed or written: dJ/dalpha = dJ/dU_inf . dU_inf/dalpha (per degree; the U_inf bars are
 * replicated) and dJ/dre = -dJ/dnu nu / re (the nu bars are rank-local partial sums). */
static PetscErrorCode AirfoilGradientHook(void *ctx)
{
  Airfoil         af = (Airfoil)ctx;
  PetscReal       nub;
  const PetscReal a = af->alpha * PETSC_PI / 180, s = af->speed * PETSC_PI / 180;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&af->nub, &nub, 1, MPIU_REAL, MPIU_SUM, af->comm));
  af->grad_re    = -nub * af->nu / af->re;
  af->grad_alpha = s * (-PetscSinReal(a) * af->uinfb[0] + PetscCosReal(a) * af->uinfb[1]);
  if (af->shapebars) { /* the accumulated geometry bars through the forms, the geometry and the O-grid */
    PetscReal pb[ADJ_SHAPE_MAX_PARAMS] = {0};
    PetscCall(AirfoilShapeGradient(af, pb));
    for (PetscInt k = af->shape_first; k < af->shape.np; k++) af->grad_shape[k - af->shape_first] = pb[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block shape: the entries p[4..np) of the curve family (NACA m, p, t; CST Au, Al; Joukowski eps, kappa), with
 * the bounds NacaLo, NacaHi for NACA (m in NACA_RANGE). */
static PetscErrorCode AirfoilRegisterShape(AdjParams params, Airfoil af)
{
  const PetscInt n = af->shape.np - 4;
  PetscReal      lo[ADJ_SHAPE_MAX_PARAMS], hi[ADJ_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (af->body != AIRFOIL_BODY_NACA4 && af->body != AIRFOIL_BODY_CST && af->body != AIRFOIL_BODY_JOUKOWSKI)
    PetscFunctionReturn(PETSC_SUCCESS);
  af->shape_first = 4;
  PetscCall(AdjParamsAddArray(params, "shape", "1", n));
  PetscCall(AdjParamsSetArrayStorage(params, "shape", af->shape.p + 4, af->grad_shape));
  PetscCall(AdjParamsSetGradientUnits(params, "shape", "objective per parameter unit"));
  PetscCall(AdjParamsSetChangeHook(params, "shape", AirfoilShapeChanged, af));
  for (PetscInt i = 0; i < n; i++) lo[i] = PETSC_NINFINITY, hi[i] = PETSC_INFINITY;
  if (af->body == AIRFOIL_BODY_NACA4)
    for (PetscInt i = 0; i < 3; i++) lo[i] = NacaLo[i], hi[i] = NacaHi[i];
  PetscCall(AdjParamsSetBoundsArray(params, "shape", lo, hi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the parameter options: with the block shape active, the storage of the geometry bars, declared as gradient
 * accumulators (zeroed before every gradient, carried over by a resumed gradient run). */
static PetscErrorCode AirfoilSetUp(AdjStepper st)
{
  Airfoil   af;
  AdjParams params;
  PetscBool active = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &af));
  PetscCall(AdjStepperGetParams(st, &params));
  if (af->shape_first) PetscCall(AdjParamsIsActive(params, "shape", &active));
  if (!active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AirfoilShapeBarsSetUp(af));
  {
    const AirfoilGeometry *g     = &af->geo;
    const PetscInt         ncell = g->ni * g->nc, nn = g->ni * (g->nc + 1);
    const PetscInt         nf       = (PetscInt)(sizeof(AirfoilForm) / sizeof(PetscReal)) * af->xm * af->ym;
    AirfoilForm *const     forms[5] = {af->lapvb, af->lappb, af->gfib, af->gfjb, af->gftb};
    const char *const      names[5] = {"airfoil_lapv_bar", "airfoil_lapp_bar", "airfoil_gfi_bar", "airfoil_gfj_bar",
                                       "airfoil_gft_bar"};

    PetscCheck(sizeof(AirfoilForm) % sizeof(PetscReal) == 0, af->comm, PETSC_ERR_PLIB, "AirfoilForm is not all reals");
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_xn_bar", af->geob.xn, 2 * nn));
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_area_bar", af->geob.area, ncell));
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_ext_bar", af->geob.ext, g->ni));
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_si_bar", af->geob.si, 2 * ncell));
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_sj_bar", af->geob.sj, 2 * nn));
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_aj_bar", af->geob.aj, nn)); /* the wall forces' forms */
    PetscCall(AdjStepperAddGradientArray(st, "airfoil_bj_bar", af->geob.bj, nn));
    for (PetscInt f = 0; f < 5; f++) PetscCall(AdjStepperAddGradientArray(st, names[f], (PetscReal *)forms[f], nf));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameter blocks: the angle of attack alpha [degrees] and the Reynolds number re. */
static PetscErrorCode AirfoilRegisterParameters(AdjStepper st, Airfoil af)
{
  AdjParams params;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetParams(st, &params));
  PetscCall(AdjParamsAddArray(params, "alpha", "degrees", 1));
  PetscCall(AdjParamsSetArrayStorage(params, "alpha", &af->alpha, &af->grad_alpha));
  PetscCall(AdjParamsSetGradientUnits(params, "alpha", "objective per degree"));
  PetscCall(AdjParamsSetChangeHook(params, "alpha", AirfoilFreeStreamChanged, af));
  PetscCall(AdjParamsSetBounds(params, "alpha", -180.0, 180.0));
  PetscCall(AdjParamsAddArray(params, "re", "1", 1));
  PetscCall(AdjParamsSetArrayStorage(params, "re", &af->re, &af->grad_re));
  PetscCall(AdjParamsSetGradientUnits(params, "re", "objective per unit Reynolds number"));
  PetscCall(AdjParamsSetChangeHook(params, "re", AirfoilFreeStreamChanged, af));
  PetscCall(AdjParamsSetScale(params, "re", af->re));
  PetscCall(AdjParamsSetBounds(params, "re", 0.0, PETSC_INFINITY));
  PetscCall(AirfoilRegisterShape(params, af));
  PetscCall(AdjParamsSetGradientHook(params, AirfoilGradientHook, af));
  PetscCall(AdjStepperAddGradientArray(st, "airfoil_nu", &af->nub, 1));
  PetscCall(AdjStepperAddGradientArray(st, "airfoil_uinf", af->uinfb, 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilView(AdjStepper st, PetscViewer viewer)
{
  Airfoil af;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &af));
  PetscCall(AdjOGridView(af->og, viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "  flow: Re %g, alpha %g deg, U_inf %g m/s, nu %g m^2/s, dt %g s, theta %g\n",
                                   (double)af->re, (double)af->alpha, (double)PetscHypotReal(af->uinf[0], af->uinf[1]),
                                   (double)af->nu, (double)af->dt, (double)af->theta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilCreateWork(Airfoil af)
{
  PetscFunctionBeginUser;
  PetscCall(DMCreateLocalVector(af->sda, &af->xloc));
  PetscCall(VecSet(af->xloc, 0));
  PetscCall(VecDuplicate(af->xloc, &af->wloc));
  PetscCall(DMCreateGlobalVector(af->sda, &af->x0));
  for (PetscInt c = 0; c < 4; c++) {
    PetscCall(DMCreateGlobalVector(af->da, &af->f[c]));
    PetscCall(DMCreateGlobalVector(af->da, &af->out[c]));
    PetscCall(DMCreateLocalVector(af->da, &af->floc[c]));
    PetscCall(VecSet(af->floc[c], 0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilSetFromOptions(AdjStepper st)
{
  Airfoil af;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &af));
  PetscCall(AdjStepperGetOptionsPrefix(st, &af->prefix));
  PetscCall(AirfoilBodyFromOptions(af));
  PetscCall(AirfoilPhysicsFromOptions(af));
  PetscCall(AirfoilSetUpGrid(af));
  PetscCall(AirfoilCreateWork(af));
  af->dt = 1; /* the operators at a provisional step (the projection does not depend on it) */
  PetscCall(AirfoilOperatorsSetUp(af));
  PetscCall(AirfoilSetUpTime(af));
  PetscCall(AirfoilOperatorsSetTimeStep(af));
  PetscCall(AdjStepperSetTimes(st, af->nsteps, af->dt));
  PetscCall(AdjStepperSetStateTemplate(st, af->x0, "airfoil_state"));
  {
    PetscReal lo[2] = {PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[2] = {PETSC_MIN_REAL, PETSC_MIN_REAL};
    for (PetscInt n = 0; n < af->geo.ni * (af->geo.nc + 1); n++)
      for (PetscInt d = 0; d < 2; d++)
        lo[d] = PetscMin(lo[d], af->geo.xn[2 * n + d]), hi[d] = PetscMax(hi[d], af->geo.xn[2 * n + d]);
    PetscCall(AdjStepperSetGrid(st, af->da, lo, hi));
  }
  PetscCall(AirfoilDescribeFields(st));
  PetscCall(AirfoilAdjointSetUp(af));
  PetscCall(AirfoilObjectiveSetUp(af));
  PetscCall(AirfoilRegisterParameters(st, af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilDestroy(AdjStepper st)
{
  Airfoil af;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperGetContext(st, &af));
  PetscCall(AirfoilOperatorsDestroy(af));
  PetscCall(AirfoilAdjointDestroy(af));
  PetscCall(AirfoilShapeBarsDestroy(af));
  if (af->geo.xn) PetscCall(AirfoilGeometryDestroy(&af->geo));
  PetscCall(AdjOGridDestroy(&af->og));
  PetscCall(AdjShapeDestroy(&af->shape));
  PetscCall(VecDestroy(&af->xloc));
  PetscCall(VecDestroy(&af->wloc));
  PetscCall(VecDestroy(&af->x0));
  for (PetscInt c = 0; c < 4; c++) {
    PetscCall(VecDestroy(&af->f[c]));
    PetscCall(VecDestroy(&af->out[c]));
    PetscCall(VecDestroy(&af->floc[c]));
  }
  PetscCall(PetscFree(af->hist));
  PetscCall(DMDestroy(&af->sda));
  PetscCall(DMDestroy(&af->mda));
  PetscCall(DMDestroy(&af->da));
  PetscCall(PetscFree(af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The body for geometric design constraints (src/optim/constraints.c): the shape at the current parameters and the
 * block holding its last entries p[4..np) (NACA m, p, t; CST Au, Al), past the position, the angle and the chord (the
 * measures are in chord units: their chord derivative is zero). Bodies without a block shape (circle, dat) give
 * NULL; the measures refuse a Joukowski body by name (AdjShapeMeasureCheck). */
static PetscErrorCode AirfoilGetShape(void *ctx, const AdjShape **shape, const char **block)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  *shape = af->shape_first ? &af->shape : NULL;
  *block = af->shape_first ? "shape" : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The forward and adjoint operations (the gradient accumulators are declared: no zerogradient). */
static const AdjStepperOps AirfoilOps = {
    .setfromoptions      = AirfoilSetFromOptions,
    .setup               = AirfoilSetUp,
    .view                = AirfoilView,
    .destroy             = AirfoilDestroy,
    .initialstate        = AirfoilInitialState,
    .initialstateadjoint = AirfoilInitialStateAdjoint,
    .step                = AirfoilStep,
    .stepadjoint         = AirfoilStepAdjoint,
    .objective           = AirfoilObjective,
    .objectiveadjoint    = AirfoilObjectiveAdjoint,
    .hasobjective        = AirfoilHasObjective,
    .objectivefinalstep  = AirfoilObjectiveFinalStep,
    .setsteady           = AirfoilSetSteady,
    .selectobjective     = AirfoilSelectObjective,
    .checkstate          = AirfoilCheckState,
    .fieldvalues         = AirfoilFieldValues,
    .restartstate        = AirfoilRestartState,
    .monitor             = AirfoilMonitor,
    .getshape            = AirfoilGetShape,
};

static const AdjLogEvent AirfoilEvents[] = {{"AfVelocitySolve", &AIRFOIL_Velocity},
                                            {"AfPressureSolve", &AIRFOIL_Pressure}};

PetscErrorCode AdjStepperCreate_Airfoil(AdjStepper st)
{
  Airfoil af;

  PetscFunctionBeginUser;
  PetscCall(AdjLogRegisterEvents("Airfoil", ADJ_NUM_EVENTS(AirfoilEvents), AirfoilEvents));
  PetscCall(PetscNew(&af));
  PetscCall(AdjStepperGetComm(st, &af->comm));
  PetscCall(AdjStepperSetImplementation(st, af, &AirfoilOps));
  /* the adjoint reads the u*, v* the step kept and never writes them (its own work vectors only): test
     airfoil_steady_adjoint compares it with retaken steps bit for bit */
  PetscCall(AdjStepperSetAdjointKeepsStep(st, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
