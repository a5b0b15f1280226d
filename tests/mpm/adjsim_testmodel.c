/* The adjsim command (src/app/main.c, unchanged) with the test-only model test-damage (mpmtestmodel.h, internal
 * state of 2 reals per particle) in place of neo-hookean in the model table: -mpm_model test-damage selects it.
 * For the tests of the internal-state plumbing through the whole program (gradients on 1, 2, 4 ranks under every
 * checkpoint setting, restart files, output); not installed, not a user-visible model. */
#define main AdjsimCommandMain
#include "app/main.c"
#undef main
#include "mpmtestmodel.h"

int main(int argc, char **argv)
{
  MPMTestModelRegister();
  return AdjsimCommandMain(argc, argv);
}
