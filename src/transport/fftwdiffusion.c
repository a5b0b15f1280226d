/* FFT solver of the Crank-Nicolson system on a periodic grid with constant diffusivity.
 *
 * There D_lin = kappa L, L the periodic 5-point Laplacian, is diagonal in the DFT basis:
 *   L e_{mn} = -(4/hx^2 sin^2(pi m/Mx) + 4/hy^2 sin^2(pi n/My)) e_{mn},
 * so (I + s K) x = r with K = -L and s = tau kappa / 2 is solved by one real-to-complex transform,
 * a division by 1 + s K(m,n) and the inverse transform.
 *
 * Layout.  FFTW-MPI splits a row-major n0 x n1 array into slabs of whole rows (first dimension),
 * the DMDA into a 2D process grid.  Our natural (application) ordering j*Mx + i is row-major with
 * n0 = My (y), n1 = Mx (x), and FFTW's slabs are consecutive row blocks in rank order, so a Vec
 * whose ownership is exactly those slabs is the natural ordering split the FFTW way.  One
 * VecScatter (built from the DMDA's AO) moves a DMDA global vector there and back; rows are then
 * copied into FFTW's padded in-place r2c buffer.  We use this rather than MATFFTW and
 * VecScatterPetscToFFTW, which assume PETSc's natural ordering of an MPI Vec rather than a DMDA's
 * 2D split, and whose real-data layout handling is less explicit.  The forward transform leaves its
 * output transposed (FFTW_MPI_TRANSPOSED_OUT) and the inverse takes it so (FFTW_MPI_TRANSPOSED_IN),
 * which saves two global transposes per solve: the division by the symbol is pointwise and does
 * not care about the order of the modes.  Plans are made once, with FFTW_ESTIMATE so that they
 * (and so the round-off of every solve) are the same from run to run. */
#include "transportimpl.h"
#include <fftw3-mpi.h>

#if !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_COMPLEX)
#  error "The FFTW Crank-Nicolson solver needs real double-precision PETSc (it calls fftw3 double)"
#endif

