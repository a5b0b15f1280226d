/* Immersed-body shapes and their signed distance, differentiable in the shape parameters.
 *
 * A shape is placed by a reference point (x0, y0) [m] and an angle of attack alpha [degrees]
 * (positive nose up for a flow along +x: the body is turned clockwise by alpha about the
 * reference point).  Parameters p[] (AdjShapeParameterName gives their names):
 *   circle:   x0, y0, alpha, R                    (reference point: the centre)
 *   ellipse:  x0, y0, alpha, a, b                 (semi-axes along and across the body axis)
 *   naca4:    x0, y0, alpha, chord, m, p, t       (NACA 4-digit: camber m, its position p,
 *                                                  thickness t, fractions of the chord; reference
 *                                                  point: the quarter chord; closed trailing edge)
 *   cst:      x0, y0, alpha, chord, Au_0..Au_n, Al_0..Al_n   (n + 1 <= 9 coefficients per surface:
 *                                                  Bernstein order up to 8)
 *   dat:      x0, y0, alpha, chord, bu_1..bu_n, bl_1..bl_n   (an airfoil read from a Selig-format .dat file,
 *                                                  AdjShapeReadSelig, plus n <= 9 Hicks-Henne bumps per surface
 *                                                  y/c += sum_k b_k sin^3(pi (x/c)^(log 0.5 / log h_k)), peaks
 *                                                  h_k = k/(n+1): the design parameters of a file airfoil;
 *                                                  reference point: the quarter chord)
 *   joukowski: x0, y0, alpha, chord, eps, kappa   (the Joukowski map z = zeta + 1/zeta of the circle through zeta = 1
 *                                                  about (-eps, kappa): eps > 0 sets the thickness (t/c about
 *                                                  1.3 eps), kappa the camber (about kappa / 2 of the chord);
 *                                                  cusped trailing edge; scaled and turned so that the leading
 *                                                  edge (the image of the point opposite zeta = 1) lies at the
 *                                                  origin and the trailing edge at (chord, 0); reference point:
 *                                                  the quarter chord)
 *   plane:    x0, y0, alpha, nx, ny               (the half-plane behind the line through (x0, y0) with
 *                                                  outward normal (nx, ny), made unit by AdjShapeSetUp,
 *                                                  turned by alpha like the other shapes; an obstacle or
 *                                                  wall, not a fluid body: it has no size)
 *             (Kulfan class-shape transformation: y/c = sqrt(s) (1 - s) sum_i A_i B_i^n(s) for the
 *              upper and lower surface, B the Bernstein polynomials, s = x/c from the leading edge)
 *
 * Distance: exact for the circle and the plane; for the ellipse the first-order distance g/|grad g| of the
 * implicit function g = rho - 1 (exact on the boundary, accurate to O(d^2) near it, which is where
 * the mask changes); for airfoils, inside the body, the R-conjunction -(du + dl - |(du, dl)|) of the
 * exact distances du, dl to the upper and lower surface curves (smooth, unit slope at the surface,
 * no kink along the camber line or at the trailing edge); outside, the distance to the surface
 * sampled at ADJ_AIRFOIL_POINTS stations per side (the fluid mask is zero outside the body).
 * Derivatives with respect to all parameters are exact (forward-mode dual numbers). */
#pragma once

#include <adjsim/sys.h>

#define ADJ_SHAPE_MAX_PARAMS 24
#define ADJ_AIRFOIL_POINTS   160
#define ADJ_SELIG_MAX        512 /* points per surface of an airfoil read from a file */
#define ADJ_SELIG_MAX_BUMPS  9   /* Hicks-Henne bumps per surface */

typedef enum {
  ADJ_SHAPE_CIRCLE,
  ADJ_SHAPE_ELLIPSE,
  ADJ_SHAPE_NACA4,
  ADJ_SHAPE_CST,
  ADJ_SHAPE_PLANE,
  ADJ_SHAPE_DAT,
  ADJ_SHAPE_JOUKOWSKI
} AdjShapeType;
extern const char *const AdjShapeTypes[];

typedef struct {
  AdjShapeType type;
  PetscInt     np;                      /* number of parameters */
  PetscInt     ncst;                    /* cst: coefficients per surface */
  PetscReal    p[ADJ_SHAPE_MAX_PARAMS]; /* the parameters, layout above */
  /* airfoils: the sampled surface (body frame, leading edge at the origin) and its parameter
   * derivatives, filled by AdjShapeSetUp */
  PetscInt   npoly;
  PetscReal *poly;   /* [npoly][2] */
  PetscReal  radius; /* bounding radius about the reference point [m] */
  /* dat: per surface (0 upper, 1 lower) the natural cubic spline y/c(sigma), sigma = sqrt(x/c), through
   * ndat[s] knots: sigma, y/c and the spline's second derivatives; nbump bumps per surface */
  PetscInt  ndat[2], nbump;
  PetscReal dat[2][3][ADJ_SELIG_MAX];
} AdjShape;

/*@ AdjShapeSetUp - checks the parameters (clear errors on comm for impossible shapes: negative
    sizes or thickness, crossing CST surfaces) and samples airfoil surfaces. Collective. @*/
PetscErrorCode AdjShapeSetUp(MPI_Comm comm, AdjShape *s);
PetscErrorCode AdjShapeDestroy(AdjShape *s);

