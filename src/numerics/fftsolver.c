/* Exact solves with the 5-point Laplacian by FFTW-MPI real-to-real transforms (see
 * include/adjsim/fftsolver.h). */
#include "fftsolverimpl.h"
#include <stdio.h>
#include <unistd.h>

const char *const AdjFFTYMethods[] = {"auto", "transform", "tridiagonal", "AdjFFTYMethod", "ADJ_FFT_Y_", NULL};

static PetscErrorCode AdjFFTDirectionFromBoundary(MPI_Comm comm, const AdjFFTBoundary bc[2], PetscInt N,
                                                  AdjFFTDirection *dir)
{
  PetscFunctionBeginUser;
  PetscCheck((bc[0] == ADJ_FFT_PERIODIC) == (bc[1] == ADJ_FFT_PERIODIC), comm, PETSC_ERR_ARG_WRONG,
             "AdjFFTSolver: periodic must be set on both sides of a direction");
  dir->norm = 2.0 * N;
  if (bc[0] == ADJ_FFT_PERIODIC) {
    dir->forward = FFTW_R2HC, dir->backward = FFTW_HC2R, dir->norm = N, dir->type = 0;
  } else if (bc[0] == ADJ_FFT_NEUMANN && bc[1] == ADJ_FFT_NEUMANN) {
    dir->forward = FFTW_REDFT10, dir->backward = FFTW_REDFT01, dir->type = 1;
  } else if (bc[0] == ADJ_FFT_DIRICHLET && bc[1] == ADJ_FFT_DIRICHLET) {
    dir->forward = FFTW_RODFT10, dir->backward = FFTW_RODFT01, dir->type = 2;
  } else if (bc[0] == ADJ_FFT_NEUMANN) {
    dir->forward = dir->backward = FFTW_REDFT11, dir->type = 3;
  } else {
    dir->forward = dir->backward = FFTW_RODFT11, dir->type = 3;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4 sin^2(theta_q / 2) / h^2 for mode q of a direction with N cells (see the header's table). */
PetscReal AdjFFTEigenvalue(const AdjFFTDirection *dir, PetscInt N, PetscInt q, PetscReal h)
{
  PetscReal theta = 0, s;

  switch (dir->type) {
  case 0: /* halfcomplex: position q holds frequency q (q <= N/2) or N - q */
    theta = 2 * PETSC_PI * (PetscReal)(q <= N / 2 ? q : N - q) / N;
    break;
  case 1:
    theta = PETSC_PI * (PetscReal)q / N;
    break;
  case 2:
    theta = PETSC_PI * (PetscReal)(q + 1) / N;
    break;
  default:
    theta = PETSC_PI * ((PetscReal)q + 0.5) / N;
  }
  s = PetscSinReal(0.5 * theta);
  return 4 * s * s / (h * h);
}

/* The scatter from the DMDA's ordering to the slab Vec (rows [row0, row0 + nrows) here): the
 * natural indices of this rank's slab, mapped to the DMDA's (PETSc) ordering through its AO. */
PetscErrorCode AdjFFTSolverCreateScatter(DM da, PetscInt nrows, PetscInt row0, AdjFFTSolver fs)
{
  const PetscInt nlocal = nrows * (PetscInt)fs->n1, first = row0 * (PetscInt)fs->n1;
  IS             is;
  AO             ao;
  Vec            g;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(fs->comm, nlocal, (PetscInt)(fs->n0 * fs->n1), &fs->slab));
  PetscCall(ISCreateStride(fs->comm, nlocal, first, 1, &is));
  PetscCall(DMDAGetAO(da, &ao));
  PetscCall(AOApplicationToPetscIS(ao, is));
  PetscCall(DMGetGlobalVector(da, &g));
  PetscCall(VecScatterCreate(g, is, fs->slab, NULL, &fs->toslab));
  PetscCall(DMRestoreGlobalVector(da, &g));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the DMDA owns whole rows in FFTW's slabs (always on one rank; on a 1 x P process grid
 * when the row split is FFTW's): then its global vector is the slab, natural ordering included.
 * Collective. */
static PetscErrorCode AdjFFTTransformAligned(AdjFFTSolver fs, DM da)
{
  PetscInt  xs, ys, xm, ym;
  PetscBool aligned;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  aligned = (PetscBool)(xs == 0 && xm == fs->n1 && ys == fs->local_0_start && ym == fs->local_n0);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &aligned, 1, MPIU_BOOL, MPI_LAND, fs->comm));
  fs->aligned = aligned;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The 2D FFTW-MPI plans: y by transforms too.  A periodic box takes real-to-complex DFTs (x modes
 * 0..n1/2 of the n1 of a halfcomplex transform, about half the work of the r2r pair), by FFTW's
 * serial 2D plans on one rank (modes in natural order: no transpose at all); other boxes the r2r
 * kinds of each direction. */
static PetscErrorCode AdjFFTTransformSetUp(AdjFFTSolver fs, DM da, PetscReal hx, PetscReal hy, unsigned flags)
{
  ptrdiff_t   alloc_local, nx, sm, sn = 1; /* mode (m, n) at symbol[m sm + n sn] */
  PetscMPIInt size;

  PetscFunctionBeginUser;
  fs->r2c     = (PetscBool)(fs->dx.type == 0 && fs->dy.type == 0);
  nx          = fs->r2c ? fs->n1 / 2 + 1 : fs->n1; /* x modes */
  fs->ld      = fs->r2c ? 2 * nx : fs->n1;
  alloc_local = fftw_mpi_local_size_2d_transposed(fs->n0, nx, fs->comm, &fs->local_n0, &fs->local_0_start,
                                                  &fs->local_n1, &fs->local_1_start);
  if (fs->r2c) alloc_local *= 2; /* complex numbers */
  sm       = fs->n0;             /* FFTW-MPI's transposed output: x mode m, then y mode n */
  fs->data = fftw_alloc_real((size_t)PetscMax(alloc_local, 1));
  PetscCheck(fs->data, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %td doubles", alloc_local);
  PetscCallMPI(MPI_Comm_size(fs->comm, &size));
  if (fs->r2c && size == 1) { /* FFTW's own 2D plans: no transposed output, so no local transpose */
    fs->forward = fftw_plan_dft_r2c_2d((int)fs->n0, (int)fs->n1, fs->data, (fftw_complex *)fs->data, flags);
    AdjCheckFFTWPlan(fs->forward);
    fs->backward = fftw_plan_dft_c2r_2d((int)fs->n0, (int)fs->n1, (fftw_complex *)fs->data, fs->data, flags);
    AdjCheckFFTWPlan(fs->backward);
    sm = 1, sn = nx; /* modes (n, m) row-major */
  } else if (fs->r2c) {
    fs->forward = fftw_mpi_plan_dft_r2c_2d(fs->n0, fs->n1, fs->data, (fftw_complex *)fs->data, fs->comm,
                                           flags | FFTW_MPI_TRANSPOSED_OUT);
    AdjCheckFFTWPlan(fs->forward);
    fs->backward = fftw_mpi_plan_dft_c2r_2d(fs->n0, fs->n1, (fftw_complex *)fs->data, fs->data, fs->comm,
                                            flags | FFTW_MPI_TRANSPOSED_IN);
    AdjCheckFFTWPlan(fs->backward);
  } else {
    fs->forward = fftw_mpi_plan_r2r_2d(fs->n0, fs->n1, fs->data, fs->data, fs->comm, fs->dy.forward, fs->dx.forward,
                                       flags | FFTW_MPI_TRANSPOSED_OUT);
    AdjCheckFFTWPlan(fs->forward);
    fs->backward = fftw_mpi_plan_r2r_2d(fs->n0, fs->n1, fs->data, fs->data, fs->comm, fs->dy.backward, fs->dx.backward,
                                        flags | FFTW_MPI_TRANSPOSED_IN);
    AdjCheckFFTWPlan(fs->backward);
  }
  PetscCall(
      PetscMalloc2(PetscMax(fs->local_n1 * fs->n0, 1), &fs->symbol, PetscMax(fs->local_n1 * fs->n0, 1), &fs->factor));
  for (ptrdiff_t m = 0; m < fs->local_n1; m++) {
    const PetscReal kx = AdjFFTEigenvalue(&fs->dx, (PetscInt)fs->n1, (PetscInt)(fs->local_1_start + m), hx);
    for (ptrdiff_t n = 0; n < fs->n0; n++)
      fs->symbol[m * sm + n * sn] = kx + AdjFFTEigenvalue(&fs->dy, (PetscInt)fs->n0, (PetscInt)n, hy);
  }
  PetscCall(AdjFFTTransformAligned(fs, da));
  if (!fs->aligned) PetscCall(AdjFFTSolverCreateScatter(da, (PetscInt)fs->local_n0, (PetscInt)fs->local_0_start, fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverCreateWith(DM da, const PetscReal h[], const AdjFFTBoundary bc_in[2][2],
                                      AdjFFTYMethod ymethod, PetscBool measure, AdjFFTSolver *fs_out)
{
  const PetscReal      hx = h[0], hy = h[1];
  const AdjFFTBoundary periodic[2][2] = {{ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}, {ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}};
  const AdjFFTBoundary(*bc)[2]        = bc_in ? bc_in : periodic;
  const unsigned flags                = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
  AdjFFTSolver   fs;
  PetscInt       Mx, My, dof;
  PetscBool      lines;
  const char    *why;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &Mx, &My, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(dof == 1, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG,
             "The FFTW solver needs a DMDA with one field");
  fftw_mpi_init(); /* after MPI_Init; later calls are no-ops */
  PetscCall(PetscNew(&fs));
  fs->comm = PetscObjectComm((PetscObject)da);
  PetscCall(AdjFFTDirectionFromBoundary(fs->comm, bc[0], Mx, &fs->dx));
  PetscCall(AdjFFTDirectionFromBoundary(fs->comm, bc[1], My, &fs->dy));
  fs->n0    = My;
  fs->n1    = Mx;
  fs->scale = 1.0 / (fs->dx.norm * fs->dy.norm);
  PetscCall(AdjFFTLinesPossible(da, bc, &lines, &why));
  PetscCheck(lines || ymethod != ADJ_FFT_Y_TRIDIAGONAL, fs->comm, PETSC_ERR_USER_INPUT,
             "The tridiagonal y solve of the FFTW solver cannot run here: %s; use the transform method", why);
  fs->ymethod = (ymethod == ADJ_FFT_Y_TRANSFORM || !lines) ? ADJ_FFT_Y_TRANSFORM : ADJ_FFT_Y_TRIDIAGONAL;
  if (fs->ymethod == ADJ_FFT_Y_TRANSFORM)
    PetscCall(AdjFFTTransformSetUp(fs, da, hx, hy, flags));
  else
    PetscCall(AdjFFTLinesSetUp(fs, da, hx, hy, bc, flags));
  *fs_out = fs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverCreate(DM da, const PetscReal h[], const AdjFFTBoundary bc[2][2], AdjFFTSolver *fs)
{
  PetscFunctionBeginUser;
  PetscCall(AdjFFTSolverCreateWith(da, h, bc, ADJ_FFT_Y_AUTO, PETSC_FALSE, fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTWisdomLoad(MPI_Comm comm, const char path[], const char option[], PetscBool *found)
{
  PetscMPIInt rank;
  int         status[2] = {0, 0}; /* exists, imported */

  PetscFunctionBeginUser;
  fftw_mpi_init();
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    status[0] = access(path, F_OK) == 0;
    if (status[0]) status[1] = fftw_import_wisdom_from_filename(path);
  }
  PetscCallMPI(MPI_Bcast(status, 2, MPI_INT, 0, comm));
  PetscCheck(!status[0] || status[1], comm, PETSC_ERR_FILE_READ,
             "Cannot use the FFTW wisdom file %s (given by %s): it cannot be read or is not FFTW wisdom (of this "
             "FFTW version); delete it to measure the plans again (the results of later runs may then differ in "
             "the last bits from those of runs made with the old file), or give another path",
             path, option);
  fftw_mpi_broadcast_wisdom(comm);
  *found = (PetscBool)status[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTWisdomSave(MPI_Comm comm, const char path[], const char option[])
{
  PetscMPIInt rank;
  int         ok = 1;

  PetscFunctionBeginUser;
  fftw_mpi_gather_wisdom(comm);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char tmp[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()));
    ok = fftw_export_wisdom_to_filename(tmp) && rename(tmp, path) == 0;
    if (!ok) (void)remove(tmp);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_WRITE,
             "Cannot write the FFTW wisdom file %s (given by %s): is its directory there and writable?", path, option);
  /* every rank takes rank 0's wisdom: where two ranks measured the same local transform their plans may
     differ, and the plans of a later run (the file's) would then not be those of this one */
  if (rank != 0) fftw_forget_wisdom();
  fftw_mpi_broadcast_wisdom(comm);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverTridiagonalPossible(DM da, const AdjFFTBoundary bc[2][2], PetscBool *ok, const char **why)
{
  PetscFunctionBeginUser;
  PetscCall(AdjFFTLinesPossible(da, bc, ok, why));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverGetYMethod(AdjFFTSolver fs, AdjFFTYMethod *ymethod)
{
  PetscFunctionBeginUser;
  *ymethod = fs->ymethod;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* scale / (a + b K) of every local mode, unless a, b are those of the last solve; a singular mode
 * (the mean of a Poisson problem) gets zero. */
static void AdjFFTTransformFactor(AdjFFTSolver fs, PetscReal a, PetscReal b)
{
  if (fs->factored && fs->fa == a && fs->fb == b) return;
  for (ptrdiff_t q = 0; q < fs->local_n1 * fs->n0; q++) {
    const PetscReal d = a + b * fs->symbol[q];
    fs->factor[q]     = d != 0 ? fs->scale / d : 0.0;
  }
  fs->factored = PETSC_TRUE, fs->fa = a, fs->fb = b;
}

/* The solve on fs->data: forward transforms, the factors, backward transforms. */
static PetscErrorCode AdjFFTTransformSolve(AdjFFTSolver fs, PetscReal a, PetscReal b)
{
  const ptrdiff_t nmodes = fs->local_n1 * fs->n0;

  PetscFunctionBeginUser;
  AdjFFTTransformFactor(fs, a, b);
  fftw_execute(fs->forward);
  if (fs->r2c)
    for (ptrdiff_t q = 0; q < nmodes; q++) fs->data[2 * q] *= fs->factor[q], fs->data[2 * q + 1] *= fs->factor[q];
  else
    for (ptrdiff_t q = 0; q < nmodes; q++) fs->data[q] *= fs->factor[q];
  fftw_execute(fs->backward);
  /* two real transforms of about 2.5 N log2 N flops each (half that for r2c), this rank's share, and the division */
  PetscCall(PetscLogFlops((fs->r2c ? 2.5 : 5.0) * fs->local_n0 * fs->n1 * PetscLog2Real((PetscReal)fs->n0 * fs->n1) +
                          2.0 * nmodes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverSolve(AdjFFTSolver fs, PetscReal a, PetscReal b, Vec r, Vec x)
{
  const ptrdiff_t    nrow = fs->local_n0, n1 = fs->n1, ld = fs->ld;
  const PetscScalar *in;
  PetscScalar       *out;
  Vec                src = r, dst = x;

  PetscFunctionBeginUser;
  if (fs->ymethod == ADJ_FFT_Y_TRIDIAGONAL) {
    PetscCall(AdjFFTLinesSolve(fs, a, b, r, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!fs->aligned) {
    PetscCall(VecScatterBegin(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
    src = dst = fs->slab;
  }
  PetscCall(VecGetArrayRead(src, &in));
  for (ptrdiff_t j = 0; j < nrow; j++) PetscCall(PetscArraycpy(fs->data + j * ld, in + j * n1, n1));
  PetscCall(VecRestoreArrayRead(src, &in));
  PetscCall(AdjFFTTransformSolve(fs, a, b));
  PetscCall(VecGetArrayWrite(dst, &out));
  for (ptrdiff_t j = 0; j < nrow; j++) PetscCall(PetscArraycpy(out + j * n1, fs->data + j * ld, n1));
  PetscCall(VecRestoreArrayWrite(dst, &out));
  if (!fs->aligned) {
    PetscCall(VecScatterBegin(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverGetRows(AdjFFTSolver fs, PetscScalar **rows, PetscInt *ld)
{
  PetscFunctionBeginUser;
  *rows = NULL, *ld = 0;
  if (fs->ymethod == ADJ_FFT_Y_TRANSFORM && fs->aligned) *rows = fs->data, *ld = (PetscInt)fs->ld;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverSolveRows(AdjFFTSolver fs, PetscReal a, PetscReal b)
{
  PetscFunctionBeginUser;
  PetscCheck(fs->ymethod == ADJ_FFT_Y_TRANSFORM && fs->aligned, fs->comm, PETSC_ERR_ARG_WRONGSTATE,
             "AdjFFTSolverSolveRows: no rows (see AdjFFTSolverGetRows)");
  PetscCall(AdjFFTTransformSolve(fs, a, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverDestroy(AdjFFTSolver *fs)
{
  PetscFunctionBeginUser;
  if (!*fs) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*fs)->forward) fftw_destroy_plan((*fs)->forward);
  if ((*fs)->backward) fftw_destroy_plan((*fs)->backward);
  fftw_free((*fs)->data);
  PetscCall(AdjFFTLinesDestroy(&(*fs)->lines));
  PetscCall(PetscFree2((*fs)->symbol, (*fs)->factor));
  PetscCall(VecScatterDestroy(&(*fs)->toslab));
  PetscCall(VecDestroy(&(*fs)->slab));
  PetscCall(PetscFree(*fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}