struct _n_TransportFFTW {
  ptrdiff_t  n0, n1, nc1;             /* real grid n0 x n1 = My x Mx; complex rows n0 x nc1, nc1 = n1/2 + 1 */
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
static PetscErrorCode TransportFFTWCreateScatter(Transport tr, TransportFFTW fft)
{
  const PetscInt nlocal = (PetscInt)(fft->local_n0 * fft->n1), first = (PetscInt)(fft->local_0_start * fft->n1);
  IS             is;
  AO             ao;
  Vec            g;

  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(tr->comm, nlocal, tr->grid.Mx * tr->grid.My, &fft->slab));
  PetscCall(ISCreateStride(tr->comm, nlocal, first, 1, &is));
  PetscCall(DMDAGetAO(tr->da, &ao));
  PetscCall(AOApplicationToPetscIS(ao, is));
  PetscCall(DMGetGlobalVector(tr->da, &g));
  PetscCall(VecScatterCreate(g, is, fft->slab, NULL, &fft->toslab));
  PetscCall(DMRestoreGlobalVector(tr->da, &g));
  PetscCall(ISDestroy(&is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportFFTWCreate - plans the transforms and the redistribution for the grid of tr.
    Collective. @*/
PetscErrorCode TransportFFTWCreate(Transport tr, TransportFFTW *fft_out)
{
  const TransportGrid *g = &tr->grid;
  TransportFFTW        fft;
  ptrdiff_t            alloc_local;

  PetscFunctionBeginUser;
  fftw_mpi_init(); /* after MPI_Init; later calls are no-ops */
  PetscCall(PetscNew(&fft));
  fft->n0     = g->My;
  fft->n1     = g->Mx;
  fft->nc1    = g->Mx / 2 + 1;
  alloc_local = fftw_mpi_local_size_2d_transposed(fft->n0, fft->nc1, tr->comm, &fft->local_n0, &fft->local_0_start,
                                                  &fft->local_n1, &fft->local_1_start);
  fft->data   = fftw_alloc_real(2 * (size_t)PetscMax(alloc_local, 1));
  PetscCheck(fft->data, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %td doubles", 2 * alloc_local);
  fft->forward = fftw_mpi_plan_dft_r2c_2d(fft->n0, fft->n1, fft->data, (fftw_complex *)fft->data, tr->comm,
                                          FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT);
  AdjCheckFFTWPlan(fft->forward);
  fft->backward = fftw_mpi_plan_dft_c2r_2d(fft->n0, fft->n1, (fftw_complex *)fft->data, fft->data, tr->comm,
                                           FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
  AdjCheckFFTWPlan(fft->backward);
  PetscCall(PetscMalloc1(PetscMax(fft->local_n1 * fft->n0, 1), &fft->symbol));
  for (ptrdiff_t m = 0; m < fft->local_n1; m++) {
    const PetscReal sx = PetscSinReal(PETSC_PI * (PetscReal)(fft->local_1_start + m) / g->Mx);
    for (ptrdiff_t n = 0; n < fft->n0; n++) {
      const PetscReal sy           = PetscSinReal(PETSC_PI * (PetscReal)n / g->My);
      fft->symbol[m * fft->n0 + n] = 4 * sx * sx / (g->hx * g->hx) + 4 * sy * sy / (g->hy * g->hy);
    }
  }
  PetscCall(TransportFFTWCreateScatter(tr, fft));
  *fft_out = fft;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportFFTWSolve - x = (I + s K)^{-1} r, s = tau kappa / 2 [s m^-2 m^2]; r and x are DMDA
    global vectors and may be the same. Collective. @*/
PetscErrorCode TransportFFTWSolve(TransportFFTW fft, PetscReal s, Vec r, Vec x)
{
  const ptrdiff_t    stride = 2 * fft->nc1;                                    /* padded real row */
  const PetscReal    scale  = 1.0 / ((PetscReal)fft->n0 * (PetscReal)fft->n1); /* FFTW is unnormalised */
  const PetscScalar *in;
  PetscScalar       *out;

  PetscFunctionBeginUser;
  PetscCall(VecScatterBegin(fft->toslab, r, fft->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(fft->toslab, r, fft->slab, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(fft->slab, &in));
  for (ptrdiff_t j = 0; j < fft->local_n0; j++)
    for (ptrdiff_t i = 0; i < fft->n1; i++) fft->data[j * stride + i] = in[j * fft->n1 + i];
  PetscCall(VecRestoreArrayRead(fft->slab, &in));
  fftw_execute(fft->forward);
  for (ptrdiff_t q = 0; q < fft->local_n1 * fft->n0; q++) {
    const double f = scale / (1 + s * fft->symbol[q]);
    fft->data[2 * q] *= f;
    fft->data[2 * q + 1] *= f;
  }
  fftw_execute(fft->backward);
  PetscCall(VecGetArrayWrite(fft->slab, &out));
  for (ptrdiff_t j = 0; j < fft->local_n0; j++)
    for (ptrdiff_t i = 0; i < fft->n1; i++) out[j * fft->n1 + i] = fft->data[j * stride + i];
  PetscCall(VecRestoreArrayWrite(fft->slab, &out));
  PetscCall(VecScatterBegin(fft->toslab, fft->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(fft->toslab, fft->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  /* two real transforms of about 2.5 N log2 N flops each, this rank's share, and the division */
  PetscCall(PetscLogFlops(5.0 * fft->local_n0 * fft->n1 * PetscLog2Real((PetscReal)fft->n0 * fft->n1) +
                          4.0 * fft->local_n1 * fft->n0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ TransportFFTWDestroy - frees plans, buffer and scatter; *fft becomes NULL. @*/
PetscErrorCode TransportFFTWDestroy(TransportFFTW *fft)
{
  PetscFunctionBeginUser;
  if (!*fft) PetscFunctionReturn(PETSC_SUCCESS);
  fftw_destroy_plan((*fft)->forward);
  fftw_destroy_plan((*fft)->backward);
  fftw_free((*fft)->data);
  PetscCall(PetscFree((*fft)->symbol));
  PetscCall(VecScatterDestroy(&(*fft)->toslab));
  PetscCall(VecDestroy(&(*fft)->slab));
  PetscCall(PetscFree(*fft));
  PetscFunctionReturn(PETSC_SUCCESS);
}
