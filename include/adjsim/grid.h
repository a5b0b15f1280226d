/* Uniform structured grids on the box [0, L[0]] x ... x [0, L[dim-1]]: the one place adjsim creates a
 * DMDA, for any dimension.  A solver describes its grid by arrays over the directions (cells, lengths,
 * boundary types), so the driver, I/O and parameters never see a 2-D size; only its kernels do.
 *
 * Centring: cell-centred fields have one point per cell (x_i = (i + 1/2) h); node-centred fields
 * have one per node (x_i = i h), i.e. cells + 1 points per direction, or cells in a periodic
 * direction (the node at L is the node at 0).  h = L / cells in both cases.
 * The process grid is PETSc's default (PETSC_DECIDE in every direction, no -da_* options read), so
 * a DMDA made here is partitioned exactly as one from DMDACreate2d / DMDACreate3d with PETSC_DECIDE. */
#pragma once

#include <adjsim/sys.h>
#include <petscdmda.h>

#define ADJ_GRID_MAX_DIM 3

typedef enum { ADJ_GRID_CELL, ADJ_GRID_NODE } AdjGridCentring;
extern const char *const AdjGridCentrings[];

/*@ AdjGridCheckSize - refuses, before anything is allocated, a problem of `count` items (cells, nodes,
    particles) with `dof` indexed unknowns each that overflows PetscInt (count dof > PETSC_MAX_INT; 32-bit
    in Debian's PETSc) or whose estimated memory, count bytes_per_item spread evenly over the ranks,
    exceeds the memory one rank can count on: the node's physical memory (sysconf) shared by the ranks on
    the node, or the address-space limit (ulimit -v) when lower.  `what` names the options and their
    values for the message, `item` the kind of item (singular: cell, node, particle).  Collective. @*/
PetscErrorCode AdjGridCheckSize(MPI_Comm comm, const char what[], const char item[], PetscInt64 count, PetscInt dof,
                                PetscReal bytes_per_item);

/*@ AdjGridCreateDMDA - a DMDA, set up, for a uniform grid of dim (2 or 3) directions. Collective.

    Input parameters:
+   comm     - [in] communicator
.   dim      - [in] number of directions, 2 or 3
.   cells    - [in] cells per direction, cells[dim]
.   bc       - [in] DMDA boundary type per direction, bc[dim]
.   centring - [in] ADJ_GRID_CELL (a point per cell) or ADJ_GRID_NODE (a point per node)
.   dof      - [in] fields per point
.   stencil  - [in] DMDA_STENCIL_STAR or DMDA_STENCIL_BOX
.   width    - [in] stencil (ghost) width
-   lengths  - [in] box lengths L[dim] [m]: uniform coordinates of the points are set (see
               AdjGridSetUniformCoordinates); NULL: no coordinates

    Output parameter:
.   da - [out] the DMDA (DMSetUp done; name its fields with DMDASetFieldName) @*/
PetscErrorCode AdjGridCreateDMDA(MPI_Comm comm, PetscInt dim, const PetscInt cells[], const DMBoundaryType bc[],
                                 AdjGridCentring centring, PetscInt dof, DMDAStencilType stencil, PetscInt width,
                                 const PetscReal lengths[], DM *da);

/*@ AdjGridSetUniformCoordinates - coordinates of the points of a DMDA made by AdjGridCreateDMDA with
    this centring (or of a DMDA compatible with it, DMDACreateCompatibleDMDA) on the box with lengths
    L[dim] [m]: cell centres (i + 1/2) h or nodes i h, h = L / cells. Collective. @*/
PetscErrorCode AdjGridSetUniformCoordinates(DM da, AdjGridCentring centring, const PetscReal lengths[]);

/*@ AdjGridBoxOptions - reads the box of a solver inside its PetscOptionsBegin block: -<physics>_grid
    (dim cell counts; gridhelp says what they count) and -<physics>_domain (dim lengths [m]) into cells[]
    and len[], which hold the defaults on entry; a count other than dim values is refused. Collective. @*/
PetscErrorCode AdjGridBoxOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, const char physics[],
                                 const char gridhelp[], PetscInt dim, PetscInt cells[], PetscReal len[]);

/*@ AdjGridBoxSetUp - checks the box read by AdjGridBoxOptions (at least 4 cells per direction, lengths
    positive and finite, and the problem size against the index range and the memory: AdjGridCheckSize
    with count items of dof unknowns, bytes_per_item each) and gives cells per direction M, lengths L and
    spacings h = L / M. Collective. @*/
PetscErrorCode AdjGridBoxSetUp(MPI_Comm comm, const char physics[], PetscInt dim, const PetscInt cells[],
                               const PetscReal len[], const char item[], PetscInt64 count, PetscInt dof,
                               PetscReal bytes_per_item, PetscInt M[], PetscReal L[], PetscReal h[]);
