// One filled input value, shared by the host fill (fill.cpp, random_data.cpp)
// and the GPU fill kernel (measure/src/device_fill.cpp: this file is
// embedded in its source at build time), so both give the same bits: a
// callback's expected values, computed from the host's copy, match what the
// kernel read from the GPU's. Plain C++ that NVRTC compiles without headers.
// Every floating-point step is rounded on its own (no fused multiply-add on
// the GPU; the host's ISO C++ build contracts nothing).
#ifndef MEMTUNE_FILL_RULE_CUH
#define MEMTUNE_FILL_RULE_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MEMTUNE_FILL_HD __host__ __device__
#else
#define MEMTUNE_FILL_HD
#endif

// What memtune_fill_value writes (FillRule::Mode in fill.hpp).
enum MemtuneFillMode {
  memtune_fill_unit_float = 0,  // float in [-1, -0.01] U [0.01, 1] (the default random fill)
  memtune_fill_unit_double = 1, // the same float values, stored as double
  memtune_fill_range_float = 2, // lo + width u, u uniform in [0, 1), rounded to float
  memtune_fill_range_double = 3,
  memtune_fill_integer = 4,     // lo + an offset uniform in [0, span] (Lemire), lane_bytes wide
  memtune_fill_constant = 5,    // the lane_bytes low bytes of `bits`
};

MEMTUNE_FILL_HD inline unsigned long long memtune_splitmix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// 64 random bits for value i of a fill whose key is memtune_splitmix64(seed).
MEMTUNE_FILL_HD inline unsigned long long memtune_fill_bits(unsigned long long key, long long i) {
  return memtune_splitmix64(key ^ (unsigned long long)i);
}

MEMTUNE_FILL_HD inline float memtune_unit_float(unsigned long long h) {
  const float u = (float)((double)(h >> 40) * (1.0 / 16777216.0)); // exact: 24 bits
#ifdef __CUDA_ARCH__
  const float magnitude = __fadd_rn(0.01F, __fmul_rn(0.99F, u));
#else
  const float magnitude = 0.01F + 0.99F * u;
#endif
  return (h & 1U) ? -magnitude : magnitude;
}

MEMTUNE_FILL_HD inline double memtune_range_value(unsigned long long h, double lo, double width) {
  const double u = (double)(h >> 11) * 0x1p-53; // [0, 1), exact
#ifdef __CUDA_ARCH__
  return __dadd_rn(lo, __dmul_rn(width, u));
#else
  return lo + width * u;
#endif
}

// An offset uniform in [0, span] from 64 random bits: the high word of
// h (span + 1) (Lemire); span = 2^64 - 1 takes every value.
MEMTUNE_FILL_HD inline unsigned long long memtune_range_offset(unsigned long long h, unsigned long long span) {
  if (span == ~0ULL) return h;
#ifdef __CUDA_ARCH__
  return __umul64hi(h, span + 1);
#else
  return (unsigned long long)(((unsigned __int128)h * (span + 1)) >> 64);
#endif
}

MEMTUNE_FILL_HD inline void memtune_store_lane(void* out, long long i, int lane_bytes, unsigned long long bits) {
  switch (lane_bytes) {
  case 1: ((unsigned char*)out)[i] = (unsigned char)bits; break;
  case 2: ((unsigned short*)out)[i] = (unsigned short)bits; break;
  case 4: ((unsigned int*)out)[i] = (unsigned int)bits; break;
  default: ((unsigned long long*)out)[i] = bits; break;
  }
}

// Value i of a fill into `out` (an array of lanes; integers and constants
// lane_bytes wide). lo_bits: an integer fill's low end (two's complement) or
// a constant's bits; span: an integer fill's hi - lo.
MEMTUNE_FILL_HD inline void memtune_fill_value(void* out, long long i, int mode, int lane_bytes, unsigned long long key,
                                               double lo, double width, unsigned long long lo_bits,
                                               unsigned long long span) {
  switch (mode) {
  case memtune_fill_unit_float: ((float*)out)[i] = memtune_unit_float(memtune_fill_bits(key, i)); break;
  case memtune_fill_unit_double: ((double*)out)[i] = memtune_unit_float(memtune_fill_bits(key, i)); break;
  case memtune_fill_range_float: ((float*)out)[i] = (float)memtune_range_value(memtune_fill_bits(key, i), lo, width); break;
  case memtune_fill_range_double: ((double*)out)[i] = memtune_range_value(memtune_fill_bits(key, i), lo, width); break;
  case memtune_fill_integer:
    memtune_store_lane(out, i, lane_bytes, lo_bits + memtune_range_offset(memtune_fill_bits(key, i), span));
    break;
  default: memtune_store_lane(out, i, lane_bytes, lo_bits); break;
  }
}

#endif
