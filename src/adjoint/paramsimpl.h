/* Private data of AdjParams, shared by params.c (layout, options, packing helpers) and
 * paramsblocks.c (declared storage, generic pack/unpack, I/O, regularization). */
#pragma once

#include <adjsim/params.h>

#define ADJ_PARAMS_MAX 16

typedef struct {
  char         name[64], units[32], gunits[48];
  AdjParamKind kind;
  DM           da;     /* field blocks: the grid the field lives on */
  Vec          view;   /* field blocks: a DMDA global vector whose array is placed onto the design block */
  PetscInt     n;      /* global length */
  PetscInt     nlocal; /* entries this rank holds in the design vector (0 if inactive) */
  PetscInt     offset; /* start of this block in the local part of the design vector */
  PetscReal    scale, lower, upper;
  PetscReal   *lowerv, *upperv; /* array blocks: bounds per entry (NULL: lower, upper for all) */
  PetscBool    active;
  /* where the values and the gradient live (declared by the solver) */
  Vec                 value, gradient; /* field storage */
  Vec                 work;            /* field values behind accessors pass through it */
  PetscReal          *avalue;          /* array storage: values */
  const PetscReal    *agradient;       /* array storage: gradient (summed over ranks) */
  Vec                 strided;         /* field storage as component comp of a strided Vec */
  PetscInt            comp;
  AdjParamFieldAccess fget, fset;        /* field access */
  AdjParamArrayAccess aget, aset, agrad; /* array access */
  void               *actx;
  AdjParamHook        changed;
  void               *changedctx;
  PetscBool           optional; /* run files may lack it */
  PetscReal           h[2], reg_alpha, reg_beta;
} AdjParamBlock;

struct _p_AdjParams {
  MPI_Comm      comm;
  char          prefix[64]; /* options prefix (that of the stepper) */
  PetscMPIInt   rank;
  PetscInt      nblocks, nlocal, nactive;
  AdjParamBlock block[ADJ_PARAMS_MAX];
  PetscBool     setup;
  AdjParamHook  gradienthook;
  void         *gradientctx;
};

PetscErrorCode AdjParamsFind(AdjParams params, const char name[], AdjParamBlock **blk);
