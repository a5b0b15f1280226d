/* MPM rigid obstacles: fixed shapes given by their signed distance phi (< 0 inside), acting on the grid
 * node velocities in the grid update (MPMObstacleContact in contact.c, adjoint below it).
 *
 *   -mpm_obstacle0 plane:px,py,nx,ny[:type]     the half-space behind the line through (px,py) with outward
 *                                               normal (nx,ny) (normalized here) [m]
 *   -mpm_obstacle1 circle:cx,cy,r[:type]        the solid circle of centre (cx,cy) and radius r [m]
 *   -mpm_obstacle2 ellipse:cx,cy,a,b,alpha[:type]  the solid ellipse of centre (cx,cy), semi-axes a (along
 *                                               its axis) and b, the axis turned clockwise by alpha [deg]
 *
 * The shapes are those of the geometry layer (include/adjsim/geometry.h), shared with the fluid's bodies.
 *
 * type: sticky | slip | friction (default slip); numbered from 0 without gaps, up to MPM_MAX_OBSTACLES. */
#define _POSIX_C_SOURCE 200809L
#include "mpmimpl.h"
#include <string.h>

static PetscErrorCode MPMParseObstacleType(MPM mpm, MPMObstacle *o, const char *field)
{
  PetscFunctionBeginUser;
  if (!field || !strcmp(field, "slip"))
    o->type = MPM_WALL_SLIP;
  else if (!strcmp(field, "sticky"))
    o->type = MPM_WALL_STICKY;
  else if (!strcmp(field, "friction"))
    o->type = MPM_WALL_FRICTION;
  else
    SETERRQ(mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: unknown contact type \"%s\"; use sticky, slip or friction",
            o->option, o->spec, field);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The geometry-layer shape of an obstacle from its kind and numbers (checked here, with the option's name). */
static PetscErrorCode MPMObstacleShapeFrom(MPM mpm, MPMObstacle *o, const char kind[], const char numbers[])
{
  static const char *kinds[]   = {"plane", "circle", "ellipse"},
                    *layouts[] = {"px,py,nx,ny", "cx,cy,r", "cx,cy,a,b,alpha"};
  const AdjShapeType types[]   = {ADJ_SHAPE_PLANE, ADJ_SHAPE_CIRCLE, ADJ_SHAPE_ELLIPSE};
  const PetscInt     counts[]  = {4, 3, 5};
  PetscReal          q[5]      = {0, 0, 0, 0, 0};
  PetscInt           t;
  AdjShape          *sh = &o->shape;

  PetscFunctionBeginUser;
  for (t = 0; t < 3 && strcmp(kind, kinds[t]); t++) {
  }
  PetscCheck(t < 3, mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: unknown obstacle kind \"%s\"; use plane, circle or ellipse", o->option, o->spec, kind);
  PetscCheck(MPMParseReals(numbers, counts[t], q), mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: a %s needs %" PetscInt_FMT " comma-separated numbers (%s)", o->option, o->spec, kind, counts[t],
             layouts[t]);
  PetscCall(PetscMemzero(sh, sizeof(*sh)));
  sh->type = types[t];
  sh->p[0] = q[0], sh->p[1] = q[1];
  if (sh->type == ADJ_SHAPE_PLANE) { /* alpha 0: the normal is given in the world frame */
    PetscCheck(q[2] * q[2] + q[3] * q[3] > 0, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: the normal (%g, %g) is zero; give the outward normal nx,ny of the plane", o->option, o->spec,
               (double)q[2], (double)q[3]);
    sh->p[3] = q[2], sh->p[4] = q[3];
  } else if (sh->type == ADJ_SHAPE_CIRCLE) {
    PetscCheck(q[2] > 0, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: the radius %g m must be positive", o->option, o->spec,
               (double)q[2]);
    sh->p[3] = q[2];
  } else {
    PetscCheck(q[2] > 0 && q[3] > 0, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: the semi-axes %g, %g m must be positive",
               o->option, o->spec, (double)q[2], (double)q[3]);
    sh->p[2] = q[4], sh->p[3] = q[2], sh->p[4] = q[3];
  }
  PetscCall(AdjShapeSetUp(mpm->comm, sh)); /* makes the plane's normal unit */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MPMParseObstacle(MPM mpm, MPMObstacle *o)
{
  char     copy[256], *field[3] = {NULL, NULL, NULL}, *save = NULL, *tok;
  PetscInt nf = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, o->spec, sizeof(copy)));
  for (tok = strtok_r(copy, ":", &save); tok && nf < 3; tok = strtok_r(NULL, ":", &save)) field[nf++] = tok;
  PetscCheck(nf >= 2 && !tok, mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: expected kind:numbers[:type], e.g. plane:0,0.2,0,1:friction or circle:0.5,0.3,0.1:slip", o->option,
             o->spec);
  PetscCall(MPMObstacleShapeFrom(mpm, o, field[0], field[1]));
  PetscCall(MPMParseObstacleType(mpm, o, nf > 2 ? field[2] : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Obstacles are read from -mpm_obstacle0 up to the first missing one: refuse a later one (a gap, or more than
   MPM_MAX_OBSTACLES) instead of ignoring it. */
static PetscErrorCode MPMCheckObstacleNumbering(MPM mpm)
{
  PetscFunctionBeginUser;
  for (PetscInt k = mpm->grid.nobstacles + 1; k < 64; k++) {
    char      opt[32];
    PetscBool set;

    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-mpm_obstacle%" PetscInt_FMT, k));
    PetscCall(PetscOptionsHasName(NULL, mpm->prefix, opt, &set));
    PetscCheck(!set, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s is given but -mpm_obstacle%" PetscInt_FMT
               " is not read: obstacles are numbered 0, 1, ... without gaps, at most %d",
               opt, mpm->grid.nobstacles, MPM_MAX_OBSTACLES);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMSetUpObstacles - reads -mpm_obstacle0, -mpm_obstacle1, ... (until the first missing one) and
    -mpm_obstacle_smoothing; needs the grid (MPMSetUpGrid). Collective. @*/
PetscErrorCode MPMSetUpObstacles(MPM mpm)
{
  MPMGrid  *g     = &mpm->grid;
  PetscReal cells = 1.0;

  PetscFunctionBeginUser;
  g->nobstacles = 0;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: obstacles", "MPM");
  PetscCall(
      PetscOptionsReal("-mpm_obstacle_smoothing",
                       "Width of the obstacles' contact layer [cells of the smaller h]: a node at signed distance "
                       "phi from an obstacle gets the contact weight s = 1 (phi <= 0) fading to 0 (phi >= width) "
                       "as a C^2 smoothstep",
                       "", cells, &cells, NULL));
  for (PetscInt k = 0; k < MPM_MAX_OBSTACLES; k++) {
    MPMObstacle *o = &g->obstacle[k];
    PetscBool    set;

    PetscCall(PetscSNPrintf(o->option, sizeof(o->option), "-mpm_obstacle%" PetscInt_FMT, k));
    PetscCall(PetscOptionsString(
        o->option,
        "Rigid obstacle k, fixed: plane:px,py,nx,ny[:type] (the half-space behind the line "
        "through (px,py) with outward normal (nx,ny)), circle:cx,cy,r[:type] or ellipse:cx,cy,a,b,alpha[:type] "
        "(semi-axes a along the axis, b across; the axis turned clockwise by alpha [deg]) [m]; type "
        "sticky (v = 0), slip (default: the approach speed is removed, smoothed like the "
        "friction walls) or friction (smoothed Coulomb with -mpm_wall_friction and "
        "-mpm_friction_smoothing, parameter block friction); numbered 0, 1, ... without gaps, at most 8",
        "", o->spec, o->spec, sizeof(o->spec), &set));
    if (!set) break;
    g->nobstacles++;
  }
  PetscOptionsEnd();
  PetscCall(MPMCheckObstacleNumbering(mpm));
  PetscCheck(cells > 0 && PetscIsNormalReal(cells), mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_obstacle_smoothing %g cells: the width of the contact layer must be positive", (double)cells);
  g->obstacle_width = cells * PetscMin(g->h[0], g->h[1]);
  for (PetscInt k = 0; k < g->nobstacles; k++) {
    PetscCall(MPMParseObstacle(mpm, &g->obstacle[k]));
    if (g->obstacle[k].type == MPM_WALL_FRICTION) mpm->has_friction = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMCheckOutsideObstacles - refuses a particle at x of body b that starts inside an obstacle (phi < 0).
    Collective (every rank visits every particle). @*/
PetscErrorCode MPMCheckOutsideObstacles(MPM mpm, const PetscReal x[MPM_DIM], const MPMBody *b)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < mpm->grid.nobstacles; k++) {
    const MPMObstacle *o = &mpm->grid.obstacle[k];
    PetscReal          n[MPM_DIM];
    const PetscReal    phi = MPMObstacleDistance(o, x, n);

    PetscCheck(phi >= 0, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: the particle at (%g, %g) m of %s %s starts inside the obstacle (signed distance %g m); move the "
               "body or the obstacle",
               o->option, o->spec, (double)x[0], (double)x[1], b->option, b->spec, (double)phi);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
