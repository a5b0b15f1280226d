/* Uniform structured grids: DMDA creation for any dimension (see include/adjsim/grid.h). */
#define _POSIX_C_SOURCE 200809L /* sysconf, getrlimit */
#include <adjsim/grid.h>
#include <adjsim/optcheck.h>
#include <sys/resource.h>
#include <unistd.h>

const char *const AdjGridCentrings[] = {"cell", "node", "AdjGridCentring", "ADJ_GRID_", NULL};

/* Points of one direction: a point per cell, or per node (the last node is the first when periodic). */
static PetscInt AdjGridPoints(PetscInt cells, DMBoundaryType bc, AdjGridCentring centring)
{
  return centring == ADJ_GRID_NODE && bc != DM_BOUNDARY_PERIODIC ? cells + 1 : cells;
}

/* Memory one rank can count on [bytes]: the node's physical memory shared by the ranks on the node (an
 * estimate: other jobs and the system use some), or the address-space limit when lower; the smallest
 * over the ranks, so every rank reaches the same verdict. */
static PetscErrorCode AdjMemoryPerRank(MPI_Comm comm, double *bytes)
{
  MPI_Comm      node;
  PetscMPIInt   nlocal;
  const long    pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  struct rlimit rl;
  double        mine;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nlocal));
  PetscCallMPI(MPI_Comm_free(&node));
  mine = pages > 0 && page > 0 ? (double)pages * (double)page / nlocal : PETSC_MAX_REAL;
  if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY) mine = PetscMin(mine, (double)rl.rlim_cur);
  PetscCallMPI(MPI_Allreduce(&mine, bytes, 1, MPI_DOUBLE, MPI_MIN, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjGridCheckSize(MPI_Comm comm, const char what[], const char item[], PetscInt64 count, PetscInt dof,
                                PetscReal bytes_per_item)
{
  PetscMPIInt size;
  double      avail, need;

  PetscFunctionBeginUser;
  PetscCheck((double)count * dof <= (double)PETSC_MAX_INT, comm, PETSC_ERR_USER_INPUT,
             "%s: %" PetscInt64_FMT " %ss with %" PetscInt_FMT " unknowns each exceed the index limit %" PetscInt_FMT
             " of this PETSc (%d-bit PetscInt; a PETSc configured --with-64-bit-indices lifts it)",
             what, count, item, dof, PETSC_MAX_INT, (int)(8 * sizeof(PetscInt)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(AdjMemoryPerRank(comm, &avail));
  need = (double)count * bytes_per_item / size;
  PetscCheck(need <= avail, comm, PETSC_ERR_USER_INPUT,
             "%s: %" PetscInt64_FMT " %ss need about %.1f GB per rank on %d rank(s) (about %d bytes per %s in "
             "a forward run; gradient runs need more), more than the %.1f GB of memory one rank has here: use more "
             "ranks or nodes, or fewer %ss",
             what, count, item, need / 1e9, size, (int)bytes_per_item, item, avail / 1e9, item);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjGridCreateDMDA(MPI_Comm comm, PetscInt dim, const PetscInt cells[], const DMBoundaryType bc[],
                                 AdjGridCentring centring, PetscInt dof, DMDAStencilType stencil, PetscInt width,
                                 const PetscReal lengths[], DM *da)
{
  PetscInt n[ADJ_GRID_MAX_DIM];

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "AdjGridCreateDMDA: dimension %" PetscInt_FMT " not supported (2 or 3)", dim);
  PetscCheck(dof >= 1 && width >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "AdjGridCreateDMDA: dof %" PetscInt_FMT " must be positive and width %" PetscInt_FMT " non-negative", dof,
             width);
  for (PetscInt d = 0; d < dim; d++) {
    PetscCheck(cells[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "AdjGridCreateDMDA: %" PetscInt_FMT " cells in direction %" PetscInt_FMT ", need at least one", cells[d],
               d);
    n[d] = AdjGridPoints(cells[d], bc[d], centring);
  }
  if (dim == 2)
    PetscCall(
        DMDACreate2d(comm, bc[0], bc[1], stencil, n[0], n[1], PETSC_DECIDE, PETSC_DECIDE, dof, width, NULL, NULL, da));
  else
    PetscCall(DMDACreate3d(comm, bc[0], bc[1], bc[2], stencil, n[0], n[1], n[2], PETSC_DECIDE, PETSC_DECIDE,
                           PETSC_DECIDE, dof, width, NULL, NULL, NULL, da));
  PetscCall(DMSetUp(*da));
  if (lengths) PetscCall(AdjGridSetUniformCoordinates(*da, centring, lengths));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjGridSetUniformCoordinates(DM da, AdjGridCentring centring, const PetscReal lengths[])
{
  PetscInt       dim, n[ADJ_GRID_MAX_DIM];
  DMBoundaryType bc[ADJ_GRID_MAX_DIM];
  PetscReal      lo[ADJ_GRID_MAX_DIM] = {0, 0, 0}, hi[ADJ_GRID_MAX_DIM] = {0, 0, 0};

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, &dim, &n[0], &n[1], &n[2], NULL, NULL, NULL, NULL, NULL, &bc[0], &bc[1], &bc[2], NULL));
  /* DMDASetUniformCoordinates spaces M points by (max - min) / (M - 1), or by (max - min) / M in a
   * periodic direction, where the point max is the point min again. */
  for (PetscInt d = 0; d < dim; d++) {
    const PetscBool periodic = (PetscBool)(bc[d] == DM_BOUNDARY_PERIODIC);

    PetscCheck(lengths[d] > 0, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_OUTOFRANGE,
               "AdjGridSetUniformCoordinates: length %g in direction %" PetscInt_FMT " must be positive",
               (double)lengths[d], d);
    if (centring == ADJ_GRID_CELL) {
      const PetscReal h = lengths[d] / n[d];

      lo[d] = 0.5 * h;
      hi[d] = periodic ? lengths[d] + 0.5 * h : lengths[d] - 0.5 * h;
    } else {
      lo[d] = 0;
      hi[d] = lengths[d];
    }
  }
  PetscCall(DMDASetUniformCoordinates(da, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjGridBoxOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, const char physics[],
                                 const char gridhelp[], PetscInt dim, PetscInt cells[], PetscReal len[])
{
  const char *names = dim == 3 ? "Mx,My,Mz" : "Mx,My", *lnames = dim == 3 ? "Lx,Ly,Lz" : "Lx,Ly";
  char        opt[2][64], help[2][160];
  PetscInt    n = dim;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(opt[0], sizeof(opt[0]), "-%s_grid", physics));
  PetscCall(PetscSNPrintf(opt[1], sizeof(opt[1]), "-%s_domain", physics));
  PetscCall(PetscSNPrintf(help[0], sizeof(help[0]), "%s: %s", gridhelp, names));
  PetscCall(PetscSNPrintf(help[1], sizeof(help[1]), "Domain lengths %s [m] (the box is [0,Lx] x [0,Ly]%s)", lnames,
                          dim == 3 ? " x [0,Lz]" : ""));
  PetscCall(PetscOptionsIntArray(opt[0], help[0], "", cells, &n, NULL));
  PetscCheck(n == dim || n == 0, comm, PETSC_ERR_USER_INPUT,
             "%s needs %" PetscInt_FMT " integers %s, got %" PetscInt_FMT, opt[0], dim, names, n);
  n = dim;
  PetscCall(PetscOptionsRealArray(opt[1], help[1], "", len, &n, NULL));
  PetscCheck(n == dim || n == 0, comm, PETSC_ERR_USER_INPUT,
             "%s needs %" PetscInt_FMT " lengths %s, got %" PetscInt_FMT, opt[1], dim, lnames, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjGridBoxSetUp(MPI_Comm comm, const char physics[], PetscInt dim, const PetscInt cells[],
                               const PetscReal len[], const char item[], PetscInt64 count, PetscInt dof,
                               PetscReal bytes_per_item, PetscInt M[], PetscReal L[], PetscReal h[])
{
  char   what[128], opt[64];
  size_t len_what;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(what, sizeof(what), "-%s_grid %" PetscInt_FMT, physics, cells[0]));
  for (PetscInt d = 1; d < dim; d++) {
    PetscCall(PetscStrlen(what, &len_what));
    PetscCall(PetscSNPrintf(what + len_what, sizeof(what) - len_what, ",%" PetscInt_FMT, cells[d]));
  }
  for (PetscInt d = 0; d < dim; d++)
    PetscCheck(cells[d] >= 4, comm, PETSC_ERR_USER_INPUT, "%s: need at least 4 cells per direction", what);
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s_domain", physics));
  for (PetscInt d = 0; d < dim; d++)
    PetscCheck(len[d] > 0, comm, PETSC_ERR_USER_INPUT, "%s %g,%g: lengths must be positive", opt, (double)len[0],
               (double)len[1]);
  PetscCall(AdjCheckRealOptionArray(comm, opt, dim, len, ADJ_REAL_POSITIVE, "m"));
  PetscCall(AdjGridCheckSize(comm, what, item, count, dof, bytes_per_item));
  for (PetscInt d = 0; d < dim; d++) M[d] = cells[d], L[d] = len[d], h[d] = len[d] / cells[d];
  PetscFunctionReturn(PETSC_SUCCESS);
}
