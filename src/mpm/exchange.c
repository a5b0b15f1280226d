/* MPM particle distribution.
 *
 * The state Vec holds every particle at a fixed "home" slot: global particle order, split evenly
 * over the ranks.  A particle is computed by its "owner", the rank owning its nearest grid node (so
 * its 3x3 B-spline stencil lies within the owner's ghosted node box of width 1).  Every step finds the
 * owners from the positions at the start of the step and, when a particle has changed owner since the
 * last one (on any rank), builds a new PetscSF: leaves are the home slots, roots the owner's slots.  Home -> owner is
 * PetscSFReduce (MPI_REPLACE, each root has exactly one leaf), owner -> home is PetscSFBcast.  Owners store their
 * particles in increasing global order (sources in rank order, each source's home slots in order), so the work arrays
 * do not depend on the path of a particle. The adjoint runs the same SF the other way: particle adjoints go back
 * exactly as particles came (the owner assignment is piecewise constant in the positions, so it has no derivative).
 * A particle travels as its whole record of the state Vec (MPMParticle + nz internal-state reals): with nz > 0 the
 * owners receive and send the records through the staging array rec, split into (pin, zin) and joined from
 * (pout, zout); with nz = 0 a record is an MPMParticle and pin, pout are the SF's buffers themselves.
 *
 * Deciding without communication.  The SF needs a rebuild exactly when the owners of the state x differ, on some
 * rank, from those of the state it was built for.  Learning that takes a global reduction, which on a small problem
 * costs more than the step itself (and more still on a shared machine, where every synchronization waits for the
 * last rank to be scheduled), while most steps move no particle across ranks.  The answer is usually known already:
 *  - forward: MPMCheckState (mpm.c) checks x_k right after step k and folds into its own reduction whether some
 *    particle of x_k has another owner than in x_{k-1}, the SF's state (MPMExchangeOwnersMoved,
 *    MPMExchangeRecordOwners): owners_known[k];
 *  - reverse: the states are those of the forward sweep, bit for bit (restored, or recomputed with the same
 *    parameters), so its records still hold: from the SF of state s to state t no rebuild is needed when every
 *    record between them says SAME, and a rebuild without asking when the one step between them says CHANGED.
 * A set-up without a usable record decides by one reduction (the owner test and the lost-particle test together)
 * and records its answer.  The records describe the states of one set of parameters and one initial state:
 * MPMExchangeForget drops them when the parameters change or a restart state is read or written.  Every input of
 * the decision (step indices, records written after reductions, the options) is the same on every rank, so all
 * ranks take the same branch.  The home rank still computes the owners of its particles at every set-up (a local
 * loop): a record that contradicts them means a caller broke the contract (a state that is not the one of its
 * step index), and the run stops.  The exchanges themselves are unchanged: the SF, hence every result, is a function
 * of the owners alone, whichever way the decision was taken. */
#include "mpmimpl.h"
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet: has the material Vec changed? */

/* Owner rank of a particle at x: the rank owning node base + 1 in every direction.  Returns -1 when
 * the stencil leaves the grid or x is not finite. */
static PetscMPIInt MPMOwnerOf(const MPM mpm, const PetscScalar x[])
{
  PetscInt r[MPM_DIM];

  for (PetscInt d = 0; d < MPM_DIM; d++) {
    PetscInt  base;
    PetscReal w[MPM_STENCIL], f, t = x[d] / mpm->grid.h[d];

    if (PetscIsInfOrNanReal(t) || t < 0 || t > mpm->grid.M[d]) return -1;
    MPMBSpline(t, &base, w, &f);
    if (base < 0 || base + 2 > mpm->grid.M[d]) return -1;
    r[d] = mpm->node_rank[d][base + 1];
  }
  return (PetscMPIInt)(r[0] + mpm->nproc[0] * r[1]);
}

/* The state of particle slot i (home-local) for an error message; the first bad particle by global
 * index wins, and its data reaches every rank. */
