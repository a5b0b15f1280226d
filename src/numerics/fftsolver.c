/* Exact solves with the 5-point Laplacian by FFTW-MPI real-to-real transforms (see
 * include/adjsim/fftsolver.h). */
#include <adjsim/fftsolver.h>
#include <fftw3-mpi.h>

#if !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_COMPLEX)
#  error "The FFTW solver needs real double-precision PETSc (it calls fftw3 double)"
#endif

struct _p_AdjFFTSolver {
  MPI_Comm   comm;
  ptrdiff_t  n0, n1;                  /* grid n0 x n1 = My x Mx */
  ptrdiff_t  local_n0, local_0_start; /* real space: rows [local_0_start, + local_n0) on this rank */
  ptrdiff_t  local_n1, local_1_start; /* transform space (transposed): x-modes [local_1_start, + local_n1) */
  double    *data;                    /* in place: local_n0 x n1 / local_n1 x n0 */
  fftw_plan  forward, backward;
  PetscReal *symbol; /* K of each local mode, in the transposed order */
  PetscReal  scale;  /* 1 / (normalization of forward then backward) */
  Vec        slab;   /* natural ordering, owned in FFTW's row slabs */
  VecScatter toslab; /* DMDA global vector -> slab */
};

/* The transforms of one direction with N cells, its normalization and the angle theta of mode q
 * (in FFTW's output order: halfcomplex for the DFT). */
typedef struct {
  fftw_r2r_kind forward, backward;
  PetscReal     norm;
  PetscInt      type; /* 0 DFT, 1 DCT/DST-II, 2 DST-II, 3 DCT/DST-IV */
} AdjFFTDirection;

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
static PetscReal AdjFFTEigenvalue(const AdjFFTDirection *dir, PetscInt N, PetscInt q, PetscReal h)
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

/* The scatter from the DMDA's ordering to the slab Vec: the natural indices of this rank's slab,
 * mapped to the DMDA's (PETSc) ordering through its AO. */
