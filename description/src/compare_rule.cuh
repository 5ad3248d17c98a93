// One output element's verdict, and the lanes' values, shared by the GPU
// compare kernel (device_verifier.cpp: this file is embedded in its source
// at build time) and the host (element_type.cpp, the CPU tests): the rule
// is written once. Plain C++ that NVRTC compiles without headers.
#ifndef MEMTUNE_COMPARE_RULE_CUH
#define MEMTUNE_COMPARE_RULE_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MEMTUNE_HD __host__ __device__
#else
#include <cmath>
#include <limits>
#define MEMTUNE_HD
using std::fabs;
using std::ldexp;
#endif

MEMTUNE_HD inline double memtune_quiet_nan() {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(0x7ff8000000000000LL);
#else
  return std::numeric_limits<double>::quiet_NaN();
#endif
}

MEMTUNE_HD inline double memtune_infinity() {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(0x7ff0000000000000LL);
#else
  return std::numeric_limits<double>::infinity();
#endif
}

// IEEE binary16: 1 sign, 5 exponent, 10 significand bits.
MEMTUNE_HD inline double memtune_half_value(unsigned short bits) {
  const double sign = (bits & 0x8000U) ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1F, significand = bits & 0x3FF;
  if (exponent == 0x1F) return significand ? memtune_quiet_nan() : sign * memtune_infinity();
  if (exponent == 0) return sign * ldexp((double)significand, -24);
  return sign * ldexp((double)(significand + 1024), exponent - 25);
}

// bfloat16: the upper half of a float (1 sign, 8 exponent, 7 significand bits).
MEMTUNE_HD inline double memtune_bfloat16_value(unsigned short bits) {
  const double sign = (bits & 0x8000U) ? -1.0 : 1.0;
  const int exponent = (bits >> 7) & 0xFF, significand = bits & 0x7F;
  if (exponent == 0xFF) return significand ? memtune_quiet_nan() : sign * memtune_infinity();
  if (exponent == 0) return sign * ldexp((double)significand, -133);
  return sign * ldexp((double)(significand + 128), exponent - 134);
}

// Lane i of an array whose lane type is `lane` (memtune::ElementType's value), as a double.
MEMTUNE_HD inline double memtune_lane_value(const void* p, int lane, long long i) {
  switch (lane) {
  case 0: return ((const float*)p)[i];
  case 1: return ((const double*)p)[i];
  case 2: return ((const signed char*)p)[i];
  case 3: return ((const unsigned char*)p)[i];
  case 4: return ((const short*)p)[i];
  case 5: return ((const unsigned short*)p)[i];
  case 6: return ((const int*)p)[i];
  case 7: return ((const unsigned int*)p)[i];
  case 8: return (double)((const long long*)p)[i];
  case 9: return (double)((const unsigned long long*)p)[i];
  case 10: return memtune_half_value(((const unsigned short*)p)[i]);
  default: return memtune_bfloat16_value(((const unsigned short*)p)[i]);
  }
}

// |out - ref| <= abs + rel |ref|, written so that NaN fails. With
// poison_agrees (an output written only in part), an element the reference
// left poisoned (NaN) passes when the candidate left it poisoned too; integer
// poison is a plain value, equal in both runs.
MEMTUNE_HD inline bool memtune_element_passes(double out, double ref, double abs_tol, double rel_tol, int poison_agrees) {
  if (poison_agrees && ref != ref) return out != out;
  return fabs(out - ref) <= abs_tol + rel_tol * fabs(ref);
}

#endif
