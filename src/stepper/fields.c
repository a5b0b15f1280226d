/* Described fields of an AdjStepper (include/adjsim/fields.h): the solver says what its fields are, once,
 * and hands their values over at an output or restart step; writing them (datasets, XDMF, the /restart
 * group or file) and reading a restart back are done here, the same way for every solver. */
#include "stepperimpl.h"
#include <adjsim/io.h>
#include <adjsim/particles.h>

const char *const AdjFieldLocations[] = {"cell", "x-face", "y-face", "z-face", "node", "particle"};

struct _p_AdjFieldValues {
  MPI_Comm               comm;
  const char            *type;
  PetscInt               n;
  const AdjStepperField *field;
  Vec                    vec[ADJ_STEPPER_MAX_FIELDS];
  PetscInt               np[ADJ_STEPPER_MAX_FIELDS];
  const PetscReal       *array[ADJ_STEPPER_MAX_FIELDS];
};

static PetscErrorCode AdjFieldValuesFind(AdjFieldValues v, const char name[], PetscInt *f)
{
  PetscFunctionBeginUser;
  for (*f = 0; *f < v->n; (*f)++) {
    PetscBool same;
    PetscCall(PetscStrcmp(v->field[*f].name, name, &same));
    if (same) PetscFunctionReturn(PETSC_SUCCESS);
  }
  SETERRQ(v->comm, PETSC_ERR_PLIB, "Stepper type %s gave values for field %s, which it did not describe", v->type,
          name);
}

