// The kernel of journal_space.json: a scaled copy over an 8 x 8 space. The
// journal tests answer its candidates with a test evaluator; it is only compiled.
template <int A, int B>
__global__ void journal_space(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (A + B);
}
