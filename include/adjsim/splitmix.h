/* SplitMix64 (Steele, Lea, Flood 2014), shared by every seeded draw of the code (src/numerics/splitmix.c): integer
 * arithmetic only, so a seed gives the same bits on every platform, compiler and rank count.
 *
 *   AdjSplitMix64Mix(z):       the finalizer  z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27;
 *                                             z *= 0x94d049bb133111eb; z ^= z >> 31
 *   AdjSplitMix64Next(&state): the stream     state += 0x9e3779b97f4a7c15; return mix(state)
 *
 * A uniform double from a draw x: its top 53 bits, (x >> 11) 2^-53 in [0, 1) or ((x >> 11) + 1) 2^-53 in (0, 1]. */
#pragma once

#include <stdint.h>

#define ADJ_SPLITMIX64_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

uint64_t AdjSplitMix64Mix(uint64_t z);
uint64_t AdjSplitMix64Next(uint64_t *state);
