/* SplitMix64: the generator of every seeded draw (include/adjsim/splitmix.h). */
#include <adjsim/splitmix.h>

uint64_t AdjSplitMix64Mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

uint64_t AdjSplitMix64Next(uint64_t *state)
{
  *state += ADJ_SPLITMIX64_GOLDEN;
  return AdjSplitMix64Mix(*state);
}
