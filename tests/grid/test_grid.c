/* AdjGridCreateDMDA and AdjGridSetUniformCoordinates: for 2-D and 3-D grids, cell- and node-centred,
 * with periodic, ghosted and plain boundaries, the DMDA has the expected points per direction, dof,
 * stencil type and width and boundary types; it is partitioned exactly as DMDACreate2d / DMDACreate3d
 * with PETSC_DECIDE partitions it (same process grid, same ownership ranges); and every owned point
 * has the coordinate (i + 1/2) h (cells) or i h (nodes), h = L / cells, to round-off.  A dimension
 * other than 2 or 3 is refused. */
#include <adjsim/grid.h>
#include "adjtest.h"

typedef struct {
  const char     *label;
  PetscInt        dim, cells[3], dof, width;
  DMBoundaryType  bc[3];
  AdjGridCentring centring;
  DMDAStencilType stencil;
  PetscReal       L[3];
  PetscBool       coordinates;
} GridCase;

static const char *StencilName(DMDAStencilType st)
{
  return st == DMDA_STENCIL_STAR ? "star" : st == DMDA_STENCIL_BOX ? "box" : "unknown";
}

static PetscErrorCode Fail(PetscInt *fail, const char *label, const char *what)
{
  PetscFunctionBeginUser;
  (*fail)++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s\n", label, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reference: the same DMDA made directly, with PETSc's default process grid. */
static PetscErrorCode ReferenceDMDA(const GridCase *c, const PetscInt n[], DM *da)
{
  PetscFunctionBeginUser;
  if (c->dim == 2)
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, c->bc[0], c->bc[1], c->stencil, n[0], n[1], PETSC_DECIDE, PETSC_DECIDE,
                           c->dof, c->width, NULL, NULL, da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, c->bc[0], c->bc[1], c->bc[2], c->stencil, n[0], n[1], n[2], PETSC_DECIDE,
                           PETSC_DECIDE, PETSC_DECIDE, c->dof, c->width, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Largest |x - expected| over the owned points and directions, relative to the box length. */
static PetscErrorCode CoordinateError(DM da, const GridCase *c, PetscReal *err)
{
  DM        cda;
  Vec       x;
  PetscInt  s[3] = {0, 0, 0}, m[3] = {1, 1, 1};
  PetscReal h[3], local            = 0;

  PetscFunctionBeginUser;
  PetscCall(DMGetCoordinateDM(da, &cda));
  PetscCall(DMGetCoordinates(da, &x));
  PetscCall(DMDAGetCorners(da, &s[0], &s[1], &s[2], &m[0], &m[1], &m[2]));
  for (PetscInt d = 0; d < c->dim; d++) h[d] = c->L[d] / c->cells[d];
  if (c->dim == 2) {
    const DMDACoor2d **a;

    PetscCall(DMDAVecGetArrayRead(cda, x, &a));
    for (PetscInt j = s[1]; j < s[1] + m[1]; j++)
      for (PetscInt i = s[0]; i < s[0] + m[0]; i++) {
        const PetscReal off = c->centring == ADJ_GRID_CELL ? 0.5 : 0.0;
        local               = AdjTestMax(local, PetscAbsReal(a[j][i].x - (i + off) * h[0]) / c->L[0]);
        local               = AdjTestMax(local, PetscAbsReal(a[j][i].y - (j + off) * h[1]) / c->L[1]);
      }
    PetscCall(DMDAVecRestoreArrayRead(cda, x, &a));
  } else {
    const DMDACoor3d ***a;

    PetscCall(DMDAVecGetArrayRead(cda, x, &a));
    for (PetscInt k = s[2]; k < s[2] + m[2]; k++)
      for (PetscInt j = s[1]; j < s[1] + m[1]; j++)
        for (PetscInt i = s[0]; i < s[0] + m[0]; i++) {
          const PetscReal off = c->centring == ADJ_GRID_CELL ? 0.5 : 0.0;
          local               = AdjTestMax(local, PetscAbsReal(a[k][j][i].x - (i + off) * h[0]) / c->L[0]);
          local               = AdjTestMax(local, PetscAbsReal(a[k][j][i].y - (j + off) * h[1]) / c->L[1]);
          local               = AdjTestMax(local, PetscAbsReal(a[k][j][i].z - (k + off) * h[2]) / c->L[2]);
        }
    PetscCall(DMDAVecRestoreArrayRead(cda, x, &a));
  }
  PetscCall(AdjTestGlobalMax(PETSC_COMM_WORLD, local, err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCase(const GridCase *c, PetscInt *fail)
{
  DM              da, ref, cell;
  Vec             x;
  PetscInt        dim, n[3] = {1, 1, 1}, got[3], procs[3], rprocs[3], dof, width, nfail = *fail;
  DMBoundaryType  bc[3];
  DMDAStencilType st;
  const PetscInt *own[3], *rown[3];
  char            msg[256];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < c->dim; d++)
    n[d] = c->centring == ADJ_GRID_NODE && c->bc[d] != DM_BOUNDARY_PERIODIC ? c->cells[d] + 1 : c->cells[d];
  PetscCall(AdjGridCreateDMDA(PETSC_COMM_WORLD, c->dim, c->cells, c->bc, c->centring, c->dof, c->stencil, c->width,
                              c->coordinates ? c->L : NULL, &da));
  PetscCall(ReferenceDMDA(c, n, &ref));

  PetscCall(DMDAGetInfo(da, &dim, &got[0], &got[1], &got[2], &procs[0], &procs[1], &procs[2], &dof, &width, &bc[0],
                        &bc[1], &bc[2], &st));
  PetscCall(
      DMDAGetInfo(ref, NULL, NULL, NULL, NULL, &rprocs[0], &rprocs[1], &rprocs[2], NULL, NULL, NULL, NULL, NULL, NULL));
  if (dim != c->dim) {
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "dimension %" PetscInt_FMT ", expected %" PetscInt_FMT, dim, c->dim));
    PetscCall(Fail(fail, c->label, msg));
  }
  for (PetscInt d = 0; d < c->dim; d++) {
    if (got[d] != n[d]) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg),
                              "%" PetscInt_FMT " points in direction %" PetscInt_FMT ", expected %" PetscInt_FMT,
                              got[d], d, n[d]));
      PetscCall(Fail(fail, c->label, msg));
    }
    if (bc[d] != c->bc[d]) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "boundary %s in direction %" PetscInt_FMT ", expected %s",
                              DMBoundaryTypes[bc[d]], d, DMBoundaryTypes[c->bc[d]]));
      PetscCall(Fail(fail, c->label, msg));
    }
    if (procs[d] != rprocs[d]) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg),
                              "%" PetscInt_FMT " processes in direction %" PetscInt_FMT ", DMDACreate%" PetscInt_FMT
                              "d gives %" PetscInt_FMT,
                              procs[d], d, c->dim, rprocs[d]));
      PetscCall(Fail(fail, c->label, msg));
    }
  }
  if (dof != c->dof || width != c->width || st != c->stencil) {
    PetscCall(PetscSNPrintf(msg, sizeof(msg),
                            "dof %" PetscInt_FMT ", stencil %s of width %" PetscInt_FMT ", expected %" PetscInt_FMT
                            ", %s, %" PetscInt_FMT,
                            dof, StencilName(st), width, c->dof, StencilName(c->stencil), c->width));
    PetscCall(Fail(fail, c->label, msg));
  }
  if (*fail == nfail) { /* same process grid: compare the ownership ranges */
    PetscCall(DMDAGetOwnershipRanges(da, &own[0], &own[1], &own[2]));
    PetscCall(DMDAGetOwnershipRanges(ref, &rown[0], &rown[1], &rown[2]));
    for (PetscInt d = 0; d < c->dim; d++)
      for (PetscInt p = 0; p < procs[d]; p++)
        if (own[d][p] != rown[d][p]) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg),
                                  "process %" PetscInt_FMT " of direction %" PetscInt_FMT " owns %" PetscInt_FMT
                                  " points, DMDACreate%" PetscInt_FMT "d gives %" PetscInt_FMT,
                                  p, d, own[d][p], c->dim, rown[d][p]));
          PetscCall(Fail(fail, c->label, msg));
        }
  }

  PetscCall(DMGetCoordinates(da, &x));
  if (!c->coordinates) {
    if (x) PetscCall(Fail(fail, c->label, "coordinates set although no lengths were given"));
    /* set them afterwards on a compatible one-field DMDA, as the fluid and MPM solvers do */
    PetscCall(DMDACreateCompatibleDMDA(da, 1, &cell));
    PetscCall(AdjGridSetUniformCoordinates(cell, c->centring, c->L));
  } else {
    PetscCall(PetscObjectReference((PetscObject)da));
    cell = da;
  }
  PetscCall(DMGetCoordinates(cell, &x));
  if (!x)
    PetscCall(Fail(fail, c->label, "no coordinates"));
  else {
    PetscReal err = PETSC_MAX_REAL;

    PetscCall(CoordinateError(cell, c, &err));
    if (!(err <= 1e-14)) {
      PetscCall(
          PetscSNPrintf(msg, sizeof(msg), "coordinates off by %.3e of the box length (tolerance 1e-14)", (double)err));
      PetscCall(Fail(fail, c->label, msg));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s %s: %" PetscInt_FMT "-D, points %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT
                        ", process grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT "\n",
                        *fail == nfail ? "ok  " : "FAIL", c->label, c->dim, got[0], got[1], c->dim == 3 ? got[2] : 1,
                        procs[0], procs[1], c->dim == 3 ? procs[2] : 1));
  PetscCall(DMDestroy(&cell));
  PetscCall(DMDestroy(&ref));
  PetscCall(DMDestroy(&da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Dimensions 1 and 4 are refused with PETSC_ERR_ARG_OUTOFRANGE, without creating anything. */
static PetscErrorCode CheckRefusal(PetscInt *fail)
{
  const PetscInt       cells[4] = {8, 8, 8, 8};
  const DMBoundaryType bc[4]    = {DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE};
  const PetscInt       dims[2]  = {1, 4};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    DM             da = NULL;
    PetscErrorCode ierr;
    char           msg[128];

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = AdjGridCreateDMDA(PETSC_COMM_WORLD, dims[k], cells, bc, ADJ_GRID_CELL, 1, DMDA_STENCIL_STAR, 1, NULL, &da);
    PetscCall(PetscPopErrorHandler());
    if (ierr != PETSC_ERR_ARG_OUTOFRANGE || da) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "dimension %" PetscInt_FMT " gave error %d (expected %d)", dims[k],
                              (int)ierr, (int)PETSC_ERR_ARG_OUTOFRANGE));
      PetscCall(Fail(fail, "refusal", msg));
      PetscCall(DMDestroy(&da));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "refusal of dimensions 1 and 4 checked\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const DMBoundaryType P = DM_BOUNDARY_PERIODIC, G = DM_BOUNDARY_GHOSTED, N = DM_BOUNDARY_NONE;
  const GridCase       cases[] = {
            /* transport: cells, star stencil, periodic x, ghosted y */
      {"2d cell periodic-ghosted star",
             2,
             {12, 7, 0},
             1,
             1,
             {P, G, N},
             ADJ_GRID_CELL,
             DMDA_STENCIL_STAR,
             {1.3, 0.7, 0},
             PETSC_TRUE},
      /* fluid: cells, three fields, box stencil, coordinates on a compatible DMDA */
      {"2d cell ghosted-periodic box",
             2,
             {9, 16, 0},
             3,
             1,
             {G, P, N},
             ADJ_GRID_CELL,
             DMDA_STENCIL_BOX,
             {2.0, 1.0, 0},
             PETSC_FALSE},
      {"2d cell periodic-periodic width 2",
             2,
             {10, 10, 0},
             2,
             2,
             {P, P, N},
             ADJ_GRID_CELL,
             DMDA_STENCIL_BOX,
             {1.0, 3.0, 0},
             PETSC_TRUE},
      /* MPM: nodes at the cell corners, plain boundaries */
      {"2d node none-none box",
             2,
             {8, 6, 0},
             3,
             1,
             {N, N, N},
             ADJ_GRID_NODE,
             DMDA_STENCIL_BOX,
             {0.8, 0.6, 0},
             PETSC_FALSE},
      {"2d node periodic-none star",
             2,
             {8, 5, 0},
             1,
             1,
             {P, N, N},
             ADJ_GRID_NODE,
             DMDA_STENCIL_STAR,
             {1.0, 0.5, 0},
             PETSC_TRUE},
      {"3d cell periodic-ghosted-none star",
             3,
             {6, 5, 7},
             1,
             1,
             {P, G, N},
             ADJ_GRID_CELL,
             DMDA_STENCIL_STAR,
             {1.2, 1.0, 0.7},
             PETSC_TRUE},
      {"3d cell ghosted-ghosted-periodic box",
             3,
             {5, 6, 8},
             4,
             1,
             {G, G, P},
             ADJ_GRID_CELL,
             DMDA_STENCIL_BOX,
             {1.0, 2.0, 3.0},
             PETSC_FALSE},
      {"3d node none-periodic-none box width 2",
             3,
             {6, 8, 5},
             2,
             2,
             {N, P, N},
             ADJ_GRID_NODE,
             DMDA_STENCIL_BOX,
             {0.6, 0.8, 0.5},
             PETSC_TRUE},
  };
  PetscInt fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) PetscCall(CheckCase(&cases[k], &fail));
  PetscCall(CheckRefusal(&fail));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " check(s) failed\n", fail));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
