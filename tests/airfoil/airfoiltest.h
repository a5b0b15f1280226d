/* Shared option lists of the airfoil adjoint tests (test_airfoil_dot.c, test_airfoil_shape.c,
 * test_airfoil_shape_kernels.c): the flow case (NACA 2412 at 8 degrees, Re 200, wall spacing 0.01, t = 0.05), the
 * small grid of the shape tests and the tight solver tolerances of the step-level checks.  Macros, so that a test's
 * NULL-terminated list is put together from them, e.g.
 *   static const char *const Base[] = {AIRFOIL_TEST_CASE, AIRFOIL_TEST_SMALL_GRID, AIRFOIL_TEST_TIGHT_KSP, NULL}; */
#pragma once

#define AIRFOIL_TEST_CASE                                                                                              \
  "-airfoil_body", "naca4", "-airfoil_naca", "2412", "-airfoil_alpha", "8", "-airfoil_re", "200",                      \
      "-airfoil_wall_spacing", "0.01", "-airfoil_final_time", "0.05"

/* 16 x 7 cells, far field at 6 chords */
#define AIRFOIL_TEST_SMALL_GRID "-airfoil_grid_around", "16", "-airfoil_grid_normal", "8", "-airfoil_farfield", "6"

/* both solves to 1e-14 (no absolute floor): the step-level tests compare against differences of whole steps */
#define AIRFOIL_TEST_TIGHT_KSP                                                                                         \
  "-airfoil_pressure_ksp_rtol", "1e-14", "-airfoil_pressure_ksp_atol", "1e-50", "-airfoil_velocity_ksp_rtol", "1e-14", \
      "-airfoil_velocity_ksp_atol", "1e-50"

static const char *const AirfoilTestVortex[] = {"-airfoil_farfield_vortex", "1", NULL};
