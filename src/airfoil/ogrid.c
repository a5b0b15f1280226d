/* Body-fitted O-grids: generation by two-boundary Hermite interpolation, its exact adjoint in the shape
 * parameters, and the quality checks (the method and the notation: include/adjsim/ogrid.h). */
#include <adjsim/grid.h>
#include <adjsim/ogrid.h>
#include <adjsim/optcheck.h>

struct _p_AdjOGrid {
  MPI_Comm  comm;
  char      prefix[64];
  AdjShape  shape;
  PetscBool has_shape, setup;
  /* options */
  PetscInt   ni, nj;       /* nodes around and along a grid line (nj 0: from the growth rate) */
  PetscReal  wall, growth; /* first-cell height [m] (0: 1e-3 reference lengths) and growth rate */
  PetscReal  farfield;     /* far-field radius in reference lengths of the body (chord, diameter) */
  PetscReal  min_angle;    /* smallest accepted cell angle [degrees] */
  PetscReal  radius;       /* far-field radius R [m] */
  PetscReal *u, *eta;      /* curve parameters u_i (ni) and radial parameters eta_j (nj) */
  /* wall points, their parameter derivatives and normals, replicated on every rank */
  PetscReal (*S)[2], (*dS)[2][ADJ_SHAPE_MAX_PARAMS], (*N)[2];
  /* the departure directions: D[0] = N, D[p + 1] = the smoothing pass p + 1 of D[p] (nsmooth passes; the grid
   * lines leave the wall along D[nsmooth]) */
  PetscInt nsmooth;
  PetscReal (*D)[2];
  /* line j leaves along (1 - w_j) D[0] + w_j D[nsmooth], w_j = 1 - exp(-eta_j R / blend) [blend: m]: at the wall
   * exactly along the normal (dX/deta = R D[0] at eta = 0), beyond about blend along the smoothed direction */
  PetscReal blend, *w;
  DM        da;
  Vec       X;
};

/* The cubic Hermite basis at e: h[0] = h00, h[1] = h01, h[2] = h10, h[3] = h11. */
static void OGridHermite(PetscReal e, PetscReal h[4])
{
  const PetscReal e2 = e * e, e3 = e2 * e;

  h[0] = 2 * e3 - 3 * e2 + 1, h[1] = 3 * e2 - 2 * e3, h[2] = e3 - 2 * e2 + e, h[3] = e3 - e2;
}

/* Direction of the far-field point of wall point i: th = -2 pi u - alpha (radians). */
static PetscReal OGridFarAngle(const AdjOGrid og, PetscInt i)
{
  return -2 * PETSC_PI * og->u[i] - og->shape.p[2] * PETSC_PI / 180;
}

/* Outward unit normals of the closed clockwise polygon S: n_i = R t_i / |t_i|, t_i = S_(i+1) - S_(i-1),
 * R the turn by +90 degrees, (tx, ty) -> (-ty, tx). */
static void OGridNormals(PetscInt ni, const PetscReal S[][2], PetscReal N[][2])
{
  for (PetscInt i = 0; i < ni; i++) {
    const PetscReal *a = S[(i + 1) % ni], *b = S[(i + ni - 1) % ni];
    const PetscReal  tx = a[0] - b[0], ty = a[1] - b[1], len = PetscSqrtReal(tx * tx + ty * ty);

    N[i][0] = -ty / len, N[i][1] = tx / len;
  }
}

/* Adjoint of OGridNormals: with n = R t / L, dn = (R / L)(I - t^ t^T) dt, so
 * tb = (1 / L)(I - t^ t^T) R^T nb, and Sb_(i+1) += tb, Sb_(i-1) -= tb. */
static void OGridNormalsAdjoint(PetscInt ni, const PetscReal S[][2], const PetscReal Nb[][2], PetscReal Sb[][2])
{
  for (PetscInt i = 0; i < ni; i++) {
    const PetscInt  ip = (i + 1) % ni, im = (i + ni - 1) % ni;
    const PetscReal tx = S[ip][0] - S[im][0], ty = S[ip][1] - S[im][1], len = PetscSqrtReal(tx * tx + ty * ty);
    const PetscReal hx = tx / len, hy = ty / len;
    const PetscReal rx = Nb[i][1], ry = -Nb[i][0]; /* R^T nb */
    const PetscReal dot = hx * rx + hy * ry, bx = (rx - dot * hx) / len, by = (ry - dot * hy) / len;

    Sb[ip][0] += bx, Sb[ip][1] += by;
    Sb[im][0] -= bx, Sb[im][1] -= by;
  }
}

