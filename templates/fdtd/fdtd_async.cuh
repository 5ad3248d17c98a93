// Part of templates/fdtd/fdtd.cu (included there, inlined when embedded):
// the PTX helpers of fdtd_ring (cp.async, mbarriers, bulk copies).
// The helpers below use PTX and so exist for CUDA compilers only (nvcc,
// NVRTC); the CPU emulation test (tests/templates/cuda_emulation.hpp)
// compiles this file as plain C++ and supplies its own.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// The block's dynamic shared memory.
template <class T> __device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ float4 memtune_smem[];
  return reinterpret_cast<T*>(memtune_smem);
}
// fdtd_ring addresses its ring by shared-space byte addresses (32-bit): a
// generic pointer into dynamic shared memory makes the compiler rebuild the
// shared window's base before every access.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
template <int V> __device__ __forceinline__ void load_shared(unsigned a, float (&v)[V]);
template <> __device__ __forceinline__ void load_shared<4>(unsigned a, float (&v)[4]) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "r"(a));
}
template <> __device__ __forceinline__ void load_shared<2>(unsigned a, float (&v)[2]) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v[0]), "=f"(v[1]) : "r"(a));
}
template <> __device__ __forceinline__ void load_shared<1>(unsigned a, float (&v)[1]) {
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v[0]) : "r"(a));
}
// V zero floats at shared address a.
template <int V> __device__ __forceinline__ void store_shared_zero(unsigned a);
template <> __device__ __forceinline__ void store_shared_zero<4>(unsigned a) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(a), "f"(0.0f) : "memory");
}
template <> __device__ __forceinline__ void store_shared_zero<2>(unsigned a) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %1};" ::"r"(a), "f"(0.0f) : "memory");
}
template <> __device__ __forceinline__ void store_shared_zero<1>(unsigned a) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(0.0f) : "memory");
}
// 16 bytes from global src to shared address d, or 16 zero bytes when `zero`
// (src is not read then; the predicate form costs no address arithmetic).
__device__ __forceinline__ void cp_async16_or_zero_at(unsigned d, const void* src, bool zero) {
  asm volatile("{\n .reg .pred z;\n setp.ne.b32 z, %2, 0;\n cp.async.cg.shared.global [%0], [%1], 16, z;\n}" ::"r"(d),
               "l"(src), "r"(static_cast<int>(zero))
               : "memory");
}
// BYTES (4 or 8) from OFF floats past global src to OFF floats past shared
// address d (both BYTES-aligned there), where left > OFF (nothing
// otherwise). The predicate and the offset are the instruction's own, so
// that a row's copies share their two address operands and need no branch.
// (A C++ condition around a plain copy of src + OFF gave each copy its own
// 64-bit address, a branch, and three placeholder shared loads ahead of each
// run of copies: about 22 instructions a row of three copies, against 8.)
template <int BYTES, int OFF> __device__ __forceinline__ void cp_async_if_at(unsigned d, const void* src, int left) {
  asm volatile("{\n .reg .pred p;\n setp.gt.s32 p, %2, %3;\n @p cp.async.ca.shared.global [%0+%4], [%1+%4], %5;\n}" ::"r"(d),
               "l"(src), "r"(left), "n"(OFF), "n"(4 * OFF), "n"(BYTES)
               : "memory");
}
// v to the float OFF floats past global p, where left > OFF (nothing
// otherwise): the predicate and the offset are the instruction's own, as in
// cp_async_if_at, so that a thread's stores to one row share its address
// and need no branch.
template <int OFF> __device__ __forceinline__ void store_float_if(float* p, float v, int left) {
  asm volatile("{\n .reg .pred p;\n setp.gt.s32 p, %2, %3;\n @p st.global.f32 [%0+%4], %1;\n}" ::"l"(p), "f"(v),
               "r"(left), "n"(OFF), "n"(4 * OFF)
               : "memory");
}
// The pair (a, b) to OFF floats past global p (8-byte aligned there), where left > OFF.
template <int OFF> __device__ __forceinline__ void store_pair_if(float* p, float a, float b, int left) {
  asm volatile("{\n .reg .pred p;\n setp.gt.s32 p, %3, %4;\n @p st.global.v2.f32 [%0+%5], {%1, %2};\n}" ::"l"(p),
               "f"(a), "f"(b), "r"(left), "n"(OFF), "n"(4 * OFF)
               : "memory");
}
// mbarriers and bulk copies (sm_90), for fdtd_ring with COPY 1 and 2. A barrier
// is named by its shared-space address (32-bit): converting a pointer to a
// __shared__ variable costs the shared window's base at every use.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialised mbarriers visible to the copy engine.
__device__ __forceinline__ void mbarrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Arrives on the barrier and expects `bytes` of copies to complete its phase.
__device__ __forceinline__ void mbarrier_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// Waits for the completion of the barrier's phase of this parity.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  }
}
// bytes (a multiple of 16) from global src to shared address dst (both
// 16-byte aligned) by the copy engine; completion is counted on the mbarrier.
// The instruction takes its operands from uniform registers: where the
// compiler cannot tell that they are the same in every lane that copies, it
// wraps the copy in a loop over those lanes (about 23 instructions a copy).
__device__ __forceinline__ void bulk_load_at(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
// v from the warp's first active lane: the compiler then knows the value is
// the same in every lane and keeps what is computed from it in uniform
// registers.
__device__ __forceinline__ int warp_uniform(int v) { return __shfl_sync(__activemask(), v, __ffs(__activemask()) - 1); }
// True in one active lane of the warp (elect.sync, sm_90): with uniform
// operands, the compiler then issues a bulk copy without a loop over lanes.
__device__ __forceinline__ bool elect_one_lane() {
  unsigned elected;
  asm volatile("{\n .reg .pred p;\n elect.sync _|p, %1;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(elected) : "r"(__activemask()));
  return elected != 0;
}
// Orders this thread's ordinary shared-memory writes before later bulk copies into the same memory.
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// Closes this thread's current group of cp_async copies.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most N of this thread's groups are still in flight.
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
#endif
