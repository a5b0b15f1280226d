/* AdjFFTSolver: (a I + b K) x = r on a cell-centred 2D DMDA (dof 1), where K = -L is the negated
 * 5-point Laplacian with, per side, a periodic, Neumann (ghost = inner: zero normal derivative at
 * the face) or Dirichlet (ghost = -inner: zero value at the face) condition, solved exactly by
 * FFTW-MPI real-to-real transforms in each direction:
 *   periodic:            DFT (FFTW_R2HC / HC2R),  modes k = 0..N-1,   theta_k = 2 pi k / N
 *   Neumann-Neumann:     DCT-II / DCT-III,        k = 0..N-1,         theta_k = pi k / N
 *   Dirichlet-Dirichlet: DST-II / DST-III,        k = 0..N-1,         theta_k = pi (k+1) / N
 *   Neumann-Dirichlet:   DCT-IV,                  k = 0..N-1,         theta_k = pi (k+1/2) / N
 *   Dirichlet-Neumann:   DST-IV,                  k = 0..N-1,         theta_k = pi (k+1/2) / N
 * and K's eigenvalues 4/hx^2 sin^2(theta_x/2) + 4/hy^2 sin^2(theta_y/2).  Used by the
 * Crank-Nicolson substep of scalar transport (a = 1, b = tau kappa/2, periodic box) and by the
 * fluid's pressure Poisson equation (a = 0, b = 1, any mix of the above).  Modes where
 * a + b K = 0 (the mean when a = 0 and no side is Dirichlet) are set to zero: the zero-mean
 * solution.  The operator is symmetric, and so is this solve: its transpose is itself.
 *
 * Layout.  FFTW-MPI splits a row-major n0 x n1 array into slabs of whole rows, the DMDA into a 2D
 * process grid.  The natural ordering j Mx + i is row-major with n0 = My, n1 = Mx, and FFTW's slabs
 * are consecutive row blocks in rank order, so one VecScatter (built from the DMDA's AO) moves a
 * DMDA global vector to a Vec owned in those slabs and back.  The forward transform leaves its output
 * transposed (FFTW_MPI_TRANSPOSED_OUT) and the inverse takes it so, saving two global transposes
 * per solve: the division is pointwise.  A periodic box (DFTs both ways) takes FFTW's
 * real-to-complex and complex-to-real DFTs (x modes 0..Mx/2 only; the halfcomplex r2r pair does the
 * same maths at about twice the cost), on one rank by FFTW's serial 2D plans (no transposes at
 * all); the other boxes FFTW's r2r kinds.  When the DMDA owns whole
 * rows in FFTW's slabs (one rank; a 1 x P process grid with FFTW's split) its global vector is read
 * and written in place, without a scatter.  Plans use FFTW_ESTIMATE by default, so every solve
 * rounds the same from run to run; FFTW_MEASURE plans are reproducible through wisdom files
 * (AdjFFTWisdomLoad / AdjFFTWisdomSave).
 *
 * The y direction by tridiagonal solves (ADJ_FFT_Y_TRIDIAGONAL, the default when y is not
 * periodic; src/numerics/fftlines.c).  After the x transforms of its rows, each x mode m leaves
 * the 1D problem (a + b kx_m + b Ky) phi_m = r_m along y, Ky the tridiagonal second difference
 * with its Neumann or Dirichlet end rows: the same discrete operator, so the same answer to
 * round-off, with half the transforms (about 3x fewer flops than a DCT pair along y).  Rows are
 * split into slabs of whole rows; every rank eliminates its own rows (Thomas, vectorized across
 * modes) but for one separator row per rank boundary; the separators' tridiagonal Schur-complement
 * systems (P - 1 unknowns per mode) are solved by the rank owning the mode, reached by two
 * all-to-alls of 3 and 2 numbers per mode, so no rank ever sends its slab: communication per rank
 * is O(Mx), not O(Mx My / P) as for a transpose.  A mode whose column is singular (a + b kx = 0
 * with Neumann ends: the mean when a = 0) is solved exactly from the running sum of its
 * right-hand side, zero mean, as in the transform method.  When the DMDA owns whole rows (a 1 x P
 * process grid, PETSc's choice for a square grid on 2 or 3 ranks), no redistribution is needed at
 * all.  Needs at least 2 rows per rank. */
#pragma once

#include <adjsim/sys.h>
#include <petscdmda.h>

typedef struct _p_AdjFFTSolver *AdjFFTSolver;

typedef enum { ADJ_FFT_PERIODIC, ADJ_FFT_NEUMANN, ADJ_FFT_DIRICHLET } AdjFFTBoundary;

