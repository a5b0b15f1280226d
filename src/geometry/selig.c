/* Airfoils from Selig-format coordinate files (include/adjsim/geometry.h, AdjShapeReadSelig): reading and
 * checking the file on rank 0, normalizing to the chord, and the natural cubic spline y/c(sigma) of each
 * surface in sigma = sqrt(x/c), in which a round leading edge (y ~ sqrt(x)) is smooth. */
#include <adjsim/geometry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  PetscInt  n;
  PetscReal x[2 * ADJ_SELIG_MAX + 2], y[2 * ADJ_SELIG_MAX + 2];
  PetscInt  line[2 * ADJ_SELIG_MAX + 2];
} SeligPoints;

/* The x y pairs after the title line; err[] gets the reason a file is refused (empty: read). */
static void SeligParse(FILE *fp, SeligPoints *pts, char err[], size_t len)
{
  char     buf[512];
  PetscInt line = 1;

  pts->n = 0;
  if (!fgets(buf, sizeof(buf), fp)) {
    snprintf(err, len, "the file is empty (a Selig file starts with a title line)");
    return;
  }
  while (fgets(buf, sizeof(buf), fp)) {
    char  *end, *p = buf;
    double v[2];

    line++;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\n' || *p == '\r' || !*p) continue;
    for (int k = 0; k < 2; k++) {
      errno = 0;
      v[k]  = strtod(p, &end);
      if (end == p || errno) {
        buf[strcspn(buf, "\r\n")] = 0;
        snprintf(err, len, "line %d \"%.60s\" is not two numbers x y", (int)line, buf);
        return;
      }
      p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p || !isfinite(v[0]) || !isfinite(v[1])) {
      buf[strcspn(buf, "\r\n")] = 0;
      snprintf(err, len, "line %d \"%.60s\" is not two finite numbers x y", (int)line, buf);
      return;
    }
    if (pts->n == 0 && v[0] > 1.5 && v[1] > 1.5) {
      snprintf(err, len,
               "line %d holds point counts (%g %g): this is the Lednicer format; convert it to Selig's "
               "(trailing edge, upper surface, leading edge, lower surface, trailing edge)",
               (int)line, v[0], v[1]);
      return;
    }
    if (pts->n >= 2 * ADJ_SELIG_MAX + 2) {
      snprintf(err, len, "more than %d points: at most %d per surface", 2 * ADJ_SELIG_MAX + 2, ADJ_SELIG_MAX);
      return;
    }
    pts->x[pts->n] = v[0], pts->y[pts->n] = v[1], pts->line[pts->n] = line;
    pts->n++;
  }
  if (pts->n < 10) snprintf(err, len, "%d points: an airfoil needs at least 10", (int)pts->n);
}

/* Natural cubic spline through (t_k, y_k), k < n: second derivatives M (M_0 = M_(n-1) = 0), by the
 * tridiagonal (Thomas) solve of h_(k-1) M_(k-1) + 2 (h_(k-1) + h_k) M_k + h_k M_(k+1) = 6 (slope_k - slope_(k-1)). */
static void SeligSpline(PetscInt n, const PetscReal t[], const PetscReal y[], PetscReal M[])
{
  PetscReal c[ADJ_SELIG_MAX], d[ADJ_SELIG_MAX];

  M[0] = M[n - 1] = 0, c[0] = 0, d[0] = 0;
  for (PetscInt k = 1; k < n - 1; k++) {
    const PetscReal h0 = t[k] - t[k - 1], h1 = t[k + 1] - t[k];
    const PetscReal r = 6 * ((y[k + 1] - y[k]) / h1 - (y[k] - y[k - 1]) / h0), b = 2 * (h0 + h1) - h0 * c[k - 1];

    c[k] = h1 / b, d[k] = (r - h0 * d[k - 1]) / b;
  }
  for (PetscInt k = n - 2; k >= 1; k--) M[k] = d[k] - c[k] * M[k + 1];
}

