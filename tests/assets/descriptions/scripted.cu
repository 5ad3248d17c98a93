// The kernel of scripted.json: a copy. Which way a candidate fails is decided
// by the scripted test worker (tests/support/scripted_worker.cpp)
// from BEHAVIOUR, not by this code, which never runs on a GPU in those tests.
template <int BEHAVIOUR, int BLOCK>
__global__ void scripted(float* out, const float* in, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = in[i];
}