/* One smoothing pass of the departure directions: D'_i = r_i / |r_i|, r_i = D_(i-1) + 2 D_i + D_(i+1).  It
 * spreads the turn of the normal at a sharp trailing edge over several grid lines (the wall angle there is
 * then no longer 90 degrees); on a smooth, evenly sampled wall it changes the direction at second order. */
static void OGridSmooth(PetscInt ni, const PetscReal D[][2], PetscReal Dn[][2])
{
  for (PetscInt i = 0; i < ni; i++) {
    const PetscReal *a = D[(i + ni - 1) % ni], *b = D[(i + 1) % ni];
    const PetscReal  rx = a[0] + 2 * D[i][0] + b[0], ry = a[1] + 2 * D[i][1] + b[1],
                    len = PetscSqrtReal(rx * rx + ry * ry);

    Dn[i][0] = rx / len, Dn[i][1] = ry / len;
  }
}

/* Tangent of OGridSmooth at D (Dn its result): dDn = (I - Dn Dn^T) dr / |r|, dr = dD_(i-1) + 2 dD_i + dD_(i+1). */
static void OGridSmoothTangent(PetscInt ni, const PetscReal D[][2], const PetscReal Dn[][2], const PetscReal dD[][2],
                               PetscReal dDn[][2])
{
  for (PetscInt i = 0; i < ni; i++) {
    const PetscInt  im = (i + ni - 1) % ni, ip = (i + 1) % ni;
    const PetscReal rx = D[im][0] + 2 * D[i][0] + D[ip][0], ry = D[im][1] + 2 * D[i][1] + D[ip][1];
    const PetscReal len = PetscSqrtReal(rx * rx + ry * ry);
    const PetscReal dx = dD[im][0] + 2 * dD[i][0] + dD[ip][0], dy = dD[im][1] + 2 * dD[i][1] + dD[ip][1];
    const PetscReal dot = Dn[i][0] * dx + Dn[i][1] * dy;

    dDn[i][0] = (dx - dot * Dn[i][0]) / len, dDn[i][1] = (dy - dot * Dn[i][1]) / len;
  }
}

/* Adjoint of OGridSmooth: rb = (I - Dn Dn^T) Dnb / |r|; Db_(i-1) += rb, Db_i += 2 rb, Db_(i+1) += rb. */
static void OGridSmoothAdjoint(PetscInt ni, const PetscReal D[][2], const PetscReal Dn[][2], const PetscReal Dnb[][2],
                               PetscReal Db[][2])
{
  for (PetscInt i = 0; i < ni; i++) {
    const PetscInt  im = (i + ni - 1) % ni, ip = (i + 1) % ni;
    const PetscReal rx = D[im][0] + 2 * D[i][0] + D[ip][0], ry = D[im][1] + 2 * D[i][1] + D[ip][1];
    const PetscReal len = PetscSqrtReal(rx * rx + ry * ry), dot = Dn[i][0] * Dnb[i][0] + Dn[i][1] * Dnb[i][1];
    const PetscReal bx = (Dnb[i][0] - dot * Dn[i][0]) / len, by = (Dnb[i][1] - dot * Dn[i][1]) / len;

    Db[im][0] += bx, Db[im][1] += by, Db[i][0] += 2 * bx, Db[i][1] += 2 * by, Db[ip][0] += bx, Db[ip][1] += by;
  }
}