/* The spline of one surface (AdjShapeReadSelig) at sigma (plain arithmetic; the dual version is in shapes.c). */
static PetscReal SeligValue(const AdjShape *s, PetscInt side, PetscReal sigma)
{
  const PetscReal *t = s->dat[side][0], *y = s->dat[side][1], *M = s->dat[side][2];
  PetscInt         lo = 0, hi = s->ndat[side] - 1;

  while (hi - lo > 1) {
    const PetscInt mid = (lo + hi) / 2;
    if (t[mid] <= sigma)
      lo = mid;
    else
      hi = mid;
  }
  {
    const PetscReal h = t[hi] - t[lo], A = (t[hi] - sigma) / h, B = (sigma - t[lo]) / h;
    return A * y[lo] + B * y[hi] + ((A * A * A - A) * M[lo] + (B * B * B - B) * M[hi]) * h * h / 6;
  }
}

/* One surface, from the leading edge (index le) towards the end index `last` (step +-1), in chord
 * coordinates: x/c must increase strictly; a blunt end is sheared to y = 0; knots sigma = sqrt(x/x_end). */
static void SeligSurface(const SeligPoints *pts, const PetscReal xi[], const PetscReal eta[], PetscInt le,
                         PetscInt last, const char *name, AdjShape *s, PetscInt side, char err[], size_t len)
{
  const PetscInt  step = last > le ? 1 : -1, n = PetscAbsInt(last - le) + 1;
  PetscReal      *sig = s->dat[side][0], *y = s->dat[side][1];
  const PetscReal xend = xi[last], yend = eta[last];

  if (n > ADJ_SELIG_MAX) {
    snprintf(err, len, "the %s surface has %d points, more than %d", name, (int)n, ADJ_SELIG_MAX);
    return;
  }
  for (PetscInt k = 0, i = le; k < n; k++, i += step) {
    if (k > 0 && !(xi[i] > xi[i - step])) {
      snprintf(err, len,
               "line %d: x/c = %.6g does not increase from the leading edge to the trailing edge along the %s surface "
               "(the point before is at %.6g); a Selig file runs trailing edge, upper surface, leading edge, lower "
               "surface, trailing edge",
               (int)pts->line[i], (double)xi[i], name, (double)xi[i - step]);
      return;
    }
    sig[k] = PetscSqrtReal(PetscMax(xi[i], 0) / xend);
    y[k]   = eta[i] - xi[i] / xend * yend; /* the shear that closes a blunt trailing edge */
  }
  sig[0] = 0, y[0] = 0, sig[n - 1] = 1, y[n - 1] = 0;
  s->ndat[side] = n;
  SeligSpline(n, sig, y, s->dat[side][2]);
}

/* The two surfaces must not cross or touch between the edges: the upper (listed first) above the lower at x/c =
 * 0.3 (else the order is wrong or the airfoil has no thickness there), then at every station of the cosine
 * sampling the geometry layer checks later (AdjShapeSetUp), reported here with the file's lines. */
static void SeligCheckThickness(const SeligPoints *pts, PetscInt le, const AdjShape *s, char err[], size_t len)
{
  const PetscReal yu = SeligValue(s, 0, PetscSqrtReal(0.3)), yl = SeligValue(s, 1, PetscSqrtReal(0.3));

  if (yu < yl)
    snprintf(err, len,
             "at x/c = 0.3 the surface listed first (lines %d to %d) lies below the other: a Selig file lists "
             "the upper surface first (trailing edge, upper surface, leading edge, lower surface)",
             (int)pts->line[0], (int)pts->line[le]);
  else if (!(yu > yl))
    snprintf(err, len, "at x/c = 0.3 the two surfaces coincide (y/c = %g): the airfoil has no thickness", (double)yu);
  for (PetscInt j = 1; !err[0] && j < ADJ_AIRFOIL_POINTS - 1; j++) {
    const PetscReal t = 0.5 * (1 - PetscCosReal(PETSC_PI * j / (ADJ_AIRFOIL_POINTS - 1))), sg = PetscSqrtReal(t);
    const PetscReal u = SeligValue(s, 0, sg), l = SeligValue(s, 1, sg);

    if (!(u > l))
      snprintf(err, len,
               "the surfaces %s at x/c = %.4f (upper y/c = %g, lower %g; the upper surface is lines %d to %d, the "
               "lower lines %d to %d): the body curve would cross itself",
               u < l ? "cross" : "touch", (double)t, (double)u, (double)l, (int)pts->line[0], (int)pts->line[le],
               (int)pts->line[le], (int)pts->line[pts->n - 1]);
  }
}

