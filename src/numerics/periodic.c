/* Exact solves with the periodic 5-point Laplacian by FFTW-MPI (see include/adjsim/periodic.h). */
#include <adjsim/periodic.h>
#include <fftw3-mpi.h>

#if !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_COMPLEX)
#  error "The FFTW periodic solver needs real double-precision PETSc (it calls fftw3 double)"
#endif

struct _p_AdjPeriodicSolver {
  MPI_Comm   comm;
  ptrdiff_t  n0, n1, nc1;             /* real grid n0 x n1 = My x Mx; complex rows of nc1 = n1/2 + 1 */
  ptrdiff_t  local_n0, local_0_start; /* real space: rows [local_0_start, + local_n0) on this rank */
  ptrdiff_t  local_n1, local_1_start; /* Fourier space (transposed): x-modes [local_1_start, + local_n1) */
  double    *data;                    /* in place: local_n0 rows of 2 nc1 doubles / local_n1 x n0 complex */
  fftw_plan  forward, backward;
  PetscReal *symbol; /* K(m,n) of each local mode, in the transposed order */
  Vec        slab;   /* natural ordering, owned in FFTW's row slabs */
  VecScatter toslab; /* DMDA global vector -> slab */
};

/* The scatter from the DMDA's ordering to the slab Vec: the natural indices of this rank's slab,
 * mapped to the DMDA's (PETSc) ordering through its AO. */
static PetscErrorCode AdjPeriodicSolverCreateScatter(DM da, AdjPeriodicSolver ps)
{
  const PetscInt nlocal = (PetscInt)(ps->local_n0 * ps->n1), first = (PetscInt)(ps->local_0_start * ps->n1);
  IS             is;
  AO             ao;
  Vec            g;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(ps->comm, nlocal, (PetscInt)(ps->n0 * ps->n1), &ps->slab));
  PetscCall(ISCreateStride(ps->comm, nlocal, first, 1, &is));
  PetscCall(DMDAGetAO(da, &ao));
  PetscCall(AOApplicationToPetscIS(ao, is));
  PetscCall(DMGetGlobalVector(da, &g));
  PetscCall(VecScatterCreate(g, is, ps->slab, NULL, &ps->toslab));
  PetscCall(DMRestoreGlobalVector(da, &g));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjPeriodicSolverCreate(DM da, PetscReal hx, PetscReal hy, AdjPeriodicSolver *ps_out)
{
  AdjPeriodicSolver ps;
  PetscInt          Mx, My, dof;
  DMBoundaryType    bx, by;
  ptrdiff_t         alloc_local;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &Mx, &My, NULL, NULL, NULL, NULL, &dof, NULL, &bx, &by, NULL, NULL));
  PetscCheck(dof == 1 && bx == DM_BOUNDARY_PERIODIC && by == DM_BOUNDARY_PERIODIC, PetscObjectComm((PetscObject)da),
             PETSC_ERR_ARG_WRONG, "The FFTW periodic solver needs a doubly periodic DMDA with one field");
  fftw_mpi_init(); /* after MPI_Init; later calls are no-ops */
  PetscCall(PetscNew(&ps));
  ps->comm    = PetscObjectComm((PetscObject)da);
  ps->n0      = My;
  ps->n1      = Mx;
  ps->nc1     = Mx / 2 + 1;
  alloc_local = fftw_mpi_local_size_2d_transposed(ps->n0, ps->nc1, ps->comm, &ps->local_n0, &ps->local_0_start,
                                                  &ps->local_n1, &ps->local_1_start);
  ps->data    = fftw_alloc_real(2 * (size_t)PetscMax(alloc_local, 1));
  PetscCheck(ps->data, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %td doubles", 2 * alloc_local);
  ps->forward = fftw_mpi_plan_dft_r2c_2d(ps->n0, ps->n1, ps->data, (fftw_complex *)ps->data, ps->comm,
                                         FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT);
  AdjCheckFFTWPlan(ps->forward);
  ps->backward = fftw_mpi_plan_dft_c2r_2d(ps->n0, ps->n1, (fftw_complex *)ps->data, ps->data, ps->comm,
                                          FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
  AdjCheckFFTWPlan(ps->backward);
  PetscCall(PetscMalloc1(PetscMax(ps->local_n1 * ps->n0, 1), &ps->symbol));
  for (ptrdiff_t m = 0; m < ps->local_n1; m++) {
    const PetscReal sx = PetscSinReal(PETSC_PI * (PetscReal)(ps->local_1_start + m) / Mx);
    for (ptrdiff_t n = 0; n < ps->n0; n++) {
      const PetscReal sy         = PetscSinReal(PETSC_PI * (PetscReal)n / My);
      ps->symbol[m * ps->n0 + n] = 4 * sx * sx / (hx * hx) + 4 * sy * sy / (hy * hy);
    }
  }
  PetscCall(AdjPeriodicSolverCreateScatter(da, ps));
  *ps_out = ps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjPeriodicSolverSolve(AdjPeriodicSolver ps, PetscReal a, PetscReal b, Vec r, Vec x)
{
  const ptrdiff_t    stride = 2 * ps->nc1;                                   /* padded real row */
  const PetscReal    scale  = 1.0 / ((PetscReal)ps->n0 * (PetscReal)ps->n1); /* FFTW is unnormalised */
  const PetscScalar *in;
  PetscScalar       *out;

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(ps->toslab, r, ps->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(ps->toslab, r, ps->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(ps->slab, &in));
  for (ptrdiff_t j = 0; j < ps->local_n0; j++)
    for (ptrdiff_t i = 0; i < ps->n1; i++) ps->data[j * stride + i] = in[j * ps->n1 + i];
  PetscCall(VecRestoreArrayRead(ps->slab, &in));
  fftw_execute(ps->forward);
  for (ptrdiff_t q = 0; q < ps->local_n1 * ps->n0; q++) {
    const PetscReal d = a + b * ps->symbol[q];
    const double    f = d != 0 ? scale / d : 0.0; /* a singular mode (the mean of a Poisson problem): zero */
    ps->data[2 * q] *= f;
    ps->data[2 * q + 1] *= f;
  }
  fftw_execute(ps->backward);
  PetscCall(VecGetArrayWrite(ps->slab, &out));
  for (ptrdiff_t j = 0; j < ps->local_n0; j++)
    for (ptrdiff_t i = 0; i < ps->n1; i++) out[j * ps->n1 + i] = ps->data[j * stride + i];
  PetscCall(VecRestoreArrayWrite(ps->slab, &out));
  PetscCall(VecScatterBegin(ps->toslab, ps->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(ps->toslab, ps->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  /* two real transforms of about 2.5 N log2 N flops each, this rank's share, and the division */
  PetscCall(PetscLogFlops(5.0 * ps->local_n0 * ps->n1 * PetscLog2Real((PetscReal)ps->n0 * ps->n1) +
                          4.0 * ps->local_n1 * ps->n0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjPeriodicSolverDestroy(AdjPeriodicSolver *ps)
{
  PetscFunctionBeginUser;
  if (!*ps) PetscFunctionReturn(PETSC_SUCCESS);
  fftw_destroy_plan((*ps)->forward);
  fftw_destroy_plan((*ps)->backward);
  fftw_free((*ps)->data);
  PetscCall(PetscFree((*ps)->symbol));
  PetscCall(VecScatterDestroy(&(*ps)->toslab));
  PetscCall(VecDestroy(&(*ps)->slab));
  PetscCall(PetscFree(*ps));
  PetscFunctionReturn(PETSC_SUCCESS);
}
