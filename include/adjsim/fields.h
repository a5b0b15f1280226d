/* Field descriptions: what a solver writes, described once, written by the I/O layer.
 *
 * A solver describes each field of its output and of its restart state (name, units, where it lives,
 * values per point) with AdjStepperAddField in its setfromoptions.  At an output or restart step the
 * stepper asks the solver for the values (its fieldvalues operation points each described field at a
 * grid vector or a particle array) and writes them, their XDMF and their restart group itself: no solver
 * calls the output layer for its fields, and none includes HDF5.  Reading a restart file is generic too:
 * the stepper reads the described restart fields into the vectors the solver points at, then the
 * solver's optional restartstate operation builds the state from them.  The file layout is that of
 * docs/output-format.md. */
#pragma once

#include <petscvec.h>

/* Where the values of a field live.  Grid fields are written on the run's output grid (one value per
 * cell of /grid; for a face field that of the face on the cell's lower side in its direction, for a node
 * field that of the node at the cell's centre); particle fields are (N) or (N, ncomp) tables in global
 * particle order. */
typedef enum {
  ADJ_FIELD_CELL,
  ADJ_FIELD_FACE_X,
  ADJ_FIELD_FACE_Y,
  ADJ_FIELD_FACE_Z,
  ADJ_FIELD_NODE,
  ADJ_FIELD_PARTICLE
} AdjFieldLocation;
extern const char *const AdjFieldLocations[];

/* Which set a description belongs to: the fields written at output steps (/fields/<name>/<step>, or
 * /particles/<name>/<step>), or the state written to /restart and read back bit for bit. */
typedef enum { ADJ_FIELDS_OUTPUT, ADJ_FIELDS_RESTART } AdjFieldSet;

typedef struct {
  const char      *name;     /* dataset name, e.g. "u" */
  const char      *units;    /* e.g. "m/s" */
  AdjFieldLocation location; /* cell, face, node or particle */
  PetscInt         ncomp;    /* values per point: 1 (scalar), dim (vector), dim*dim (tensor), ... */
  PetscBool        geometry; /* particle output only: the positions, the XDMF geometry of the others */
} AdjFieldDesc;

/* The values of one set of described fields at one state, handed to the solver's fieldvalues operation. */
typedef struct _p_AdjFieldValues *AdjFieldValues;

/*@ AdjFieldValuesSetVec - the values of the described grid field `name`: a global vector on the run's
    output grid (one value per cell of the grid; the caller keeps it alive until the stepper has written
    or read it). Not collective. @*/
PetscErrorCode AdjFieldValuesSetVec(AdjFieldValues values, const char name[], Vec v);

/*@ AdjFieldValuesSetParticles - the values of the described particle field `name`: this rank's n
    particles, ncomp values each (row-major), or for a restart field a block vector of block size ncomp
    (pass it with AdjFieldValuesSetVec). Not collective. @*/
PetscErrorCode AdjFieldValuesSetParticles(AdjFieldValues values, const char name[], PetscInt n, const PetscReal a[]);
