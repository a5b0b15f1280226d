/* FFT solver of the pressure Poisson equation on a periodic box.
 *
 * A = -D G is the periodic 5-point Laplacian (negated), diagonal in the DFT basis:
 *   A e_{mn} = K(m,n) e_{mn},   K = 4/hx^2 sin^2(pi m/Mx) + 4/hy^2 sin^2(pi n/My),
 * so A phi = b is one real-to-complex transform, a division by K (the mean mode, K = 0, is set to
 * zero: the zero-mean solution, as the KSP path returns) and the inverse transform.
 *
 * Layout as in src/transport/fftwdiffusion.c: a VecScatter built from the DMDA's AO moves the
 * DMDA global vector to FFTW's row slabs of the natural ordering (n0 = My rows of n1 = Mx), the
 * transforms run in place with transposed Fourier output (no global transposes), and the plans
 * use FFTW_ESTIMATE so that the round-off of every solve is the same from run to run.
 * Walls by DCT and inflow/outflow by DST are not implemented yet: those boxes use KSP. */
#include "fluidimpl.h"
#include <fftw3-mpi.h>

#if !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_COMPLEX)
#  error "The FFTW pressure solver needs real double-precision PETSc (it calls fftw3 double)"
#endif

struct _n_FluidFFTW {
  ptrdiff_t  n0, n1, nc1;             /* real grid n0 x n1 = My x Mx; complex rows of nc1 = n1/2 + 1 */
  ptrdiff_t  local_n0, local_0_start; /* real space: rows [local_0_start, + local_n0) on this rank */
  ptrdiff_t  local_n1, local_1_start; /* Fourier space (transposed): x-modes [local_1_start, + local_n1) */
  double    *data;                    /* in place: local_n0 rows of 2 nc1 doubles / local_n1 x n0 complex */
  fftw_plan  forward, backward;
  PetscReal *inverse; /* 1/(K N) of each local mode (0 for the mean), transposed order */
  Vec        slab;    /* natural ordering, owned in FFTW's row slabs */
  VecScatter toslab;  /* DMDA global vector -> slab */
};

static PetscErrorCode FluidFFTWCreateScatter(Fluid fl, FluidFFTW fft)
{
  const PetscInt nlocal = (PetscInt)(fft->local_n0 * fft->n1), first = (PetscInt)(fft->local_0_start * fft->n1);
  IS             is;
  AO             ao;
  Vec            g;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(fl->comm, nlocal, fl->grid.M[0] * fl->grid.M[1], &fft->slab));
  PetscCall(ISCreateStride(fl->comm, nlocal, first, 1, &is));
  PetscCall(DMDAGetAO(fl->pda, &ao));
  PetscCall(AOApplicationToPetscIS(ao, is));
  PetscCall(DMGetGlobalVector(fl->pda, &g));
  PetscCall(VecScatterCreate(g, is, fft->slab, NULL, &fft->toslab));
  PetscCall(DMRestoreGlobalVector(fl->pda, &g));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidFFTWCreate - plans the transforms and the redistribution for the cell grid of fl.
    Collective. @*/
