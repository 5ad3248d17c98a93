// A host check as a user writes one (memtune/description/host_check.h), built into a
// shared library by the tests: `out` must hold in[i] * SCALE for every i.
// (In C the same body works without the extern "C".)
#include <memtune/description/host_check.h>

#include <cstdio>

extern "C" MEMTUNE_HOST_CHECK_EXPORT int check_scaled(const memtune_check_input* in) {
  if (in->abi_version != MEMTUNE_HOST_CHECK_ABI) return -1;
  const memtune_buffer_view* x = memtune_find_buffer(in, "in");
  const memtune_buffer_view* y = memtune_find_buffer(in, "out");
  if (!x || !y || x->lane != MEMTUNE_LANE_F32 || y->lane != MEMTUNE_LANE_F32) {
    snprintf(in->message, in->message_capacity, "expected float buffers 'in' and 'out'");
    return -1;
  }
  const long long scale = memtune_find_value(in, "SCALE", -1);
  if (scale < 0) {
    snprintf(in->message, in->message_capacity, "no SCALE in the configuration");
    return -2;
  }
  const float* a = static_cast<const float*>(x->data) + x->offset;
  const float* b = static_cast<const float*>(y->data) + y->offset;
  for (long long i = 0; i < y->count; ++i)
    if (b[i] != a[i] * static_cast<float>(scale)) {
      snprintf(in->message, in->message_capacity, "out[%lld] = %g, expected %g (n = %lld)", i, b[i], a[i] * static_cast<float>(scale),
               memtune_find_value(in, "n", -1));
      return 0;
    }
  snprintf(in->message, in->message_capacity, "%lld elements checked", y->count);
  return 1;
}
