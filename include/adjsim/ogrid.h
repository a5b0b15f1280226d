/* Body-fitted O-grids around a closed body curve (airfoils, circles, ellipses of the geometry layer),
 * differentiable in the shape parameters: the first piece of the body-fitted airfoil solver (issue 13).
 *
 * Generation (algebraic, two-boundary Hermite interpolation): with the wall points S_i = S(u_i) of the
 * body curve (AdjShapeSurfacePoint, u_i = i / ni clockwise from the trailing edge), their outward unit
 * normals n_i (central differences of the wall points, turned by +90 degrees), the far-field points
 * F_i = c + R f_i on the circle of radius R about the body's reference point c (f_i = (cos th_i, sin th_i),
 * th_i = -2 pi u_i - alpha, so the far point of a wall point lies in the same direction), each grid line
 * i runs
 *
 *   X_ij = h00(eta_j) S_i + h01(eta_j) F_i + R (h10(eta_j) n_i + h11(eta_j) f_i),
 *
 * with the cubic Hermite basis h00 = 2e^3 - 3e^2 + 1, h01 = 3e^2 - 2e^3, h10 = e^3 - 2e^2 + e,
 * h11 = e^3 - e^2.  The line leaves the wall along n_i with dX/deta = R n_i (orthogonal at the wall) and
 * reaches the far field along f_i; for a point body at c it is exactly the ray c + eta R f_i, so the
 * radial parameter eta_j = d_j / R follows the physical distance: d_j = dw (g^j - 1)/(g - 1), the first
 * cell dw (the wall spacing), growth g, d_(nj-1) = R.  Given dw and R, either the growth g (the number of
 * points nj follows, and g is then adjusted so that d_(nj-1) = R exactly) or nj (g follows).
 *
 * Sharp trailing edges: the wall normal turns by up to 180 degrees between neighbouring wall points there,
 * and the lines leaving along it would fan out between two lines only (neighbouring cell widths differing
 * by a factor of about 300 on a NACA 0012 with 96 points around).  So each line leaves the wall along
 * (1 - w(eta)) n_i + w(eta) m_i instead of n_i, where m_i is n_i after -airfoil_grid_smoothing passes of
 * m_i <- (m_(i-1) + 2 m_i + m_(i+1)) / |...| (default 8) and w = 1 - exp(-eta R / b), b = -airfoil_grid_blend
 * reference lengths (default 0.05): at the wall the line is still exactly normal (w(0) = 0, dw/deta finite
 * does not enter dX/deta at eta = 0 since h10(0) = 0), and beyond about b it follows the smoothed direction.
 * Measured with 96 points around: neighbouring-width ratio 272 -> 3.8, first-cell angle error 0.002 -> 0.9
 * degrees (at the trailing edge; elsewhere below 0.05), smallest cell angle unchanged (about 30 degrees).
 *
 * The grid is a differentiable function of the shape parameters p (position, angle, sizes, NACA or CST
 * coefficients): AdjOGridGenerateAdjoint gives pb += (dX/dp)^T Xb exactly, through the normals and the
 * far-field points.  A grid with a folded cell (a non-positive cell Jacobian) or a cell angle below
 * -airfoil_grid_min_angle is refused with a message naming the options.
 *
 * Storage: the node coordinates (x, y) in a DMDA of dof 2, ni x nj nodes, periodic in i (around the
 * body), not in j (j = 0 the wall, nj - 1 the far field), split across ranks in both directions. */
#pragma once

#include <adjsim/geometry.h>
#include <petscdmda.h>

typedef struct _p_AdjOGrid *AdjOGrid;

/* Measures of grid quality (AdjOGridGetQuality). */
typedef struct {
  PetscReal min_jacobian;     /* smallest cell-corner Jacobian |e_i x e_j| over all corners [m^2] (> 0: no fold) */
  PetscReal min_angle;        /* smallest corner angle of any cell [degrees] (90: orthogonal) */
  PetscReal wall_angle_error; /* largest deviation from 90 degrees between the first grid line and the wall */
  PetscReal max_ratio_j;      /* largest ratio of consecutive cell heights along a grid line */
  PetscReal max_ratio_i;      /* largest ratio of neighbouring cell widths around the body */
  PetscReal wall_spacing;     /* smallest first-cell height at the wall [m] */
} AdjOGridQuality;

PetscErrorCode AdjOGridCreate(MPI_Comm comm, AdjOGrid *og);
/*@ AdjOGridSetShape - the body: a shape of the geometry layer (circle, ellipse, naca4 or cst; copied and
    set up here, so the caller keeps its own). Collective. @*/
PetscErrorCode AdjOGridSetShape(AdjOGrid og, const AdjShape *shape);
PetscErrorCode AdjOGridSetOptionsPrefix(AdjOGrid og, const char prefix[]);
/*@ AdjOGridSetFromOptions - -airfoil_grid_around, -airfoil_grid_normal, -airfoil_wall_spacing,
    -airfoil_growth, -airfoil_farfield, -airfoil_grid_smoothing, -airfoil_grid_blend, -airfoil_grid_min_angle
    (adjsim -help lists them). Collective. @*/
PetscErrorCode AdjOGridSetFromOptions(AdjOGrid og);
/*@ AdjOGridSetUp - the radial distribution, the DMDA and the grid of the current shape, checked. Collective. @*/
PetscErrorCode AdjOGridSetUp(AdjOGrid og);
/*@ AdjOGridGetCoordinates - the dof-2 DMDA of the nodes and their coordinates for the current shape (both
    owned by the grid; either may be NULL). Not collective. @*/
PetscErrorCode AdjOGridGetCoordinates(AdjOGrid og, DM *da, Vec *X);
/*@ AdjOGridGetSizes - nodes around (ni) and along each grid line (nj), the growth rate g and the far-field
    radius R [m] in effect. Not collective. @*/
PetscErrorCode AdjOGridGetSizes(AdjOGrid og, PetscInt *ni, PetscInt *nj, PetscReal *growth, PetscReal *radius);
/*@ AdjOGridSetShapeParameters - new shape parameters p[np] (e.g. a design step): the shape is set up
    again, the grid regenerated and checked. Collective. @*/
PetscErrorCode AdjOGridSetShapeParameters(AdjOGrid og, const PetscReal p[]);
/*@ AdjOGridGenerate - X = the grid of the current shape (no check). Collective. @*/
PetscErrorCode AdjOGridGenerate(AdjOGrid og, Vec X);
/*@ AdjOGridGenerateTangent - dX = (dX/dp) dp, the grid's derivative along the shape-parameter direction
    dp[np]. Collective. @*/
PetscErrorCode AdjOGridGenerateTangent(AdjOGrid og, const PetscReal dp[], Vec dX);
/*@ AdjOGridGenerateAdjoint - pb[i] += sum over nodes of Xb . dX/dp_i, for i < np of the shape, the
    same on every rank (one reduction). Collective. @*/
PetscErrorCode AdjOGridGenerateAdjoint(AdjOGrid og, Vec Xb, PetscReal pb[]);
/*@ AdjOGridGetQuality - the quality measures of the current grid. Collective. @*/
PetscErrorCode AdjOGridGetQuality(AdjOGrid og, AdjOGridQuality *q);
PetscErrorCode AdjOGridView(AdjOGrid og, PetscViewer viewer);
PetscErrorCode AdjOGridDestroy(AdjOGrid *og);