PetscErrorCode FluidFFTWCreate(Fluid fl, FluidFFTW *fft_out)
{
  const FluidGrid *g = &fl->grid;
  const PetscReal  N = (PetscReal)g->M[0] * g->M[1];
  FluidFFTW        fft;
  ptrdiff_t        alloc_local;

  PetscFunctionBeginUser;
  fftw_mpi_init(); /* after MPI_Init; later calls are no-ops */
  PetscCall(PetscNew(&fft));
  fft->n0     = g->M[1];
  fft->n1     = g->M[0];
  fft->nc1    = g->M[0] / 2 + 1;
  alloc_local = fftw_mpi_local_size_2d_transposed(fft->n0, fft->nc1, fl->comm, &fft->local_n0, &fft->local_0_start,
                                                  &fft->local_n1, &fft->local_1_start);
  fft->data   = fftw_alloc_real(2 * (size_t)PetscMax(alloc_local, 1));
  PetscCheck(fft->data, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %td doubles", 2 * alloc_local);
  fft->forward = fftw_mpi_plan_dft_r2c_2d(fft->n0, fft->n1, fft->data, (fftw_complex *)fft->data, fl->comm,
                                          FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT);
  AdjCheckFFTWPlan(fft->forward);
  fft->backward = fftw_mpi_plan_dft_c2r_2d(fft->n0, fft->n1, (fftw_complex *)fft->data, fft->data, fl->comm,
                                           FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
  AdjCheckFFTWPlan(fft->backward);
  PetscCall(PetscMalloc1(PetscMax(fft->local_n1 * fft->n0, 1), &fft->inverse));
  for (ptrdiff_t m = 0; m < fft->local_n1; m++) {
    const PetscReal sx = PetscSinReal(PETSC_PI * (PetscReal)(fft->local_1_start + m) / g->M[0]);
    for (ptrdiff_t n = 0; n < fft->n0; n++) {
      const PetscReal sy            = PetscSinReal(PETSC_PI * (PetscReal)n / g->M[1]);
      const PetscReal K             = 4 * sx * sx / (g->h[0] * g->h[0]) + 4 * sy * sy / (g->h[1] * g->h[1]);
      fft->inverse[m * fft->n0 + n] = (fft->local_1_start + m == 0 && n == 0) ? 0.0 : 1.0 / (K * N);
    }
  }
  PetscCall(FluidFFTWCreateScatter(fl, fft));
  *fft_out = fft;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidFFTWSolve - phi = A^{-1} b (zero mean); b and phi are global vectors of the cell DMDA and
    may be the same. Collective. @*/
PetscErrorCode FluidFFTWSolve(FluidFFTW fft, Vec b, Vec phi)
{
  const ptrdiff_t    stride = 2 * fft->nc1; /* padded real row */
  const PetscScalar *in;
  PetscScalar       *out;

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(fft->toslab, b, fft->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(fft->toslab, b, fft->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(fft->slab, &in));
  for (ptrdiff_t j = 0; j < fft->local_n0; j++)
    for (ptrdiff_t i = 0; i < fft->n1; i++) fft->data[j * stride + i] = in[j * fft->n1 + i];
  PetscCall(VecRestoreArrayRead(fft->slab, &in));
  fftw_execute(fft->forward);
  for (ptrdiff_t q = 0; q < fft->local_n1 * fft->n0; q++) {
    fft->data[2 * q] *= fft->inverse[q];
    fft->data[2 * q + 1] *= fft->inverse[q];
  }
  fftw_execute(fft->backward);
  PetscCall(VecGetArrayWrite(fft->slab, &out));
  for (ptrdiff_t j = 0; j < fft->local_n0; j++)
    for (ptrdiff_t i = 0; i < fft->n1; i++) out[j * fft->n1 + i] = fft->data[j * stride + i];
  PetscCall(VecRestoreArrayWrite(fft->slab, &out));
  PetscCall(VecScatterBegin(fft->toslab, fft->slab, phi, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(fft->toslab, fft->slab, phi, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(PetscLogFlops(5.0 * fft->local_n0 * fft->n1 * PetscLog2Real((PetscReal)fft->n0 * fft->n1) +
                          2.0 * fft->local_n1 * fft->n0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ FluidFFTWDestroy - frees plans, buffer and scatter; *fft becomes NULL. @*/
PetscErrorCode FluidFFTWDestroy(FluidFFTW *fft)
{
  PetscFunctionBeginUser;
  if (!*fft) PetscFunctionReturn(PETSC_SUCCESS);
  fftw_destroy_plan((*fft)->forward);
  fftw_destroy_plan((*fft)->backward);
  fftw_free((*fft)->data);
  PetscCall(PetscFree((*fft)->inverse));
  PetscCall(VecScatterDestroy(&(*fft)->toslab));
  PetscCall(VecDestroy(&(*fft)->slab));
  PetscCall(PetscFree(*fft));
  PetscFunctionReturn(PETSC_SUCCESS);
}
