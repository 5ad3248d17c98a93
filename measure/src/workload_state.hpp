#pragma once
// Internal to DescribedWorkload (workload.hpp): its State (the inputs and
// their variants, the device buffers, the expected outputs), shared by
// workload.cpp (setup, arguments, poisoning) and workload_verify.cpp (the
// reference capture and the verification).
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/measure/workload.hpp>
#include <memtune/measure/device_fill.hpp>
#include <memtune/measure/device_verifier.hpp>

#include <memtune/description/argument_values.hpp>
#include <memtune/description/description_internal.hpp>
#include <memtune/description/fill.hpp>
#include "guarded_buffer.hpp"
#include "host_check_library.hpp"
#include <memtune/description/poison.hpp>
#include <memtune/description/reduced_output.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune {

// Only the two workload files include this header.
using namespace description_detail;

// Named, not anonymous: State (a member of an exported class) holds them, in
// two translation units.
namespace workload_detail {

// The configuration's values of `axes` only: the key of a variant.
inline search::Config restricted(const search::Config& config, const std::vector<std::string>& axes) {
  search::Config key;
  for (const auto& a : axes)
    if (config.has(a)) key.set(a, config.at(a));
  return key;
}

// One input (an in or inout buffer, or a constant symbol) in all the
// variants a run needs: one per value of its fill's depends_on axes and
// element count.
struct Input {
  std::string name;
  ElementType type;
  const search::Expr* count;
  const search::Expr* offset; // buffers: elements in front of the kernel's pointer (allocated and filled too)
  const Fill* fill;
  std::uint64_t seed;
  bool count_reads_config;
  struct Variant {
    std::vector<std::byte> host; // where the GPU fills the device copy (rule): made on first use
    std::size_t bytes = 0;       // offset + count elements
    std::optional<FillRule> rule; // buffers whose fill the GPU can follow (device_fill.hpp)
    std::int64_t count = 0;  // [elements] offset + count
    std::int64_t offset = 0; // [elements]
    GuardedBuffer device;        // buffers: what the kernel gets
    cuda::DeviceBuffer pristine; // inout buffers: the filled data, copied back before every launch
  };
  std::map<search::Config, Variant> variants;
};

struct OutputSegment {
  std::size_t buffer = 0;  // index into State::buffers
  std::int64_t offset = 0; // [elements] from the kernel's pointer (negative: the padding in front of it)
  DeviceVerifier verifier; // over lanes
};

// A reduced comparison's reference value.
struct ReducedReference {
  std::size_t buffer = 0;
  const ReducedOutput* spec = nullptr;
  ReducedValue value;
  std::int64_t count = 0;
};

} // namespace workload_detail

using namespace workload_detail;

struct DescribedWorkload::State {
  KernelDescription d;
  Problem problem;
  Target target;
  std::uint64_t seed;

  struct Buffer {
    const BufferArgument* spec;
    std::optional<std::size_t> input; // index into inputs (in, inout)
    GuardedBuffer device;             // out, scratch: one buffer, grown to the largest count
    std::int64_t count = 0;           // [elements] of the last kernel_args, offset included
    std::int64_t offset = 0;          // [elements] of the last kernel_args in front of the kernel's pointer
    CUdeviceptr current = 0;          // what the kernel got last (the allocation + offset)
    [[nodiscard]] CUdeviceptr base() const { return current - static_cast<CUdeviceptr>(offset) * element_size(spec->type); }
    Input::Variant* variant = nullptr;
  };
  std::vector<Input> inputs;
  std::vector<Buffer> buffers;                 // buffer arguments, in order
  std::vector<std::size_t> buffer_of_argument; // argument index -> buffers index (or SIZE_MAX)
  std::vector<std::size_t> constant_inputs;    // constants[i] -> inputs index
  std::vector<std::array<std::byte, 8>> arg_storage;
  std::vector<void*> arg_pointers;
  search::Config last_config;
  bool uploaded = false;
  UploadContext context;
  std::shared_ptr<const CompareKernel> compare;
  std::optional<FillKernel> fill_kernel; // on the first input the GPU fills
  std::map<search::Config, std::vector<OutputSegment>> expected_by_key; // callback mode, by verify.depends_on
  // Reference modes: what the reference left, by the values of verify.depends_on
  // (one entry without them).
  struct Captured {
    std::vector<OutputSegment> segments;
    std::vector<ReducedReference> reduced; // verify.reduced
  };
  std::map<search::Config, Captured> captured;
  std::optional<HostCheckLibrary> host_check;                           // host_check mode

  search::Config env(const search::Config& config) const {
    return description_detail::environment(d, &config, problem, &target);
  }

  // [elements] offset + count of an input.
  std::int64_t count_of(const Input& in, const search::Config& config, const std::string& field,
                        std::int64_t* offset = nullptr) const {
    const search::Config e = env(config);
    const std::int64_t n = evaluate(d, *in.count, e, field);
    if (n < 0) throw std::invalid_argument(field + " = " + in.count->to_string() + " is " + std::to_string(n));
    const std::int64_t before = in.offset ? buffer_offset(d, *in.offset, e, field) : 0;
    if (offset) *offset = before;
    return n + before;
  }