/* Chord coordinates of the points (leading edge at the origin, trailing edge at (1, 0)) and the two splines. */
static void SeligNormalize(const SeligPoints *pts, AdjShape *s, PetscReal *gap, char err[], size_t len)
{
  PetscReal      xi[2 * ADJ_SELIG_MAX + 2], eta[2 * ADJ_SELIG_MAX + 2];
  PetscInt       le = 0;
  const PetscInt n  = pts->n;

  for (PetscInt i = 1; i < n; i++)
    if (pts->x[i] < pts->x[le]) le = i;
  if (le == 0 || le == n - 1) {
    snprintf(err, len,
             "the leading edge (smallest x, line %d) is the first or last point: a Selig file runs trailing "
             "edge, upper surface, leading edge, lower surface, trailing edge",
             (int)pts->line[le]);
    return;
  }
  {
    const PetscReal tx = 0.5 * (pts->x[0] + pts->x[n - 1]) - pts->x[le],
                    ty = 0.5 * (pts->y[0] + pts->y[n - 1]) - pts->y[le];
    const PetscReal L2 = tx * tx + ty * ty;

    for (PetscInt i = 0; i < n; i++) {
      const PetscReal dx = pts->x[i] - pts->x[le], dy = pts->y[i] - pts->y[le];
      xi[i] = (dx * tx + dy * ty) / L2, eta[i] = (dy * tx - dx * ty) / L2;
    }
  }
  *gap = eta[0] - eta[n - 1];
  if (!(*gap > -1e-9)) {
    snprintf(err, len, "the first point (line %d) lies below the last one (line %d): the upper surface must come first",
             (int)pts->line[0], (int)pts->line[n - 1]);
    return;
  }
  SeligSurface(pts, xi, eta, le, 0, "upper", s, 0, err, len);
  if (!err[0]) SeligSurface(pts, xi, eta, le, n - 1, "lower", s, 1, err, len);
  if (!err[0]) SeligCheckThickness(pts, le, s, err, len);
}

PetscErrorCode AdjShapeReadSelig(MPI_Comm comm, const char path[], const char option[], PetscInt nbump, AdjShape *s)
{
  char         err[400] = "";
  PetscMPIInt  rank;
  PetscReal    gap = 0;
  SeligPoints *pts;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(nbump >= 0 && nbump <= ADJ_SELIG_MAX_BUMPS, comm, PETSC_ERR_USER_INPUT,
             "%" PetscInt_FMT " Hicks-Henne bumps per surface: give 0 to %d", nbump, ADJ_SELIG_MAX_BUMPS);
  PetscCall(PetscMemzero(s, sizeof(*s)));
  if (!rank) {
    FILE *fp = fopen(path, "r");

    PetscCall(PetscNew(&pts));
    if (!fp)
      snprintf(err, sizeof(err), "%s", strerror(errno));
    else {
      SeligParse(fp, pts, err, sizeof(err));
      fclose(fp);
    }
    if (!err[0]) SeligNormalize(pts, s, &gap, err, sizeof(err));
    PetscCall(PetscFree(pts));
  }
  PetscCallMPI(MPI_Bcast(err, sizeof(err), MPI_CHAR, 0, comm));
  PetscCheck(!err[0], comm, PETSC_ERR_USER_INPUT, "Airfoil file %s (%s): %s", path, option, err);
  PetscCallMPI(MPI_Bcast(s->ndat, 2, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(s->dat, 2 * 3 * ADJ_SELIG_MAX, MPIU_REAL, 0, comm));
  PetscCallMPI(MPI_Bcast(&gap, 1, MPIU_REAL, 0, comm));
  if (gap > 1e-9)
    PetscCall(PetscInfo(NULL, "%s: blunt trailing edge of gap %g chords closed by shearing each surface\n", path,
                        (double)gap));
  s->type  = ADJ_SHAPE_DAT;
  s->nbump = nbump;
  s->p[3]  = 1.0; /* chord [m]: set it with the shape's other parameters */
  PetscFunctionReturn(PETSC_SUCCESS);
}
