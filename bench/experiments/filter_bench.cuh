// Shared by the filter experiments in this folder: the 21-tap (MEMTUNE_TAPS)
// filter's buffers, taps, reference output (the template's filter_direct,
// block 128) and the same-size copy, so that each experiment holds only its
// variants. Include after templates/filter/filter.cu and cold_timing.cuh.
#pragma once
#include <cstring>
#include <vector>

struct FilterBench {
  int n = 0;
  float *in = nullptr, *out = nullptr, *ref = nullptr;
  std::vector<float> h_ref, h_out;
  float copy_us = 0; // cudaMemcpy of n floats (n read + n written), cold

  FilterBench(int elements, ColdTimer& timer) : n(elements), h_ref(elements), h_out(elements) {
    CHECK(cudaMalloc(&in, 4LL * n));
    CHECK(cudaMalloc(&out, 4LL * n));
    CHECK(cudaMalloc(&ref, 4LL * n));
    fill_kernel<<<1024, 256>>>(in, n);
    float taps[TAPS];
    for (int k = 0; k < TAPS; ++k) taps[k] = 1.0f / (1 + k);
    CHECK(cudaMemcpyToSymbol(memtune_filter_taps, taps, sizeof taps));
    filter_direct<128, 1, 0, 1><<<(n + 511) / 512, 128>>>(in, ref, n, 0);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_ref.data(), ref, 4LL * n, cudaMemcpyDeviceToHost));
    copy_us = timer.median_us([&] { CHECK(cudaMemcpyAsync(out, in, 4LL * n, cudaMemcpyDeviceToDevice)); });
  }
  // The first output that differs in any bit from the reference, or -1.
  long long first_mismatch() {
    CHECK(cudaMemcpy(h_out.data(), out, 4LL * n, cudaMemcpyDeviceToHost));
    if (std::memcmp(h_out.data(), h_ref.data(), 4LL * n) == 0) return -1;
    long long i = 0;
    while (h_out[i] == h_ref[i]) ++i;
    return i;
  }
};