PetscErrorCode AdjFieldValuesSetVec(AdjFieldValues v, const char name[], Vec vec)
{
  PetscInt f;

  PetscFunctionBeginUser;
  PetscCall(AdjFieldValuesFind(v, name, &f));
  v->vec[f] = vec;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjFieldValuesSetParticles(AdjFieldValues v, const char name[], PetscInt n, const PetscReal a[])
{
  PetscInt f;

  PetscFunctionBeginUser;
  PetscCall(AdjFieldValuesFind(v, name, &f));
  PetscCheck(v->field[f].desc.location == ADJ_FIELD_PARTICLE, v->comm, PETSC_ERR_PLIB,
             "Field %s of stepper type %s is a grid field: give it a vector", name, v->type);
  v->np[f]    = n;
  v->array[f] = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjStepperAddField - describe one field of the solver's output (set ADJ_FIELDS_OUTPUT) or of its
    restart state (ADJ_FIELDS_RESTART); called by a type's setfromoptions. The description is copied.
    A restart state is either grid fields or one particle table. Logically collective. @*/
PetscErrorCode AdjStepperAddField(AdjStepper st, AdjFieldSet set, const AdjFieldDesc *desc)
{
  AdjStepperField *f;
  PetscInt        *n = &st->nfields[set];

  PetscFunctionBeginUser;
  PetscCheck(*n < ADJ_STEPPER_MAX_FIELDS, st->comm, PETSC_ERR_SUP, "Stepper type %s: more than %d fields", st->type,
             ADJ_STEPPER_MAX_FIELDS);
  PetscCheck(desc->ncomp >= 1, st->comm, PETSC_ERR_ARG_OUTOFRANGE, "Field %s: ncomp must be >= 1", desc->name);
  PetscCheck(!desc->geometry || (set == ADJ_FIELDS_OUTPUT && desc->location == ADJ_FIELD_PARTICLE), st->comm,
             PETSC_ERR_ARG_WRONG, "Field %s: only particle output fields can be the geometry", desc->name);
  for (PetscInt i = 0; i < *n && set == ADJ_FIELDS_RESTART; i++)
    PetscCheck(desc->location != ADJ_FIELD_PARTICLE && st->fields[set][i].desc.location != ADJ_FIELD_PARTICLE, st->comm,
               PETSC_ERR_SUP, "Restart field %s: a particle restart state is one table", desc->name);
  f = &st->fields[set][(*n)++];
  PetscCall(PetscStrncpy(f->name, desc->name, sizeof(f->name)));
  PetscCall(PetscStrncpy(f->units, desc->units ? desc->units : "1", sizeof(f->units)));
  f->desc       = *desc;
  f->desc.name  = f->name;
  f->desc.units = f->units;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@ AdjStepperGetFields - the described fields of one set (for views and tests). Not collective. @*/
PetscErrorCode AdjStepperGetFields(AdjStepper st, AdjFieldSet set, PetscInt *n, const AdjFieldDesc **desc)
{
  PetscFunctionBeginUser;
  *n = st->nfields[set];
  for (PetscInt i = 0; i < *n && desc; i++) desc[i] = &st->fields[set][i].desc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solver's values of every field of the set at state x; each described field must get one. */
static PetscErrorCode AdjStepperFieldValues(AdjStepper st, AdjFieldSet set, Vec x, struct _p_AdjFieldValues *v)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(v, sizeof(*v)));
  v->comm  = st->comm;
  v->type  = st->type;
  v->n     = st->nfields[set];
  v->field = st->fields[set];
  PetscCheck(v->n > 0, st->comm, PETSC_ERR_SUP, "Stepper type %s describes no %s fields", st->type,
             set == ADJ_FIELDS_OUTPUT ? "output" : "restart");
  PetscCall(st->ops.fieldvalues(st->ctx, set, x, v));
  for (PetscInt f = 0; f < v->n; f++)
    PetscCheck(v->vec[f] || v->array[f] || (v->field[f].desc.location == ADJ_FIELD_PARTICLE && v->np[f] == 0), st->comm,
               PETSC_ERR_PLIB, "Stepper type %s gave no values for its field %s", st->type, v->field[f].name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The particle XDMF: the geometry field's positions, every other particle field as an attribute. */
static PetscErrorCode AdjStepperWriteParticleXdmf(AdjStepper st, AdjOutput out)
{
  const AdjStepperField *fl       = st->fields[ADJ_FIELDS_OUTPUT];
  const char            *geometry = NULL, *names[ADJ_STEPPER_MAX_FIELDS];
  PetscInt               ncomp[ADJ_STEPPER_MAX_FIELDS], n = 0;

  PetscFunctionBeginUser;
  for (PetscInt f = 0; f < st->nfields[ADJ_FIELDS_OUTPUT]; f++) {
    if (fl[f].desc.location != ADJ_FIELD_PARTICLE) continue;
    if (fl[f].desc.geometry)
      geometry = fl[f].name;
    else {
      names[n]   = fl[f].name;
      ncomp[n++] = fl[f].desc.ncomp;
    }
  }
  if (geometry) PetscCall(AdjOutputWriteParticleXdmf(out, geometry, n, names, ncomp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdjStepperWriteFields(AdjStepper st, AdjOutput out, Vec x)
{
  struct _p_AdjFieldValues v;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(PetscLogEventBegin(ADJSTEPPER_Output, 0, 0, 0, 0));
  PetscCall(AdjStepperFieldValues(st, ADJ_FIELDS_OUTPUT, x, &v));
  for (PetscInt f = 0; f < v.n; f++) {
    const AdjFieldDesc *d = &v.field[f].desc;

    if (d->location == ADJ_FIELD_PARTICLE && v.vec[f]) {
      const PetscScalar *a;
      PetscInt           m;
      PetscCall(VecGetLocalSize(v.vec[f], &m));
      PetscCall(VecGetArrayRead(v.vec[f], &a));
      PetscCall(AdjOutputWriteParticleField(out, d->name, d->units, d->ncomp, m / d->ncomp, a));
      PetscCall(VecRestoreArrayRead(v.vec[f], &a));
    } else if (d->location == ADJ_FIELD_PARTICLE)
      PetscCall(AdjOutputWriteParticleField(out, d->name, d->units, d->ncomp, v.np[f], v.array[f]));
    else
      PetscCall(AdjOutputWriteField(out, d->name, d->units, v.vec[f]));
  }
  PetscCall(AdjStepperWriteParticleXdmf(st, out));
  PetscCall(PetscLogEventEnd(ADJSTEPPER_Output, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The restart group, in the run file or (standalone) in the restart file, under the solver's type name. */
PetscErrorCode AdjStepperWriteRestart(AdjStepper st, AdjOutput out, AdjStepIndex k, Vec x, PetscBool standalone)
{
  struct _p_AdjFieldValues v;
  const char              *names[ADJ_STEPPER_MAX_FIELDS];
  const PetscReal          t = k * st->dt;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  PetscCall(PetscLogEventBegin(ADJSTEPPER_Output, 0, 0, 0, 0));
  PetscCall(AdjStepperFieldValues(st, ADJ_FIELDS_RESTART, x, &v));
  for (PetscInt f = 0; f < v.n; f++) names[f] = v.field[f].name;
  if (v.field[0].desc.location == ADJ_FIELD_PARTICLE)
    PetscCall(AdjOutputWriteParticleRestart(out, st->type, k, t, names[0], v.vec[0], standalone));
  else if (standalone)
    PetscCall(AdjOutputWriteRestartFile(out, st->type, k, t, v.n, names, v.vec));
  else
    PetscCall(AdjOutputWriteRestart(out, st->type, k, t, v.n, names, v.vec));
  PetscCall(PetscLogEventEnd(ADJSTEPPER_Output, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the described restart fields of path into the solver's vectors, builds the state x from them and
 * checks that the file's step and time belong to this run. */
PetscErrorCode AdjStepperReadRestart(AdjStepper st, const char path[], Vec x, AdjStepIndex *k)
{
  struct _p_AdjFieldValues v;
  const char              *names[ADJ_STEPPER_MAX_FIELDS];
  PetscReal                t;

  PetscFunctionBeginUser;
  PetscCall(AdjStepperReady(st));
  st->stepped_k = -1;
  PetscCall(AdjStepperFieldValues(st, ADJ_FIELDS_RESTART, x, &v));
  for (PetscInt f = 0; f < v.n; f++) names[f] = v.field[f].name;
  if (v.field[0].desc.location == ADJ_FIELD_PARTICLE)
    PetscCall(AdjInputReadParticleRestart(st->comm, path, st->type, st->da, names[0], v.vec[0], k, &t));
  else
    PetscCall(AdjInputReadRestart(st->comm, path, st->type, st->da, v.n, names, v.vec, k, &t));
  if (st->ops.restartstate) PetscCall(st->ops.restartstate(st->ctx, &v, x));
  PetscCheck(*k >= 0 && *k <= st->nsteps, st->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s is at step %" PetscInt64_FMT ", outside 0..%" PetscInt64_FMT " of this run", path,
             (PetscInt64)*k, (PetscInt64)st->nsteps);
  PetscCheck(PetscAbsReal(t - *k * st->dt) <= 1e-9 * st->nsteps * st->dt, st->comm, PETSC_ERR_USER_INPUT,
             "Restart file %s: step %" PetscInt64_FMT
             " is at time %.12g s there but %.12g s in this run (time step differs)",
             path, (PetscInt64)*k, (double)t, (double)(*k * st->dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The described fields, for AdjStepperView. */
PetscErrorCode AdjStepperViewFields(AdjStepper st, PetscViewer viewer)
{
  const char *const setname[2] = {"output", "restart"};

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < 2; s++)
    for (PetscInt f = 0; f < st->nfields[s]; f++) {
      const AdjFieldDesc *d = &st->fields[s][f].desc;
      PetscCall(PetscViewerASCIIPrintf(viewer, "  %s field %-14s [%s] %s, %" PetscInt_FMT " value%s per point%s\n",
                                       setname[s], d->name, d->units, AdjFieldLocations[d->location], d->ncomp,
                                       d->ncomp > 1 ? "s" : "", d->geometry ? " (geometry)" : ""));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}
