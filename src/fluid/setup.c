/* Fluid solver: reading the case from the options database (grid, boundaries, viscosity, initial
 * condition, time step).  Every option has its help string and units (adjsim -help). */
#include "fluidimpl.h"
#include <adjsim/grid.h>
#include <adjsim/io.h>
#include <adjsim/timeaxis.h>
#include <adjsim/optcheck.h>

const char *const FluidInitialTypes[] = {"zero", "taylor-green", "file", "FluidInitialType", "FLUID_INITIAL_", NULL};

static const char *const FluidSideNames[FLUID_DIM][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}};

/* Options of one side: -fluid_bc_<side>, -fluid_bc_<side>_velocity, -fluid_bc_<side>_profile. */
static PetscErrorCode FluidSideFromOptions(Fluid fl, PetscInt d, PetscInt s)
{
  FluidBC *bc = &fl->grid.bc[d][s];
  char     opt[3][64];
  PetscInt type = bc->type, profile = bc->profile;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt[0], 64, "-fluid_bc_%s", FluidSideNames[d][s]));
  PetscCall(PetscSNPrintf(opt[1], 64, "-fluid_bc_%s_velocity", FluidSideNames[d][s]));
  PetscCall(PetscSNPrintf(opt[2], 64, "-fluid_bc_%s_profile", FluidSideNames[d][s]));
  PetscOptionsBegin(fl->comm, fl->prefix, "Fluid: boundaries", "Fluid");
  PetscCall(PetscOptionsEList(opt[0], "Boundary on that side: periodic, wall (no-slip), slip, inflow, outflow", "",
                              FluidBCTypes, 5, FluidBCTypes[type], &type, NULL));
  PetscCall(
      PetscOptionsReal(opt[1],
                       "wall: tangential wall speed [m/s] (a moving lid; +x on y sides, +y on x sides); inflow: mean "
                       "inward normal speed [m/s]",
                       "", bc->velocity, &bc->velocity, NULL));
  PetscCall(PetscOptionsEList(opt[2], "inflow profile: uniform, or parabolic (peak 3/2 of the mean speed)", "",
                              FluidProfiles, 2, FluidProfiles[profile], &profile, NULL));
  PetscOptionsEnd();
  bc->type    = (FluidBCType)type;
  bc->profile = (FluidProfile)profile;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FluidCheckBoundaries(Fluid fl)
{
  const FluidGrid *g       = &fl->grid;
  PetscInt         ninflow = 0, noutflow_dirs = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < FLUID_DIM; d++) {
    const PetscBool plo = (PetscBool)(g->bc[d][0].type == FLUID_BC_PERIODIC),
                    phi = (PetscBool)(g->bc[d][1].type == FLUID_BC_PERIODIC);
    PetscCheck(plo == phi, fl->comm, PETSC_ERR_USER_INPUT,
               "-fluid_bc_%s %s and -fluid_bc_%s %s: periodic must be set on both sides of a direction",
               FluidSideNames[d][0], FluidBCTypes[g->bc[d][0].type], FluidSideNames[d][1],
               FluidBCTypes[g->bc[d][1].type]);
    if (g->bc[d][0].type == FLUID_BC_OUTFLOW || g->bc[d][1].type == FLUID_BC_OUTFLOW) noutflow_dirs++;
    for (PetscInt s = 0; s < 2; s++) {
      if (g->bc[d][s].type == FLUID_BC_INFLOW) ninflow++;
      PetscCheck(PetscIsNormalReal(g->bc[d][s].velocity) || g->bc[d][s].velocity == 0, fl->comm, PETSC_ERR_USER_INPUT,
                 "-fluid_bc_%s_velocity must be finite", FluidSideNames[d][s]);
    }
  }
  PetscCheck(noutflow_dirs <= 1, fl->comm, PETSC_ERR_USER_INPUT,
             "Outflow boundaries in both x and y are not supported yet (the outflow faces meet in a corner); use "
             "outflow on sides of one direction");
  PetscCheck(ninflow == 0 || noutflow_dirs > 0, fl->comm, PETSC_ERR_USER_INPUT,
             "An inflow boundary needs an outflow boundary somewhere (-fluid_bc_<side> outflow): otherwise mass cannot "
             "leave the box");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidSetUpGrid - the state DMDA (dof 3, box stencil of width 1, ghosted where not periodic), the
    cell DMDA with the same ownership, and the boundaries. Collective. @*/
