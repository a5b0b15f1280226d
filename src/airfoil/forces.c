/* Wall forces of the airfoil solver: pressure and viscous stress integrated over the wall faces, the
 * coefficients C_D, C_L, C_M, the surface distributions C_p and C_f, the recirculation length of a
 * cylinder's wake, and their per-step histories in the run file. */
#include "airfoilimpl.h"
#include <adjsim/io.h>
#include <adjsim/optcheck.h>

/* Ghosted u, v, p of state x in floc[0..2]. */
static PetscErrorCode AirfoilLocalFields(Airfoil af, Vec x, PetscScalar ***q)
{
  const AirfoilCell **xa;
  PetscInt            gxs, gys, gxm, gym;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(af->sda, x, INSERT_VALUES, af->xloc));
  PetscCall(DMDAVecGetArrayRead(af->sda, af->xloc, &xa));
  PetscCall(DMDAGetGhostCorners(af->da, &gxs, &gys, NULL, &gxm, &gym, NULL));
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecGetArray(af->da, af->floc[c], &q[c]));
  for (PetscInt j = gys; j < gys + gym; j++)
    for (PetscInt i = gxs; i < gxs + gxm; i++)
      for (PetscInt c = 0; c < 3; c++) q[c][j][i] = j >= 0 && j < af->geo.nc ? (&xa[j][i].u)[c] : 0;
  PetscCall(DMDAVecRestoreArrayRead(af->sda, af->xloc, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode AirfoilLocalFieldsRestore(Airfoil af, PetscScalar ***q)
{
  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, af->floc[c], &q[c]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The force on wall face i (per unit span, density 1): dF = -p_w S + nu (grad u . S, grad v . S), S the
 * face's area vector (pointing into the fluid), p_w extrapolated to the wall; and the wall shear nu du_t/dn
 * along the direction of increasing i.  At a no-slip wall the viscous traction is nu du/dn. */
static void AirfoilWallForce(const Airfoil af, PetscInt i, PetscScalar ***q, PetscReal dF[2], PetscReal *pw,
                             PetscReal *tau)
{
  const AirfoilGeometry *g  = &af->geo;
  const AirfoilBoundary  bv = {PETSC_TRUE, af->wf};
  const PetscReal       *s = g->sj + 2 * i, *a = g->xn + 2 * i, *b = g->xn + 2 * ((i + 1) % g->ni);
  const PetscReal        len = PetscHypotReal(b[0] - a[0], b[1] - a[1]);
  AirfoilForm            F;
  PetscBool              ex;
  PetscReal              t[2];

  AirfoilFormJFace(g, &bv, i, 0, 0, &F, &ex);
  *pw = AirfoilWallValue(g, i, q[2]);
  for (PetscInt d = 0; d < 2; d++) t[d] = af->nu * AirfoilFormApply(&F, i, 0, g->ni, q[d], NULL, NULL);
  dF[0] = -*pw * s[0] + t[0], dF[1] = -*pw * s[1] + t[1];
  *tau = (t[0] * (b[0] - a[0]) + t[1] * (b[1] - a[1])) / (len * len);
}

/*@ AirfoilSurface - C_D, C_L, C_M (about the shape's reference point: the quarter chord of an airfoil, the
    centre of a circle; positive nose up) of state x, and if surf is not NULL, per wall face i the rows
    (x, y, C_p, C_f) of its midpoint, the same on every rank. Collective. @*/
static PetscErrorCode AirfoilSurface(Airfoil af, Vec x, PetscReal coef[3], PetscReal *surf)
{
  const AirfoilGeometry *g = &af->geo;
  PetscScalar          **q[3];
  PetscReal              loc[3] = {0, 0, 0}, tot[3];
  const PetscReal        U2 = af->uinf[0] * af->uinf[0] + af->uinf[1] * af->uinf[1], qd = 0.5 * U2;
  const PetscReal        e[2] = {af->uinf[0] / PetscSqrtReal(U2), af->uinf[1] / PetscSqrtReal(U2)};

  PetscFunctionBeginUser;
  if (surf) PetscCall(PetscArrayzero(surf, 4 * g->ni));
  PetscCall(AirfoilLocalFields(af, x, q));
  if (af->ys == 0)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal *a = g->xn + 2 * i, *b = g->xn + 2 * ((i + 1) % g->ni);
      const PetscReal  m[2] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])};
      PetscReal        dF[2], pw, tau;

      AirfoilWallForce(af, i, q, dF, &pw, &tau);
      loc[0] += dF[0], loc[1] += dF[1];
      loc[2] += (m[0] - af->shape.p[0]) * dF[1] - (m[1] - af->shape.p[1]) * dF[0];
      if (surf) surf[4 * i] = m[0], surf[4 * i + 1] = m[1], surf[4 * i + 2] = pw / qd, surf[4 * i + 3] = tau / qd;
    }
  PetscCall(AirfoilLocalFieldsRestore(af, q));
  PetscCallMPI(MPI_Allreduce(loc, tot, 3, MPIU_REAL, MPIU_SUM, af->comm));
  if (surf) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, surf, (PetscMPIInt)(4 * g->ni), MPIU_REAL, MPIU_SUM, af->comm));
  coef[0] = (tot[0] * e[0] + tot[1] * e[1]) / (qd * af->lref);
  coef[1] = (-tot[0] * e[1] + tot[1] * e[0]) / (qd * af->lref);
  coef[2] = -tot[2] / (qd * af->lref * af->lref); /* nose up: clockwise */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AirfoilForces(Airfoil af, Vec x, PetscReal coef[3])
{
  PetscFunctionBeginUser;
  PetscCall(AirfoilSurface(af, x, coef, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint of AirfoilWallForce for the bar dFb of dF: qb (ghosted u, v, p bars) += its share; returns the face's
 * d(dF)/dnu . dFb (the viscous traction is nu times a form). */
static PetscReal AirfoilWallForceAdjoint(const Airfoil af, PetscInt i, PetscScalar ***q, const PetscReal dFb[2],
                                         PetscScalar ***qb)
{
  const AirfoilGeometry *g  = &af->geo;
  const AirfoilBoundary  bv = {PETSC_TRUE, af->wf};
  const PetscReal       *s  = g->sj + 2 * i;
  AirfoilForm            F;
  PetscBool              ex;
  PetscReal              nub = 0;

  AirfoilFormJFace(g, &bv, i, 0, 0, &F, &ex);
  AirfoilWallValueAdjoint(g, i, -(dFb[0] * s[0] + dFb[1] * s[1]), qb[2]);
  for (PetscInt d = 0; d < 2; d++) {
    AirfoilFormApplyAdjoint(&F, i, 0, g->ni, af->nu * dFb[d], qb[d], NULL, NULL);
    nub += dFb[d] * AirfoilFormApply(&F, i, 0, g->ni, q[d], NULL, NULL);
  }
  return nub;
}

/*@ AirfoilForcesAdjoint - for the bars cb of (C_D, C_L, C_M) of state x: lambda (u, v, p) += dC/dx^T cb, *nub
    (rank-local partial sum) += dC/dnu . cb, Ub (replicated) += dC/dU_inf^T cb (through the drag direction
    e = U_inf / |U_inf| and the dynamic pressure q = |U_inf|^2 / 2).  With tot the summed force and moment,
    C_D = tot . e / (q L), C_L = e x tot / (q L), C_M = -M / (q L^2).  Collective. @*/
PetscErrorCode AirfoilForcesAdjoint(Airfoil af, Vec x, const PetscReal cb[3], Vec lambda, PetscReal *nub,
                                    PetscReal Ub[2])
{
  const AirfoilGeometry *g = &af->geo;
  PetscScalar          **q[3], **qb[3];
  PetscReal              loc[3] = {0, 0, 0}, tot[3], coef[3], tb[3], eb[2], qdb;
  const PetscReal        U2 = af->uinf[0] * af->uinf[0] + af->uinf[1] * af->uinf[1], qd = 0.5 * U2, L = af->lref;
  const PetscReal        speed = PetscSqrtReal(U2), e[2] = {af->uinf[0] / speed, af->uinf[1] / speed};

  PetscFunctionBeginUser;
  PetscCall(AirfoilLocalFields(af, x, q));
  if (af->ys == 0)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal *a = g->xn + 2 * i, *b = g->xn + 2 * ((i + 1) % g->ni);
      const PetscReal  m[2] = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])};
      PetscReal        dF[2], pw, tau;
      AirfoilWallForce(af, i, q, dF, &pw, &tau);
      loc[0] += dF[0], loc[1] += dF[1];
      loc[2] += (m[0] - af->shape.p[0]) * dF[1] - (m[1] - af->shape.p[1]) * dF[0];
    }
  PetscCallMPI(MPI_Allreduce(loc, tot, 3, MPIU_REAL, MPIU_SUM, af->comm));
  coef[0] = (tot[0] * e[0] + tot[1] * e[1]) / (qd * L);
  coef[1] = (-tot[0] * e[1] + tot[1] * e[0]) / (qd * L);
  coef[2] = -tot[2] / (qd * L * L);
  tb[0]   = (cb[0] * e[0] - cb[1] * e[1]) / (qd * L);
  tb[1]   = (cb[0] * e[1] + cb[1] * e[0]) / (qd * L);
  tb[2]   = -cb[2] / (qd * L * L);
  eb[0]   = (cb[0] * tot[0] + cb[1] * tot[1]) / (qd * L);
  eb[1]   = (cb[0] * tot[1] - cb[1] * tot[0]) / (qd * L);
  qdb     = -(cb[0] * coef[0] + cb[1] * coef[1] + cb[2] * coef[2]) / qd;
  {
    const PetscReal ee = eb[0] * e[0] + eb[1] * e[1];
    for (PetscInt d = 0; d < 2; d++) Ub[d] += qdb * af->uinf[d] + (eb[d] - ee * e[d]) / speed;
  }
  for (PetscInt c = 0; c < 3; c++) {
    PetscCall(VecSet(af->bloc[c], 0));
    PetscCall(DMDAVecGetArray(af->da, af->bloc[c], &qb[c]));
  }
  if (af->ys == 0)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscReal *a = g->xn + 2 * i, *b = g->xn + 2 * ((i + 1) % g->ni);
      const PetscReal  m[2]   = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])};
      const PetscReal  dFb[2] = {tb[0] - (m[1] - af->shape.p[1]) * tb[2], tb[1] + (m[0] - af->shape.p[0]) * tb[2]};
      *nub += AirfoilWallForceAdjoint(af, i, q, dFb, qb);
    }
  for (PetscInt c = 0; c < 3; c++) PetscCall(DMDAVecRestoreArray(af->da, af->bloc[c], &qb[c]));
  PetscCall(AirfoilLocalFieldsRestore(af, q));
  PetscCall(AirfoilLocalFieldsAdd(af, af->bloc, lambda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Geometry bars of AirfoilWallForce for the bar dFb of dF (q ghosted): dF = -p_w S + nu (F u, F v), F the wall face's
 * j-face form, so S bar -= p_w dFb, e_i bar through p_w, and F's bar nu dFb_d q_d through the form's adjoint. */
static void AirfoilWallForceGeometryAdjoint(const Airfoil af, PetscInt i, PetscScalar ***q, const PetscReal dFb[2],
                                            AirfoilGeometry *geob)
{
  const AirfoilGeometry *g  = &af->geo;
  const AirfoilBoundary  bv = {PETSC_TRUE, af->wf};
  const PetscReal       *s = g->sj + 2 * i, pw = AirfoilWallValue(g, i, q[2]);
  AirfoilForm            Fb;

  PetscMemzero(&Fb, sizeof(Fb));
  for (PetscInt d = 0; d < 2; d++) {
    geob->sj[2 * i + d] -= pw * dFb[d];
    AirfoilFormApplyFormAdjoint(i, 0, g->ni, g->nc, af->nu * dFb[d], q[d], NULL, NULL, &Fb);
  }
  AirfoilWallValueGeometryAdjoint(g, i, q[2], -(dFb[0] * s[0] + dFb[1] * s[1]), geob);
  AirfoilFormJFaceAdjoint(g, &bv, i, 0, 0, &Fb, geob, NULL);
}

/*@ AirfoilForcesGeometryAdjoint - geob += the geometry bars of (C_D, C_L, C_M) of state x for their bars cb: the wall
    forces' (AirfoilWallForceGeometryAdjoint) and the moment arms' (the wall face midpoints, from the nodes); this
    rank's share (its wall faces). The reference length and point are not shape-block entries. Collective. @*/
PetscErrorCode AirfoilForcesGeometryAdjoint(Airfoil af, Vec x, const PetscReal cb[3], AirfoilGeometry *geob)
{
  const AirfoilGeometry *g = &af->geo;
  PetscScalar          **q[3];
  const PetscReal        U2 = af->uinf[0] * af->uinf[0] + af->uinf[1] * af->uinf[1], qd = 0.5 * U2, L = af->lref;
  const PetscReal        speed = PetscSqrtReal(U2), e[2] = {af->uinf[0] / speed, af->uinf[1] / speed};
  const PetscReal        tb[3] = {(cb[0] * e[0] - cb[1] * e[1]) / (qd * L), (cb[0] * e[1] + cb[1] * e[0]) / (qd * L),
                                  -cb[2] / (qd * L * L)};

  PetscFunctionBeginUser;
  PetscCall(AirfoilLocalFields(af, x, q));
  if (af->ys == 0)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      const PetscInt   ib = (i + 1) % g->ni;
      const PetscReal *a = g->xn + 2 * i, *b = g->xn + 2 * ib;
      const PetscReal  m[2]   = {0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])};
      const PetscReal  dFb[2] = {tb[0] - (m[1] - af->shape.p[1]) * tb[2], tb[1] + (m[0] - af->shape.p[0]) * tb[2]};
      PetscReal        dF[2], pw, tau;

      AirfoilWallForce(af, i, q, dF, &pw, &tau);
      AirfoilWallForceGeometryAdjoint(af, i, q, dFb, geob);
      { /* M = sum (m - p0) x dF: m bar = tb_M (dF_y, -dF_x), m the mean of the face's two nodes */
        const PetscReal mb[2] = {tb[2] * dF[1], -tb[2] * dF[0]};
        for (PetscInt d = 0; d < 2; d++) geob->xn[2 * i + d] += 0.5 * mb[d], geob->xn[2 * ib + d] += 0.5 * mb[d];
      }
    }
  PetscCall(AirfoilLocalFieldsRestore(af, q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilRecirculation - length of the closed wake behind a body at zero incidence, in reference lengths:
    along the grid line i = 0 (it leaves the rear point u = 0 of the body; the mean of the cells on its two
    sides), the distance from the wall to the first point where u turns from negative to positive (linear
    interpolation); 0 if u is nowhere negative. Collective. @*/
PetscErrorCode AirfoilRecirculation(Airfoil af, Vec x, PetscReal *len)
{
  const AirfoilGeometry *g  = &af->geo;
  const PetscInt         nc = g->nc, ni = g->ni;
  PetscReal             *line; /* nc rows: u, distance */
  const AirfoilCell    **xa;
  const PetscReal       *w = g->xn; /* the rear wall node (0, 0) */

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(2 * nc, &line));
  PetscCall(DMDAVecGetArrayRead(af->sda, x, &xa));
  for (PetscInt j = af->ys; j < af->ys + af->ym; j++)
    for (PetscInt i = af->xs; i < af->xs + af->xm; i++) {
      if (i != 0 && i != ni - 1) continue;
      const PetscReal *c = g->xc + 2 * (j * ni + i);
      line[2 * j] += 0.5 * xa[j][i].u;
      line[2 * j + 1] += 0.5 * PetscHypotReal(c[0] - w[0], c[1] - w[1]);
    }
  PetscCall(DMDAVecRestoreArrayRead(af->sda, x, &xa));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, line, (PetscMPIInt)(2 * nc), MPIU_REAL, MPIU_SUM, af->comm));
  *len = 0;
  for (PetscInt j = 0; j + 1 < nc; j++)
    if (line[2 * j] < 0 && line[2 * j + 2] >= 0) {
      const PetscReal u0 = line[2 * j], u1 = line[2 * j + 2], d0 = line[2 * j + 1], d1 = line[2 * j + 3];
      *len = (d0 - u0 * (d1 - d0) / (u1 - u0)) / af->lref;
      break;
    }
  PetscCall(PetscFree(line));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define AIRFOIL_HISTORY_ROWS 256

