#pragma once
// A made-up GPU for the template tests: compute capability cc, 1024 threads a
// block and the given opt-in shared memory; every other limit left unknown
// (0), so a test states each limit its checks depend on.
#include <memtune/model/target.hpp>

#include <cstddef>

inline memtune::Target test_target(int cc, std::size_t smem_optin) {
  memtune::Target t;
  t.name = "test";
  t.cc_major = cc / 10;
  t.cc_minor = cc % 10;
  t.max_threads_per_block = 1024;
  t.smem_per_block_optin = smem_optin;
  return t;
}