PetscErrorCode FluidSetUpGrid(Fluid fl)
{
  FluidGrid     *g        = &fl->grid;
  PetscInt       cells[2] = {32, 32};
  PetscReal      len[2]   = {1.0, 1.0};
  DMBoundaryType dmbc[FLUID_DIM];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < FLUID_DIM; d++)
    for (PetscInt s = 0; s < 2; s++) {
      g->bc[d][s].type     = FLUID_BC_PERIODIC;
      g->bc[d][s].velocity = 0;
      g->bc[d][s].profile  = FLUID_PROFILE_UNIFORM;
    }
  PetscOptionsBegin(fl->comm, fl->prefix, "Fluid: grid and boundaries", "Fluid");
  PetscCall(AdjGridBoxOptions(PetscOptionsObject, fl->comm, "fluid", "Cells in x and y", FLUID_DIM, cells, len));
  PetscOptionsEnd();
  for (PetscInt d = 0; d < FLUID_DIM; d++)
    for (PetscInt s = 0; s < 2; s++) PetscCall(FluidSideFromOptions(fl, d, s));
  PetscCall(FluidCheckBoundaries(fl));
  /* about 640 bytes per cell: the max RSS of forward runs on 256^2 and 1024^2 cells grows by that */
  PetscCall(AdjGridBoxSetUp(fl->comm, "fluid", FLUID_DIM, cells, len, "cell", (PetscInt64)cells[0] * cells[1], 3, 640,
                            g->M, g->L, g->h));
  for (PetscInt d = 0; d < FLUID_DIM; d++)
    dmbc[d] = g->bc[d][0].type == FLUID_BC_PERIODIC ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
  /* Point (i, j) holds cell (i, j)'s left u-face, bottom v-face and pressure: one point per cell. */
  PetscCall(AdjGridCreateDMDA(fl->comm, FLUID_DIM, g->M, dmbc, ADJ_GRID_CELL, 3, DMDA_STENCIL_BOX, 1, NULL, &fl->da));
  PetscCall(DMDASetFieldName(fl->da, 0, "u"));
  PetscCall(DMDASetFieldName(fl->da, 1, "v"));
  PetscCall(DMDASetFieldName(fl->da, 2, "p"));
  PetscCall(DMDACreateCompatibleDMDA(fl->da, 1, &fl->pda));
  PetscCall(AdjGridSetUniformCoordinates(fl->pda, ADJ_GRID_CELL, g->L));
  PetscCall(DMDASetFieldName(fl->pda, 0, "cell"));
  PetscCall(DMDAGetCorners(fl->da, &g->xs, &g->ys, NULL, &g->xm, &g->ym, NULL));
  PetscCall(DMDAGetGhostCorners(fl->da, &g->gxs, &g->gys, NULL, &g->gxm, &g->gym, NULL));
  {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(fl->comm, &size));
    fl->serial_periodic = (PetscBool)(size == 1 && dmbc[0] == DM_BOUNDARY_PERIODIC && dmbc[1] == DM_BOUNDARY_PERIODIC &&
                                      g->gxs == -1 && g->gxm == g->M[0] + 2 && g->gys == -1 && g->gym == g->M[1] + 2);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidSetUpPhysics - viscosity (directly or from a Reynolds number), initial condition and
    pressure solver choice. Collective. @*/