/* The node coordinates of the grid to the run file (once), closing the O by repeating node column 0, so that
 * the XDMF file describes the curvilinear mesh (ParaView then shows the fields on the real geometry). */
static PetscErrorCode AirfoilWriteGrid(Airfoil af, AdjOutput out)
{
  const AirfoilGeometry *g = &af->geo;
  const PetscInt         n = (g->ni + 1) * (g->nc + 1);
  PetscReal             *x, *y;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &x, n, &y));
  for (PetscInt j = 0; j <= g->nc; j++)
    for (PetscInt i = 0; i <= g->ni; i++) {
      const PetscReal *p     = g->xn + 2 * (j * g->ni + i % g->ni);
      x[j * (g->ni + 1) + i] = p[0], y[j * (g->ni + 1) + i] = p[1];
    }
  PetscCall(AdjOutputWriteCurvilinearGrid(out, x, y));
  PetscCall(PetscFree2(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilMonitor - after every step: C_D, C_L, C_M into /history/forces (rows step, time, C_D, C_L, C_M; with
    -steady_tol at every step, since the step a run stops at is not known here). Remembers the run file (af->run) for
    AirfoilOutputSurface. Collective. @*/
PetscErrorCode AirfoilMonitor(void *ctx, AdjOutput out, AdjStepIndex k, Vec x)
{
  Airfoil   af = (Airfoil)ctx;
  PetscBool write;

  PetscFunctionBeginUser;
  af->run = out;
  if (!af->grid_written) PetscCall(AirfoilWriteGrid(af, out));
  af->grid_written = PETSC_TRUE;
  PetscCall(AdjOutputIsOutputStep(out, k, af->nsteps, &write));
  PetscCall(AirfoilSurface(af, x, af->coef, NULL));
  af->kforce = k;
  if (!af->hist) PetscCall(PetscMalloc1(5 * AIRFOIL_HISTORY_ROWS, &af->hist));
  af->hist[5 * af->nhist + 0] = (PetscReal)k, af->hist[5 * af->nhist + 1] = k * af->dt;
  for (PetscInt c = 0; c < 3; c++) af->hist[5 * af->nhist + 2 + c] = af->coef[c];
  af->nhist++;
  if (write || af->steady || k == af->nsteps || af->nhist == AIRFOIL_HISTORY_ROWS) {
    PetscCall(
        AdjOutputAppendHistory(out, "forces", "step [1], time [s], C_D [1], C_L [1], C_M [1]", 5, af->nhist, af->hist));
    af->nhist = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilOutputSurface - at each step whose fields are written (called by the field output, right after the
    monitor of the same step k = af->kforce, so also at the step a steady run stops at): /history/surface (per
    wall face: step, x, y, C_p, C_f), for a cylinder /history/wake (step, time, recirculation length in
    diameters), and one line on stdout. Collective. @*/
PetscErrorCode AirfoilOutputSurface(Airfoil af, Vec x)
{
  const PetscInt  ni = af->geo.ni;
  PetscReal      *surf, *rows, coef[3], lr = 0;
  const PetscReal k = (PetscReal)af->kforce;

  PetscFunctionBeginUser;
  if (!af->run) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(4 * ni, &surf, 5 * ni, &rows));
  PetscCall(AirfoilSurface(af, x, coef, surf));
  for (PetscInt i = 0; i < ni; i++) {
    rows[5 * i] = k;
    for (PetscInt c = 0; c < 4; c++) rows[5 * i + 1 + c] = surf[4 * i + c];
  }
  PetscCall(AdjOutputAppendHistory(af->run, "surface", "step [1], x [m], y [m], C_p [1], C_f [1]", 5, ni, rows));
  if (af->body == AIRFOIL_BODY_CIRCLE) {
    PetscReal row[3] = {k, k * af->dt, 0};
    PetscCall(AirfoilRecirculation(af, x, &lr));
    row[2] = lr;
    PetscCall(AdjOutputAppendHistory(af->run, "wake", "step [1], time [s], recirculation length [reference lengths]", 3,
                                     1, row));
  }
  if (!af->quiet)
    PetscCall(PetscPrintf(af->comm,
                          "airfoil step %" PetscInt64_FMT " t %g: C_D %.6f C_L %.6f C_M %.6f (solver iterations so "
                          "far: velocity %" PetscInt_FMT ", pressure %" PetscInt_FMT ")\n",
                          (PetscInt64)af->kforce, (double)(k * af->dt), (double)coef[0], (double)coef[1],
                          (double)coef[2], af->its_v, af->its_p));
  if (af->body == AIRFOIL_BODY_CIRCLE && !af->quiet)
    PetscCall(PetscPrintf(af->comm, "airfoil step %" PetscInt64_FMT ": recirculation length %.4f D\n",
                          (PetscInt64)af->kforce, (double)lr));
  PetscCall(PetscFree2(surf, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------
 * The objective: J = (1/N) sum over the steps k of the window of w_D C_D + w_L C_L + w_M C_M (x_k), the window the
 * steps with time in [t0, t1] (-airfoil_objective_window), or the final step alone (N = 1).  A steady run
 * (-steady_tol) has no known final step: give a window ending before the final time, or use -adjoint_steady.
 * --------------------------------------------------------------------------------------------------------- */

/*@ AirfoilObjectiveSetUp - -airfoil_objective_drag, _lift, _moment and _window. Collective. @*/
PetscErrorCode AirfoilObjectiveSetUp(Airfoil af)
{
  PetscInt        n   = 2;
  PetscBool       set = PETSC_FALSE;
  const PetscReal eps = 1e-9 * af->nsteps * af->dt;

  PetscFunctionBeginUser;
  PetscOptionsBegin(af->comm, af->prefix, "Airfoil: objective", "Airfoil");
  PetscCall(PetscOptionsReal("-airfoil_objective_drag", "Weight of the drag coefficient C_D in the objective", "",
                             af->w_coef[0], &af->w_coef[0], NULL));
  PetscCall(PetscOptionsReal("-airfoil_objective_lift", "Weight of the lift coefficient C_L in the objective", "",
                             af->w_coef[1], &af->w_coef[1], NULL));
  PetscCall(PetscOptionsReal("-airfoil_objective_moment",
                             "Weight of the moment coefficient C_M (quarter chord, nose up) in the objective", "",
                             af->w_coef[2], &af->w_coef[2], NULL));
  PetscCall(PetscOptionsRealArray("-airfoil_objective_window",
                                  "t0,t1 [s]: average the objective over the steps with time in [t0, t1] (default: the "
                                  "final step alone)",
                                  "", af->window, &n, &set));
  PetscOptionsEnd();
  for (PetscInt c = 0; c < 3; c++) {
    const char *const names[] = {"-airfoil_objective_drag", "-airfoil_objective_lift", "-airfoil_objective_moment"};
    PetscCall(AdjCheckRealOption(af->comm, names[c], af->w_coef[c], ADJ_REAL_FINITE, NULL));
  }
  PetscCheck(!set || n == 2, af->comm, PETSC_ERR_USER_INPUT, "-airfoil_objective_window needs two times t0,t1");
  if (!set)
    af->kfirst = af->klast = af->nsteps;
  else {
    PetscCall(AdjCheckRealOptionArray(af->comm, "-airfoil_objective_window", n, af->window, ADJ_REAL_FINITE, "s"));
    PetscCheck(af->window[0] <= af->window[1], af->comm, PETSC_ERR_USER_INPUT,
               "-airfoil_objective_window %g,%g: the start must not exceed the end", (double)af->window[0],
               (double)af->window[1]);
    af->kfirst = PetscMax(1, (AdjStepIndex)PetscCeilReal((af->window[0] - eps) / af->dt));
    af->klast  = PetscMin(af->nsteps, (AdjStepIndex)PetscFloorReal((af->window[1] + eps) / af->dt));
    PetscCheck(af->kfirst <= af->klast, af->comm, PETSC_ERR_USER_INPUT,
               "-airfoil_objective_window %g,%g s holds no time step of this run (dt %g s, final time %g s)",
               (double)af->window[0], (double)af->window[1], (double)af->dt, (double)(af->nsteps * af->dt));
  }
  af->nwindow = (PetscInt)(af->klast - af->kfirst + 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool AirfoilHasForceTerms(Airfoil af, AdjStepIndex k)
{
  return (PetscBool)((af->w_coef[0] != 0 || af->w_coef[1] != 0 || af->w_coef[2] != 0) && k >= af->kfirst &&
                     k <= af->klast);
}

/*@ AirfoilObjective - J_k(x_k), the same on every rank. Collective. @*/
PetscErrorCode AirfoilObjective(void *ctx, AdjStepIndex k, Vec x, PetscReal *J)
{
  Airfoil   af = (Airfoil)ctx;
  PetscReal c[3];

  PetscFunctionBeginUser;
  *J = 0;
  if (!AirfoilHasForceTerms(af, k)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(AirfoilSurface(af, x, c, NULL));
  for (PetscInt t = 0; t < 3; t++) *J += af->w_coef[t] * c[t] / af->nwindow;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilObjectiveAdjoint - lambda += dJ_k/dx_k; the nu and U_inf bars += dJ_k/dnu, dJ_k/dU_inf. Collective. @*/
PetscErrorCode AirfoilObjectiveAdjoint(void *ctx, AdjStepIndex k, Vec x, Vec lambda)
{
  Airfoil   af = (Airfoil)ctx;
  PetscReal cb[3];

  PetscFunctionBeginUser;
  if (!AirfoilHasForceTerms(af, k)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt t = 0; t < 3; t++) cb[t] = af->w_coef[t] / af->nwindow;
  PetscCall(AirfoilForcesAdjoint(af, x, cb, lambda, &af->nub, af->uinfb));
  if (af->shapebars) PetscCall(AirfoilForcesGeometryAdjoint(af, x, cb, &af->geob));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AirfoilHasObjective(void *ctx, PetscBool *has)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  *has = (PetscBool)(af->w_coef[0] != 0 || af->w_coef[1] != 0 || af->w_coef[2] != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilObjectiveFinalStep - the force terms over a window reaching the last step are tied to it. @*/
PetscErrorCode AirfoilObjectiveFinalStep(void *ctx, const char **term)
{
  Airfoil   af = (Airfoil)ctx;
  PetscBool has;

  PetscFunctionBeginUser;
  PetscCall(AirfoilHasObjective(ctx, &has));
  *term = has && af->klast == af->nsteps
              ? "the force objective, averaged over a window that ends at the last step (-airfoil_objective_window "
                "t0,t1 with t1 >= the final time, or no window: the final step alone)"
              : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilSetSteady - the steady objective: the step is time-invariant (AB2 at a fixed point: 3/2 N - 1/2 N = N),
    so the window's average is the term of its last step with weight 1 (idempotent). No block only sets the
    initial state (alpha sets both it and the free stream). Not collective. @*/
PetscErrorCode AirfoilSetSteady(void *ctx, AdjSteadyInfo *info)
{
  Airfoil af = (Airfoil)ctx;

  PetscFunctionBeginUser;
  af->kfirst       = af->klast;
  af->nwindow      = 1;
  info->k          = af->klast;
  info->objective  = NULL;
  info->nosteady   = NULL;
  info->initial[0] = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AirfoilSelectObjective - "drag" C_D, "lift" C_L, "moment" C_M over the objective's window alone; NULL restores
    the configured weights. Not collective. @*/
PetscErrorCode AirfoilSelectObjective(void *ctx, const char name[], PetscBool *known)
{
  Airfoil                  af       = (Airfoil)ctx;
  static const char *const names[3] = {"drag", "lift", "moment"};
  PetscInt                 term     = -1;

  PetscFunctionBeginUser;
  *known = PETSC_FALSE;
  if (!name) {
    if (af->selected)
      for (PetscInt t = 0; t < 3; t++) af->w_coef[t] = af->configured[t];
    af->selected = PETSC_FALSE, *known = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt t = 0; t < 3; t++) {
    PetscBool same;
    PetscCall(PetscStrcmp(name, names[t], &same));
    if (same) term = t;
  }
  if (term < 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (!af->selected)
    for (PetscInt t = 0; t < 3; t++) af->configured[t] = af->w_coef[t];
  for (PetscInt t = 0; t < 3; t++) af->w_coef[t] = t == term ? 1.0 : 0.0;
  af->selected = PETSC_TRUE, *known = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
