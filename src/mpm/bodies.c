/* MPM initial condition: bodies made of boxes and disks, filled with particles on a regular
 * lattice of ppc x ppc points per cell; the union of the bodies (a lattice point belongs to the
 * first body that contains it, so overlapping bodies never double particles).
 *
 *   -mpm_body0 box:x0,y0,x1,y1[:label[:vx,vy]]     box [x0,x1) x [y0,y1) [m]
 *   -mpm_body1 disk:cx,cy,r[:label[:vx,vy]]        disk of centre (cx,cy) and radius r [m]
 *   -mpm_body2 file:path.h5[:label[:vx,vy]]         the particles of an HDF5 particle file (bodyfile.c),
 *                                                   after the lattice particles in the global order
 *
 * Bodies are numbered from 0 without gaps; label defaults to 0 and the velocity [m/s] to 0. */
#define _POSIX_C_SOURCE 200809L
#include "mpmimpl.h"
#include <adjsim/grid.h>
#include <stdio.h>
#include <string.h>

/* Parse "v0,v1,...": exactly n finite reals (also used by obstacles.c). */
PetscBool MPMParseReals(const char *s, PetscInt n, PetscReal v[])
{
  char *end;

  for (PetscInt i = 0; i < n; i++) {
    v[i] = strtod(s, &end);
    if (end == s || (!PetscIsNormalReal(v[i]) && v[i] != 0)) return PETSC_FALSE;
    s = end;
    if (i < n - 1) {
      if (*s != ',') return PETSC_FALSE;
      s++;
    }
  }
  return (PetscBool)(*s == 0);
}