PetscErrorCode FluidSetUpPhysics(Fluid fl)
{
  PetscReal re = 0, uref = 0, lref = fl->grid.L[0];
  PetscBool set_nu = PETSC_FALSE, set_re = PETSC_FALSE;
  PetscInt  initial = FLUID_INITIAL_ZERO, poisson = FLUID_POISSON_AUTO;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < FLUID_DIM; d++)
    for (PetscInt s = 0; s < 2; s++) uref = PetscMax(uref, PetscAbsReal(fl->grid.bc[d][s].velocity));
  fl->nu           = 1e-2;
  fl->tg_amplitude = 1.0;
  if (uref == 0) uref = 1.0;
  PetscCall(PetscStrncpy(fl->initial_dset[0], "/restart/u", sizeof(fl->initial_dset[0])));
  PetscCall(PetscStrncpy(fl->initial_dset[1], "/restart/v", sizeof(fl->initial_dset[1])));
  PetscCall(PetscStrncpy(fl->fftw_wisdom, "fftw.wisdom", sizeof(fl->fftw_wisdom)));
  PetscOptionsBegin(fl->comm, fl->prefix, "Fluid: physics and pressure solver", "Fluid");
  PetscCall(PetscOptionsReal("-fluid_nu", "Kinematic viscosity [m^2/s]", "", fl->nu, &fl->nu, &set_nu));
  PetscCall(PetscOptionsReal("-fluid_re",
                             "Reynolds number U L / nu (sets nu from -fluid_re_velocity and -fluid_re_length)", "", re,
                             &re, &set_re));
  PetscCall(PetscOptionsReal("-fluid_re_velocity",
                             "Velocity scale U of -fluid_re [m/s] (default: the largest boundary speed, or 1)", "",
                             uref, &uref, NULL));
  PetscCall(
      PetscOptionsReal("-fluid_re_length", "Length scale L of -fluid_re [m] (default: Lx)", "", lref, &lref, NULL));
  PetscCall(PetscOptionsEList(
      "-fluid_initial", "Initial velocity: zero, taylor-green, or file (face velocities u, v of an earlier fluid run)",
      "", FluidInitialTypes, 3, FluidInitialTypes[initial], &initial, NULL));
  PetscCall(PetscOptionsReal("-fluid_tg_amplitude",
                             "Taylor-Green amplitude A [m/s]: u = A sin(2 pi x/Lx) cos(2 pi y/Ly)", "",
                             fl->tg_amplitude, &fl->tg_amplitude, NULL));
  PetscCall(PetscOptionsString(
      "-fluid_initial_file",
      "HDF5 file with the initial face velocities (e.g. a run or restart file of an earlier fluid run)", "",
      fl->initial_file, fl->initial_file, sizeof(fl->initial_file), NULL));
  PetscCall(PetscOptionsString("-fluid_initial_u_dataset", "Dataset of the x-face velocity u [m/s] in that file", "",
                               fl->initial_dset[0], fl->initial_dset[0], sizeof(fl->initial_dset[0]), NULL));
  PetscCall(PetscOptionsString("-fluid_initial_v_dataset", "Dataset of the y-face velocity v [m/s] in that file", "",
                               fl->initial_dset[1], fl->initial_dset[1], sizeof(fl->initial_dset[1]), NULL));
  PetscCall(PetscOptionsBool("-fluid_output_faces",
                             "Also write the face velocities u_face, v_face (the state itself, as /restart/u, v) at "
                             "every output step, for -transport_velocity fluid -transport_velocity_unsteady",
                             "", fl->output_faces, &fl->output_faces, NULL));
  PetscCall(PetscOptionsBool("-fluid_fftw_measure",
                             "FFTW plans chosen by timing (FFTW_MEASURE: faster solves); the plans are stored in and "
                             "read from the wisdom file -fluid_fftw_wisdom, so that later runs and restarts use the "
                             "same plans and give the same results bit for bit",
                             "", fl->fftw_measure, &fl->fftw_measure, NULL));
  PetscCall(PetscOptionsString("-fluid_fftw_wisdom",
                               "FFTW wisdom file of -fluid_fftw_measure: read (rank 0) before planning when it "
                               "exists, written after (the plans measured by the first run, kept for every later run "
                               "and restart that uses the same file)",
                               "", fl->fftw_wisdom, fl->fftw_wisdom, sizeof(fl->fftw_wisdom), NULL));
  PetscCall(
      PetscOptionsEnum("-fluid_fftw_y",
                       "How the fftw pressure solver treats y: auto (tridiagonal unless y is periodic), transform "
                       "(2D FFTW-MPI transforms), tridiagonal (x transforms, then one tridiagonal solve per x mode "
                       "along y: the same answer to round-off, faster, and no transposes across ranks)",
                       "", AdjFFTYMethods, (PetscEnum)fl->fftw_y, (PetscEnum *)&fl->fftw_y, NULL));
  PetscCall(PetscOptionsEList(
      "-fluid_poisson",
      "Pressure solver: auto (= fftw), fftw (exact: DFT/DCT/DST in x, tridiagonal solves or transforms in y, see "
      "-fluid_fftw_y), ksp (CG + GAMG)",
      "", FluidPoissonTypes, 3, FluidPoissonTypes[poisson], &poisson, NULL));
  PetscOptionsEnd();
  PetscCheck(!(set_nu && set_re), fl->comm, PETSC_ERR_USER_INPUT, "Give either -fluid_nu or -fluid_re, not both");
  if (set_re) { /* inf would give nu = 0 silently */
    PetscCheck(re > 0 && uref > 0 && lref > 0, fl->comm, PETSC_ERR_USER_INPUT,
               "-fluid_re %g with -fluid_re_velocity %g m/s, -fluid_re_length %g m: all must be > 0", (double)re,
               (double)uref, (double)lref);
    PetscCall(AdjCheckRealOption(fl->comm, "-fluid_re", re, ADJ_REAL_POSITIVE, NULL));
    PetscCall(AdjCheckRealOption(fl->comm, "-fluid_re_velocity", uref, ADJ_REAL_POSITIVE, "m/s"));
    PetscCall(AdjCheckRealOption(fl->comm, "-fluid_re_length", lref, ADJ_REAL_POSITIVE, "m"));
    fl->nu = uref * lref / re;
  }
  PetscCall(AdjCheckRealOption(fl->comm, "-fluid_tg_amplitude", fl->tg_amplitude, ADJ_REAL_FINITE, "m/s"));
  PetscCheck(fl->nu >= 0 && PetscIsNormalReal(fl->nu + 1), fl->comm, PETSC_ERR_USER_INPUT,
             "-fluid_nu must be a finite value >= 0, got %g m^2/s", (double)fl->nu);
  fl->initial = (FluidInitialType)initial;
  fl->poisson = (FluidPoissonType)poisson;
  PetscCheck(fl->initial != FLUID_INITIAL_FILE || fl->initial_file[0], fl->comm, PETSC_ERR_USER_INPUT,
             "-fluid_initial file needs -fluid_initial_file <path>");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidSetUpTime - the time axis (AdjTimeAxis: -fluid_final_time, -fluid_dt, -fluid_steps, -fluid_cfl) with
    the stability limit of SSP-RK3; the velocity scale of the limit is the largest of the initial field, the
    boundary speeds (inflow peak) and -fluid_velocity_scale. Collective. @*/