static PetscErrorCode AdjFFTSolverCreateScatter(DM da, AdjFFTSolver fs)
{
  const PetscInt nlocal = (PetscInt)(fs->local_n0 * fs->n1), first = (PetscInt)(fs->local_0_start * fs->n1);
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

static PetscErrorCode AdjFFTSolverCreateWithFlags(DM da, PetscReal hx, PetscReal hy, const AdjFFTBoundary bc_in[2][2],
                                                  unsigned flags, AdjFFTSolver *fs_out)
{
  const AdjFFTBoundary periodic[2][2] = {{ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}, {ADJ_FFT_PERIODIC, ADJ_FFT_PERIODIC}};
  const AdjFFTBoundary(*bc)[2]        = bc_in ? bc_in : periodic;
  AdjFFTSolver    fs;
  AdjFFTDirection dx, dy;
  PetscInt        Mx, My, dof;
  ptrdiff_t       alloc_local;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &Mx, &My, NULL, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(dof == 1, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG,
             "The FFTW solver needs a DMDA with one field");
  fftw_mpi_init(); /* after MPI_Init; later calls are no-ops */
  PetscCall(PetscNew(&fs));
  fs->comm = PetscObjectComm((PetscObject)da);
  PetscCall(AdjFFTDirectionFromBoundary(fs->comm, bc[0], Mx, &dx));
  PetscCall(AdjFFTDirectionFromBoundary(fs->comm, bc[1], My, &dy));
  fs->n0      = My;
  fs->n1      = Mx;
  fs->scale   = 1.0 / (dx.norm * dy.norm);
  alloc_local = fftw_mpi_local_size_2d_transposed(fs->n0, fs->n1, fs->comm, &fs->local_n0, &fs->local_0_start,
                                                  &fs->local_n1, &fs->local_1_start);
  fs->data    = fftw_alloc_real((size_t)PetscMax(alloc_local, 1));
  PetscCheck(fs->data, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %td doubles", alloc_local);
  fs->forward = fftw_mpi_plan_r2r_2d(fs->n0, fs->n1, fs->data, fs->data, fs->comm, dy.forward, dx.forward,
                                     flags | FFTW_MPI_TRANSPOSED_OUT);
  AdjCheckFFTWPlan(fs->forward);
  fs->backward = fftw_mpi_plan_r2r_2d(fs->n0, fs->n1, fs->data, fs->data, fs->comm, dy.backward, dx.backward,
                                      flags | FFTW_MPI_TRANSPOSED_IN);
  AdjCheckFFTWPlan(fs->backward);
  PetscCall(PetscMalloc1(PetscMax(fs->local_n1 * fs->n0, 1), &fs->symbol));
  for (ptrdiff_t m = 0; m < fs->local_n1; m++) {
    const PetscReal kx = AdjFFTEigenvalue(&dx, Mx, (PetscInt)(fs->local_1_start + m), hx);
    for (ptrdiff_t n = 0; n < fs->n0; n++) fs->symbol[m * fs->n0 + n] = kx + AdjFFTEigenvalue(&dy, My, (PetscInt)n, hy);
  }
  PetscCall(AdjFFTSolverCreateScatter(da, fs));
  *fs_out = fs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverCreate(DM da, PetscReal hx, PetscReal hy, const AdjFFTBoundary bc[2][2], AdjFFTSolver *fs)
{
  PetscFunctionBeginUser;
  PetscCall(AdjFFTSolverCreateWithFlags(da, hx, hy, bc, FFTW_ESTIMATE, fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverCreateMeasured(DM da, PetscReal hx, PetscReal hy, const AdjFFTBoundary bc[2][2],
                                          AdjFFTSolver *fs)
{
  PetscFunctionBeginUser;
  PetscCall(AdjFFTSolverCreateWithFlags(da, hx, hy, bc, FFTW_MEASURE, fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverSolve(AdjFFTSolver fs, PetscReal a, PetscReal b, Vec r, Vec x)
{
  const PetscScalar *in;
  PetscScalar       *out;

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(fs->slab, &in));
  for (ptrdiff_t q = 0; q < fs->local_n0 * fs->n1; q++) fs->data[q] = in[q];
  PetscCall(VecRestoreArrayRead(fs->slab, &in));
  fftw_execute(fs->forward);
  for (ptrdiff_t q = 0; q < fs->local_n1 * fs->n0; q++) {
    const PetscReal d = a + b * fs->symbol[q];
    fs->data[q] *= d != 0 ? fs->scale / d : 0.0; /* a singular mode (the mean of a Poisson problem): zero */
  }
  fftw_execute(fs->backward);
  PetscCall(VecGetArrayWrite(fs->slab, &out));
  for (ptrdiff_t q = 0; q < fs->local_n0 * fs->n1; q++) out[q] = fs->data[q];
  PetscCall(VecRestoreArrayWrite(fs->slab, &out));
  PetscCall(VecScatterBegin(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  /* two real transforms of about 2.5 N log2 N flops each, this rank's share, and the division */
  PetscCall(PetscLogFlops(5.0 * fs->local_n0 * fs->n1 * PetscLog2Real((PetscReal)fs->n0 * fs->n1) +
                          2.0 * fs->local_n1 * fs->n0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTSolverDestroy(AdjFFTSolver *fs)
{
  PetscFunctionBeginUser;
  if (!*fs) PetscFunctionReturn(PETSC_SUCCESS);
  fftw_destroy_plan((*fs)->forward);
  fftw_destroy_plan((*fs)->backward);
  fftw_free((*fs)->data);
  PetscCall(PetscFree((*fs)->symbol));
  PetscCall(VecScatterDestroy(&(*fs)->toslab));
  PetscCall(VecDestroy(&(*fs)->slab));
  PetscCall(PetscFree(*fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}
