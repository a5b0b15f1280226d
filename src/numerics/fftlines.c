/* AdjFFTSolver's y direction by tridiagonal solves (ADJ_FFT_Y_TRIDIAGONAL; the method is described
 * in include/adjsim/fftsolver.h).
 *
 * After the x transforms of the rows, mode m of the x transform (position m of FFTW's output)
 * obeys, along y, with c = -b/hy^2,
 *   c phi_{J-1} + d_J phi_J + c phi_{J+1} = rhs_J,   d_J = a + b kx_m + (b/hy^2) e_J,
 * e_J = 2 inside, 1 in a Neumann end row (ghost = inner), 3 in a Dirichlet end row (ghost = -inner):
 * the rows of a + b K.  Rank r holds rows [s_r, e_r).  For r < P-1 its last row sigma_r = e_r - 1
 * is a separator with unknown x_r; the other rows form its block I_r (the last rank's block is its
 * whole slab).  A block couples only to the separators on either side, so with T_r the block's
 * matrix (no coupling across the cuts), y_r = T_r^{-1} rhs_r, gL_r = T_r^{-1} e_first and
 * gR_r = T_r^{-1} e_last,
 *   phi_{I_r} = y_r - c x_{r-1} gL_r - c x_r gR_r,
 * and the separator rows become a symmetric tridiagonal system in x_0 .. x_{P-2} (Schur complement):
 *   D_r x_r + E_{r-1} x_{r-1} + E_r x_{r+1} = rhs_{sigma_r} - c (y_r[last] + y_{r+1}[first]),
 *   D_r = d - c^2 (gR_r[last] + gL_{r+1}[first]),   E_r = -c^2 gR_{r+1}[first] (= -c^2 gL_{r+1}[last]).
 * D and E depend only on (a, b, m): they are factored once per (a, b) by the rank owning mode m.  A
 * solve then sends (y_r[first], y_r[last], rhs_sigma_r) per mode to the mode's owner and gets back
 * (x_{r-1}, x_r), and the block is solved again with those couplings moved to its right-hand side.
 * Every tridiagonal system here is symmetric positive definite (blocks and Schur complements of
 * a + b K, which is positive definite without its singular column), so elimination without
 * pivoting is stable.
 *
 * The DCT-II / DCT-III pair of a Neumann-Neumann x direction (even Mx) is computed as in Makhoul
 * (1980), "A fast cosine transform in one and multiple dimensions", IEEE Trans. ASSP 28: a row x is
 * permuted to v_n = x_{2n}, v_{Mx-1-n} = x_{2n+1} (while it is loaded), transformed by a real DFT
 * V = R2HC(v), and X_k = 2 Re(exp(-i theta_k) V_k), theta_k = pi k / (2 Mx), is FFTW's REDFT10 of
 * x; the inverse runs the steps backwards, V_k = exp(i theta_k) (X_k - i X_{Mx-k}), and matches
 * REDFT01.  FFTW's own REDFT10 plans take about twice as long on rows of 128 (measured). */
#include "fftsolverimpl.h"

/* The row slab of this rank: the DMDA's own rows when every rank owns whole rows (no scatter),
 * else an even split in rank order. Collective. */
static PetscErrorCode AdjFFTLinesSlab(DM da, PetscBool *aligned, PetscInt *nrows, PetscInt *row0)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)da);
  PetscInt    Mx, My, xs, ys, xm, ym;
  PetscMPIInt rank, size;
  PetscBool   whole;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(DMDAGetInfo(da, NULL, &Mx, &My, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  whole = (PetscBool)(xs == 0 && xm == Mx);
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPIU_BOOL, MPI_LAND, comm));
  *aligned = whole;
  if (whole)
    *nrows = ym, *row0 = ys;
  else {
    *nrows = My / size + (rank < My % size);
    *row0  = rank * (My / size) + PetscMin(rank, My % size);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTLinesPossible(DM da, const AdjFFTBoundary bc[2][2], PetscBool *ok, const char **why)
{
  PetscBool aligned;
  PetscInt  nrows, row0;

  PetscFunctionBeginUser;
  PetscCall(AdjFFTLinesSlab(da, &aligned, &nrows, &row0));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nrows, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)da)));
  *ok  = PETSC_TRUE;
  *why = "";
  if (bc[1][0] == ADJ_FFT_PERIODIC)
    *ok = PETSC_FALSE, *why = "y is periodic";
  else if (nrows < 2)
    *ok = PETSC_FALSE, *why = "a rank would hold fewer than 2 grid rows";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = T^{-1} x for nb rows of Mx independent columns (row-major, the column index fastest, so the
 * inner loops vectorize): T has diagonal d_j and off-diagonals c, w_j = 1/(d_j - c^2 w_{j-1}) its
 * inverse pivots (a zero column of w gives a zero solution). */
