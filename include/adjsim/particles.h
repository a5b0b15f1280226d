/* adjsim io for particle solvers (MPM): particle datasets in the run file, their XDMF description,
 * and particle restart states.  Layout (docs/mpm.md, "Output"):
 *
 *   /particles/<name>   (nt, N) or (nt, N, ncomp) float64, attribute units; slice k belongs to
 *                       /fields/step[k]; particles in their fixed global order
 *   /restart/<name>     (N, ncomp) float64, the particle state (beside the /restart attributes)
 *   <stem>-particles.xmf  XDMF 2: a temporal collection of Polyvertex grids (ParaView: points)
 *
 * Every rank writes the contiguous block of particles it holds (rows [start, start + n) of the
 * global order), collectively with parallel HDF5, like the grid fields. */
#pragma once

#include <adjsim/io.h>

/*@ AdjOutputWriteParticleField - writes one particle field of the current output step (after
    AdjOutputBeginStep()) as slice of /particles/<name>. Collective.

    Input: out    - the open run file
           name   - dataset name; units - physical units (NULL: "1")
           ncomp  - components per particle (1: dataset (nt, N); else (nt, N, ncomp))
           n      - particles this rank holds (its rows follow those of lower ranks)
           values - n * ncomp reals, particle-major @*/
PetscErrorCode AdjOutputWriteParticleField(AdjOutput out, const char name[], const char units[], PetscInt ncomp,
                                           PetscInt n, const PetscReal values[]);

/*@ AdjOutputWriteParticleBlock - a per-particle parameter field or gradient (sensitivity map) as
    /parameters/<name> or /gradients/<name>, shaped (N) for ncomp = 1 or (N, ncomp), rows in the global
    particle order like /particles (replaces an earlier write). Collective; arguments as
    AdjOutputWriteParticleField. @*/
PetscErrorCode AdjOutputWriteParticleBlock(AdjOutput out, AdjOutputGroup group, const char name[], const char units[],
                                           PetscInt ncomp, PetscInt n, const PetscReal values[]);

/*@ AdjOutputWriteParticleXdmf - records what <stem>-particles.xmf describes: positions `position`
    (ncomp 2 or 3) as Polyvertex geometry and the other fields as point attributes, for every output
    step. Collective. AdjOutputClose() writes the file once the run file has its final name (as
    <stem>-particles.xmf.partial, then renamed), so the description of an earlier run is not replaced
    before this run is complete, and a long run does not rewrite it at every output step. @*/
PetscErrorCode AdjOutputWriteParticleXdmf(AdjOutput out, const char position[], PetscInt nfields,
                                          const char *const names[], const PetscInt ncomp[]);

/*@ AdjOutputWriteParticleRestart - the restart state of a particle solver: the /restart attributes
    (as AdjOutputWriteRestart, no grid fields) and the dataset /restart/<name> of the block vector
    `state` (block size = components per particle, contiguous particle blocks per rank). In the run
    file (standalone false) or as the atomic standalone restart file (standalone true). Collective. @*/
PetscErrorCode AdjOutputWriteParticleRestart(AdjOutput out, const char solver[], AdjStepIndex step, PetscReal time,
                                             const char name[], Vec state, PetscBool standalone);

/*@ AdjInputReadParticleRestart - reads /restart/<name> of a run or restart file of `solver` into
    `state` (any rank count: each rank reads its block), checking the grid against `da` and the
    particle count and components against `state`. Collective; errors name the file and dataset. @*/
PetscErrorCode AdjInputReadParticleRestart(MPI_Comm comm, const char path[], const char solver[], DM da,
                                           const char name[], Vec state, AdjStepIndex *step, PetscReal *time);

/*@ AdjInputReadParticleTable - this rank's n rows (following those of lower ranks) of an (N) or (N, ncomp)
    particle dataset, e.g. /parameters/E_field of a run file; *found false (values untouched) when the file
    lacks the dataset. Collective; a wrong shape is an error naming the file and the dataset. @*/
PetscErrorCode AdjInputReadParticleTable(MPI_Comm comm, const char path[], const char dataset[], PetscInt ncomp,
                                         PetscInt n, PetscReal values[], PetscBool *found);
