/* Private state of AdjFFTSolver (include/adjsim/fftsolver.h): the 2D-transform method
 * (fftsolver.c) and the transform-plus-tridiagonal method (fftlines.c). */
#pragma once

#include <adjsim/fftsolver.h>
#include <fftw3-mpi.h>

#if !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_COMPLEX)
#  error "The FFTW solver needs real double-precision PETSc (it calls fftw3 double)"
#endif

/* The transforms of one direction with N cells, its normalization and the kind of its modes. */
typedef struct {
  fftw_r2r_kind forward, backward;
  PetscReal     norm;
  PetscInt      type; /* 0 DFT, 1 DCT/DST-II, 2 DST-II, 3 DCT/DST-IV */
} AdjFFTDirection;

/* The y direction as tridiagonal solves (fftlines.c).  Rows are split into slabs of whole rows in
 * rank order; in a slab of rank r < P-1 the last row is a separator, the rows before it are the
 * block; the last rank's block is its whole slab. */
typedef struct {
  PetscMPIInt  rank, size;
  PetscInt     Mx, My;
  PetscInt     nrows, row0;                 /* this rank's slab: global rows [row0, row0 + nrows) */
  PetscInt     nblock;                      /* rows of the block: nrows - 1, or nrows on the last rank */
  PetscInt     stride;                      /* of the rows of data: Mx padded to a multiple of 8 */
  PetscBool    aligned;                     /* the DMDA owns whole rows in the same slabs: no scatter */
  PetscReal    dybc[2];                     /* y boundary rows: diagonal 1 (Neumann) or 3 (Dirichlet) x b/hy^2 */
  PetscReal    hy, xscale;                  /* cell size; 1 / normalization of the x transform pair */
  PetscReal   *kx;                          /* eigenvalue of each x mode (position in FFTW's output) */
  PetscInt     chunk;                       /* rows transformed together */
  fftw_plan    xforward, xbackward;         /* a chunk of rows, in place: on data / on scratch */
  fftw_plan    xforward_rem, xbackward_rem; /* the same for the last nrows % chunk rows */
  PetscBool    makhoul;                     /* DCT-II/III by real DFTs of permuted rows (Makhoul 1980) */
  PetscReal   *twc, *tws;                   /* 2 cos, 2 sin of pi k / (2 Mx) */
  double      *data, *scratch;              /* nrows x stride; chunk x stride */
  PetscInt     singular;         /* the x mode whose column is singular (a + b kx = 0, Neumann-Neumann in y), or -1 */
  PetscReal   *column, *colpart; /* My: that column, gathered; nrows: this rank's part */
  PetscMPIInt *rowcounts, *rowdispls; /* per rank: rows, first row (for the column gather) */
  /* factors, for the a, b they were computed with */
  PetscBool  factored;
  PetscReal  fa, fb;
  PetscReal *w;       /* nblock x Mx: inverse pivots of the block's Thomas elimination */
  PetscReal *gL, *gR; /* nblock x Mx: T^{-1} e_first, T^{-1} e_last (P > 1) */
  /* the separators' (Schur complement) systems, one per x mode, solved by the rank owning the mode */
  PetscInt    *mstart;    /* size + 1: modes [mstart[q], mstart[q+1]) belong to rank q */
  PetscReal   *sw, *se;   /* own modes x (size - 1): inverse pivots and off-diagonals */
  PetscReal   *xsep;      /* size: the separators of one mode */
  PetscReal   *xlo, *xhi; /* Mx: the separators below and above this rank's block */
  PetscReal   *sendbuf, *recvbuf;
  PetscMPIInt *cnt3, *dsp3, *cnt3own, *dsp3own, *cnt2, *dsp2, *cnt2own, *dsp2own;
} AdjFFTLines;

struct _p_AdjFFTSolver {
  MPI_Comm        comm;
  AdjFFTYMethod   ymethod; /* TRANSFORM or TRIDIAGONAL (never AUTO after creation) */
  AdjFFTDirection dx, dy;
  ptrdiff_t       n0, n1;                  /* grid n0 x n1 = My x Mx */
  ptrdiff_t       local_n0, local_0_start; /* real space: rows [local_0_start, + local_n0) on this rank */
  ptrdiff_t       local_n1, local_1_start; /* transform space (transposed): x-modes [local_1_start, + local_n1) */
  double         *data;                    /* in place: local_n0 x ld / local_n1 x n0 (complex when r2c) */
  PetscBool       r2c;                     /* periodic box: real-to-complex DFTs, x modes 0..n1/2 only */
  ptrdiff_t       ld;                      /* real space row stride: n1, or 2 (n1/2 + 1) for r2c */
  PetscBool       aligned;                 /* the DMDA owns FFTW's row slabs: no scatter */
  fftw_plan       forward, backward;
  PetscReal      *symbol;   /* K of each local mode, in the transposed order */
  PetscBool       factored; /* factor holds the a, b below */
  PetscReal       fa, fb;
  PetscReal      *factor; /* scale / (a + b K) of each local mode (0 on a singular mode) */
  PetscReal       scale;  /* 1 / (normalization of forward then backward) */
  Vec             slab;   /* natural ordering, owned in row slabs */
  VecScatter      toslab; /* DMDA global vector -> slab (NULL when aligned) */
  AdjFFTLines     lines;
};

PETSC_INTERN PetscReal      AdjFFTEigenvalue(const AdjFFTDirection *, PetscInt, PetscInt, PetscReal);
PETSC_INTERN PetscErrorCode AdjFFTSolverCreateScatter(DM, PetscInt, PetscInt, AdjFFTSolver);
PETSC_INTERN PetscErrorCode AdjFFTLinesPossible(DM, const AdjFFTBoundary[2][2], PetscBool *, const char **);
PETSC_INTERN PetscErrorCode AdjFFTLinesSetUp(AdjFFTSolver, DM, PetscReal, PetscReal, const AdjFFTBoundary[2][2],
                                             unsigned);
PETSC_INTERN PetscErrorCode AdjFFTLinesSolve(AdjFFTSolver, PetscReal, PetscReal, Vec, Vec);
PETSC_INTERN PetscErrorCode AdjFFTLinesDestroy(AdjFFTLines *);