static void AdjFFTLinesThomas(PetscInt nb, PetscInt Mx, PetscReal c, const PetscReal *w, PetscReal *x)
{
  for (PetscInt m = 0; m < Mx; m++) x[m] *= w[m];
  for (PetscInt j = 1; j < nb; j++) {
    PetscReal       *xj = x + j * Mx, *xp = xj - Mx;
    const PetscReal *wj = w + j * Mx;
    for (PetscInt m = 0; m < Mx; m++) xj[m] = (xj[m] - c * xp[m]) * wj[m];
  }
  for (PetscInt j = nb - 2; j >= 0; j--) {
    PetscReal       *xj = x + j * Mx, *xn = xj + Mx;
    const PetscReal *wj = w + j * Mx;
    for (PetscInt m = 0; m < Mx; m++) xj[m] -= c * wj[m] * xn[m];
  }
}

/* The separators' systems of the modes this rank owns: gL, gR of every block, sent to the owners,
 * who assemble D and E and factor them (sw: inverse pivots, se: off-diagonals). Collective. */
static PetscErrorCode AdjFFTLinesFactorSeparators(AdjFFTSolver fs, PetscReal a, PetscReal b)
{
  AdjFFTLines    *L  = &fs->lines;
  const PetscInt  Mx = L->Mx, nb = L->nblock, ns = L->size - 1, m0 = L->mstart[L->rank];
  const PetscInt  nown = L->mstart[L->rank + 1] - m0;
  const PetscReal cy = b / (L->hy * L->hy), c = -cy;

  PetscFunctionBeginUser;
  /* gL and gR for all modes at once: two block solves with unit right-hand sides */
  PetscCall(PetscArrayzero(L->work, nb * Mx));
  for (PetscInt m = 0; m < Mx; m++) L->work[m] = 1;
  AdjFFTLinesThomas(nb, Mx, c, L->w, L->work);
  for (PetscInt q = 0; q < L->size; q++)
    for (PetscInt m = L->mstart[q]; m < L->mstart[q + 1]; m++) {
      PetscReal *p = L->sendbuf + L->dsp3[q] + 3 * (m - L->mstart[q]);
      p[0]         = L->work[m]; /* gL[first] */
    }
  PetscCall(PetscArrayzero(L->work, nb * Mx));
  for (PetscInt m = 0; m < Mx; m++) L->work[(nb - 1) * Mx + m] = 1;
  AdjFFTLinesThomas(nb, Mx, c, L->w, L->work);
  for (PetscInt q = 0; q < L->size; q++)
    for (PetscInt m = L->mstart[q]; m < L->mstart[q + 1]; m++) {
      PetscReal *p = L->sendbuf + L->dsp3[q] + 3 * (m - L->mstart[q]);
      p[1] = L->work[(nb - 1) * Mx + m], p[2] = L->work[m]; /* gR[last], gR[first] */
    }
  PetscCallMPI(
      MPI_Alltoallv(L->sendbuf, L->cnt3, L->dsp3, MPIU_REAL, L->recvbuf, L->cnt3own, L->dsp3own, MPIU_REAL, fs->comm));
  for (PetscInt k = 0; k < nown; k++) {
    const PetscInt  m  = m0 + k;
    const PetscReal d  = a + b * L->kx[m] + 2 * cy;
    PetscReal      *sw = L->sw + k * ns, *se = L->se + k * ns;
    for (PetscInt r = 0; r < ns; r++) {
      const PetscReal *vr = L->recvbuf + L->dsp3own[r] + 3 * k, *vn = L->recvbuf + L->dsp3own[r + 1] + 3 * k;
      const PetscReal  D = d - c * c * (vr[1] + vn[0]);
      se[r]              = r + 1 < ns ? -c * c * vn[2] : 0;
      sw[r]              = 1 / (D - (r ? se[r - 1] * se[r - 1] * sw[r - 1] : 0));
    }
    if (m == L->singular)
      for (PetscInt r = 0; r < ns; r++) sw[r] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Factors for (a, b), unless they are those of the last solve. Collective. */
static PetscErrorCode AdjFFTLinesFactor(AdjFFTSolver fs, PetscReal a, PetscReal b)
{
  AdjFFTLines    *L  = &fs->lines;
  const PetscInt  Mx = L->Mx;
  const PetscReal cy = b / (L->hy * L->hy), c = -cy;

  PetscFunctionBeginUser;
  if (L->factored && a == L->fa && b == L->fb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(a != 0 || b != 0, fs->comm, PETSC_ERR_ARG_OUTOFRANGE, "AdjFFTSolverSolve: a = b = 0");
  L->singular = -1;
  if (L->dybc[0] == 1 && L->dybc[1] == 1)
    for (PetscInt m = 0; m < Mx; m++)
      if (a + b * L->kx[m] == 0) {
        PetscCheck(L->singular < 0 && b != 0, fs->comm, PETSC_ERR_PLIB, "AdjFFTSolver: more than one singular mode");
        L->singular = m;
      }
  for (PetscInt j = 0; j < L->nblock; j++) {
    const PetscInt  J  = L->row0 + j;
    const PetscReal e  = J == 0 ? L->dybc[0] : J == L->My - 1 ? L->dybc[1] : 2;
    PetscReal      *wj = L->w + j * Mx;
    for (PetscInt m = 0; m < Mx; m++) wj[m] = 1 / (a + b * L->kx[m] + cy * e - (j ? c * c * wj[m - Mx] : 0));
  }
  if (L->singular >= 0 && L->size == 1) /* its pivots are meaningless (the last is 1/0) */
    for (PetscInt j = 0; j < L->nblock; j++) L->w[j * Mx + L->singular] = 0;
  if (L->size > 1) PetscCall(AdjFFTLinesFactorSeparators(fs, a, b));
  L->factored = PETSC_TRUE, L->fa = a, L->fb = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The singular column (the mean mode of a Neumann-Neumann y direction with a + b kx = 0), gathered
 * to every rank and solved exactly: with G_J = (b/hy^2)(phi_{J+1} - phi_J), row J of b Ky phi = r
 * reads G_{J-1} - G_J = r_J, G_{-1} = 0; r loses its mean (the transform method drops that mode),
 * phi is returned with zero mean.  L->column gets phi. Collective. */
static PetscErrorCode AdjFFTLinesSolveSingularColumn(AdjFFTSolver fs, PetscReal b)
{
  AdjFFTLines    *L  = &fs->lines;
  const PetscInt  My = L->My, s = L->singular;
  const PetscReal h2b  = L->hy * L->hy / b;
  PetscReal       mean = 0, phi = 0, G = 0, next, phimean = 0;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < L->nrows; j++) L->work[j] = L->data[j * L->Mx + s];
  PetscCallMPI(MPI_Allgatherv(L->work, (PetscMPIInt)L->nrows, MPIU_REAL, L->column, L->rowcounts, L->rowdispls,
                              MPIU_REAL, fs->comm));
  for (PetscInt J = 0; J < My; J++) mean += L->column[J];
  mean /= My;
  next = L->column[0];
  for (PetscInt J = 0; J < My; J++) {
    const PetscReal rJ = next;
    if (J + 1 < My) next = L->column[J + 1];
    L->column[J] = phi;
    phimean += phi;
    G -= rJ - mean;
    phi += G * h2b;
  }
  phimean /= My;
  for (PetscInt J = 0; J < My; J++) L->column[J] -= phimean;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slabs of P > 1 ranks: block solves, the separators' systems at the modes' owners, block
 * solves again with the separators' couplings. Collective. */
static PetscErrorCode AdjFFTLinesSolveSlabs(AdjFFTSolver fs, PetscReal b)
{
  AdjFFTLines    *L  = &fs->lines;
  const PetscInt  Mx = L->Mx, nb = L->nblock, ns = L->size - 1, m0 = L->mstart[L->rank];
  const PetscInt  nown = L->mstart[L->rank + 1] - m0;
  const PetscBool last = (PetscBool)(L->rank == L->size - 1);
  const PetscReal c    = -b / (L->hy * L->hy);

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(L->work, L->data, nb * Mx));
  AdjFFTLinesThomas(nb, Mx, c, L->w, L->work); /* y = T^{-1} rhs of the block */
  for (PetscInt q = 0; q < L->size; q++)
    for (PetscInt m = L->mstart[q]; m < L->mstart[q + 1]; m++) {
      PetscReal *p = L->sendbuf + L->dsp3[q] + 3 * (m - L->mstart[q]);
      p[0] = L->work[m], p[1] = L->work[(nb - 1) * Mx + m], p[2] = last ? 0 : L->data[nb * Mx + m];
    }
  PetscCallMPI(
      MPI_Alltoallv(L->sendbuf, L->cnt3, L->dsp3, MPIU_REAL, L->recvbuf, L->cnt3own, L->dsp3own, MPIU_REAL, fs->comm));
  for (PetscInt k = 0; k < nown; k++) { /* the separators of mode m0 + k: forward and back substitution */
    const PetscReal *sw = L->sw + k * ns, *se = L->se + k * ns;
    PetscReal       *x = L->xsep;
    for (PetscInt r = 0; r < ns; r++) {
      const PetscReal *vr = L->recvbuf + L->dsp3own[r] + 3 * k, *vn = L->recvbuf + L->dsp3own[r + 1] + 3 * k;
      x[r] = (vr[2] - c * (vr[1] + vn[0]) - (r ? se[r - 1] * x[r - 1] : 0)) * sw[r];
    }
    for (PetscInt r = ns - 2; r >= 0; r--) x[r] -= se[r] * sw[r] * x[r + 1];
    for (PetscInt r = 0; r <= ns; r++) {
      PetscReal *p = L->sendbuf + L->dsp2own[r] + 2 * k;
      p[0] = r > 0 ? x[r - 1] : 0, p[1] = r < ns ? x[r] : 0;
    }
  }
  PetscCallMPI(
      MPI_Alltoallv(L->sendbuf, L->cnt2own, L->dsp2own, MPIU_REAL, L->recvbuf, L->cnt2, L->dsp2, MPIU_REAL, fs->comm));
  for (PetscInt q = 0; q < L->size; q++)
    for (PetscInt m = L->mstart[q]; m < L->mstart[q + 1]; m++) {
      const PetscReal *x = L->recvbuf + L->dsp2[q] + 2 * (m - L->mstart[q]); /* x_{r-1}, x_r */
      L->data[m] -= c * x[0];
      if (!last) L->data[(nb - 1) * Mx + m] -= c * x[1], L->data[nb * Mx + m] = x[1];
    }
  AdjFFTLinesThomas(nb, Mx, c, L->w, L->data);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The real DFT's halfcomplex output of each row (Makhoul's permuted rows) to the DCT-II,
 * X_k = 2 Re(exp(-i theta_k) V_k) and X_{Mx-k} = -2 Im(exp(-i theta_k) V_k), in place. */
static void AdjFFTLinesMakhoulForward(AdjFFTLines *L)
{
  const PetscInt   N = L->Mx;
  const PetscReal *c = L->twc, *s = L->tws;

  for (PetscInt j = 0; j < L->nrows; j++) {
    PetscReal *v = L->data + j * N;
    for (PetscInt k = 1; k < N / 2; k++) {
      const PetscReal re = v[k], im = v[N - k];
      v[k] = c[k] * re + s[k] * im, v[N - k] = s[k] * re - c[k] * im;
    }
    v[0] *= c[0], v[N / 2] *= c[N / 2];
  }
}

/* The inverse of AdjFFTLinesMakhoulForward up to FFTW's REDFT01 scaling (2 Mx):
 * V_k = exp(i theta_k) (X_k - i X_{Mx-k}) in halfcomplex order, in place. */
static void AdjFFTLinesMakhoulBackward(AdjFFTLines *L)
{
  const PetscInt   N = L->Mx;
  const PetscReal *c = L->twc, *s = L->tws;

  for (PetscInt j = 0; j < L->nrows; j++) {
    PetscReal *v = L->data + j * N;
    for (PetscInt k = 1; k < N / 2; k++) {
      const PetscReal a = v[k], b = v[N - k];
      v[k] = 0.5 * (c[k] * a + s[k] * b), v[N - k] = 0.5 * (s[k] * a - c[k] * b);
    }
    v[N / 2] *= c[N / 2]; /* sqrt(2) */
  }
}

/* data = xscale * this rank's rows of r (Makhoul's permutation of each row when in use). Collective. */
static PetscErrorCode AdjFFTLinesLoad(AdjFFTSolver fs, Vec r)
{
  AdjFFTLines       *L = &fs->lines;
  const PetscInt     N = L->Mx;
  const PetscScalar *in;
  Vec                src = r;

  PetscFunctionBeginUser;
  if (!L->aligned) {
    PetscCall(VecScatterBegin(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
    src = fs->slab;
  }
  PetscCall(VecGetArrayRead(src, &in));
  if (L->makhoul)
    for (PetscInt j = 0; j < L->nrows; j++) {
      const PetscScalar *x = in + j * N;
      PetscReal         *v = L->data + j * N;
      for (PetscInt n = 0; n < N / 2; n++) v[n] = L->xscale * x[2 * n], v[N - 1 - n] = L->xscale * x[2 * n + 1];
    }
  else
    for (PetscInt q = 0; q < L->nrows * N; q++) L->data[q] = L->xscale * in[q];
  PetscCall(VecRestoreArrayRead(src, &in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x = this rank's rows of data (undoing Makhoul's permutation). Collective. */
static PetscErrorCode AdjFFTLinesStore(AdjFFTSolver fs, Vec x)
{
  AdjFFTLines   *L   = &fs->lines;
  const PetscInt N   = L->Mx;
  Vec            dst = L->aligned ? x : fs->slab;
  PetscScalar   *out;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(dst, &out));
  if (L->makhoul)
    for (PetscInt j = 0; j < L->nrows; j++) {
      PetscScalar     *y = out + j * N;
      const PetscReal *v = L->data + j * N;
      for (PetscInt n = 0; n < N / 2; n++) y[2 * n] = v[n], y[2 * n + 1] = v[N - 1 - n];
    }
  else
    PetscCall(PetscArraycpy(out, L->data, L->nrows * N));
  PetscCall(VecRestoreArrayWrite(dst, &out));
  if (!L->aligned) {
    PetscCall(VecScatterBegin(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTLinesSolve(AdjFFTSolver fs, PetscReal a, PetscReal b, Vec r, Vec x)
{
  AdjFFTLines *L = &fs->lines;

  PetscFunctionBeginUser;
  PetscCall(AdjFFTLinesFactor(fs, a, b));
  PetscCall(AdjFFTLinesLoad(fs, r));
  fftw_execute(L->xforward);
  if (L->makhoul) AdjFFTLinesMakhoulForward(L);
  if (L->singular >= 0) PetscCall(AdjFFTLinesSolveSingularColumn(fs, b));
  if (L->size == 1)
    AdjFFTLinesThomas(L->nblock, L->Mx, -b / (L->hy * L->hy), L->w, L->data);
  else
    PetscCall(AdjFFTLinesSolveSlabs(fs, b));
  if (L->singular >= 0)
    for (PetscInt j = 0; j < L->nrows; j++) L->data[j * L->Mx + L->singular] = L->column[L->row0 + j];
  if (L->makhoul) AdjFFTLinesMakhoulBackward(L);
  fftw_execute(L->xbackward);
  PetscCall(AdjFFTLinesStore(fs, x));
  /* two real transforms of about 2.5 N log2 N flops per row, and 5 flops per point per block solve */
  PetscCall(PetscLogFlops(5.0 * L->nrows * L->Mx * PetscLog2Real((PetscReal)L->Mx) +
                          5.0 * L->nblock * L->Mx * (L->size > 1 ? 2 : 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Counts and displacements of the two all-to-alls: 3 numbers per mode to the mode's owner, 2 back. */
static PetscErrorCode AdjFFTLinesSetUpExchange(AdjFFTLines *L)
{
  const PetscMPIInt P = L->size;
  PetscInt          nown;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(P + 1, &L->mstart));
  for (PetscMPIInt q = 0; q <= P; q++) L->mstart[q] = q * (L->Mx / P) + PetscMin(q, L->Mx % P);
  nown = L->mstart[L->rank + 1] - L->mstart[L->rank];
  PetscCall(PetscMalloc4(P, &L->cnt3, P, &L->dsp3, P, &L->cnt3own, P, &L->dsp3own));
  PetscCall(PetscMalloc4(P, &L->cnt2, P, &L->dsp2, P, &L->cnt2own, P, &L->dsp2own));
  for (PetscMPIInt q = 0; q < P; q++) {
    const PetscInt nq = L->mstart[q + 1] - L->mstart[q];
    L->cnt3[q] = (PetscMPIInt)(3 * nq), L->dsp3[q] = (PetscMPIInt)(3 * L->mstart[q]);
    L->cnt2[q] = (PetscMPIInt)(2 * nq), L->dsp2[q] = (PetscMPIInt)(2 * L->mstart[q]);
    L->cnt3own[q] = (PetscMPIInt)(3 * nown), L->dsp3own[q] = (PetscMPIInt)(3 * nown * q);
    L->cnt2own[q] = (PetscMPIInt)(2 * nown), L->dsp2own[q] = (PetscMPIInt)(2 * nown * q);
  }
  PetscCall(
      PetscMalloc2(PetscMax(3 * L->Mx, 2 * nown * P), &L->sendbuf, PetscMax(3 * nown * P, 2 * L->Mx), &L->recvbuf));
  PetscCall(PetscMalloc3(PetscMax(nown * (P - 1), 1), &L->sw, PetscMax(nown * (P - 1), 1), &L->se, P, &L->xsep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The x transforms of all rows: FFTW's r2r kinds, or for the DCT-II/III of an even Mx real DFTs
 * and Makhoul's twiddles. Not collective. */
static PetscErrorCode AdjFFTLinesPlanX(AdjFFTSolver fs, unsigned flags)
{
  AdjFFTLines  *L  = &fs->lines;
  const int     nx = (int)L->Mx, rows = (int)L->nrows;
  fftw_r2r_kind fk = fs->dx.forward, bk = fs->dx.backward;

  PetscFunctionBeginUser;
  L->makhoul = (PetscBool)(fs->dx.type == 1 && L->Mx % 2 == 0);
  if (L->makhoul) {
    fk = FFTW_R2HC, bk = FFTW_HC2R;
    PetscCall(PetscMalloc2(L->Mx, &L->twc, L->Mx, &L->tws));
    for (PetscInt k = 0; k < L->Mx; k++) {
      const PetscReal theta = PETSC_PI * (PetscReal)k / (2 * L->Mx);
      L->twc[k] = 2 * PetscCosReal(theta), L->tws[k] = 2 * PetscSinReal(theta);
    }
    L->twc[L->Mx / 2] = PetscSqrtReal(2.0); /* 2 cos(pi/4), exactly as the backward step uses it */
  }
  L->xforward = fftw_plan_many_r2r(1, &nx, rows, L->data, NULL, 1, nx, L->data, NULL, 1, nx, &fk, flags);
  AdjCheckFFTWPlan(L->xforward);
  L->xbackward = fftw_plan_many_r2r(1, &nx, rows, L->data, NULL, 1, nx, L->data, NULL, 1, nx, &bk, flags);
  AdjCheckFFTWPlan(L->xbackward);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTLinesSetUp(AdjFFTSolver fs, DM da, PetscReal hx, PetscReal hy, const AdjFFTBoundary bc[2][2],
                                unsigned flags)
{
  AdjFFTLines *L = &fs->lines;
  PetscInt     n;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(fs->comm, &L->rank));
  PetscCallMPI(MPI_Comm_size(fs->comm, &L->size));
  L->Mx = (PetscInt)fs->n1, L->My = (PetscInt)fs->n0;
  PetscCall(AdjFFTLinesSlab(da, &L->aligned, &L->nrows, &L->row0));
  L->nblock = L->rank < L->size - 1 ? L->nrows - 1 : L->nrows;
  L->hy = hy, L->xscale = 1.0 / fs->dx.norm;
  for (PetscInt s = 0; s < 2; s++) L->dybc[s] = bc[1][s] == ADJ_FFT_DIRICHLET ? 3 : 1;
  PetscCall(PetscMalloc1(L->Mx, &L->kx));
  for (PetscInt m = 0; m < L->Mx; m++) L->kx[m] = AdjFFTEigenvalue(&fs->dx, L->Mx, m, hx);
  n       = PetscMax(L->nrows * L->Mx, L->My);
  L->data = fftw_alloc_real((size_t)n);
  L->work = fftw_alloc_real((size_t)n);
  PetscCheck(L->data && L->work, PETSC_COMM_SELF, PETSC_ERR_MEM,
             "FFTW could not allocate 2 x %" PetscInt_FMT " doubles", n);
  PetscCall(AdjFFTLinesPlanX(fs, flags));
  PetscCall(PetscMalloc1(PetscMax(L->nblock * L->Mx, 1), &L->w));
  PetscCall(PetscMalloc3(L->My, &L->column, L->size, &L->rowcounts, L->size, &L->rowdispls));
  {
    PetscMPIInt nr = (PetscMPIInt)L->nrows, r0 = (PetscMPIInt)L->row0;
    PetscCallMPI(MPI_Allgather(&nr, 1, MPI_INT, L->rowcounts, 1, MPI_INT, fs->comm));
    PetscCallMPI(MPI_Allgather(&r0, 1, MPI_INT, L->rowdispls, 1, MPI_INT, fs->comm));
  }
  if (L->size > 1) PetscCall(AdjFFTLinesSetUpExchange(L));
  if (!L->aligned) PetscCall(AdjFFTSolverCreateScatter(da, L->nrows, L->row0, fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTLinesDestroy(AdjFFTLines *L)
{
  PetscFunctionBeginUser;
  if (L->xforward) fftw_destroy_plan(L->xforward);
  if (L->xbackward) fftw_destroy_plan(L->xbackward);
  fftw_free(L->data);
  fftw_free(L->work);
  PetscCall(PetscFree(L->kx));
  PetscCall(PetscFree2(L->twc, L->tws));
  PetscCall(PetscFree(L->w));
  PetscCall(PetscFree3(L->column, L->rowcounts, L->rowdispls));
  PetscCall(PetscFree(L->mstart));
  PetscCall(PetscFree4(L->cnt3, L->dsp3, L->cnt3own, L->dsp3own));
  PetscCall(PetscFree4(L->cnt2, L->dsp2, L->cnt2own, L->dsp2own));
  PetscCall(PetscFree2(L->sendbuf, L->recvbuf));
  PetscCall(PetscFree3(L->sw, L->se, L->xsep));
  PetscFunctionReturn(PETSC_SUCCESS);
}