/*@ MPMBodyParse - parses b->spec (option name b->option) into the body b; loads a file body. Collective. @*/
PetscErrorCode MPMBodyParse(MPM mpm, MPMBody *b)
{
  char     copy[256], *field[4] = {NULL, NULL, NULL, NULL}, *save = NULL, *tok;
  PetscInt nf = 0, ngeom;

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(copy, b->spec, sizeof(copy)));
  for (tok = strtok_r(copy, ":", &save); tok && nf < 4; tok = strtok_r(NULL, ":", &save)) field[nf++] = tok;
  PetscCheck(nf >= 2 && !tok, mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: expected shape:numbers[:label[:vx,vy]], e.g. box:0.1,0.1,0.3,0.2:0:1,0, disk:0.5,0.5,0.1 or "
             "file:particles.h5",
             b->option, b->spec);
  b->label       = 0;
  b->label_set   = (PetscBool)(nf > 2);
  b->velocity[0] = b->velocity[1] = 0;
  if (nf > 2) {
    PetscReal l;
    PetscCheck(MPMParseReals(field[2], 1, &l) && l == (PetscInt)l, mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: the label \"%s\" is not an integer", b->option, b->spec, field[2]);
    b->label = (PetscInt)l;
  }
  if (nf > 3)
    PetscCheck(MPMParseReals(field[3], MPM_DIM, b->velocity), mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: the velocity \"%s\" needs two comma-separated numbers vx,vy", b->option, b->spec, field[3]);
  PetscCheck(b->label >= 0 && b->label < mpm->nlabels, mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: label %" PetscInt_FMT
             " has no material: -mpm_E, -mpm_nu, -mpm_rho define labels 0..%" PetscInt_FMT,
             b->option, b->spec, b->label, mpm->nlabels - 1);
  if (!strcmp(field[0], "file")) {
    b->shape = MPM_SHAPE_FILE;
    PetscCall(PetscStrncpy(b->path, field[1], sizeof(b->path)));
    PetscCall(MPMBodyFileLoad(mpm, b));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!strcmp(field[0], "box"))
    b->shape = MPM_SHAPE_BOX, ngeom = 4;
  else if (!strcmp(field[0], "disk"))
    b->shape = MPM_SHAPE_DISK, ngeom = 3;
  else
    SETERRQ(mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: unknown shape \"%s\"; use box, disk or file", b->option, b->spec,
            field[0]);
  PetscCheck(MPMParseReals(field[1], ngeom, b->geom), mpm->comm, PETSC_ERR_USER_INPUT,
             "%s %s: a %s needs %" PetscInt_FMT " comma-separated numbers (%s)", b->option, b->spec, field[0], ngeom,
             ngeom == 4 ? "x0,y0,x1,y1" : "cx,cy,r");
  if (b->shape == MPM_SHAPE_BOX) {
    PetscCheck(b->geom[2] > b->geom[0] && b->geom[3] > b->geom[1], mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: the box needs x0 < x1 and y0 < y1", b->option, b->spec);
    PetscCheck(b->geom[0] >= 0 && b->geom[1] >= 0 && b->geom[2] <= mpm->grid.L[0] && b->geom[3] <= mpm->grid.L[1],
               mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: particles outside the domain: the box extends beyond [0,%g] x [0,%g] m (-mpm_domain)", b->option,
               b->spec, (double)mpm->grid.L[0], (double)mpm->grid.L[1]);
  } else {
    PetscCheck(b->geom[2] > 0, mpm->comm, PETSC_ERR_USER_INPUT, "%s %s: the radius must be positive", b->option,
               b->spec);
    PetscCheck(b->geom[0] - b->geom[2] >= 0 && b->geom[1] - b->geom[2] >= 0 &&
                   b->geom[0] + b->geom[2] <= mpm->grid.L[0] && b->geom[1] + b->geom[2] <= mpm->grid.L[1],
               mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: particles outside the domain: the disk extends beyond [0,%g] x [0,%g] m (-mpm_domain)",
               b->option, b->spec, (double)mpm->grid.L[0], (double)mpm->grid.L[1]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMSetUpBodies - reads -mpm_body0, -mpm_body1, ... (until the first missing one), -mpm_ppc,
    -mpm_permute. Collective. @*/
PetscErrorCode MPMSetUpBodies(MPM mpm)
{
  PetscFunctionBeginUser;
  mpm->ppc     = 2;
  mpm->permute = 0;
  mpm->nbodies = 0;
  PetscOptionsBegin(mpm->comm, mpm->prefix, "MPM: bodies", "MPM");
  PetscCall(PetscOptionsInt("-mpm_ppc",
                            "Particles per cell per direction (ppc^2 per cell in 2-D), regular sub-cell lattice", "",
                            mpm->ppc, &mpm->ppc, NULL));
  PetscCall(PetscOptionsInt("-mpm_permute",
                            "Number the particles in a permuted order given by this seed (0: lattice order); for "
                            "testing that results do not depend on particle order",
                            "", mpm->permute, &mpm->permute, NULL));
  for (PetscInt k = 0; k < MPM_MAX_BODIES; k++) {
    MPMBody  *b = &mpm->body[k];
    PetscBool set;

    PetscCall(PetscSNPrintf(b->option, sizeof(b->option), "-mpm_body%" PetscInt_FMT, k));
    PetscCall(PetscOptionsString(
        b->option,
        "Body k of the initial condition: box:x0,y0,x1,y1[:label[:vx,vy]], "
        "disk:cx,cy,r[:label[:vx,vy]] [m, m/s] (the union of these is filled), or "
        "file:path.h5[:label[:vx,vy]] (the particles of an HDF5 particle file; docs/output-format.md)",
        "", b->spec, b->spec, sizeof(b->spec), &set));
    if (!set) break;
    mpm->nbodies++;
  }
  PetscOptionsEnd();
  PetscCheck(mpm->ppc >= 1 && mpm->ppc <= 16, mpm->comm, PETSC_ERR_USER_INPUT,
             "-mpm_ppc %" PetscInt_FMT " must lie in 1..16", mpm->ppc);
  PetscCheck(mpm->permute >= 0, mpm->comm, PETSC_ERR_USER_INPUT, "-mpm_permute must be >= 0");
  if (mpm->nbodies == 0) {
    PetscBool help;

    /* adjsim -problem mpm -help: set up with a sample body so that every option gets listed. */
    PetscCall(PetscOptionsHasHelp(NULL, &help));
    if (help) {
      PetscCall(PetscStrncpy(mpm->body[0].spec, "box:0.3,0.3,0.5,0.5", sizeof(mpm->body[0].spec)));
      mpm->nbodies = 1;
    }
  }
  PetscCheck(mpm->nbodies > 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "No particles: give at least one body, e.g. -mpm_body0 box:0.3,0.3,0.5,0.5");
  for (PetscInt k = 0; k < mpm->nbodies; k++) PetscCall(MPMBodyParse(mpm, &mpm->body[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMBodyContains - whether the box or disk b contains x (file bodies contain no lattice point). @*/
PetscBool MPMBodyContains(const MPMBody *b, const PetscReal x[])
{
  if (b->shape == MPM_SHAPE_BOX)
    return (PetscBool)(x[0] >= b->geom[0] && x[0] < b->geom[2] && x[1] >= b->geom[1] && x[1] < b->geom[3]);
  if (b->shape == MPM_SHAPE_DISK)
    return (PetscBool)(PetscSqr(x[0] - b->geom[0]) + PetscSqr(x[1] - b->geom[1]) < PetscSqr(b->geom[2]));
  return PETSC_FALSE;
}

/* The first body containing x, or -1. */
static PetscInt MPMBodyAt(const MPM mpm, const PetscReal x[])
{
  for (PetscInt k = 0; k < mpm->nbodies; k++)
    if (MPMBodyContains(&mpm->body[k], x)) return k;
  return -1;
}

static PetscInt64 MPMGcd(PetscInt64 a, PetscInt64 b)
{
  while (b) {
    const PetscInt64 t = a % b;
    a = b, b = t;
  }
  return a;
}

/* Global slot of the g-th particle in lattice order: g itself, or (a g + c) mod N with gcd(a, N) = 1. */
static PetscInt64 MPMSlot(PetscInt64 g, PetscInt64 N, PetscInt64 a, PetscInt64 c)
{
  return a ? (a * g + c) % N : g; /* no overflow: a, g, c < N < 2^31 / MPM_NSTATE */
}

/* Visit the lattice in order (rows jy outer, columns ix inner), calling back for every point inside a body. */
typedef PetscErrorCode (*MPMLatticeVisitor)(MPM, PetscInt64, const PetscReal[], PetscInt, void *);
static PetscErrorCode MPMVisitLattice(MPM mpm, MPMLatticeVisitor visit, void *ctx)
{
  const MPMGrid *g     = &mpm->grid;
  PetscInt64     count = 0;

  PetscFunctionBeginUser;
  for (PetscInt jy = 0; jy < g->M[1] * mpm->ppc; jy++)
    for (PetscInt ix = 0; ix < g->M[0] * mpm->ppc; ix++) {
      const PetscReal x[MPM_DIM] = {(ix + 0.5) / mpm->ppc * g->h[0], (jy + 0.5) / mpm->ppc * g->h[1]};
      const PetscInt  k          = MPMBodyAt(mpm, x);

      if (k < 0) continue;
      PetscCall(visit(mpm, count++, x, k, ctx));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Counting pass: every particle's B-spline stencil must lie on the grid, and no particle inside an obstacle. */
static PetscErrorCode MPMCountVisitor(MPM mpm, PetscInt64 g, const PetscReal x[], PetscInt k, void *ctx)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < MPM_DIM; d++) {
    PetscInt  base;
    PetscReal w[MPM_STENCIL], f;

    MPMBSpline(x[d] / mpm->grid.h[d], &base, w, &f);
    PetscCheck(base >= 0 && base + 2 <= mpm->grid.M[d], mpm->comm, PETSC_ERR_USER_INPUT,
               "%s %s: particles outside the domain: the particle at (%g, %g) m is within half a cell of the domain "
               "boundary, where its B-spline stencil leaves the grid; keep bodies at least h/2 = %g m inside",
               mpm->body[k].option, mpm->body[k].spec, (double)x[0], (double)x[1], (double)(0.5 * mpm->grid.h[d]));
  }
  PetscCall(MPMCheckOutsideObstacles(mpm, x, &mpm->body[k]));
  *(PetscInt64 *)ctx = g + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscInt64        a, c;
  PetscScalar      *p; /* records of mpm->nrec reals (mpmimpl.h) */
  MPMMaterialPoint *mat;
} MPMFillCtx;

static PetscErrorCode MPMFillVisitor(MPM mpm, PetscInt64 g, const PetscReal x[], PetscInt k, void *ctx)
{
  MPMFillCtx      *fc   = (MPMFillCtx *)ctx;
  const PetscInt64 slot = MPMSlot(g, mpm->N, fc->a, fc->c) - mpm->hstart;
  const MPMBody   *b    = &mpm->body[k];
  const PetscInt   l    = b->label;

  PetscFunctionBeginUser;
  if (slot < 0 || slot >= mpm->nhome) PetscFunctionReturn(PETSC_SUCCESS);
  {
    MPMParticle      *p = MPMRecord(fc->p, mpm->nrec, slot);
    MPMMaterialPoint *m = &fc->mat[slot];

    PetscCall(PetscMemzero(p, sizeof(*p)));
    for (PetscInt a = 0; a < MPM_DIM; a++) {
      mpm->seed_x[MPM_DIM * slot + a] = x[a];
      mpm->seed_v[MPM_DIM * slot + a] = 0;
      p->x[a]                         = x[a] + b->position[a];
      p->v[a]                         = b->velocity[a];
      p->F[a][a]                      = 1.0;
    }
    m->volume          = mpm->grid.h[0] * mpm->grid.h[1] / (mpm->ppc * mpm->ppc);
    m->mass            = mpm->rho[l] * m->volume;
    m->E               = mpm->E[l];
    m->nu              = mpm->nu[l];
    m->sigma_y         = mpm->sigma_y[l];
    m->H               = mpm->H[l];
    m->yield_smoothing = mpm->yield_smoothing[l];
    m->friction_angle  = mpm->friction_angle[l];
    m->cohesion        = mpm->cohesion[l];
    m->label           = (PetscScalar)l;
    m->model           = (PetscScalar)mpm->model[l];
    mpm->body_of[slot] = k;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The particles of the file bodies, numbered after the nlattice lattice particles, body after body. */
static PetscErrorCode MPMFillFileBodies(MPM mpm, PetscInt64 nlattice, MPMFillCtx *fc)
{
  PetscInt64 g = nlattice;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < mpm->nbodies; k++) {
    const MPMBody          *b = &mpm->body[k];
    const MPMFileParticles *f = b->file;

    if (b->shape != MPM_SHAPE_FILE) continue;
    for (PetscInt q = 0; q < f->n; q++, g++) {
      const PetscInt64  slot = MPMSlot(g, mpm->N, fc->a, fc->c) - mpm->hstart;
      const PetscInt    l    = b->label_set || !f->label ? b->label : (PetscInt)f->label[q];
      MPMParticle      *p;
      MPMMaterialPoint *m;

      if (slot < 0 || slot >= mpm->nhome) continue;
      p = MPMRecord(fc->p, mpm->nrec, slot), m = &fc->mat[slot];
      PetscCall(PetscMemzero(p, sizeof(*p)));
      for (PetscInt a = 0; a < MPM_DIM; a++) {
        mpm->seed_x[MPM_DIM * slot + a] = f->x[MPM_DIM * q + a];
        mpm->seed_v[MPM_DIM * slot + a] = f->v ? f->v[MPM_DIM * q + a] : 0;
        p->x[a]                         = mpm->seed_x[MPM_DIM * slot + a] + b->position[a];
        p->v[a]                         = mpm->seed_v[MPM_DIM * slot + a] + b->velocity[a];
        for (PetscInt c = 0; c < MPM_DIM; c++) p->F[a][c] = f->F ? f->F[4 * q + MPM_DIM * a + c] : (PetscReal)(a == c);
      }
      m->volume          = f->volume[q];
      m->mass            = mpm->rho[l] * m->volume;
      m->E               = f->E ? f->E[q] : mpm->E[l];
      m->nu              = f->nu ? f->nu[q] : mpm->nu[l];
      m->sigma_y         = mpm->sigma_y[l];
      m->H               = mpm->H[l];
      m->yield_smoothing = mpm->yield_smoothing[l];
      m->friction_angle  = mpm->friction_angle[l];
      m->cohesion        = mpm->cohesion[l];
      m->friction_angle  = mpm->friction_angle[l];
      m->cohesion        = mpm->cohesion[l];
      m->label           = (PetscScalar)l;
      m->model           = (PetscScalar)mpm->model[l];
      mpm->body_of[slot] = k;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMSeedParticles - counts the particles, splits them evenly over the ranks in a fixed global
    order (their "home" layout) and fills the initial state x0 and the material vector. Every rank
    walks the whole lattice (cheap next to a time step), keeping its own home slots. Collective. @*/
PetscErrorCode MPMSeedParticles(MPM mpm)
{
  PetscInt64 N = 0, hstart = 0, nhome, nlattice;
  MPMFillCtx fc = {0, 0, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(MPMVisitLattice(mpm, MPMCountVisitor, &N));
  nlattice = N;
  for (PetscInt k = 0; k < mpm->nbodies; k++)
    if (mpm->body[k].shape == MPM_SHAPE_FILE) N += mpm->body[k].file->n;
  PetscCheck(N > 0, mpm->comm, PETSC_ERR_USER_INPUT,
             "The bodies (-mpm_body0, ...) contain no particle: make them larger than a cell");
  { /* about 1000 bytes per particle: the max RSS of forward runs with 5e3 and 8e4 particles grows by that */
    char what[160];
    PetscCall(PetscSNPrintf(what, sizeof(what),
                            "-mpm_grid %" PetscInt_FMT ",%" PetscInt_FMT " with -mpm_ppc %" PetscInt_FMT
                            " and the bodies -mpm_body0, ...",
                            mpm->grid.M[0], mpm->grid.M[1], mpm->ppc));
    PetscCall(AdjGridCheckSize(mpm->comm, what, "particle", N, mpm->nrec, 1000));
  }
  mpm->N = (PetscInt)N;
  nhome  = N / mpm->size + (mpm->rank < N % mpm->size ? 1 : 0);
  PetscCallMPI(MPI_Exscan(&nhome, &hstart, 1, MPIU_INT64, MPI_SUM, mpm->comm));
  if (!mpm->rank) hstart = 0;
  mpm->nhome  = (PetscInt)nhome;
  mpm->hstart = (PetscInt)hstart;
  if (mpm->permute) {
    fc.a = (N / 3 + 7919 * mpm->permute) % N;
    if (fc.a == 0) fc.a = 1;
    while (MPMGcd(fc.a, N) != 1) fc.a = (fc.a + 1) % N;
    if (N == 1) fc.a = 1;
    fc.c = (104729 * mpm->permute) % N;
  }
  PetscCall(PetscMalloc1(mpm->nhome + 1, &mpm->body_of));
  PetscCall(PetscMalloc1(MPM_DIM * mpm->nhome + 1, &mpm->seed_x));
  PetscCall(PetscMalloc1(MPM_DIM * mpm->nhome + 1, &mpm->seed_v));
  PetscCall(VecCreateMPI(mpm->comm, mpm->nhome * mpm->nrec, PETSC_DETERMINE, &mpm->x0));
  PetscCall(VecSetBlockSize(mpm->x0, mpm->nrec));
  PetscCall(PetscObjectSetName((PetscObject)mpm->x0, "mpm_state"));
  PetscCall(VecCreateMPI(mpm->comm, mpm->nhome * MPM_NMAT, PETSC_DETERMINE, &mpm->mat));
  PetscCall(VecSetBlockSize(mpm->mat, MPM_NMAT));
  PetscCall(VecGetArrayWrite(mpm->x0, &fc.p));
  PetscCall(VecGetArrayWrite(mpm->mat, (PetscScalar **)&fc.mat));
  PetscCall(MPMVisitLattice(mpm, MPMFillVisitor, &fc));
  PetscCall(MPMFillFileBodies(mpm, nlattice, &fc));
  PetscCall(VecRestoreArrayWrite(mpm->mat, (PetscScalar **)&fc.mat));
  PetscCall(VecRestoreArrayWrite(mpm->x0, &fc.p));
  PetscCall(MPMInitialInternalState(mpm, mpm->x0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
