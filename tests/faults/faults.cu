// The fault corpus (tests/faults/faults.json): one kernel template, one fault
// per value of the Fault parameter, and `none`, the good kernel
// (out = 2 in + 1) every fault is compared against. A tuning run over the
// description's space mixes every fault with good candidates; each bad one
// must end with its status and a reason, and the run must go on.
enum Fault {
  none,
  compile_error,           // compile_failed: a static_assert in this instantiation only
  too_much_shared_memory,  // exceeds_device_limits: 1 MiB of dynamic shared memory per block (the description's launch)
  too_many_threads,        // exceeds_device_limits: blocks of 2048 threads (the description's launch)
  too_many_registers,      // exceeds_device_limits: ~100 registers per thread x 1024 threads > the register file
  launch_bounds,           // exceeds_device_limits: __launch_bounds__(256) launched with 512 threads (bounded_kernel; known from the CUBIN, before any launch)
  illegal_read,            // launch_failed: CUDA_ERROR_ILLEGAL_ADDRESS
  illegal_write,           // launch_failed: CUDA_ERROR_ILLEGAL_ADDRESS
  misaligned,              // launch_failed: CUDA_ERROR_MISALIGNED_ADDRESS (a v4.f32 load from in + 1)
  trap,                    // launch_failed: __trap()
  assert_fails,            // launch_failed: CUDA_ERROR_ASSERT (a device-side assert)
  infinite_loop,           // timeout: killed by the watchdog with its worker
  wrong_result,            // wrong_result: out = 2 in + 1.5
  nan_output,              // wrong_result: one NaN
  unwritten_output,        // wrong_result: the last element never written (still poisoned)
  changes_between_launches,// wrong_result: right on the first launch only (state kept across launches, as a race whose outcome varies)
  write_past_end,          // wrong_result: 64 floats written past the end of out, into its guard region
};

__device__ unsigned launches_seen; // per loaded module: zero at load

template <Fault F>
__device__ void body(float* out, const float* in, int n) {
  static_assert(F != compile_error, "fault corpus: this candidate must not compile");
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (F == infinite_loop) {
    // Inputs are in [-1, 1]: never 2. A volatile read keeps the loop (an empty one may be removed).
    while (*reinterpret_cast<const volatile float*>(in) != 2.0f) {
    }
  }
  if (F == illegal_read && i == 0) out[0] = *reinterpret_cast<const volatile float*>(in + (1ll << 40));
  if (F == illegal_write && i == 0) *reinterpret_cast<volatile float*>(out + (1ll << 40)) = 1.0f;
  if (F == misaligned && i == 0) {
    // A 16-byte vector load from a 4-byte aligned address. Written in PTX:
    // from C++ (a float4 read of in + 1) the compiler may split the load into
    // the scalar loads of the components it needs, which are aligned and run.
    float a, b, c, d;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
                 : "l"(in + 1));
    out[0] = a + b + c + d;
  }
  if (F == trap && i == 0) __trap();
  // What assert() expands to in device code (NVRTC declares it; it has no <cassert>).
  if (F == assert_fails && i == 0) __assertfail("fault corpus: this assert fails", __FILE__, __LINE__, __func__, sizeof(char));
  if (F == too_many_registers && i < n) {
    // ~96 loads in flight per thread, all needed at the end: about 100 registers.
    float v[96];
#pragma unroll
    for (int k = 0; k < 96; ++k) v[k] = in[(i + k * 977) % n];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 96; ++k) s += v[k] * v[95 - k];
    out[i] = 2.0f * in[i] + 1.0f + 0.0f * s;
    return;
  }
  if (i >= n) return;
  float r = 2.0f * in[i] + 1.0f;
  if (F == wrong_result) r = 2.0f * in[i] + 1.5f;
  if (F == nan_output && i == n / 2) r = __int_as_float(0x7fc00000);
  if (F == changes_between_launches && i == 0) {
    if (atomicAdd(&launches_seen, 1u) > 0) r += 1.0f;
  }
  if (F == unwritten_output && i == n - 1) return;
  out[i] = r;
  if (F == write_past_end && i >= n - 64) out[i + 64] = r;
}

template <Fault F>
__global__ void fault_kernel(float* out, const float* in, int n) {
  body<F>(out, in, n);
}

// The same with __launch_bounds__(256): launched with more threads, it cannot run.
template <Fault F>
__global__ void __launch_bounds__(256) bounded_kernel(float* out, const float* in, int n) {
  body<F>(out, in, n);
}
