/* Scalar transport: reading the case from the options database and building grid, velocity,
 * parameters and time step.  Every option is documented by its help string (adjsim -help). */
#include "transportimpl.h"
#include <adjsim/grid.h>
#include <adjsim/io.h>
#include <adjsim/timeaxis.h>
#include <adjsim/optcheck.h>

static const char *const TransportBCTypes[] = {"periodic",        "dirichlet",     "neumann",
                                               "TransportBCType", "TRANSPORT_BC_", NULL};

/*@ TransportSetUpGrid - DMDA of M[0] x M[1] cells on [0,L[0]] x [0,L[1]], ghosted boundaries where not periodic. @*/
PetscErrorCode TransportSetUpGrid(Transport tr)
{
  PetscInt    cells[2] = {64, 64};
  PetscReal   len[2] = {1.0, 1.0}, bval[2][2] = {{0, 0}, {0, 0}};
  PetscInt    bc[2]          = {TRANSPORT_BC_PERIODIC, TRANSPORT_BC_PERIODIC};
  const char *sidename[2][2] = {{"-transport_bc_xlo", "-transport_bc_xhi"}, {"-transport_bc_ylo", "-transport_bc_yhi"}};
  TransportGrid *g           = &tr->grid;
  DMBoundaryType dmbc[TRANSPORT_DIM];

  PetscFunctionBeginUser;
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: grid and boundaries", "Transport");
  PetscCall(
      AdjGridBoxOptions(PetscOptionsObject, tr->comm, "transport", "Cells in x and y", TRANSPORT_DIM, cells, len));
  PetscCall(PetscOptionsEList("-transport_bc_x", "Boundary type at x = 0 and x = Lx", "", TransportBCTypes, 3,
                              TransportBCTypes[bc[0]], &bc[0], NULL));
  PetscCall(PetscOptionsEList("-transport_bc_y", "Boundary type at y = 0 and y = Ly", "", TransportBCTypes, 3,
                              TransportBCTypes[bc[1]], &bc[1], NULL));
  for (PetscInt d = 0; d < 2; d++)
    for (PetscInt s = 0; s < 2; s++)
      PetscCall(PetscOptionsReal(
          sidename[d][s],
          "Boundary value on that side: the scalar for dirichlet, its outward normal derivative [1/m] for neumann", "",
          bval[d][s], &bval[d][s], NULL));
  PetscOptionsEnd();
  for (PetscInt d = 0; d < 2; d++)
    for (PetscInt s = 0; s < 2; s++)
      PetscCall(AdjCheckRealOption(tr->comm, sidename[d][s], bval[d][s], ADJ_REAL_FINITE, NULL));
  /* about 320 bytes per cell: the max RSS of forward runs on 256^2 and 1024^2 cells grows by that */
  PetscCall(AdjGridBoxSetUp(tr->comm, "transport", TRANSPORT_DIM, cells, len, "cell", (PetscInt64)cells[0] * cells[1],
                            1, 320, g->M, g->L, g->h));
  for (PetscInt d = 0; d < TRANSPORT_DIM; d++)
    dmbc[d] = bc[d] == TRANSPORT_BC_PERIODIC ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
  PetscCall(
      AdjGridCreateDMDA(tr->comm, TRANSPORT_DIM, g->M, dmbc, ADJ_GRID_CELL, 1, DMDA_STENCIL_STAR, 1, g->L, &tr->da));
  PetscCall(DMDASetFieldName(tr->da, 0, "c"));
  PetscCall(DMDAGetCorners(tr->da, &g->xs, &g->ys, NULL, &g->xm, &g->ym, NULL));
  for (PetscInt d = 0; d < TRANSPORT_DIM; d++) {
    const PetscReal h     = g->h[d];
    tr->bctype[d]         = (TransportBCType)bc[d];
    tr->crule.periodic[d] = (PetscBool)(bc[d] == TRANSPORT_BC_PERIODIC);
    tr->krule.periodic[d] = tr->crule.periodic[d];
    for (PetscInt s = 0; s < 2; s++) {
      tr->crule.sigma[d][s] = bc[d] == TRANSPORT_BC_DIRICHLET ? -1.0 : 1.0;
      tr->crule.beta[d][s]  = bc[d] == TRANSPORT_BC_DIRICHLET ? 2.0 * bval[d][s] : h * bval[d][s];
      tr->krule.sigma[d][s] = 1.0;
      tr->krule.beta[d][s]  = 0.0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Face values of a cell-centred field held in a ghosted local vector (mirror ghosts): face
 * velocity = mean of the two adjacent cells. */
static PetscErrorCode TransportFacesFromCells(Transport tr, Vec ucell, Vec vcell)
{
  TransportGrid      *g = &tr->grid;
  Vec                 ul, vl;
  const PetscScalar **u, **v;
  PetscScalar       **a;

  PetscFunctionBeginUser;
  PetscCall(DMGetLocalVector(tr->da, &ul));
  PetscCall(DMGetLocalVector(tr->da, &vl));
  PetscCall(DMGlobalToLocal(tr->da, ucell, INSERT_VALUES, ul));
  PetscCall(DMGlobalToLocal(tr->da, vcell, INSERT_VALUES, vl));
  PetscCall(DMDAVecGetArray(tr->da, ul, &a));
  PetscCall(TransportFillGhosts(g, &tr->krule, PETSC_TRUE, a));
  PetscCall(DMDAVecRestoreArray(tr->da, ul, &a));
  PetscCall(DMDAVecGetArray(tr->da, vl, &a));
  PetscCall(TransportFillGhosts(g, &tr->krule, PETSC_TRUE, a));
  PetscCall(DMDAVecRestoreArray(tr->da, vl, &a));
  PetscCall(DMDAVecGetArrayRead(tr->da, ul, &u));
  PetscCall(DMDAVecGetArrayRead(tr->da, vl, &v));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i <= g->xs + g->xm; i++)
      tr->vel.u[(j - g->ys) * (g->xm + 1) + i - g->xs] = 0.5 * (u[j][i - 1] + u[j][i]);
  for (PetscInt j = g->ys; j <= g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++)
      tr->vel.v[(j - g->ys) * g->xm + i - g->xs] = 0.5 * (v[j - 1][i] + v[j][i]);
  PetscCall(DMDAVecRestoreArrayRead(tr->da, ul, &u));
  PetscCall(DMDAVecRestoreArrayRead(tr->da, vl, &v));
  PetscCall(DMRestoreLocalVector(tr->da, &ul));
  PetscCall(DMRestoreLocalVector(tr->da, &vl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cell-centred velocity (mean of the two faces) for output, so a later run can read it back. */
static PetscErrorCode TransportCellsFromFaces(Transport tr)
{
  TransportGrid *g = &tr->grid;
  PetscScalar  **u, **v;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &tr->vel_u));
  PetscCall(DMCreateGlobalVector(tr->da, &tr->vel_v));
  PetscCall(DMDAVecGetArray(tr->da, tr->vel_u, &u));
  PetscCall(DMDAVecGetArray(tr->da, tr->vel_v, &v));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscInt fu = (j - g->ys) * (g->xm + 1) + i - g->xs, fv = (j - g->ys) * g->xm + i - g->xs;
      u[j][i] = 0.5 * (tr->vel.u[fu] + tr->vel.u[fu + 1]);
      v[j][i] = 0.5 * (tr->vel.v[fv] + tr->vel.v[fv + g->xm]);
    }
  PetscCall(DMDAVecRestoreArray(tr->da, tr->vel_u, &u));
  PetscCall(DMDAVecRestoreArray(tr->da, tr->vel_v, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum { VELOCITY_UNIFORM, VELOCITY_ROTATION, VELOCITY_FILE, VELOCITY_FLUID } TransportVelocityType;
static const char *const TransportVelocityTypes[] = {"uniform",   "rotation", "file", "fluid", "TransportVelocityType",
                                                     "VELOCITY_", NULL};

/* Face velocities of a fluid run: its restart state /restart/u (the left x-face of each cell) and
 * /restart/v (the bottom y-face), used as they are, so the transport sees exactly the discretely
 * divergence-free flow the fluid solver computed. */
static PetscErrorCode TransportFacesFromFluid(Transport tr, const char file[])
{
  Vec uf, vf;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(tr->da, &uf));
  PetscCall(DMGetGlobalVector(tr->da, &vf));
  PetscCall(AdjInputReadField(tr->comm, file, "/restart/u", tr->da, uf));
  PetscCall(AdjInputReadField(tr->comm, file, "/restart/v", tr->da, vf));
  PetscCall(TransportFacesFromFluidVecs(tr, uf, vf, tr->vel.u, tr->vel.v));
  PetscCall(DMRestoreGlobalVector(tr->da, &uf));
  PetscCall(DMRestoreGlobalVector(tr->da, &vf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Analytic face velocities: uniform (ux,uy) or solid-body rotation u = -w (y - yc), v = w (x - xc),
 * both exactly divergence-free on the staggered faces. */
static PetscErrorCode TransportAnalyticFaces(Transport tr, PetscInt type, const PetscReal uni[2], PetscReal omega,
                                             const PetscReal ctr[2])
{
  TransportGrid *g = &tr->grid;

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i <= g->xs + g->xm; i++) {
      const PetscReal y                                = (j + 0.5) * g->h[1];
      tr->vel.u[(j - g->ys) * (g->xm + 1) + i - g->xs] = type == VELOCITY_UNIFORM ? uni[0] : -omega * (y - ctr[1]);
    }
  for (PetscInt j = g->ys; j <= g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscReal x                          = (i + 0.5) * g->h[0];
      tr->vel.v[(j - g->ys) * g->xm + i - g->xs] = type == VELOCITY_UNIFORM ? uni[1] : omega * (x - ctr[0]);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportSetUpVelocity - the prescribed velocity on the cell faces: steady, or (a fluid run's
    output steps) unsteady. @*/
PetscErrorCode TransportSetUpVelocity(Transport tr)
{
  TransportGrid *g    = &tr->grid;
  PetscInt       type = VELOCITY_UNIFORM, n = 2;
  PetscBool      unsteady = PETSC_FALSE;
  PetscReal      uni[2] = {1.0, 0.0}, omega = 2 * PETSC_PI, ctr[2] = {0.5 * g->L[0], 0.5 * g->L[1]}, lmax[2] = {0, 0};
  char           file[PETSC_MAX_PATH_LEN] = "", dset[2][256] = {"/parameters/velocity_u", "/parameters/velocity_v"};

  PetscFunctionBeginUser;
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: prescribed velocity", "Transport");
  PetscCall(
      PetscOptionsEList("-transport_velocity",
                        "Velocity field: uniform, rotation (solid body), file (cell-centred velocities), or fluid "
                        "(the face velocities of a fluid run's final state: -transport_velocity_file <run file>)",
                        "", TransportVelocityTypes, 4, TransportVelocityTypes[type], &type, NULL));
  PetscCall(PetscOptionsRealArray("-transport_velocity_uniform", "Uniform velocity ux,uy [m/s]", "", uni, &n, NULL));
  PetscCall(PetscOptionsReal("-transport_rotation_omega", "Angular velocity of solid-body rotation [rad/s]", "", omega,
                             &omega, NULL));
  n = 2;
  PetscCall(PetscOptionsRealArray("-transport_rotation_center", "Centre of rotation x,y [m]", "", ctr, &n, NULL));
  PetscCall(PetscOptionsString(
      "-transport_velocity_file",
      "HDF5 file with cell-centred velocity components [m/s] on the run's grid (e.g. a run file of an earlier run)", "",
      file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsString("-transport_velocity_u_dataset", "Dataset of the x velocity in that file", "", dset[0],
                               dset[0], sizeof(dset[0]), NULL));
  PetscCall(PetscOptionsString("-transport_velocity_v_dataset", "Dataset of the y velocity in that file", "", dset[1],
                               dset[1], sizeof(dset[1]), NULL));
  PetscCall(PetscOptionsBool("-transport_velocity_unsteady",
                             "With -transport_velocity fluid: the flow of every output step of the fluid run (written "
                             "with -fluid_output_faces), linear in time between them, instead of its final state",
                             "", unsteady, &unsteady, NULL));
  PetscOptionsEnd();
  PetscCall(AdjCheckRealOptionArray(tr->comm, "-transport_velocity_uniform", 2, uni, ADJ_REAL_FINITE, "m/s"));
  PetscCall(AdjCheckRealOption(tr->comm, "-transport_rotation_omega", omega, ADJ_REAL_FINITE, "rad/s"));
  PetscCall(AdjCheckRealOptionArray(tr->comm, "-transport_rotation_center", 2, ctr, ADJ_REAL_FINITE, "m"));
  PetscCheck(!unsteady || type == VELOCITY_FLUID, tr->comm, PETSC_ERR_USER_INPUT,
             "-transport_velocity_unsteady needs -transport_velocity fluid, not %s", TransportVelocityTypes[type]);
  PetscCall(PetscMalloc2((g->xm + 1) * g->ym, &tr->vel.u, g->xm * (g->ym + 1), &tr->vel.v));
  if (type == VELOCITY_FLUID) {
    PetscCheck(file[0], tr->comm, PETSC_ERR_USER_INPUT,
               "-transport_velocity fluid needs -transport_velocity_file <fluid run or restart file>");
    if (unsteady)
      PetscCall(TransportSetUpUnsteadyVelocity(tr, file));
    else
      PetscCall(TransportFacesFromFluid(tr, file));
  } else if (type == VELOCITY_FILE) {
    Vec ucell, vcell;
    PetscCheck(file[0], tr->comm, PETSC_ERR_USER_INPUT,
               "-transport_velocity file needs -transport_velocity_file <path>");
    PetscCall(DMCreateGlobalVector(tr->da, &ucell));
    PetscCall(DMCreateGlobalVector(tr->da, &vcell));
    PetscCall(AdjInputReadField(tr->comm, file, dset[0], tr->da, ucell));
    PetscCall(AdjInputReadField(tr->comm, file, dset[1], tr->da, vcell));
    PetscCall(TransportFacesFromCells(tr, ucell, vcell));
    PetscCall(VecDestroy(&ucell));
    PetscCall(VecDestroy(&vcell));
  } else
    PetscCall(TransportAnalyticFaces(tr, type, uni, omega, ctr));
  for (PetscInt f = 0; f < (g->xm + 1) * g->ym; f++) lmax[0] = PetscMax(lmax[0], PetscAbsReal(tr->vel.u[f]));
  for (PetscInt f = 0; f < g->xm * (g->ym + 1); f++) lmax[1] = PetscMax(lmax[1], PetscAbsReal(tr->vel.v[f]));
  PetscCall(TransportUnsteadyLocalMax(tr, lmax));
  PetscCall(TransportCellsFromFaces(tr));
  PetscCallMPI(MPI_Allreduce(lmax, &tr->vel.umax, 1, MPIU_REAL, MPIU_MAX, tr->comm));
  PetscCallMPI(MPI_Allreduce(&lmax[1], &tr->vel.vmax, 1, MPIU_REAL, MPIU_MAX, tr->comm));
  PetscCheck(PetscIsNormalReal(tr->vel.umax + tr->vel.vmax) || tr->vel.umax + tr->vel.vmax == 0, tr->comm,
             PETSC_ERR_USER_INPUT, "Velocity field contains NaN or Inf (-transport_velocity %s)",
             TransportVelocityTypes[type]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sum of Gaussian blobs  sum_b amp_b exp(-|x - x_b|^2 / (2 sigma_b^2)), periodic images ignored. */
static PetscErrorCode TransportBlobs(Transport tr, PetscInt n, const PetscReal blobs[], Vec f)
{
  TransportGrid *g = &tr->grid;
  PetscScalar  **a;

  PetscFunctionBeginUser;
  PetscCall(DMDAVecGetArray(tr->da, f, &a));
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++)
    for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
      const PetscReal x = (i + 0.5) * g->h[0], y = (j + 0.5) * g->h[1];
      a[j][i] = 0;
      for (PetscInt b = 0; b + 3 < n; b += 4) {
        const PetscReal dx = x - blobs[b], dy = y - blobs[b + 1], s = blobs[b + 2];
        a[j][i] += blobs[b + 3] * PetscExpReal(-(dx * dx + dy * dy) / (2 * s * s));
      }
    }
  PetscCall(DMDAVecRestoreArray(tr->da, f, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef enum { FIELD_ZERO, FIELD_GAUSSIAN, FIELD_FILE } TransportFieldType;
static const char *const TransportFieldTypes[] = {"zero", "gaussian", "file", "TransportFieldType", "FIELD_", NULL};

/* A field given as zero, Gaussian blobs or an HDF5 dataset: options -transport_<what>,
 * -transport_<what>_blobs, -transport_<what>_file, -transport_<what>_dataset. */
static PetscErrorCode TransportFieldFromOptions(Transport tr, const char what[], const char units[], PetscInt deftype,
                                                Vec f)
{
  PetscInt  type = deftype, n = 32;
  PetscBool given;
  PetscReal blobs[32] = {0.5 * tr->grid.L[0], 0.5 * tr->grid.L[1], 0.1 * PetscMin(tr->grid.L[0], tr->grid.L[1]), 1.0};
  char      opt[4][64], help[4][256], file[PETSC_MAX_PATH_LEN] = "", dset[256];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(dset, sizeof(dset), "/parameters/%s", what));
  PetscCall(PetscSNPrintf(opt[0], 64, "-transport_%s", what));
  PetscCall(PetscSNPrintf(opt[1], 64, "-transport_%s_blobs", what));
  PetscCall(PetscSNPrintf(opt[2], 64, "-transport_%s_file", what));
  PetscCall(PetscSNPrintf(opt[3], 64, "-transport_%s_dataset", what));
  PetscCall(PetscSNPrintf(help[0], 256, "Field '%s' [%s]: zero, gaussian (blobs) or file", what, units));
  PetscCall(PetscSNPrintf(
      help[1], 256, "Gaussian blobs of '%s': x,y,sigma,amplitude per blob [m,m,m,%s], up to 8 blobs", what, units));
  PetscCall(PetscSNPrintf(help[2], 256, "HDF5 file holding field '%s' on the run's grid", what));
  PetscCall(PetscSNPrintf(help[3], 256, "Dataset of field '%s' in that file", what));
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: fields", "Transport");
  PetscCall(PetscOptionsEList(opt[0], help[0], "", TransportFieldTypes, 3, TransportFieldTypes[type], &type, NULL));
  PetscCall(PetscOptionsRealArray(opt[1], help[1], "", blobs, &n, &given));
  PetscCall(PetscOptionsString(opt[2], help[2], "", file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsString(opt[3], help[3], "", dset, dset, sizeof(dset), NULL));
  PetscOptionsEnd();
  if (!given) n = 4; /* not given: the default blob (PETSc sets n to 0 for an absent option) */
  PetscCheck(n % 4 == 0, tr->comm, PETSC_ERR_USER_INPUT,
             "%s needs groups of four numbers x,y,sigma,amplitude, got %" PetscInt_FMT, opt[1], n);
  PetscCall(AdjCheckRealOptionArray(tr->comm, opt[1], n, blobs, ADJ_REAL_FINITE, NULL));
  for (PetscInt b = 0; b < n; b += 4)
    PetscCheck(blobs[b + 2] > 0, tr->comm, PETSC_ERR_USER_INPUT, "%s: blob %" PetscInt_FMT " has sigma %g <= 0", opt[1],
               b / 4, (double)blobs[b + 2]);
  if (type == FIELD_ZERO)
    PetscCall(VecSet(f, 0.0));
  else if (type == FIELD_GAUSSIAN)
    PetscCall(TransportBlobs(tr, n, blobs, f));
  else {
    PetscCheck(file[0], tr->comm, PETSC_ERR_USER_INPUT, "%s file needs %s <path>", opt[0], opt[2]);
    PetscCall(AdjInputReadField(tr->comm, file, dset, tr->da, f));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportSetUpParameters - initial field, diffusivity (constant or field) and source. @*/
PetscErrorCode TransportSetUpParameters(Transport tr)
{
  PetscReal kappa                     = 1e-3, kmin;
  char      kfile[PETSC_MAX_PATH_LEN] = "", kdset[256] = "/parameters/kappa";
  PetscInt  loc;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(tr->da, &tr->c0));
  PetscCall(VecDuplicate(tr->c0, &tr->kappa));
  PetscCall(VecDuplicate(tr->c0, &tr->source));
  PetscCall(TransportFieldFromOptions(tr, "initial", "1", FIELD_GAUSSIAN, tr->c0));
  PetscCall(TransportFieldFromOptions(tr, "source", "1/s", FIELD_ZERO, tr->source));
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: diffusivity", "Transport");
  PetscCall(PetscOptionsReal("-transport_kappa", "Constant diffusivity [m^2/s] (a parameter with a gradient)", "",
                             kappa, &kappa, NULL));
  PetscCall(PetscOptionsString("-transport_kappa_file",
                               "HDF5 file with a diffusivity field [m^2/s]: makes kappa a field parameter", "", kfile,
                               kfile, sizeof(kfile), NULL));
  PetscCall(PetscOptionsString("-transport_kappa_dataset", "Dataset of the diffusivity field in that file", "", kdset,
                               kdset, sizeof(kdset), NULL));
  PetscOptionsEnd();
  tr->kappa_is_field = (PetscBool)(kfile[0] != 0);
  if (tr->kappa_is_field)
    PetscCall(AdjInputReadField(tr->comm, kfile, kdset, tr->da, tr->kappa));
  else {
    PetscCheck(kappa >= 0 && PetscIsNormalReal(kappa + 1), tr->comm, PETSC_ERR_USER_INPUT,
               "-transport_kappa must be a finite value >= 0, got %g", (double)kappa);
    PetscCall(VecSet(tr->kappa, kappa));
  }
  PetscCall(VecMin(tr->kappa, &loc, &kmin));
  PetscCheck(kmin >= 0, tr->comm, PETSC_ERR_USER_INPUT,
             "Diffusivity field from %s:%s is negative (%g at index %" PetscInt_FMT ")", kfile, kdset, (double)kmin,
             loc);
  PetscCall(VecDuplicate(tr->c0, &tr->gc0));
  PetscCall(VecDuplicate(tr->c0, &tr->gkappa));
  PetscCall(VecDuplicate(tr->c0, &tr->gsource));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Centred advection oscillates where a boundary layer thinner than a cell forms: at a Dirichlet
 * side that the flow leaves with cell Peclet number u_n h / kappa > 2.  Warn, naming the side. */
PetscErrorCode TransportCheckBoundaryPeclet(Transport tr)
{
  const char    *side[2][2] = {{"x = 0 (-transport_bc_xlo)", "x = Lx (-transport_bc_xhi)"},
                               {"y = 0 (-transport_bc_ylo)", "y = Ly (-transport_bc_yhi)"}};
  TransportGrid *g          = &tr->grid;
  PetscReal      out[4]     = {0, 0, 0, 0}, gout[4], kmin;

  PetscFunctionBeginUser;
  for (PetscInt j = g->ys; j < g->ys + g->ym; j++) { /* outward normal velocity on x sides */
    if (g->xs == 0) out[0] = PetscMax(out[0], -tr->vel.u[(j - g->ys) * (g->xm + 1)]);
    if (g->xs + g->xm == g->M[0]) out[1] = PetscMax(out[1], tr->vel.u[(j - g->ys) * (g->xm + 1) + g->xm]);
  }
  for (PetscInt i = g->xs; i < g->xs + g->xm; i++) {
    if (g->ys == 0) out[2] = PetscMax(out[2], -tr->vel.v[i - g->xs]);
    if (g->ys + g->ym == g->M[1]) out[3] = PetscMax(out[3], tr->vel.v[g->ym * g->xm + i - g->xs]);
  }
  PetscCallMPI(MPI_Allreduce(out, gout, 4, MPIU_REAL, MPIU_MAX, tr->comm));
  PetscCall(VecMin(tr->kappa, NULL, &kmin));
  for (PetscInt d = 0; d < TRANSPORT_DIM; d++) {
    const PetscReal h = g->h[d];
    if (tr->bctype[d] != TRANSPORT_BC_DIRICHLET) continue;
    for (PetscInt sd = 0; sd < 2; sd++) {
      const PetscReal un = gout[2 * d + sd], pe = kmin > 0 ? un * h / kmin : PETSC_INFINITY;
      if (un > 0 && pe > 2)
        PetscCall(PetscPrintf(tr->comm,
                              "adjsim: warning: the flow leaves through the Dirichlet boundary at %s with cell Peclet "
                              "number %.3g > 2 (|u_n| %g m/s, h %g m, kappa %g m^2/s): centred advection will "
                              "oscillate there; refine the grid, or use a neumann (outflow) boundary\n",
                              side[d][sd], (double)pe, (double)un, (double)h, (double)kmin));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportSetUpTime - the time axis (AdjTimeAxis: -transport_final_time, -transport_dt, -transport_steps,
    -transport_cfl) with the stability limit of SSP-RK3 in the diffusion mode. @*/
PetscErrorCode TransportSetUpTime(Transport tr)
{
  PetscReal   kmax;
  AdjTimeAxis ta;
  char        detail[512];

  PetscFunctionBeginUser;
  PetscCall(AdjTimeAxisCreate(tr->comm, &ta));
  PetscCall(AdjTimeAxisSetOptionsPrefix(ta, tr->prefix, "transport"));
  PetscCall(AdjTimeAxisSetDefaults(ta, 1.0, 0.9));
  PetscOptionsBegin(tr->comm, tr->prefix, "Scalar transport: time stepping", "Transport");
  PetscCall(AdjTimeAxisSetFromOptions(ta, PetscOptionsObject));
  PetscOptionsEnd();
  PetscCall(AdjTimeAxisGetFinalTime(ta, &tr->final_time));
  PetscCall(AdjTimeAxisGetCFL(ta, &tr->cfl));
  PetscCall(TransportStabilityLimit(tr, &tr->dt_limit));
  PetscCall(VecMax(tr->kappa, NULL, &kmax));
  PetscCall(PetscSNPrintf(detail, sizeof(detail),
                          " of SSP-RK3 with centred fluxes in -transport_diffusion %s mode (%s; max |u| %g, max |v| %g "
                          "m/s, max kappa %g m^2/s, h %g x %g m)",
                          TransportDiffusionModes[tr->impl.mode],
                          tr->impl.mode == TRANSPORT_DIFFUSION_IMPLICIT
                              ? "advection only: diffusion is implicit"
                              : "advection and diffusion; -transport_diffusion implicit removes the diffusion limit",
                          (double)tr->vel.umax, (double)tr->vel.vmax, (double)kmax, (double)tr->grid.h[0],
                          (double)tr->grid.h[1]));
  PetscCall(AdjTimeAxisSetLimit(ta, ADJ_TIME_LIMIT_STABILITY, tr->dt_limit, "stability limit", detail));
  PetscCall(AdjTimeAxisSetUp(ta));
  PetscCall(AdjTimeAxisGetSteps(ta, &tr->nsteps, &tr->dt));
  PetscCall(AdjTimeAxisDestroy(&ta));
  PetscCall(TransportCheckUnsteadyTime(tr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
