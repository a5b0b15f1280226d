/* Forward-mode dual numbers with ADJ_DUAL_N derivative slots: a value and its exact derivatives
 * with respect to up to ADJ_DUAL_N shape parameters, propagated by the chain rule through each
 * operation.  The signed-distance functions of src/geometry are written once in this arithmetic,
 * so their parameter derivatives are exact to round-off (no finite differences, no second copy
 * of the formulas to keep in step). */
#pragma once

#include <petscsys.h>

#define ADJ_DUAL_N 24

typedef struct {
  PetscReal v, d[ADJ_DUAL_N];
} AdjDual;

static inline AdjDual AdjDualConst(PetscReal v)
{
  AdjDual r = {v, {0}};
  return r;
}

/* The i-th independent variable with value v. */
static inline AdjDual AdjDualVar(PetscReal v, PetscInt i)
{
  AdjDual r = AdjDualConst(v);
  r.d[i]    = 1;
  return r;
}

/* r = a f + b g with the chain rule of a unary map: value f, derivative df */
static inline AdjDual AdjDualChain(AdjDual a, PetscReal f, PetscReal df)
{
  AdjDual r = {f, {0}};
  for (PetscInt i = 0; i < ADJ_DUAL_N; i++) r.d[i] = df * a.d[i];
  return r;
}

static inline AdjDual AdjDualAdd(AdjDual a, AdjDual b)
{
  AdjDual r = {a.v + b.v, {0}};
  for (PetscInt i = 0; i < ADJ_DUAL_N; i++) r.d[i] = a.d[i] + b.d[i];
  return r;
}

static inline AdjDual AdjDualSub(AdjDual a, AdjDual b)
{
  AdjDual r = {a.v - b.v, {0}};
  for (PetscInt i = 0; i < ADJ_DUAL_N; i++) r.d[i] = a.d[i] - b.d[i];
  return r;
}

static inline AdjDual AdjDualMul(AdjDual a, AdjDual b)
{
  AdjDual r = {a.v * b.v, {0}};
  for (PetscInt i = 0; i < ADJ_DUAL_N; i++) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}

static inline AdjDual AdjDualDiv(AdjDual a, AdjDual b)
{
  const PetscReal q = a.v / b.v;
  AdjDual         r = {q, {0}};
  for (PetscInt i = 0; i < ADJ_DUAL_N; i++) r.d[i] = (a.d[i] - q * b.d[i]) / b.v;
  return r;
}

static inline AdjDual AdjDualScale(AdjDual a, PetscReal s)
{
  return AdjDualChain(a, s * a.v, s);
}
static inline AdjDual AdjDualShift(AdjDual a, PetscReal s)
{
  a.v += s;
  return a;
}
static inline AdjDual AdjDualSqrt(AdjDual a)
{
  const PetscReal s = PetscSqrtReal(a.v);
  return AdjDualChain(a, s, 0.5 / s);
}
static inline AdjDual AdjDualSin(AdjDual a)
{
  return AdjDualChain(a, PetscSinReal(a.v), PetscCosReal(a.v));
}
static inline AdjDual AdjDualCos(AdjDual a)
{
  return AdjDualChain(a, PetscCosReal(a.v), -PetscSinReal(a.v));
}
static inline AdjDual AdjDualTanh(AdjDual a)
{
  const PetscReal t = PetscTanhReal(a.v);
  return AdjDualChain(a, t, 1 - t * t);
}
static inline AdjDual AdjDualPow(AdjDual a, PetscReal e)
{
  const PetscReal p = PetscPowReal(a.v, e);
  return AdjDualChain(a, p, a.v != 0 ? e * p / a.v : 0);
}
/* sqrt(a^2 + b^2) */
static inline AdjDual AdjDualHypot(AdjDual a, AdjDual b)
{
  return AdjDualSqrt(AdjDualAdd(AdjDualMul(a, a), AdjDualMul(b, b)));
}