/*@ AdjShapeReadSelig - an airfoil of type dat from a Selig-format coordinate file (the UIUC airfoil
    database's format: a title line, then x y pairs from the trailing edge over the upper surface to the
    leading edge and back along the lower surface).  The coordinates are normalized to the chord from the
    leading edge (the point of smallest x) to the trailing edge (the mean of the first and last points); a
    blunt trailing edge (first and last points apart) is closed by shearing each surface by x/c times half
    the gap, a change of at most half the gap (reported).  Position, angle, chord and nbump bumps per
    surface (all zero) are set; AdjShapeSetUp then checks and samples the shape.  Malformed files (too few
    points, text that is not two numbers, surfaces that do not run from the trailing edge to the leading
    edge and back, crossing surfaces, more than ADJ_SELIG_MAX points per surface) are refused naming the
    file, line and what is wrong; `option` names the option that gave the file. Collective. @*/
PetscErrorCode AdjShapeReadSelig(MPI_Comm comm, const char path[], const char option[], PetscInt nbump, AdjShape *s);

/*@ AdjShapeDistance - signed distance d [m] of the point (x, y) (negative inside) and, if dd is
    not NULL, dd[i] = dd/dp_i. Not collective. @*/
void AdjShapeDistance(const AdjShape *s, PetscReal x, PetscReal y, PetscReal *d, PetscReal dd[]);

/*@ AdjShapeDistanceNormal - signed distance d [m] of the point (x, y) and its gradient in the point,
    n = grad d (the outward unit normal where d is an exact distance; for the ellipse and the airfoils the
    normalized gradient of their distance function). Circles and planes take a plain-arithmetic path
    (cheap enough for every grid node of every step, e.g. MPM obstacles); the other shapes go through the
    dual numbers (n = -dd/d(x0, y0), since d depends on the point only through x - x0, y - y0).
    Where the gradient vanishes (the centre of a circle) n = (0, 1). Not collective. @*/
void AdjShapeDistanceNormal(const AdjShape *s, PetscReal x, PetscReal y, PetscReal *d, PetscReal n[2]);

/*@ AdjShapeSurfacePoint - the point xy [m] (world frame) of the closed boundary curve at the curve
    parameter u in [0, 1), and dxy[c][i] = d xy_c / d p_i for i < np when dxy is not NULL.  The curve runs
    clockwise from the downstream end of the body axis: for airfoils u in [0, 1/2] is the lower surface
    from the trailing edge to the leading edge and [1/2, 1) the upper surface back, at the chord station
    x/c = sin^2(psi/2) with psi = pi |1 - 2u| (cosine spacing for uniform u: fine at both edges); for the
    circle and the ellipse the polar angle -2 pi u from the body axis.  Not for planes. Not collective. @*/
void AdjShapeSurfacePoint(const AdjShape *s, PetscReal u, PetscReal xy[2], PetscReal dxy[2][ADJ_SHAPE_MAX_PARAMS]);

/*@ AdjShapeParameterName - name and unit of parameter i (e.g. "alpha", "deg"). Not collective. @*/
void AdjShapeParameterName(const AdjShape *s, PetscInt i, const char **name, const char **unit);

/*@ AdjShapeThickness - smallest width of the body across its axis [m] (for resolution warnings),
    and its reference length (diameter, 2a, chord) [m]. Not collective. @*/
void AdjShapeSizes(const AdjShape *s, PetscReal *thickness, PetscReal *reflength);

/* Geometric measures of airfoils (naca4, cst, dat), the quantities of geometric design constraints, in units
 * of the chord (so that a change of chord leaves them alone), computed in the dual numbers of the shape
 * formulas so that their derivatives in the shape parameters are exact (src/geometry/measures.c):
 *   thickness       at the chord station x/c: cst and dat yu - yl (vertical, body frame); naca4 the NACA
 *                   thickness 2 y_t laid off normal to the camber line (the distance between the upper and
 *                   lower points of the station)                                             [1: t/c]
 *   max_thickness   the largest thickness over 0 < x/c < 1 (the station found by golden-section search; the
 *                   derivative is the thickness derivative there: at a smooth interior maximum the station's
 *                   own change does not contribute)                                           [1]
 *   area            cross-section area / c^2: cst, dat the integral of yu - yl over x/c; naca4 the integral
 *                   of 2 y_t sqrt(1 + yc'^2) (the exact area between the offset curves), by Gauss-Legendre
 *                   quadrature in sigma = sqrt(x/c) (exact for cst; naca4 split at the camber position) [1]
 *   le_radius       leading-edge radius / c: naca4 (5 * 0.2969 t)^2 / 2 = 1.1019 t^2 (the thickness
 *                   distribution's); cst the mean of the two surfaces' A_0^2 / 2                [1]
 *   te_angle        trailing-edge wedge angle [degrees]: naca4 2 atan(-y_t'(1) cos theta_TE); cst
 *                   atan(Au_n) - atan(Al_n)
 * Trailing-edge thickness is zero for every family (closed trailing edges): not offered. */
typedef enum {
  ADJ_SHAPE_MEASURE_THICKNESS,
  ADJ_SHAPE_MEASURE_MAX_THICKNESS,
  ADJ_SHAPE_MEASURE_AREA,
  ADJ_SHAPE_MEASURE_LE_RADIUS,
  ADJ_SHAPE_MEASURE_TE_ANGLE
} AdjShapeMeasure;
extern const char *const AdjShapeMeasures[];

/*@ AdjShapeMeasureCheck - refuses (PETSC_ERR_USER_INPUT on comm, naming `option`) a measure the shape's family
    does not define, or a thickness station outside (0, 1). Collective. @*/
PetscErrorCode AdjShapeMeasureCheck(MPI_Comm comm, const AdjShape *s, AdjShapeMeasure m, PetscReal station,
                                    const char option[]);

/*@ AdjShapeMeasureEvaluate - the measure m of the shape (station: the chord fraction of a thickness) and, if
    grad is not NULL, grad[i] = d value / d p_i for i < np. Not collective. @*/
void AdjShapeMeasureEvaluate(const AdjShape *s, AdjShapeMeasure m, PetscReal station, PetscReal *value,
                             PetscReal grad[]);