  Input::Variant& variant(Input& in, const search::Config& config, const std::string& field) {
    search::Config key = restricted(config, in.fill->depends_on);
    std::int64_t offset = 0;
    const std::int64_t count = in.count_reads_config ? count_of(in, config, field, &offset) : -1;
    if (in.count_reads_config) {
      key.set("#count", count);
      key.set("#offset", offset);
    }
    auto it = in.variants.find(key);
    if (it != in.variants.end()) return it->second;
    Input::Variant v;
    v.count = count_of(in, in.count_reads_config ? config : search::Config{}, field, &v.offset);
    v.bytes = static_cast<std::size_t>(v.count) * element_size(in.type);
    if (in.offset) v.rule = fill_rule(*in.fill, in.type, v.count, in.seed); // a buffer: the GPU may fill it
    if (!v.rule) v.host = fill_host(*in.fill, in.type, v.count, FillRequest{problem, restricted(config, in.fill->depends_on), in.seed});
    return in.variants.emplace(std::move(key), std::move(v)).first->second;
  }

  // The variant's values on the host, filled now where the GPU filled them
  // (a rule's fill reads no problem or configuration).
  const std::vector<std::byte>& host_bytes(const Input& in, Input::Variant& v) {
    if (v.rule && v.host.empty()) v.host = fill_host(*in.fill, in.type, v.count, FillRequest{problem, {}, in.seed});
    return v.host;
  }

  // The variant on the GPU: filled there by its rule, else copied.
  void upload_variant(const Input& in, Input::Variant& v, bool pristine_copy) {
    if (v.device.get() || v.bytes == 0) return;
    const cuda::DriverApi& cu = cuda::driver_api();
    v.device = GuardedBuffer(v.bytes);
    if (v.rule) {
      if (!fill_kernel) fill_kernel.emplace(context);
      fill_kernel->fill(v.device.get(), *v.rule, nullptr);
    } else {
      v.device.upload(host_bytes(in, v).data(), v.bytes);
    }
    if (pristine_copy) {
      v.pristine = cuda::DeviceBuffer(v.bytes);
      MEMTUNE_CU(cu.cuMemcpyDtoDAsync(v.pristine.get(), v.device.get(), v.bytes, nullptr));
    }
    MEMTUNE_CU(cu.cuStreamSynchronize(nullptr)); // before any stream of the run reads it
  }

  void refill_inout(CUstream stream) {
    for (auto& b : buffers) {
      if (b.spec->role != BufferRole::inout || !b.variant || b.variant->bytes == 0) continue;
      MEMTUNE_CU(cuda::driver_api().cuMemcpyDtoDAsync(b.variant->device.get(), b.variant->pristine.get(),
                                                      b.variant->bytes, stream));
    }
  }

  std::span<const std::byte> input_bytes(const std::string& name, const search::Config& config) {
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].name == name) return host_bytes(inputs[i], variant(inputs[i], config, name));
    std::string known;
    for (const auto& in : inputs) known += (known.empty() ? "" : ", ") + in.name;
    throw std::out_of_range("'" + name + "' is not a filled input (inputs: " + known + ")");
  }

  std::size_t buffer_index(const std::string& name) const {
    for (std::size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].spec->name == name) return i;
    throw std::out_of_range("'" + name + "' is not a buffer argument of " + d.name);
  }

  // Callback mode: the expected outputs for the last configuration.
  std::vector<OutputSegment>& callback_expected() {
    const search::Config key = restricted(last_config, d.verify.depends_on);
    auto it = expected_by_key.find(key);
    if (it != expected_by_key.end()) return it->second;
    const search::Config full = last_config;
    const ReferenceRequest request{problem, key, [&](const std::string& name) { return input_bytes(name, full); }};
    std::vector<OutputSegment> segments;
    for (const ExpectedOutput& e : d.verify.callback(request)) {
      const std::size_t b = buffer_index(e.buffer);
      if (buffers[b].spec->role != BufferRole::out && buffers[b].spec->role != BufferRole::inout)
        throw std::invalid_argument("the reference of " + d.name + " gives values for '" + e.buffer +
                                    "', which is not an out or inout buffer");
      if (e.values.size() % static_cast<std::size_t>(lane_count(buffers[b].spec->type)) != 0)
        throw std::invalid_argument("the reference of " + d.name + " gives " + std::to_string(e.values.size()) +
                                    " values for '" + e.buffer + "', not whole elements of " + to_string(buffers[b].spec->type));
      segments.push_back({b, e.offset,
                          DeviceVerifier(e.values, buffers[b].spec->type, e.tolerance, compare, buffers[b].spec->partial)});
    }
    return expected_by_key.emplace(key, std::move(segments)).first->second;
  }
};

} // namespace memtune
