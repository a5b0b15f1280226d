/* Kinematics and elasticity helpers shared by the constitutive models (mpmmodel.h, src/mpm/models/) and the
 * solver: Lame parameters, determinant, cofactor, polar rotation, each with its adjoint right below it.
 * Static inline so that the model kernels compile them into their own code (a call per helper per
 * particle costs measurable time in P2G).  F is the deformation gradient, J = det F, R its polar rotation;
 * matrices are row-major [row][column].  Included by mpmimpl.h. */
#pragma once

/* mu = E / (2 (1 + nu)),  lambda = E nu / ((1 + nu)(1 - 2 nu)). */
static inline void MPMLameParameters(PetscReal E, PetscReal nu, PetscReal *mu, PetscReal *lambda)
{
  *mu     = E / (2.0 * (1.0 + nu));
  *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

/* Eb += mub dmu/dE + lambdab dlambda/dE,  nub likewise; d(nu / g)/dnu = (1 + 2 nu^2) / g^2 with
 * g = (1 + nu)(1 - 2 nu). */
static inline void MPMLameParametersAdjoint(PetscReal E, PetscReal nu, PetscReal mub, PetscReal lambdab, PetscReal *Eb,
                                            PetscReal *nub)
{
  const PetscReal g = (1.0 + nu) * (1.0 - 2.0 * nu);

  *Eb += mub / (2.0 * (1.0 + nu)) + lambdab * nu / g;
  *nub += -mub * E / (2.0 * (1.0 + nu) * (1.0 + nu)) + lambdab * E * (1.0 + 2.0 * nu * nu) / (g * g);
}

static inline PetscReal MPMDeterminant(const PetscScalar F[MPM_DIM][MPM_DIM])
{
  return F[0][0] * F[1][1] - F[0][1] * F[1][0];
}

/* Cofactor matrix dJ/dF = J F^-T = [[F11, -F10], [-F01, F00]]. */
static inline void MPMCofactor(const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar cof[MPM_DIM][MPM_DIM])
{
  cof[0][0] = F[1][1];
  cof[0][1] = -F[1][0];
  cof[1][0] = -F[0][1];
  cof[1][1] = F[0][0];
}

/* Rotation R of the polar decomposition F = R S in closed form: R is the rotation by
 *   theta = atan2(F10 - F01, F00 + F11),
 * which makes R^T F symmetric.  It is smooth wherever (F10 - F01, F00 + F11) != 0.  That pair vanishes
 * only for F = [[a, b], [b, -a]], whose det = -(a^2 + b^2) <= 0: an inverted or degenerate F, which
 * the solver refuses (J <= 0) before it can reach this kernel.  For J > 0, S = R^T F is the symmetric
 * positive definite stretch (its trace F00 c + F11 c + (F10 - F01) s = |(a, b)| > 0). */
static inline void MPMPolarRotation(const PetscScalar F[MPM_DIM][MPM_DIM], PetscScalar R[MPM_DIM][MPM_DIM])
{
  const PetscReal theta = PetscAtan2Real(F[1][0] - F[0][1], F[0][0] + F[1][1]);
  const PetscReal c = PetscCosReal(theta), s = PetscSinReal(theta);

  R[0][0] = c;
  R[0][1] = -s;
  R[1][0] = s;
  R[1][1] = c;
}

/* Fb += (dR/dF)^T Rb:  dR = [[-s, -c], [c, -s]] dtheta,  dtheta = (b da - a db) / (a^2 + b^2)
 * with a = F10 - F01, b = F00 + F11. */
static inline void MPMPolarRotationAdjoint(const PetscScalar F[MPM_DIM][MPM_DIM],
                                           const PetscScalar Rb[MPM_DIM][MPM_DIM], PetscScalar Fb[MPM_DIM][MPM_DIM])
{
  const PetscReal a = F[1][0] - F[0][1], b = F[0][0] + F[1][1], r2 = a * a + b * b;
  const PetscReal theta = PetscAtan2Real(a, b), c = PetscCosReal(theta), s = PetscSinReal(theta);
  const PetscReal thetab = -s * Rb[0][0] - c * Rb[0][1] + c * Rb[1][0] - s * Rb[1][1];
  const PetscReal ab = thetab * b / r2, bb = -thetab * a / r2;

  Fb[1][0] += ab;
  Fb[0][1] -= ab;
  Fb[0][0] += bb;
  Fb[1][1] += bb;
}