static PetscErrorCode MPMReportLost(MPM mpm, AdjStepIndex k, PetscInt64 lost, const PetscScalar *home)
{
  PetscInt64  first;
  PetscReal   xy[MPM_DIM] = {0, 0};
  PetscMPIInt root;
  PetscInt64  mine = lost >= 0 ? lost : PETSC_MAX_INT;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPIU_INT64, MPI_MIN, mpm->comm));
  if (first == PETSC_MAX_INT) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const PetscMPIInt holder = (PetscMPIInt)(first == mine ? mpm->rank : mpm->size);
    PetscCallMPI(MPI_Allreduce(&holder, &root, 1, MPI_INT, MPI_MIN, mpm->comm));
  }
  if (mpm->rank == root)
    for (PetscInt d = 0; d < MPM_DIM; d++) xy[d] = MPMRecordRead(home, mpm->nrec, first - mpm->hstart)->x[d];
  PetscCallMPI(MPI_Bcast(xy, MPM_DIM, MPIU_REAL, root, mpm->comm));
  SETERRQ(mpm->comm, PETSC_ERR_USER_INPUT,
          "Particle %" PetscInt64_FMT " left the domain at step %" PetscInt64_FMT
          ": it is at (%g, %g) m, where its B-spline stencil needs nodes outside the grid [0,%g] x [0,%g] m; add "
          "walls (-mpm_wall_<side> sticky or slip) or enlarge -mpm_domain",
          first, (PetscInt64)k, (double)xy[0], (double)xy[1], (double)mpm->grid.L[0], (double)mpm->grid.L[1]);
}