PetscErrorCode FluidSetUpTime(Fluid fl)
{
  PetscReal   umax, vmax, uscale = 0;
  Vec         x0;
  AdjTimeAxis ta;
  char        detail[512];

  PetscFunctionBeginUser;
  fl->blowup_cfl = 2.5;
  PetscCall(AdjTimeAxisCreate(fl->comm, &ta));
  PetscCall(AdjTimeAxisSetOptionsPrefix(ta, fl->prefix, "fluid"));
  PetscCall(AdjTimeAxisSetDefaults(ta, 1.0, 0.8));
  PetscOptionsBegin(fl->comm, fl->prefix, "Fluid: time stepping", "Fluid");
  PetscCall(AdjTimeAxisSetFromOptions(ta, PetscOptionsObject));
  PetscCall(PetscOptionsReal(
      "-fluid_velocity_scale",
      "Velocity [m/s] the stability limit must allow at least (added safety for flows that speed up; with "
      "an immersed body at least twice the largest boundary speed)",
      "", uscale, &uscale, NULL));
  PetscCall(
      PetscOptionsReal("-fluid_blowup_cfl",
                       "Stop the run when the advective Courant number dt (|u|/hx + |v|/hy) of the state exceeds this",
                       "", fl->blowup_cfl, &fl->blowup_cfl, NULL));
  PetscOptionsEnd();
  PetscCall(AdjCheckRealOption(fl->comm, "-fluid_velocity_scale", uscale, ADJ_REAL_NONNEGATIVE, "m/s"));
  PetscCall(AdjCheckRealOption(fl->comm, "-fluid_blowup_cfl", fl->blowup_cfl, ADJ_REAL_POSITIVE, NULL));
  PetscCall(AdjTimeAxisGetFinalTime(ta, &fl->final_time));
  PetscCall(AdjTimeAxisGetCFL(ta, &fl->cfl));
  PetscCall(DMCreateGlobalVector(fl->da, &x0));
  PetscCall(FluidFillInitial(fl, x0));
  PetscCall(FluidMaxVelocity(fl, x0, &umax, &vmax));
  PetscCall(VecDestroy(&x0));
  for (PetscInt d = 0; d < FLUID_DIM; d++)
    for (PetscInt s = 0; s < 2; s++) {
      const PetscReal b =
          PetscAbsReal(fl->grid.bc[d][s].velocity) * (fl->grid.bc[d][s].profile == FLUID_PROFILE_PARABOLIC ? 1.5 : 1.0);
      umax = PetscMax(umax, b), vmax = PetscMax(vmax, b);
    }
  { /* flow speeds up around an immersed body: up to twice the free stream past a circle */
    char      body[32] = "none";
    PetscBool set;
    PetscReal b = 0;
    PetscCall(PetscOptionsGetString(NULL, fl->prefix, "-fluid_body", body, sizeof(body), &set));
    PetscCall(PetscStrcmp(body, "none", &set));
    if (!set)
      for (PetscInt d = 0; d < FLUID_DIM; d++)
        for (PetscInt s = 0; s < 2; s++) b = PetscMax(b, 2 * PetscAbsReal(fl->grid.bc[d][s].velocity));
    uscale = PetscMax(uscale, b);
  }
  umax = PetscMax(umax, uscale), vmax = PetscMax(vmax, uscale);
  PetscCall(FluidStabilityLimit(&fl->grid, fl->nu, umax, vmax, &fl->dt_limit));
  PetscCall(PetscSNPrintf(
      detail, sizeof(detail),
      " of SSP-RK3 with centred advection and explicit diffusion (max |u| %g, max |v| %g m/s, nu %g m^2/s, h %g x %g "
      "m; advective limit alone %g s, viscous limit alone %g s)",
      (double)umax, (double)vmax, (double)fl->nu, (double)fl->grid.h[0], (double)fl->grid.h[1],
      (double)(PetscSqrtReal(3.0) / (umax / fl->grid.h[0] + vmax / fl->grid.h[1] + PETSC_SMALL)),
      (double)(2.51 / (4 * fl->nu * (1 / (fl->grid.h[0] * fl->grid.h[0]) + 1 / (fl->grid.h[1] * fl->grid.h[1])) +
                       PETSC_SMALL))));
  PetscCall(AdjTimeAxisSetLimit(ta, ADJ_TIME_LIMIT_STABILITY, fl->dt_limit, "stability limit", detail));
  PetscCall(AdjTimeAxisSetUp(ta));
  PetscCall(AdjTimeAxisGetSteps(ta, &fl->nsteps, &fl->dt));
  PetscCall(AdjTimeAxisDestroy(&ta));
  fl->uscale = PetscMax(PetscMax(umax, vmax), PETSC_SMALL);
  PetscFunctionReturn(PETSC_SUCCESS);
}
