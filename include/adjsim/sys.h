/* adjsim system header: PETSc compatibility and error-bridge macros shared by every component. */
#pragma once

#include <petscsys.h>
#include <stdint.h>
#include <inttypes.h>

/* PETSc 3.18 returns 0 for success; PETSC_SUCCESS was introduced in 3.19. */
#ifndef PETSC_SUCCESS
#  define PETSC_SUCCESS 0
#endif

/* For a kernel expanded with constant arguments into branch-free variants (each then vectorizes): the compiler must
 * inline it at every call, whatever its size heuristics say. */
#if PetscHasAttribute(always_inline)
#  define ADJ_FORCE_INLINE inline __attribute__((always_inline))
#else
#  define ADJ_FORCE_INLINE inline
#endif

/* Step counters are 64-bit: revolve counts for 10^8 steps and more must stay exact. */
typedef int64_t AdjStepIndex;
#define ADJ_STEP_FMT "%" PRId64

/* Bridge for HDF5 calls: a negative return becomes a PETSc error with the call text. */
#define AdjCallH5(call)                                                                                                \
  do {                                                                                                                 \
    if ((call) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "HDF5 call failed: %s", #call);                            \
  } while (0)

/* Bridge for FFTW planner calls: a NULL plan becomes a PETSc error. */
#define AdjCheckFFTWPlan(plan)                                                                                         \
  do {                                                                                                                 \
    if (!(plan)) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "FFTW could not create plan: %s", #plan);                     \
  } while (0)

/* A PETSc log event to register: its name (as -log_view shows it) and where its id goes. */
typedef struct {
  const char    *name;
  PetscLogEvent *event;
} AdjLogEvent;
#define ADJ_NUM_EVENTS(events) ((PetscInt)(sizeof(events) / sizeof((events)[0])))

/*@ AdjLogRegisterEvents - the log class classname and its n events, registered once. @*/
PetscErrorCode AdjLogRegisterEvents(const char classname[], PetscInt n, const AdjLogEvent events[]);
