/* Private to src/geometry: the parameter layout of the shapes and the airfoil surface formulas of shapes.c,
 * shared with the geometric measures of measures.c (one copy of each formula). */
#pragma once

#include <adjsim/geometry.h>
#include "dual.h"

enum { P_X0, P_Y0, P_ALPHA, P_SIZE }; /* parameters common to every shape, then the sizes */

/* The slot of the dual numbers that carries d/dpsi along an airfoil surface (never a shape
 * parameter: AdjShapeSetUp keeps np below it). */
#define ADJ_PSI_SLOT (ADJ_DUAL_N - 1)

/* NACA 4-digit surface point (X, Y) in chord units at the station t = sigma^2 (upper: side = +1). */
void AdjNaca4Point(const AdjShape *s, AdjDual sigma, PetscReal side, AdjDual *X, AdjDual *Y);
/* Joukowski airfoil point (X, Y) in chord units at the circle angle psi from the leading edge (upper: side = +1). */
void AdjJoukowskiPoint(const AdjShape *s, AdjDual psi, PetscReal side, AdjDual *X, AdjDual *Y);
/* y/c of the upper (side 0) or lower (side 1) surface of a CST or file airfoil at t = sigma^2. */
AdjDual AdjAirfoilSurfaceY(const AdjShape *s, AdjDual sigma, PetscInt side);