/* The wall points S_i, their parameter derivatives and the normals of the current shape. */
static PetscErrorCode OGridWall(AdjOGrid og)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < og->ni; i++) AdjShapeSurfacePoint(&og->shape, og->u[i], og->S[i], og->dS[i]);
  OGridNormals(og->ni, (const PetscReal(*)[2])og->S, og->D);
  for (PetscInt p = 0; p < og->nsmooth; p++)
    OGridSmooth(og->ni, (const PetscReal(*)[2])(og->D + p * og->ni), og->D + (p + 1) * og->ni);
  og->N = og->D + og->nsmooth * og->ni;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridGenerate(AdjOGrid og, Vec X)
{
  PetscScalar  ***x;
  PetscInt        xs, ys, xm, ym;
  const PetscReal R = og->radius, cx = og->shape.p[0], cy = og->shape.p[1];

  PetscFunctionBeginUser;
  PetscCall(OGridWall(og));
  PetscCall(DMDAGetCorners(og->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFWrite(og->da, X, &x));
  for (PetscInt j = ys; j < ys + ym; j++) {
    PetscReal h[4];

    OGridHermite(og->eta[j], h);
    for (PetscInt i = xs; i < xs + xm; i++) {
      const PetscReal th = OGridFarAngle(og, i), f[2] = {PetscCosReal(th), PetscSinReal(th)}, c[2] = {cx, cy};

      for (PetscInt d = 0; d < 2; d++)
        x[j][i][d] = h[0] * og->S[i][d] + h[1] * c[d] +
                     R * ((h[1] + h[3]) * f[d] + h[2] * ((1 - og->w[j]) * og->D[i][d] + og->w[j] * og->N[i][d]));
    }
  }
  PetscCall(DMDAVecRestoreArrayDOFWrite(og->da, X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tangent of OGridNormals: dn = (R / L)(dt - t^ (t^ . dt)), dt = dS_(i+1) - dS_(i-1). */
static void OGridNormalsTangent(PetscInt ni, const PetscReal S[][2], const PetscReal dS[][2], PetscReal dN[][2])
{
  for (PetscInt i = 0; i < ni; i++) {
    const PetscInt  ip = (i + 1) % ni, im = (i + ni - 1) % ni;
    const PetscReal tx = S[ip][0] - S[im][0], ty = S[ip][1] - S[im][1], len = PetscSqrtReal(tx * tx + ty * ty);
    const PetscReal hx = tx / len, hy = ty / len, dx = dS[ip][0] - dS[im][0], dy = dS[ip][1] - dS[im][1];
    const PetscReal dot = hx * dx + hy * dy, px = (dx - dot * hx) / len, py = (dy - dot * hy) / len;

    dN[i][0] = -py, dN[i][1] = px;
  }
}

PetscErrorCode AdjOGridGenerateTangent(AdjOGrid og, const PetscReal dp[], Vec dX)
{
  const PetscInt  ni = og->ni;
  const PetscReal R = og->radius, k = PETSC_PI / 180;
  PetscReal(*dS)[2], (*dN)[2], (*dT)[2], (*dN0)[2];
  PetscScalar ***x;
  PetscInt       xs, ys, xm, ym;

  PetscFunctionBeginUser;
  PetscCall(OGridWall(og));
  PetscCall(PetscCalloc4(ni, &dS, ni, &dN, ni, &dT, ni, &dN0));
  for (PetscInt i = 0; i < ni; i++)
    for (PetscInt q = 0; q < og->shape.np; q++)
      for (PetscInt d = 0; d < 2; d++) dS[i][d] += og->dS[i][d][q] * dp[q];
  OGridNormalsTangent(ni, (const PetscReal(*)[2])og->S, (const PetscReal(*)[2])dS, dN);
  PetscCall(PetscArraycpy(dN0, dN, ni));
  for (PetscInt p = 0; p < og->nsmooth; p++) {
    PetscCall(PetscArraycpy(dT, dN, ni)); /* the tangent of pass p's input */
    OGridSmoothTangent(ni, (const PetscReal(*)[2])(og->D + p * ni), (const PetscReal(*)[2])(og->D + (p + 1) * ni),
                       (const PetscReal(*)[2])dT, dN);
  }
  PetscCall(DMDAGetCorners(og->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFWrite(og->da, dX, &x));
  for (PetscInt j = ys; j < ys + ym; j++) {
    PetscReal h[4];

    OGridHermite(og->eta[j], h);
    for (PetscInt i = xs; i < xs + xm; i++) {
      const PetscReal th = OGridFarAngle(og, i), df[2] = {k * PetscSinReal(th) * dp[2], -k * PetscCosReal(th) * dp[2]};

      for (PetscInt d = 0; d < 2; d++)
        x[j][i][d] = h[0] * dS[i][d] + h[1] * dp[d] +
                     R * ((h[1] + h[3]) * df[d] + h[2] * ((1 - og->w[j]) * dN0[i][d] + og->w[j] * dN[i][d]));
    }
  }
  PetscCall(DMDAVecRestoreArrayDOFWrite(og->da, dX, &x));
  PetscCall(PetscFree4(dS, dN, dT, dN0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The node sums of the adjoint, per wall point: Sb_i = sum_j h00 Xb_ij, Nb_i = R sum_j h10 w_j Xb_ij (the
 * smoothed direction), N0b_i = R sum_j h10 (1 - w_j) Xb_ij (the normal), fb_i = R sum_j (h01 + h11) Xb_ij, and
 * cb = sum h01 Xb (the far-field centre), this rank's nodes only. */
static PetscErrorCode OGridNodeAdjoint(AdjOGrid og, Vec Xb, PetscReal Sb[][2], PetscReal Nb[][2], PetscReal N0b[][2],
                                       PetscReal fb[][2], PetscReal cb[2])
{
  const PetscScalar ***xb;
  PetscInt             xs, ys, xm, ym;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(og->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFRead(og->da, Xb, &xb));
  for (PetscInt j = ys; j < ys + ym; j++) {
    PetscReal h[4];

    OGridHermite(og->eta[j], h);
    for (PetscInt i = xs; i < xs + xm; i++)
      for (PetscInt d = 0; d < 2; d++) {
        const PetscReal b = xb[j][i][d];

        Sb[i][d] += h[0] * b, fb[i][d] += og->radius * (h[1] + h[3]) * b;
        Nb[i][d] += og->radius * h[2] * og->w[j] * b, N0b[i][d] += og->radius * h[2] * (1 - og->w[j]) * b;
        cb[d] += h[1] * b;
      }
  }
  PetscCall(DMDAVecRestoreArrayDOFRead(og->da, Xb, &xb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridGenerateAdjoint(AdjOGrid og, Vec Xb, PetscReal pb[])
{
  const PetscInt ni = og->ni, n = 8 * ni + 2;
  PetscReal     *buf, (*Sb)[2], (*Nb)[2], (*fb)[2], (*N0b)[2], *cb;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(n, &buf));
  Sb = (PetscReal(*)[2])buf, Nb = (PetscReal(*)[2])(buf + 2 * ni), fb = (PetscReal(*)[2])(buf + 4 * ni);
  N0b = (PetscReal(*)[2])(buf + 6 * ni), cb = buf + 8 * ni;
  PetscCall(OGridWall(og));
  PetscCall(OGridNodeAdjoint(og, Xb, Sb, Nb, N0b, fb, cb));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, og->comm));
  for (PetscInt p = og->nsmooth - 1; p >= 0; p--) {
    PetscReal(*Db)[2];
    PetscCall(PetscCalloc1(ni, &Db));
    OGridSmoothAdjoint(ni, (const PetscReal(*)[2])(og->D + p * ni), (const PetscReal(*)[2])(og->D + (p + 1) * ni),
                       (const PetscReal(*)[2])Nb, Db);
    PetscCall(PetscArraycpy(Nb, Db, ni));
    PetscCall(PetscFree(Db));
  }
  for (PetscInt i = 0; i < ni; i++) Nb[i][0] += N0b[i][0], Nb[i][1] += N0b[i][1];
  OGridNormalsAdjoint(ni, (const PetscReal(*)[2])og->S, (const PetscReal(*)[2])Nb, Sb);
  pb[0] += cb[0], pb[1] += cb[1];
  for (PetscInt i = 0; i < ni; i++) {
    const PetscReal th = OGridFarAngle(og, i), k = PETSC_PI / 180; /* df/dalpha = k (sin th, -cos th) */

    pb[2] += k * (fb[i][0] * PetscSinReal(th) - fb[i][1] * PetscCosReal(th));
    for (PetscInt q = 0; q < og->shape.np; q++) pb[q] += Sb[i][0] * og->dS[i][0][q] + Sb[i][1] * og->dS[i][1][q];
  }
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The radial parameters: d_j = dw (g^j - 1)/(g - 1) reaching R at j = nj - 1, eta_j = d_j / R.  With the
 * growth given, nj is the fewest nodes that reach R, and g is then lowered (bisection) so that d_(nj-1) = R
 * exactly; with nj given, g is found the same way. */
static PetscReal OGridReach(PetscReal dw, PetscReal g, PetscInt n)
{
  return PetscAbsReal(g - 1) < 1e-12 ? dw * (n - 1) : dw * (PetscPowReal(g, (PetscReal)(n - 1)) - 1) / (g - 1);
}

static PetscErrorCode OGridRadialDistribution(AdjOGrid og)
{
  const PetscReal dw = og->wall, R = og->radius;
  PetscReal       lo = 1, hi;

  PetscFunctionBeginUser;
  if (!og->nj) {
    PetscInt n = 2;
    while (OGridReach(dw, og->growth, n) < R && n < 100000) n++;
    PetscCheck(n < 100000, og->comm, PETSC_ERR_USER_INPUT,
               "-airfoil_growth %g from -airfoil_wall_spacing %g m needs more than 100000 nodes to reach the far field "
               "at %g m: raise the growth rate or the wall spacing",
               (double)og->growth, (double)dw, (double)R);
    og->nj = n;
  }
  PetscCheck(OGridReach(dw, 1, og->nj) <= R, og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_grid_normal %" PetscInt_FMT
             " nodes of -airfoil_wall_spacing %g m overshoot the far field at %g m "
             "even without growth: use fewer nodes or a smaller wall spacing",
             og->nj, (double)dw, (double)R);
  hi = PetscMax(og->growth, 2);
  while (OGridReach(dw, hi, og->nj) < R) hi *= 2;
  for (PetscInt it = 0; it < 200; it++) {
    const PetscReal mid = 0.5 * (lo + hi);
    if (OGridReach(dw, mid, og->nj) < R)
      lo = mid;
    else
      hi = mid;
  }
  og->growth = 0.5 * (lo + hi);
  PetscCall(PetscFree(og->eta));
  PetscCall(PetscMalloc1(og->nj, &og->eta));
  for (PetscInt j = 0; j < og->nj; j++) og->eta[j] = OGridReach(dw, og->growth, j + 1) / R;
  og->eta[0] = 0, og->eta[og->nj - 1] = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Quality of the cells this rank owns (i in its range, j in its range below nj - 1) from the ghosted
 * coordinates x: corner Jacobians and angles, the wall angle, the size ratios (see AdjOGridQuality). */
static void OGridCellQuality(AdjOGrid og, PetscScalar ***x, PetscInt i, PetscInt j, AdjOGridQuality *q)
{
  const PetscScalar *P[4] = {x[j][i], x[j][i + 1], x[j + 1][i + 1], x[j + 1][i]}; /* counter-clockwise in (i, j) */

  for (PetscInt k = 0; k < 4; k++) {
    const PetscScalar *o = P[k], *a = P[(k + 1) % 4], *b = P[(k + 3) % 4];
    const PetscReal    ax = a[0] - o[0], ay = a[1] - o[1], bx = b[0] - o[0], by = b[1] - o[1];
    const PetscReal    cross = ax * by - ay * bx, dot = ax * bx + ay * by;

    q->min_jacobian = PetscMin(q->min_jacobian, cross);
    q->min_angle    = PetscMin(q->min_angle, PetscAtan2Real(PetscAbsReal(cross), dot) * 180 / PETSC_PI);
  }
  if (j == 0) {
    const PetscInt  ip = (i + 1) % og->ni, im = (i + og->ni - 1) % og->ni;
    const PetscReal tx = og->S[ip][0] - og->S[im][0], ty = og->S[ip][1] - og->S[im][1];
    const PetscReal ex = x[1][i][0] - x[0][i][0], ey = x[1][i][1] - x[0][i][1];
    const PetscReal ang = PetscAtan2Real(PetscAbsReal(tx * ey - ty * ex), tx * ex + ty * ey) * 180 / PETSC_PI;

    q->wall_angle_error = PetscMax(q->wall_angle_error, PetscAbsReal(90 - ang));
    q->wall_spacing     = PetscMin(q->wall_spacing, PetscSqrtReal(ex * ex + ey * ey));
  }
  {
    const PetscReal hj  = PetscHypotReal(x[j + 1][i][0] - x[j][i][0], x[j + 1][i][1] - x[j][i][1]);
    const PetscReal hi  = PetscHypotReal(x[j][i + 1][0] - x[j][i][0], x[j][i + 1][1] - x[j][i][1]);
    const PetscReal hi0 = PetscHypotReal(x[j][i][0] - x[j][i - 1][0], x[j][i][1] - x[j][i - 1][1]);

    if (j > 0) {
      const PetscReal hj0 = PetscHypotReal(x[j][i][0] - x[j - 1][i][0], x[j][i][1] - x[j - 1][i][1]);
      q->max_ratio_j      = PetscMax(q->max_ratio_j, PetscMax(hj / hj0, hj0 / hj));
    }
    q->max_ratio_i = PetscMax(q->max_ratio_i, PetscMax(hi / hi0, hi0 / hi));
  }
}

PetscErrorCode AdjOGridGetQuality(AdjOGrid og, AdjOGridQuality *q)
{
  Vec            xl;
  PetscScalar ***x;
  PetscInt       xs, ys, xm, ym;
  PetscReal      mins[3], maxs[3];

  PetscFunctionBeginUser;
  q->min_jacobian = q->min_angle = q->wall_spacing = PETSC_MAX_REAL;
  q->wall_angle_error = q->max_ratio_i = q->max_ratio_j = 0;
  PetscCall(DMGetLocalVector(og->da, &xl));
  PetscCall(DMGlobalToLocal(og->da, og->X, INSERT_VALUES, xl));
  PetscCall(DMDAGetCorners(og->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayDOFRead(og->da, xl, &x));
  for (PetscInt j = ys; j < PetscMin(ys + ym, og->nj - 1); j++)
    for (PetscInt i = xs; i < xs + xm; i++) OGridCellQuality(og, x, i, j, q);
  PetscCall(DMDAVecRestoreArrayDOFRead(og->da, xl, &x));
  PetscCall(DMRestoreLocalVector(og->da, &xl));
  mins[0] = q->min_jacobian, mins[1] = q->min_angle, mins[2] = q->wall_spacing;
  maxs[0] = q->wall_angle_error, maxs[1] = q->max_ratio_i, maxs[2] = q->max_ratio_j;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, mins, 3, MPIU_REAL, MPIU_MIN, og->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, maxs, 3, MPIU_REAL, MPIU_MAX, og->comm));
  q->min_jacobian = mins[0], q->min_angle = mins[1], q->wall_spacing = mins[2];
  q->wall_angle_error = maxs[0], q->max_ratio_i = maxs[1], q->max_ratio_j = maxs[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The far-field circle must enclose the body with room to spare: R >= 2 rho, rho the largest distance of a wall
 * point from the reference point c (the centre of the far-field circle).  A closer far field folds the grid or
 * pinches it between the body and the circle (measured: a NACA 0012 folds at R = 0.8 chords, a circle at
 * R = 0.6 diameters), and would in any case spoil the forces (the default is 50 reference lengths).  Decided
 * from the replicated wall points, so the same on every rank. Collective. */
static PetscErrorCode OGridCheckFarField(AdjOGrid og)
{
  PetscReal rho = 0;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < og->ni; i++)
    rho = PetscMax(rho, PetscHypotReal(og->S[i][0] - og->shape.p[0], og->S[i][1] - og->shape.p[1]));
  PetscCheck(og->radius >= 2 * rho, og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_farfield %g puts the far field (radius %g m) too close to the %s, which reaches %g m from its "
             "reference point: the far-field radius must be at least twice that (give -airfoil_farfield >= %g; "
             "forces need of order 50)",
             (double)og->farfield, (double)og->radius, AdjShapeTypes[og->shape.type], (double)rho,
             (double)(2 * rho * og->farfield / og->radius));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A far field too close, a folded cell or a cell angle below -airfoil_grid_min_angle is refused. Collective. */
static PetscErrorCode OGridCheck(AdjOGrid og)
{
  AdjOGridQuality q;

  PetscFunctionBeginUser;
  PetscCall(OGridCheckFarField(og));
  PetscCall(AdjOGridGetQuality(og, &q));
  PetscCheck(q.min_jacobian > 0 && !PetscIsInfOrNanReal(q.min_jacobian), og->comm, PETSC_ERR_USER_INPUT,
             "The O-grid around the %s has folded cells (smallest cell Jacobian %g m^2): the body curve may cross "
             "itself, or -airfoil_grid_around %" PetscInt_FMT " is too coarse for its curvature",
             AdjShapeTypes[og->shape.type], (double)q.min_jacobian, og->ni);
  PetscCheck(q.min_angle >= og->min_angle, og->comm, PETSC_ERR_USER_INPUT,
             "The O-grid around the %s has a cell angle of %g degrees, below -airfoil_grid_min_angle %g: refine "
             "-airfoil_grid_around (now %" PetscInt_FMT ") or accept more skewed cells",
             AdjShapeTypes[og->shape.type], (double)q.min_angle, (double)og->min_angle, og->ni);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridCreate(MPI_Comm comm, AdjOGrid *og)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(og));
  (*og)->comm      = comm;
  (*og)->ni        = 128;
  (*og)->growth    = 1.1;
  (*og)->farfield  = 50;
  (*og)->min_angle = 5;
  (*og)->blend     = 0.05;
  (*og)->nsmooth   = 8;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridSetShape(AdjOGrid og, const AdjShape *shape)
{
  PetscFunctionBeginUser;
  PetscCheck(shape->type != ADJ_SHAPE_PLANE, og->comm, PETSC_ERR_USER_INPUT,
             "An O-grid needs a closed body curve (circle, ellipse, naca4, cst, dat, joukowski), not a plane");
  PetscCall(AdjShapeDestroy(&og->shape));
  og->shape      = *shape;
  og->shape.poly = NULL;
  PetscCall(AdjShapeSetUp(og->comm, &og->shape));
  og->has_shape = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridSetOptionsPrefix(AdjOGrid og, const char prefix[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(og->prefix, prefix ? prefix : "", sizeof(og->prefix)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridSetFromOptions(AdjOGrid og)
{
  PetscBool gset, nset;

  PetscFunctionBeginUser;
  PetscOptionsBegin(og->comm, og->prefix[0] ? og->prefix : NULL, "Body-fitted O-grid", "AdjOGrid");
  PetscCall(PetscOptionsInt("-airfoil_grid_around", "Grid nodes around the body (cosine-spaced on airfoils)", "",
                            og->ni, &og->ni, NULL));
  PetscCall(PetscOptionsInt("-airfoil_grid_normal",
                            "Grid nodes from the wall to the far field (default: as many as -airfoil_growth needs)", "",
                            og->nj, &og->nj, &nset));
  PetscCall(PetscOptionsReal("-airfoil_wall_spacing",
                             "Height of the first cell at the wall [m] (default 1e-3 reference lengths)", "", og->wall,
                             &og->wall, NULL));
  PetscCall(PetscOptionsReal("-airfoil_growth", "Growth rate of the cell heights away from the wall", "", og->growth,
                             &og->growth, &gset));
  PetscCall(PetscOptionsReal("-airfoil_farfield", "Far-field radius in reference lengths (chord, diameter)", "",
                             og->farfield, &og->farfield, NULL));
  PetscCall(PetscOptionsInt("-airfoil_grid_smoothing",
                            "Smoothing passes of the directions in which the grid lines leave the wall (0: the wall "
                            "normals; more spread the fan of lines at a sharp trailing edge over more lines)",
                            "", og->nsmooth, &og->nsmooth, NULL));
  PetscCall(PetscOptionsReal("-airfoil_grid_blend",
                             "With -airfoil_grid_smoothing: distance from the wall, in reference lengths, over which "
                             "the grid lines turn from the wall normal to the smoothed direction",
                             "", og->blend, &og->blend, NULL));
  PetscCall(PetscOptionsReal("-airfoil_grid_min_angle", "Smallest accepted cell angle [degrees]", "", og->min_angle,
                             &og->min_angle, NULL));
  PetscOptionsEnd();
  PetscCheck(!(gset && nset), og->comm, PETSC_ERR_USER_INPUT,
             "Give either -airfoil_growth or -airfoil_grid_normal: the other follows from the wall spacing and the "
             "far-field radius");
  PetscCheck(og->ni >= 16, og->comm, PETSC_ERR_USER_INPUT, "-airfoil_grid_around %" PetscInt_FMT ": need at least 16",
             og->ni);
  PetscCheck(og->nsmooth >= 0 && og->nsmooth <= og->ni, og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_grid_smoothing %" PetscInt_FMT ": give 0 to -airfoil_grid_around (%" PetscInt_FMT ") passes",
             og->nsmooth, og->ni);
  PetscCall(AdjCheckRealOption(og->comm, "-airfoil_grid_blend", og->blend, ADJ_REAL_POSITIVE, NULL));
  PetscCheck(!nset || og->nj >= 3, og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_grid_normal %" PetscInt_FMT ": need at least 3", og->nj);
  PetscCall(AdjCheckRealOption(og->comm, "-airfoil_wall_spacing", og->wall, ADJ_REAL_NONNEGATIVE, "m"));
  PetscCall(AdjCheckRealOption(og->comm, "-airfoil_farfield", og->farfield, ADJ_REAL_POSITIVE, NULL));
  PetscCheck(og->growth > 1 && og->growth < 2 && !PetscIsInfOrNanReal(og->growth), og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_growth %g must lie in (1, 2)", (double)og->growth);
  PetscCheck(og->min_angle >= 0 && og->min_angle < 90, og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_grid_min_angle %g must lie in [0, 90) degrees", (double)og->min_angle);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridSetUp(AdjOGrid og)
{
  PetscReal      thick, ref;
  const PetscInt ni = og->ni;

  PetscFunctionBeginUser;
  if (og->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(og->has_shape, og->comm, PETSC_ERR_ORDER, "AdjOGridSetShape() before AdjOGridSetUp()");
  AdjShapeSizes(&og->shape, &thick, &ref);
  if (og->wall == 0) og->wall = 1e-3 * ref;
  og->radius = og->farfield * ref;
  PetscCheck(og->wall < 0.01 * og->radius, og->comm, PETSC_ERR_USER_INPUT,
             "-airfoil_wall_spacing %g m is not small against the far-field radius %g m (-airfoil_farfield %g "
             "reference lengths of %g m)",
             (double)og->wall, (double)og->radius, (double)og->farfield, (double)ref);
  PetscCall(OGridRadialDistribution(og));
  PetscCall(PetscMalloc1(og->nj, &og->w));
  for (PetscInt j = 0; j < og->nj; j++)
    og->w[j] = og->nsmooth ? 1 - PetscExpReal(-og->eta[j] * og->radius / (og->blend * ref)) : 0;
  PetscCall(PetscMalloc4(ni, &og->u, ni, &og->S, ni, &og->dS, (og->nsmooth + 1) * ni, &og->D));
  for (PetscInt i = 0; i < ni; i++) og->u[i] = (PetscReal)i / ni;
  {
    const PetscInt       cells[2] = {ni, og->nj - 1};
    const DMBoundaryType bc[2]    = {DM_BOUNDARY_PERIODIC, DM_BOUNDARY_NONE};
    PetscCall(AdjGridCreateDMDA(og->comm, 2, cells, bc, ADJ_GRID_NODE, 2, DMDA_STENCIL_BOX, 1, NULL, &og->da));
  }
  PetscCall(DMDASetFieldName(og->da, 0, "x"));
  PetscCall(DMDASetFieldName(og->da, 1, "y"));
  PetscCall(DMCreateGlobalVector(og->da, &og->X));
  PetscCall(PetscObjectSetName((PetscObject)og->X, "grid"));
  og->setup = PETSC_TRUE;
  PetscCall(AdjOGridGenerate(og, og->X));
  PetscCall(OGridCheck(og));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridSetShapeParameters(AdjOGrid og, const PetscReal p[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(og->shape.p, p, og->shape.np));
  PetscCall(AdjShapeSetUp(og->comm, &og->shape));
  PetscCall(AdjOGridGenerate(og, og->X));
  PetscCall(OGridCheck(og));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridGetCoordinates(AdjOGrid og, DM *da, Vec *X)
{
  PetscFunctionBeginUser;
  if (da) *da = og->da;
  if (X) *X = og->X;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridGetSizes(AdjOGrid og, PetscInt *ni, PetscInt *nj, PetscReal *growth, PetscReal *radius)
{
  PetscFunctionBeginUser;
  if (ni) *ni = og->ni;
  if (nj) *nj = og->nj;
  if (growth) *growth = og->growth;
  if (radius) *radius = og->radius;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridView(AdjOGrid og, PetscViewer viewer)
{
  AdjOGridQuality q;

  PetscFunctionBeginUser;
  PetscCall(AdjOGridGetQuality(og, &q));
  PetscCall(PetscViewerASCIIPrintf(
      viewer,
      "O-grid around a %s: %" PetscInt_FMT " x %" PetscInt_FMT " nodes, far field %g m, wall "
      "spacing %g m, growth %.5f\n",
      AdjShapeTypes[og->shape.type], og->ni, og->nj, (double)og->radius, (double)q.wall_spacing, (double)og->growth));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "  quality: smallest cell angle %.2f deg, wall angle error %.3g deg, size ratios "
                                   "%.3f (around), %.3f (normal)\n",
                                   (double)q.min_angle, (double)q.wall_angle_error, (double)q.max_ratio_i,
                                   (double)q.max_ratio_j));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjOGridDestroy(AdjOGrid *og)
{
  PetscFunctionBeginUser;
  if (!*og) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDestroy(&(*og)->X));
  PetscCall(DMDestroy(&(*og)->da));
  PetscCall(PetscFree4((*og)->u, (*og)->S, (*og)->dS, (*og)->D));
  PetscCall(PetscFree((*og)->eta));
  PetscCall(PetscFree((*og)->w));
  PetscCall(AdjShapeDestroy(&(*og)->shape));
  PetscCall(PetscFree(*og));
  PetscFunctionReturn(PETSC_SUCCESS);
}
