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
 * (x_{r-1}, x_r), and phi follows from the formula above (gL, gR are kept with the factors).
 * Every tridiagonal system here is symmetric positive definite (blocks and Schur complements of
 * a + b K, which is positive definite without its singular column), so elimination without
 * pivoting is stable.
 *
 * The DCT-II / DCT-III pair of a Neumann-Neumann x direction (even Mx) is computed as in Makhoul
 * (1980), "A fast cosine transform in one and multiple dimensions", IEEE Trans. ASSP 28: a row x is
 * permuted to v_n = x_{2n}, v_{Mx-1-n} = x_{2n+1} (while it is loaded), transformed by a real DFT
 * V = R2HC(v), and X_k = 2 Re(exp(-i theta_k) V_k), theta_k = pi k / (2 Mx), is FFTW's REDFT10 of
 * x; the inverse runs the steps backwards, V_k = exp(i theta_k) (X_k - i X_{Mx-k}), and matches
 * REDFT01.  FFTW's own REDFT10 plans take about twice as long on rows of 128 (measured).
 *
 * Memory traffic: a solve streams the rows twice, a chunk of about 64 kB of rows at a time.  The
 * forward pass loads a chunk, transforms it and takes its steps of the Thomas forward elimination
 * while it is in cache; the backward pass takes the back-substitution steps of a chunk, transforms
 * it back and stores it.  (Separate passes for the load, transforms, twiddles and sweeps made the
 * 512^2 solve memory-bound; single-row plans lose FFTW's SIMD across rows.)  Rows are padded to a
 * multiple of 8 doubles so that the chunk plans fit every chunk (same alignment). */
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

/* One row of the Thomas elimination (columns independent; the column index is fastest, so the
 * loops vectorize): T has diagonal d_j and off-diagonals c, w_j = 1/(d_j - c^2 w_{j-1}) its inverse
 * pivots (a zero column of w gives a zero solution).  Forward: v = (v - c prev) w (prev NULL in
 * the first row); backward: v -= c w next. */
static inline void AdjFFTLinesSweepForward(PetscInt Mx, PetscReal c, const PetscReal *w, const PetscReal *prev,
                                           PetscReal *v)
{
  if (!prev)
    for (PetscInt m = 0; m < Mx; m++) v[m] *= w[m];
  else
    for (PetscInt m = 0; m < Mx; m++) v[m] = (v[m] - c * prev[m]) * w[m];
}

static inline void AdjFFTLinesSweepBackward(PetscInt Mx, PetscReal c, const PetscReal *w, const PetscReal *next,
                                            PetscReal *v)
{
  for (PetscInt m = 0; m < Mx; m++) v[m] -= c * w[m] * next[m];
}

/* x = T^{-1} x for nb rows of Mx columns (rows ld apart). */
static void AdjFFTLinesThomas(PetscInt nb, PetscInt Mx, PetscInt ld, PetscReal c, const PetscReal *w, PetscReal *x)
{
  for (PetscInt j = 0; j < nb; j++) AdjFFTLinesSweepForward(Mx, c, w + j * Mx, j ? x + (j - 1) * ld : NULL, x + j * ld);
  for (PetscInt j = nb - 2; j >= 0; j--) AdjFFTLinesSweepBackward(Mx, c, w + j * Mx, x + (j + 1) * ld, x + j * ld);
}

/* The separators' systems of the modes this rank owns: gL = T^{-1} e_first, gR = T^{-1} e_last of
 * every block (kept for the solves), their ends sent to the owners, who assemble D and E and factor
 * them (sw: inverse pivots, se: off-diagonals). Collective. */
static PetscErrorCode AdjFFTLinesFactorSeparators(AdjFFTSolver fs, PetscReal a, PetscReal b)
{
  AdjFFTLines    *L  = &fs->lines;
  const PetscInt  Mx = L->Mx, nb = L->nblock, ns = L->size - 1, m0 = L->mstart[L->rank];
  const PetscInt  nown = L->mstart[L->rank + 1] - m0;
  const PetscReal cy = b / (L->hy * L->hy), c = -cy;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(L->gL, nb * Mx));
  PetscCall(PetscArrayzero(L->gR, nb * Mx));
  for (PetscInt m = 0; m < Mx; m++) L->gL[m] = 1, L->gR[(nb - 1) * Mx + m] = 1;
  AdjFFTLinesThomas(nb, Mx, Mx, c, L->w, L->gL);
  AdjFFTLinesThomas(nb, Mx, Mx, c, L->w, L->gR);
  for (PetscInt q = 0; q < L->size; q++)
    for (PetscInt m = L->mstart[q]; m < L->mstart[q + 1]; m++) {
      PetscReal *p = L->sendbuf + L->dsp3[q] + 3 * (m - L->mstart[q]);
      p[0] = L->gL[m], p[1] = L->gR[(nb - 1) * Mx + m], p[2] = L->gR[m]; /* gL[first], gR[last], gR[first] */
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
        PetscCheck(L->singular < 0, fs->comm, PETSC_ERR_PLIB, "AdjFFTSolver: more than one singular mode");
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

/* The singular column (the mean mode of a Neumann-Neumann y direction with a + b kx = 0; this
 * rank's part in colpart), gathered to every rank and solved exactly: with
 * G_J = (b/hy^2)(phi_{J+1} - phi_J), row J of b Ky phi = r reads G_{J-1} - G_J = r_J, G_{-1} = 0;
 * r loses its mean (the transform method drops that mode), phi is returned with zero mean.
 * L->column gets phi. Collective. */
static PetscErrorCode AdjFFTLinesSolveSingularColumn(AdjFFTSolver fs, PetscReal b)
{
  AdjFFTLines    *L    = &fs->lines;
  const PetscInt  My   = L->My;
  const PetscReal h2b  = L->hy * L->hy / b;
  PetscReal       mean = 0, phi = 0, G = 0, phimean = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allgatherv(L->colpart, (PetscMPIInt)L->nrows, MPIU_REAL, L->column, L->rowcounts, L->rowdispls,
                              MPIU_REAL, fs->comm));
  for (PetscInt J = 0; J < My; J++) mean += L->column[J];
  mean /= My;
  for (PetscInt J = 0; J < My; J++) { /* column[J] holds r_J until it gets phi_J */
    const PetscReal rJ = L->column[J];
    L->column[J]       = phi;
    phimean += phi;
    G -= rJ - mean;
    phi += G * h2b;
  }
  phimean /= My;
  for (PetscInt J = 0; J < My; J++) L->column[J] -= phimean;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The plan of a chunk of n rows (n = chunk, or the remainder). */
static fftw_plan AdjFFTLinesPlanOf(const AdjFFTLines *L, PetscInt n, PetscBool forward)
{
  if (forward) return n == L->chunk ? L->xforward : L->xforward_rem;
  return n == L->chunk ? L->xbackward : L->xbackward_rem;
}

/* Rows [j0, j0 + n) of data = the x transforms of xscale * those rows of in: Makhoul's permutation
 * while loading, the real DFTs, then X_k = 2 Re(exp(-i theta_k) V_k), X_{Mx-k} = -2 Im(exp(-i
 * theta_k) V_k); or FFTW's r2r kind of the direction. */
static void AdjFFTLinesChunkForward(AdjFFTLines *L, PetscInt j0, PetscInt n, const PetscScalar *in)
{
  const PetscInt  N = L->Mx, S = L->stride;
  const PetscReal sc = L->xscale, *c = L->twc, *s = L->tws;
  PetscReal      *rows = L->data + j0 * S;

  for (PetscInt j = 0; j < n; j++) {
    const PetscScalar *x = in + (j0 + j) * N;
    PetscReal         *v = rows + j * S;
    if (L->makhoul)
      for (PetscInt q = 0; q < N / 2; q++) v[q] = sc * x[2 * q], v[N - 1 - q] = sc * x[2 * q + 1];
    else
      for (PetscInt q = 0; q < N; q++) v[q] = sc * x[q];
  }
  fftw_execute_r2r(AdjFFTLinesPlanOf(L, n, PETSC_TRUE), rows, rows);
  if (!L->makhoul) return;
  for (PetscInt j = 0; j < n; j++) {
    PetscReal *v = rows + j * S;
    for (PetscInt k = 1; k < N / 2; k++) {
      const PetscReal re = v[k], im = v[N - k];
      v[k] = c[k] * re + s[k] * im, v[N - k] = s[k] * re - c[k] * im;
    }
    v[0] *= c[0], v[N / 2] *= c[N / 2];
  }
}

/* Rows [j0, j0 + n) of out = the inverse x transforms of those rows of data (FFTW's backward kind,
 * or Makhoul's steps backwards: V_k = exp(i theta_k) (X_k - i X_{Mx-k}) in halfcomplex order, the
 * real DFTs, the permutation undone), through the scratch rows: data is left as it is. */
static void AdjFFTLinesChunkBackward(AdjFFTLines *L, PetscInt j0, PetscInt n, PetscScalar *out)
{
  const PetscInt   N = L->Mx, S = L->stride;
  const PetscReal *c = L->twc, *s = L->tws;

  for (PetscInt j = 0; j < n; j++) {
    const PetscReal *v = L->data + (j0 + j) * S;
    PetscReal       *t = L->scratch + j * S;
    if (!L->makhoul) {
      for (PetscInt q = 0; q < N; q++) t[q] = v[q];
      continue;
    }
    t[0] = v[0], t[N / 2] = c[N / 2] * v[N / 2]; /* sqrt(2) */
    for (PetscInt k = 1; k < N / 2; k++) {
      const PetscReal a = v[k], b = v[N - k];
      t[k] = 0.5 * (c[k] * a + s[k] * b), t[N - k] = 0.5 * (s[k] * a - c[k] * b);
    }
  }
  fftw_execute_r2r(AdjFFTLinesPlanOf(L, n, PETSC_FALSE), L->scratch, L->scratch);
  for (PetscInt j = 0; j < n; j++) {
    const PetscReal *t = L->scratch + j * S;
    PetscScalar     *y = out + (j0 + j) * N;
    if (L->makhoul)
      for (PetscInt q = 0; q < N / 2; q++) y[2 * q] = t[q], y[2 * q + 1] = t[N - 1 - q];
    else
      for (PetscInt q = 0; q < N; q++) y[q] = t[q];
  }
}

/* The forward pass, a chunk of rows at a time: rows of r loaded and transformed, then (block rows)
 * eliminated forward while in cache; the singular column's right-hand side kept in colpart.
 * Collective (the scatter). */
static PetscErrorCode AdjFFTLinesForwardPass(AdjFFTSolver fs, PetscReal c, Vec r)
{
  AdjFFTLines       *L  = &fs->lines;
  const PetscInt     Mx = L->Mx, S = L->stride;
  const PetscScalar *in;
  Vec                src = r;

  PetscFunctionBeginUser;
  if (!L->aligned) {
    PetscCall(VecScatterBegin(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(fs->toslab, r, fs->slab, INSERT_VALUES, SCATTER_FORWARD));
    src = fs->slab;
  }
  PetscCall(VecGetArrayRead(src, &in));
  for (PetscInt j0 = 0; j0 < L->nrows; j0 += L->chunk) {
    const PetscInt n = PetscMin(L->chunk, L->nrows - j0);
    AdjFFTLinesChunkForward(L, j0, n, in);
    for (PetscInt j = j0; j < j0 + n; j++) {
      PetscReal *v = L->data + j * S;
      if (L->singular >= 0) L->colpart[j] = v[L->singular];
      if (j < L->nblock) AdjFFTLinesSweepForward(Mx, c, L->w + j * Mx, j ? v - S : NULL, v);
    }
  }
  PetscCall(VecRestoreArrayRead(src, &in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The separators of P > 1 ranks: the block's back substitution gives y; (y[first], y[last],
 * rhs_sigma) per mode go to the mode's owner, who solves the separators' system and returns
 * (x_{r-1}, x_r) into xlo, xhi. Collective. */
static PetscErrorCode AdjFFTLinesSolveSeparators(AdjFFTSolver fs, PetscReal c)
{
  AdjFFTLines    *L  = &fs->lines;
  const PetscInt  Mx = L->Mx, S = L->stride, nb = L->nblock, ns = L->size - 1, m0 = L->mstart[L->rank];
  const PetscInt  nown = L->mstart[L->rank + 1] - m0;
  const PetscBool last = (PetscBool)(L->rank == L->size - 1);

  PetscFunctionBeginUser;
  for (PetscInt j = nb - 2; j >= 0; j--)
    AdjFFTLinesSweepBackward(Mx, c, L->w + j * Mx, L->data + (j + 1) * S, L->data + j * S);
  for (PetscInt q = 0; q < L->size; q++)
    for (PetscInt m = L->mstart[q]; m < L->mstart[q + 1]; m++) {
      PetscReal *p = L->sendbuf + L->dsp3[q] + 3 * (m - L->mstart[q]);
      p[0] = L->data[m], p[1] = L->data[(nb - 1) * S + m], p[2] = last ? 0 : L->data[nb * S + m];
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
      const PetscReal *x = L->recvbuf + L->dsp2[q] + 2 * (m - L->mstart[q]);
      L->xlo[m] = x[0], L->xhi[m] = x[1];
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row j finished: P = 1: its back-substitution step; P > 1: y minus the separators' couplings,
 * phi = y - c x_{r-1} gL - c x_r gR, or the separator itself; then its singular entry. */
static void AdjFFTLinesFinishRow(AdjFFTLines *L, PetscReal c, PetscInt j)
{
  const PetscInt Mx = L->Mx, nb = L->nblock;
  PetscReal     *v = L->data + j * L->stride;

  if (L->size == 1) {
    if (j < nb - 1) AdjFFTLinesSweepBackward(Mx, c, L->w + j * Mx, v + L->stride, v);
  } else if (j < nb) {
    const PetscReal *gl = L->gL + j * Mx, *gr = L->gR + j * Mx;
    for (PetscInt m = 0; m < Mx; m++) v[m] -= c * (L->xlo[m] * gl[m] + L->xhi[m] * gr[m]);
  } else
    for (PetscInt m = 0; m < Mx; m++) v[m] = L->xhi[m];
  if (L->singular >= 0) v[L->singular] = L->column[L->row0 + j];
}

/* The backward pass, a chunk of rows at a time (from the top when P = 1, for the back
 * substitution): rows finished, transformed back and stored in x. Collective (the scatter). */
static PetscErrorCode AdjFFTLinesBackwardPass(AdjFFTSolver fs, PetscReal c, Vec x)
{
  AdjFFTLines   *L       = &fs->lines;
  const PetscInt nchunks = (L->nrows + L->chunk - 1) / L->chunk;
  Vec            dst     = L->aligned ? x : fs->slab;
  PetscScalar   *out;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(dst, &out));
  for (PetscInt k = 0; k < nchunks; k++) {
    const PetscInt j0 = (L->size == 1 ? nchunks - 1 - k : k) * L->chunk, n = PetscMin(L->chunk, L->nrows - j0);
    for (PetscInt j = j0 + n - 1; j >= j0; j--) AdjFFTLinesFinishRow(L, c, j);
    AdjFFTLinesChunkBackward(L, j0, n, out);
  }
  PetscCall(VecRestoreArrayWrite(dst, &out));
  if (!L->aligned) {
    PetscCall(VecScatterBegin(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(fs->toslab, fs->slab, x, INSERT_VALUES, SCATTER_REVERSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTLinesSolve(AdjFFTSolver fs, PetscReal a, PetscReal b, Vec r, Vec x)
{
  AdjFFTLines    *L = &fs->lines;
  const PetscReal c = -b / (L->hy * L->hy);

  PetscFunctionBeginUser;
  PetscCall(AdjFFTLinesFactor(fs, a, b));
  PetscCall(AdjFFTLinesForwardPass(fs, c, r));
  if (L->singular >= 0) PetscCall(AdjFFTLinesSolveSingularColumn(fs, b));
  if (L->size > 1) PetscCall(AdjFFTLinesSolveSeparators(fs, c));
  PetscCall(AdjFFTLinesBackwardPass(fs, c, x));
  /* two real transforms of about 2.5 N log2 N flops per row, and 5 flops per point of elimination */
  PetscCall(PetscLogFlops(5.0 * L->nrows * L->Mx * PetscLog2Real((PetscReal)L->Mx) + 5.0 * L->nrows * L->Mx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Counts and displacements of the two all-to-alls (3 numbers per mode to the mode's owner, 2 back)
 * and the arrays of the separators. */
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
  PetscCall(PetscMalloc4(L->nblock * L->Mx, &L->gL, L->nblock * L->Mx, &L->gR, L->Mx, &L->xlo, L->Mx, &L->xhi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The x transforms, a chunk of rows at a time (every padded row has the alignment of the first):
 * FFTW's r2r kinds, or for the DCT-II/III of an even Mx real DFTs and Makhoul's twiddles.
 * Not collective. */
static PetscErrorCode AdjFFTLinesPlanX(AdjFFTSolver fs, unsigned flags)
{
  AdjFFTLines  *L  = &fs->lines;
  const int     nx = (int)L->Mx;
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
    L->twc[L->Mx / 2] = PetscSqrtReal(2.0); /* 2 cos(pi/4) */
  }
  for (PetscInt pass = 0; pass < 2; pass++) { /* full chunks, then the remainder */
    const int  n = (int)(pass ? L->nrows % L->chunk : L->chunk), S = (int)L->stride;
    fftw_plan *f = pass ? &L->xforward_rem : &L->xforward, *b = pass ? &L->xbackward_rem : &L->xbackward;
    if (!n) continue;
    *f = fftw_plan_many_r2r(1, &nx, n, L->data, NULL, 1, S, L->data, NULL, 1, S, &fk, flags);
    AdjCheckFFTWPlan(*f);
    *b = fftw_plan_many_r2r(1, &nx, n, L->scratch, NULL, 1, S, L->scratch, NULL, 1, S, &bk, flags);
    AdjCheckFFTWPlan(*b);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFFTLinesSetUp(AdjFFTSolver fs, DM da, PetscReal hx, PetscReal hy, const AdjFFTBoundary bc[2][2],
                                unsigned flags)
{
  AdjFFTLines *L = &fs->lines;
  size_t       n;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(fs->comm, &L->rank));
  PetscCallMPI(MPI_Comm_size(fs->comm, &L->size));
  L->Mx = (PetscInt)fs->n1, L->My = (PetscInt)fs->n0;
  PetscCall(AdjFFTLinesSlab(da, &L->aligned, &L->nrows, &L->row0));
  L->nblock = L->rank < L->size - 1 ? L->nrows - 1 : L->nrows;
  L->stride = (L->Mx + 7) / 8 * 8;
  L->chunk  = PetscMax(1, PetscMin(L->nrows, 8192 / L->stride)); /* 64 kB of rows */
  L->hy = hy, L->xscale = 1.0 / fs->dx.norm;
  for (PetscInt s = 0; s < 2; s++) L->dybc[s] = bc[1][s] == ADJ_FFT_DIRICHLET ? 3 : 1;
  PetscCall(PetscMalloc1(L->Mx, &L->kx));
  for (PetscInt m = 0; m < L->Mx; m++) L->kx[m] = AdjFFTEigenvalue(&fs->dx, L->Mx, m, hx);
  n          = (size_t)(L->nrows * L->stride);
  L->data    = fftw_alloc_real(n);
  L->scratch = fftw_alloc_real((size_t)(L->chunk * L->stride));
  PetscCheck(L->data && L->scratch, PETSC_COMM_SELF, PETSC_ERR_MEM, "FFTW could not allocate %zu doubles", n);
  PetscCall(AdjFFTLinesPlanX(fs, flags));
  PetscCall(PetscMalloc1(L->nblock * L->Mx, &L->w));
  PetscCall(PetscMalloc4(L->My, &L->column, L->nrows, &L->colpart, L->size, &L->rowcounts, L->size, &L->rowdispls));
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
  if (L->xforward_rem) fftw_destroy_plan(L->xforward_rem);
  if (L->xbackward_rem) fftw_destroy_plan(L->xbackward_rem);
  fftw_free(L->data);
  fftw_free(L->scratch);
  PetscCall(PetscFree(L->kx));
  PetscCall(PetscFree2(L->twc, L->tws));
  PetscCall(PetscFree(L->w));
  PetscCall(PetscFree4(L->column, L->colpart, L->rowcounts, L->rowdispls));
  PetscCall(PetscFree(L->mstart));
  PetscCall(PetscFree4(L->cnt3, L->dsp3, L->cnt3own, L->dsp3own));
  PetscCall(PetscFree4(L->cnt2, L->dsp2, L->cnt2own, L->dsp2own));
  PetscCall(PetscFree2(L->sendbuf, L->recvbuf));
  PetscCall(PetscFree3(L->sw, L->se, L->xsep));
  PetscCall(PetscFree4(L->gL, L->gR, L->xlo, L->xhi));
  PetscFunctionReturn(PETSC_SUCCESS);
}