/* How the y direction is solved: auto (tridiagonal where possible, else transform), by transforms
 * (the 2D FFTW-MPI plan), or by tridiagonal solves (y must not be periodic). */
typedef enum { ADJ_FFT_Y_AUTO, ADJ_FFT_Y_TRANSFORM, ADJ_FFT_Y_TRIDIAGONAL } AdjFFTYMethod;
extern const char *const AdjFFTYMethods[];

/*@ AdjFFTSolverCreate - plans the transforms and the redistribution for da (cell sizes h[0], h[1]) with
    the condition bc[d][s] on side s (0 low, 1 high) of direction d (0 x, 1 y); bc NULL: periodic
    box.  Periodic must be on both sides of a direction or on neither. Collective. @*/
PetscErrorCode AdjFFTSolverCreate(DM da, const PetscReal h[], const AdjFFTBoundary bc[2][2], AdjFFTSolver *fs);

/*@ AdjFFTSolverCreateWith - the same with a choice of y method and, with measure, plans chosen by
    timing (FFTW_MEASURE): faster solves, but the plan, and so the last bits of every result, may
    differ from run to run: import the wisdom of the first run (AdjFFTWisdomLoad, before this
    call) and export it (AdjFFTWisdomSave, after) to keep runs and restarts bit for bit.  Asking for the tridiagonal
   method where it cannot run (periodic y, fewer than 2 rows per rank) is an error that says why. Collective. @*/
PetscErrorCode AdjFFTSolverCreateWith(DM da, const PetscReal h[], const AdjFFTBoundary bc[2][2], AdjFFTYMethod ymethod,
                                      PetscBool measure, AdjFFTSolver *fs);

/*@ AdjFFTWisdomLoad - imports the FFTW wisdom (the plans an earlier run measured) of the file path
    on rank 0 and broadcasts it to every rank, so that FFTW_MEASURE plans are the ones of that run
    and every result the same, bit for bit.  A missing file is no error (*found = PETSC_FALSE: the
    plans will be measured); a file that cannot be read or is not FFTW wisdom is refused with a
    message naming option (the option that gave the path).  Collective. @*/
PetscErrorCode AdjFFTWisdomLoad(MPI_Comm comm, const char path[], const char option[], PetscBool *found);

/*@ AdjFFTWisdomSave - gathers the wisdom of every rank (what was imported and what was measured
    since) to rank 0 and writes it to path (through a temporary file renamed into place, so a run
    reading it never sees half a file); an unwritable path is refused naming option.  Every rank then
    holds rank 0's wisdom: ranks that measured the same local transform may have chosen different
    plans, so a run that measured must plan again (destroy and create its solvers) to get the plans
    later runs read from the file.  Collective. @*/
PetscErrorCode AdjFFTWisdomSave(MPI_Comm comm, const char path[], const char option[]);

/*@ AdjFFTSolverTridiagonalPossible - whether the tridiagonal y method can run on da with bc, and if
    not, why (a periodic y, fewer than 2 rows on some rank). Collective. @*/
PetscErrorCode AdjFFTSolverTridiagonalPossible(DM da, const AdjFFTBoundary bc[2][2], PetscBool *ok, const char **why);

/*@ AdjFFTSolverGetYMethod - the y method in use (TRANSFORM or TRIDIAGONAL). Not collective. @*/
PetscErrorCode AdjFFTSolverGetYMethod(AdjFFTSolver fs, AdjFFTYMethod *ymethod);

/*@ AdjFFTSolverSolve - x = (a I + b K)^{-1} r; r and x are global vectors of da and may be the
    same. Collective. @*/
PetscErrorCode AdjFFTSolverSolve(AdjFFTSolver fs, PetscReal a, PetscReal b, Vec r, Vec x);

/*@ AdjFFTSolverGetRows - the solver's own real-space rows, when a caller can write a right-hand side
    there and read the solution there (AdjFFTSolverSolveRows), saving the copies in and out: the
    transform method with the DMDA owning FFTW's row slabs.  rows[j ld + i] is cell (i, ys + j) of
    this rank's rows; *rows is NULL when this is not possible.  Not collective. @*/
PetscErrorCode AdjFFTSolverGetRows(AdjFFTSolver fs, PetscScalar **rows, PetscInt *ld);

/*@ AdjFFTSolverSolveRows - the solve of AdjFFTSolverSolve (the same bits), in place on the rows of
    AdjFFTSolverGetRows. Collective. @*/
PetscErrorCode AdjFFTSolverSolveRows(AdjFFTSolver fs, PetscReal a, PetscReal b);

PetscErrorCode AdjFFTSolverDestroy(AdjFFTSolver *fs);
