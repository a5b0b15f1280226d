/* Tikhonov regularization of a field parameter on a DMDA, with its gradient:
 *   R(p) = alpha/2 sum_cells p^2 hx hy + beta/2 sum_faces (dp/dn)^2 hx hy,   (hx, hy) = (h[0], h[1])
 * The face sum runs over interior faces and, in periodic directions, the wrap-around faces
 * (so the smoothness term has natural Neumann behaviour at physical boundaries). */
#pragma once

#include <adjsim/sys.h>
#include <petscdmda.h>

/*@ AdjTikhonovField - adds R(p) to *R and dR/dp to grad; h[d] is the cell size in direction d [m].
    Collective on da. @*/
PetscErrorCode AdjTikhonovField(DM da, const PetscReal h[], PetscReal alpha, PetscReal beta, Vec p, PetscReal *R,
                                Vec grad);