static PetscErrorCode MPMEnsureCapacity(MPM mpm, PetscInt n)
{
  PetscFunctionBeginUser;
  if (mpm->capacity_adj && mpm->capacity_adj < n) { /* the adjoint arrays follow the forward ones */
    PetscCall(PetscFree3(mpm->pinb, mpm->poutb, mpm->pmatb));
    PetscCall(PetscFree2(mpm->zinb, mpm->zoutb));
    mpm->capacity_adj = 0;
  }
  if (n <= mpm->capacity) PetscFunctionReturn(PETSC_SUCCESS);
  mpm->capacity = PetscMax(n, (PetscInt)(1.25 * mpm->capacity) + 16);
  PetscCall(PetscFree3(mpm->pin, mpm->pout, mpm->pmat));
  PetscCall(PetscMalloc3(mpm->capacity, &mpm->pin, mpm->capacity, &mpm->pout, mpm->capacity, &mpm->pmat));
  if (mpm->nz) {
    PetscCall(PetscFree3(mpm->zin, mpm->zout, mpm->rec));
    PetscCall(PetscMalloc3(mpm->capacity * mpm->nz, &mpm->zin, mpm->capacity * mpm->nz, &mpm->zout,
                           mpm->capacity * mpm->nrec, &mpm->rec));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owner-side records <-> (particles, internal states): rec[q] = (p[q], z[q]) and back (nz > 0 only). */
static PetscErrorCode MPMRecordsJoin(MPM mpm, const MPMParticle p[], const PetscScalar z[], PetscScalar rec[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < mpm->nowned; q++) {
    PetscCall(PetscArraycpy(MPMRecord(rec, mpm->nrec, q), &p[q], 1));
    PetscCall(PetscArraycpy(MPMRecordState(rec, mpm->nrec, q), z + (size_t)q * mpm->nz, mpm->nz));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode MPMRecordsSplit(MPM mpm, const PetscScalar rec[], MPMParticle p[], PetscScalar z[])
{
  PetscFunctionBeginUser;
  for (PetscInt q = 0; q < mpm->nowned; q++) {
    PetscCall(PetscArraycpy(&p[q], MPMRecordRead(rec, mpm->nrec, q), 1));
    PetscCall(PetscArraycpy(z + (size_t)q * mpm->nz, MPMRecordStateRead(rec, mpm->nrec, q), mpm->nz));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new home -> owner SF for the owners dest[] of this rank's home particles (sendcount[r]: how many
 * go to rank r); mpm->owner remembers them. Collective. */
static PetscErrorCode MPMExchangeBuildSF(MPM mpm, AdjStepIndex k, const PetscMPIInt dest[], const PetscInt sendcount[])
{
  PetscInt    *recvcount, *recvdispl, *offset, *next;
  PetscSFNode *remote;

  PetscFunctionBeginUser;
  PetscCall(PetscSFDestroy(&mpm->sf));
  mpm->out_state = -1; /* the owners' arrays are laid out anew */
  PetscCall(PetscArraycpy(mpm->owner, dest, mpm->nhome));
  PetscCall(PetscCalloc4(mpm->size, &recvcount, mpm->size, &recvdispl, mpm->size, &offset, mpm->size, &next));
  PetscCallMPI(MPI_Alltoall(sendcount, 1, MPIU_INT, recvcount, 1, MPIU_INT, mpm->comm));
  mpm->nowned = 0;
  for (PetscMPIInt r = 0; r < mpm->size; r++) {
    recvdispl[r] = mpm->nowned;
    mpm->nowned += recvcount[r];
  }
  /* Each source learns where its block starts at each owner. */
  PetscCallMPI(MPI_Alltoall(recvdispl, 1, MPIU_INT, offset, 1, MPIU_INT, mpm->comm));
  PetscCall(PetscMalloc1(mpm->nhome, &remote));
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    remote[i].rank  = dest[i];
    remote[i].index = offset[dest[i]] + next[dest[i]]++;
  }
  PetscCall(PetscInfo(NULL,
                      "mpm exchange before step %" PetscInt64_FMT ": %" PetscInt_FMT " of %" PetscInt_FMT
                      " home particles of rank %d are computed on other ranks\n",
                      (PetscInt64)k, mpm->nhome - sendcount[mpm->rank], mpm->nhome, (int)mpm->rank));
  PetscCall(PetscSFCreate(mpm->comm, &mpm->sf));
  PetscCall(PetscSFSetGraph(mpm->sf, mpm->nowned, mpm->nhome, NULL, PETSC_COPY_VALUES, remote, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(mpm->sf));
  PetscCall(PetscFree4(recvcount, recvdispl, offset, next));
  PetscCall(MPMEnsureCapacity(mpm, mpm->nowned));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owners dest[] of this rank's home particles in x (home layout), how many go to each rank, the first lost
 * particle (global index; -1: none) and whether some owner differs from those of the SF (PETSC_TRUE without an SF).
 * Not collective. */
static PetscErrorCode MPMExchangeOwners(MPM mpm, const PetscScalar *home, PetscMPIInt dest[], PetscInt sendcount[],
                                        PetscInt64 *lost, PetscBool *moved)
{
  PetscFunctionBeginUser;
  *lost  = -1;
  *moved = (PetscBool)!mpm->sf;
  for (PetscInt i = 0; i < mpm->nhome; i++) {
    dest[i] = MPMOwnerOf(mpm, MPMRecordRead(home, mpm->nrec, i)->x);
    if (dest[i] < 0) {
      if (*lost < 0) *lost = mpm->hstart + i;
      dest[i] = mpm->rank;
    }
    sendcount[dest[i]]++;
    *moved = (PetscBool)(*moved || dest[i] != mpm->owner[i]); /* mpm->owner is read only once an SF exists */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The owner records, allocated on first use for the steps 1..nsteps (none with -mpm_exchange_reduce_always). */
static PetscErrorCode MPMOwnersRecordsSetUp(MPM mpm)
{
  PetscFunctionBeginUser;
  if (mpm->owners_known || mpm->exchange_reduce_always || mpm->nsteps < 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscCalloc1(mpm->nsteps + 1, &mpm->owners_known));
  mpm->owners_known_n = mpm->nsteps + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The record of state s in owners_known (NULL: none kept for s). */
static char *MPMOwnersRecord(MPM mpm, AdjStepIndex s)
{
  return mpm->owners_known && s >= 1 && s < mpm->owners_known_n ? &mpm->owners_known[s] : NULL;
}

/* The longest run of records read to decide one set-up. */
#define MPM_OWNERS_MAX_SCAN 1024

/* What the records say of the owners of state t against those of the SF's state: MPM_OWNERS_SAME (every step
 * between them SAME), MPM_OWNERS_CHANGED (one step between them, CHANGED) or MPM_OWNERS_UNKNOWN.  Not collective;
 * the same answer on every rank. */
static int MPMOwnersAgainstSF(MPM mpm, AdjStepIndex t)
{
  const AdjStepIndex s = mpm->sf_state;

  if (!mpm->sf || s < 0 || mpm->exchange_reduce_always) return MPM_OWNERS_UNKNOWN;
  if (s == t) return MPM_OWNERS_SAME;
  if (PetscAbs(s - t) > MPM_OWNERS_MAX_SCAN)
    return MPM_OWNERS_UNKNOWN; /* e.g. a revolve restore far back: one
                                reduction costs less than a long scan */
  for (AdjStepIndex j = PetscMin(s, t) + 1; j <= PetscMax(s, t); j++) {
    const char *r = MPMOwnersRecord(mpm, j);

    if (!r || *r == MPM_OWNERS_UNKNOWN) return MPM_OWNERS_UNKNOWN;
    if (*r == MPM_OWNERS_CHANGED) return PetscAbs(s - t) == 1 ? MPM_OWNERS_CHANGED : MPM_OWNERS_UNKNOWN;
  }
  return MPM_OWNERS_SAME;
}

/* Records, after a reduction that compared the owners of state t with those of the SF's state, the answer
 * (moved: some particle changed owner) when the two states are consecutive steps. */
static void MPMOwnersRecordPair(MPM mpm, AdjStepIndex t, PetscBool moved)
{
  const AdjStepIndex s = mpm->sf_state;
  char              *r = NULL;

  if (!mpm->sf || s < 0) return;
  if (t == s + 1) r = MPMOwnersRecord(mpm, t);
  if (t == s - 1) r = MPMOwnersRecord(mpm, s);
  if (r) *r = (char)(moved ? MPM_OWNERS_CHANGED : MPM_OWNERS_SAME);
}

/*@ MPMExchangeSetUp - the home -> owner SF for the positions in x (home layout), the state of step index s, before
    step k (used in messages): the SF of the last set-up unless some particle (on any rank) changed owner since.
    Decided from the owner records when they tell (no communication), else by one reduction (see the top of this
    file).  A particle whose stencil leaves the grid stops the run, naming it. Collective. @*/
PetscErrorCode MPMExchangeSetUp(MPM mpm, AdjStepIndex k, AdjStepIndex s, Vec x)
{
  const PetscScalar *home;
  PetscMPIInt       *dest;
  PetscInt          *sendcount;
  PetscInt64         lost;
  PetscBool          moved;
  int                known;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  PetscCall(MPMOwnersRecordsSetUp(mpm));
  known = MPMOwnersAgainstSF(mpm, s);
  mpm->exchange_count[MPM_EXCHANGE_SETUPS]++;
  PetscCall(VecGetArrayRead(x, &home));
  if (!mpm->owner) PetscCall(PetscMalloc1(mpm->nhome, &mpm->owner));
  PetscCall(PetscMalloc1(mpm->nhome, &dest));
  PetscCall(PetscCalloc1(mpm->size, &sendcount));
  PetscCall(MPMExchangeOwners(mpm, home, dest, sendcount, &lost, &moved));
  if (known != MPM_OWNERS_UNKNOWN) {
    /* the records were written from this very state (same step index, same parameters): they cannot disagree with
       its owners, nor can it hold a lost particle, unless a caller broke the contract; no rank may then go on alone */
    PetscCheckAbort(lost < 0 && (known == MPM_OWNERS_CHANGED || !moved), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                    "MPM exchange before step %" PetscInt64_FMT " on rank %d: the state of step %" PetscInt64_FMT
                    " is not the one whose particle owners were recorded (%s); a caller changed it without a new step",
                    (PetscInt64)k, (int)mpm->rank, (PetscInt64)s,
                    lost >= 0 ? "a particle is outside the grid" : "a particle changed owner");
    mpm->exchange_count[MPM_EXCHANGE_LOCAL]++;
    moved = (PetscBool)(known == MPM_OWNERS_CHANGED);
  } else {
    /* one reduction for both questions: the first lost particle (MIN of its index) and whether any moved (MIN of
       0 for moved, 1 for not) */
    PetscInt64 both[2] = {lost >= 0 ? lost : PETSC_MAX_INT, moved ? 0 : 1};

    mpm->exchange_count[MPM_EXCHANGE_REDUCED]++;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, both, 2, MPIU_INT64, MPI_MIN, mpm->comm));
    if (both[0] != PETSC_MAX_INT) PetscCall(MPMReportLost(mpm, k, lost, home));
    moved = (PetscBool)(both[1] == 0);
    MPMOwnersRecordPair(mpm, s, moved);
  }
  PetscCall(VecRestoreArrayRead(x, &home));
  if (moved) {
    PetscCall(MPMExchangeBuildSF(mpm, k, dest, sendcount));
    mpm->exchange_count[MPM_EXCHANGE_REBUILT]++;
  }
  mpm->sf_state = s;
  PetscCall(PetscFree(dest));
  PetscCall(PetscFree(sendcount));
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeOwnersMoved - whether some home particle of this rank in the state home (home layout, step index s)
    has another owner than in the SF, when the SF belongs to state s - 1 (else PETSC_FALSE): the local part of the
    owner record of state s, which MPMCheckState folds into its reduction. Not collective. @*/
PetscErrorCode MPMExchangeOwnersMoved(MPM mpm, AdjStepIndex s, const PetscScalar *home, PetscBool *moved)
{
  PetscFunctionBeginUser;
  *moved = PETSC_FALSE;
  if (!mpm->sf || mpm->sf_state != s - 1 || !MPMOwnersRecord(mpm, s)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < mpm->nhome && !*moved; i++)
    *moved = (PetscBool)(MPMOwnerOf(mpm, MPMRecordRead(home, mpm->nrec, i)->x) != mpm->owner[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeRecordOwners - records the owner test of state s (the Vec x, which MPMCheckState passed) reduced
    over all ranks (moved: some particle of s has another owner than in state s - 1), when the SF belongs to state
    s - 1 (as for MPMExchangeOwnersMoved).  When x is the very Vec that step s sent its particles to, unchanged since
    (PETSc object state), the owners' pout is marked as the checked state s (MPMExchangeToOwnersStep); a state
    changed between the step and the check (e.g. by a coupling) is not. Not collective (its inputs are). @*/
PetscErrorCode MPMExchangeRecordOwners(MPM mpm, AdjStepIndex s, Vec x, PetscBool moved)
{
  PetscObjectState state;

  PetscFunctionBeginUser;
  if (mpm->sf && mpm->sf_state == s - 1) MPMOwnersRecordPair(mpm, s, moved);
  PetscCall(PetscObjectStateGet((PetscObject)x, &state));
  if (mpm->out_state == s && mpm->out_vec == x && mpm->out_vec_state == state) mpm->out_checked = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeForget - drops the owner records and what is known of the SF's state (the SF itself is kept): the
    states of the steps are about to change (new parameters, a restart state). Not collective, but called alike
    on every rank. @*/
PetscErrorCode MPMExchangeForget(MPM mpm)
{
  PetscFunctionBeginUser;
  mpm->sf_state  = -1;
  mpm->out_state = -1;
  mpm->out_vec   = NULL;
  if (mpm->owners_known) PetscCall(PetscArrayzero(mpm->owners_known, mpm->owners_known_n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeView - the exchange's set-up counts (how each rebuild decision was taken) as PetscInfo. Not
    collective. @*/
PetscErrorCode MPMExchangeView(MPM mpm)
{
  const PetscInt64 *c = mpm->exchange_count;

  PetscFunctionBeginUser;
  PetscCall(PetscInfo(NULL,
                      "mpm exchange on rank %d: %" PetscInt64_FMT " set-ups, %" PetscInt64_FMT
                      " decided without communication, %" PetscInt64_FMT " by a reduction, %" PetscInt64_FMT
                      " SF rebuilds; %" PetscInt64_FMT " steps without home -> owner transfer\n",
                      (int)mpm->rank, c[MPM_EXCHANGE_SETUPS], c[MPM_EXCHANGE_LOCAL], c[MPM_EXCHANGE_REDUCED],
                      c[MPM_EXCHANGE_REBUILT], c[MPM_EXCHANGE_KEPT]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeToOwners - particles of x (home layout) and their materials into the owners' work
    arrays pin (and zin) and pmat. Collective. @*/
PetscErrorCode MPMExchangeToOwners(MPM mpm, Vec x)
{
  const PetscScalar *home, *mat;
  void              *recs = mpm->nz ? (void *)mpm->rec : (void *)mpm->pin;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(x, &home));
  PetscCall(VecGetArrayRead(mpm->mat, &mat));
  PetscCall(PetscSFReduceBegin(mpm->sf, mpm->state_type, home, recs, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(mpm->sf, mpm->mat_type, mat, mpm->pmat, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(mpm->sf, mpm->state_type, home, recs, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(mpm->sf, mpm->mat_type, mat, mpm->pmat, MPI_REPLACE));
  PetscCall(VecRestoreArrayRead(mpm->mat, &mat));
  PetscCall(VecRestoreArrayRead(x, &home));
  if (mpm->nz) PetscCall(MPMRecordsSplit(mpm, mpm->rec, mpm->pin, mpm->zin));
  mpm->mat_sent = mpm->mat;
  PetscCall(PetscObjectStateGet((PetscObject)mpm->mat, &mpm->mat_sent_state));
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeToOwnersStep - MPMExchangeToOwners for the state x of step index s at the start of a step, after
    MPMExchangeSetUp(s): when the owners' arrays pout (zout) already hold that state, as the step s computed it and
    sent it home unchanged (MPMExchangeSentHome, checked by MPMCheckState, with the same SF and materials since), they
    are copied to pin (zin) and nothing travels: home -> owner would move those very bytes back, so the results are
    the same bit for bit.  The step index identifies the state as for the owner records (top of this file).
    Collective. @*/
PetscErrorCode MPMExchangeToOwnersStep(MPM mpm, AdjStepIndex s, Vec x)
{
  PetscObjectState mat_state;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectStateGet((PetscObject)mpm->mat, &mat_state));
  if (mpm->exchange_reduce_always || mpm->out_state != s || !mpm->out_checked || mpm->sf_state != s ||
      mpm->mat_sent != mpm->mat || mpm->mat_sent_state != mat_state) {
    PetscCall(MPMExchangeToOwners(mpm, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  PetscCall(PetscArraycpy(mpm->pin, mpm->pout, mpm->nowned));
  if (mpm->nz) PetscCall(PetscArraycpy(mpm->zin, mpm->zout, mpm->nowned * mpm->nz));
  mpm->exchange_count[MPM_EXCHANGE_KEPT]++;
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeSentHome - the owners' pout (zout), just sent home by MPMExchangeToHome, are the state of step k
    (MPMStep). Not collective. @*/
PetscErrorCode MPMExchangeSentHome(MPM mpm, AdjStepIndex k)
{
  PetscFunctionBeginUser;
  mpm->out_state   = k;
  mpm->out_checked = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeToHome - the owners' updated particles pout (and zout) back to their home slots in x.
    Collective. @*/
PetscErrorCode MPMExchangeToHome(MPM mpm, Vec x)
{
  PetscScalar *home;
  void        *recs = mpm->nz ? (void *)mpm->rec : (void *)mpm->pout;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  mpm->out_state = -1; /* MPMStep says which state pout holds (MPMExchangeSentHome) */
  if (mpm->nz) PetscCall(MPMRecordsJoin(mpm, mpm->pout, mpm->zout, mpm->rec));
  PetscCall(VecGetArrayWrite(x, &home));
  PetscCall(PetscSFBcastBegin(mpm->sf, mpm->state_type, recs, home, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(mpm->sf, mpm->state_type, recs, home, MPI_REPLACE));
  PetscCall(VecRestoreArrayWrite(x, &home));
  mpm->out_vec = x; /* MPMExchangeRecordOwners: is the checked state this one, unchanged since? */
  PetscCall(PetscObjectStateGet((PetscObject)x, &mpm->out_vec_state));
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeToOwnersAdjoint - adjoint of MPMExchangeToOwners for the state: the owners' particle
    adjoints pinb go back to their home slots, xb = (home -> owner)^T pinb.  The forward is a Reduce with
    exactly one leaf per root, i.e. a copy pin[r] = home[leaf(r)], so its transpose is the Bcast
    xb[leaf] = pinb[root] (with zinb).  xb is overwritten. Collective. @*/
PetscErrorCode MPMExchangeToOwnersAdjoint(MPM mpm, Vec xb)
{
  PetscScalar *home;
  void        *recs = mpm->nz ? (void *)mpm->rec : (void *)mpm->pinb;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  if (mpm->nz) PetscCall(MPMRecordsJoin(mpm, mpm->pinb, mpm->zinb, mpm->rec));
  PetscCall(VecGetArrayWrite(xb, &home));
  PetscCall(PetscSFBcastBegin(mpm->sf, mpm->state_type, recs, home, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(mpm->sf, mpm->state_type, recs, home, MPI_REPLACE));
  PetscCall(VecRestoreArrayWrite(xb, &home));
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeToHomeAdjoint - adjoint of MPMExchangeToHome: the home adjoints xb of the updated
    particles to their owners, poutb (and zoutb) = (owner -> home)^T xb, a Reduce with MPI_SUM into zeroed
    slots (the transpose of a Bcast). Collective. @*/
PetscErrorCode MPMExchangeToHomeAdjoint(MPM mpm, Vec xb)
{
  const PetscScalar *home;
  void              *recs = mpm->nz ? (void *)mpm->rec : (void *)mpm->poutb;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  if (mpm->nz)
    PetscCall(PetscArrayzero(mpm->rec, mpm->nowned * mpm->nrec));
  else
    PetscCall(PetscArrayzero(mpm->poutb, mpm->nowned));
  PetscCall(VecGetArrayRead(xb, &home));
  PetscCall(PetscSFReduceBegin(mpm->sf, mpm->state_type, home, recs, MPIU_SUM));
  PetscCall(PetscSFReduceEnd(mpm->sf, mpm->state_type, home, recs, MPIU_SUM));
  PetscCall(VecRestoreArrayRead(xb, &home));
  if (mpm->nz) PetscCall(MPMRecordsSplit(mpm, mpm->rec, mpm->poutb, mpm->zoutb));
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ MPMExchangeMaterialToOwnersAdjoint - adjoint of the material part of MPMExchangeToOwners: the owners'
    material adjoints pmatb are added to their home slots, matb[leaf] += pmatb[root] (a Bcast with MPI_SUM;
    the forward is a copy per particle).  matb is a home-layout Vec like mpm->mat. Collective. @*/
PetscErrorCode MPMExchangeMaterialToOwnersAdjoint(MPM mpm, Vec matb)
{
  PetscScalar *home;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(MPM_Exchange, 0, 0, 0, 0));
  PetscCall(VecGetArray(matb, &home));
  PetscCall(PetscSFBcastBegin(mpm->sf, mpm->mat_type, mpm->pmatb, home, MPIU_SUM));
  PetscCall(PetscSFBcastEnd(mpm->sf, mpm->mat_type, mpm->pmatb, home, MPIU_SUM));
  PetscCall(VecRestoreArray(matb, &home));
  PetscCall(PetscLogEventEnd(MPM_Exchange, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MPMExchangeDestroy(MPM mpm)
{
  PetscFunctionBeginUser;
  PetscCall(MPMExchangeView(mpm));
  PetscCall(PetscSFDestroy(&mpm->sf));
  PetscCall(PetscFree(mpm->owner));
  PetscCall(PetscFree(mpm->owners_known));
  mpm->owners_known_n = 0;
  mpm->sf_state       = -1;
  PetscCall(PetscFree3(mpm->pin, mpm->pout, mpm->pmat));
  PetscCall(PetscFree3(mpm->pinb, mpm->poutb, mpm->pmatb));
  PetscCall(PetscFree3(mpm->zin, mpm->zout, mpm->rec));
  PetscCall(PetscFree2(mpm->zinb, mpm->zoutb));
  mpm->capacity     = 0;
  mpm->capacity_adj = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
