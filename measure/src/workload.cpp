// The generic workload of a kernel description: inputs, device buffers,
// poisoning, expected outputs and their verification (workload.hpp). Its
// State is in workload_state.hpp; the reference capture and the verification
// in workload_verify.cpp.
#include "workload_state.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace memtune {

namespace {

void poison_buffer(GuardedBuffer& b, ElementType type, CUstream stream) {
  const PoisonPattern p = poison_pattern(type);
  if (p.word) b.fill_u32(p.value, stream);
  else b.fill_u8(static_cast<unsigned char>(p.value), stream);
}

} // namespace

DescribedWorkload::DescribedWorkload(const KernelDescription& description, const Problem& problem, const Target& target,
                                     std::uint64_t seed)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.problem = description.complete(problem);
  s.d = description.resolve_element_types(s.problem);
  if (s.d.verify.mode == VerifySpec::Mode::host_check) s.host_check.emplace(*s.d.verify.host_check, origin_of(s.d));
  s.target = target;
  s.seed = seed;
  std::uint64_t item = 0;
  for (std::size_t i = 0; i < s.d.arguments.size(); ++i) {
    const auto* b = std::get_if<BufferArgument>(&s.d.arguments[i]);
    if (!b) {
      s.buffer_of_argument.push_back(SIZE_MAX);
      continue;
    }
    State::Buffer buffer{b, std::nullopt, {}, 0, 0, 0, nullptr};
    if (b->role == BufferRole::in || b->role == BufferRole::inout) {
      buffer.input = s.inputs.size();
      s.inputs.push_back({b->name, b->type, &b->count, &b->offset, &b->fill, seed + item++,
                          reads_parameter(s.d, b->count) || reads_parameter(s.d, b->offset), {}});
    }
    s.buffer_of_argument.push_back(s.buffers.size());
    s.buffers.push_back(std::move(buffer));
  }
  for (const auto& c : s.d.constants) {
    s.constant_inputs.push_back(s.inputs.size());
    s.inputs.push_back({c.symbol, c.type, &c.count, nullptr, &c.fill, seed + item++, reads_parameter(s.d, c.count), {}});
  }
  // Inputs that are the same for every configuration are sized now, and filled
  // on the host where the GPU cannot fill them (no GPU needed).
  for (std::size_t i = 0; i < s.inputs.size(); ++i) {
    Input& in = s.inputs[i];
    if (!in.count_reads_config && in.fill->depends_on.empty()) (void)s.variant(in, {}, in.name + ".count");
  }
}

DescribedWorkload::~DescribedWorkload() = default;

void DescribedWorkload::upload(const UploadContext& context) {
  State& s = *state_;
  s.context = context;
  s.compare = std::make_shared<const CompareKernel>(context);
  for (auto& b : s.buffers) {
    if (!b.input) continue;
    for (auto& [key, v] : s.inputs[*b.input].variants) s.upload_variant(s.inputs[*b.input], v, b.spec->role == BufferRole::inout);
  }
  s.uploaded = true;
}

std::vector<void*> DescribedWorkload::kernel_args(const search::Config& config) {
  State& s = *state_;
  if (!s.uploaded) throw std::logic_error("DescribedWorkload::kernel_args before upload");
  const search::Config env = s.env(config);
  s.arg_storage.assign(s.d.arguments.size(), {});
  s.arg_pointers.assign(s.d.arguments.size(), nullptr);
  for (std::size_t i = 0; i < s.d.arguments.size(); ++i) {
    const std::string field = "arguments[" + std::to_string(i) + "]";
    auto& storage = s.arg_storage[i];
    s.arg_pointers[i] = storage.data();
    if (const auto* scalar = std::get_if<ScalarArgument>(&s.d.arguments[i])) {
      storage = scalar_bytes(s.d, *scalar, env, field);
      continue;
    }
    State::Buffer& b = s.buffers[s.buffer_of_argument[i]];
    if (b.input) {
      Input::Variant& v = s.variant(s.inputs[*b.input], config, field + ".count (" + b.spec->name + ")");
      s.upload_variant(s.inputs[*b.input], v, b.spec->role == BufferRole::inout);
      b.variant = &v;
      b.count = v.count;
      b.offset = v.offset;
      b.current = v.device.get() + static_cast<CUdeviceptr>(v.offset) * element_size(b.spec->type);
    } else {
      const std::int64_t offset = buffer_offset(s.d, b.spec->offset, env, field);
      const std::int64_t n = buffer_elements(s.d, *b.spec, env, field); // offset + count, its bytes within 63 bits
      const std::size_t bytes = static_cast<std::size_t>(n) * element_size(b.spec->type);
      if (bytes > b.device.bytes()) b.device = GuardedBuffer(bytes);
      b.count = n;
      b.offset = offset;
      b.current = b.device.get() + static_cast<CUdeviceptr>(offset) * element_size(b.spec->type);
    }
    std::memcpy(storage.data(), &b.current, sizeof b.current);
  }
  s.last_config = config;
  return s.arg_pointers;
}

void DescribedWorkload::prepare(CUmodule module, const search::Config& config) {
  State& s = *state_;
  const cuda::DriverApi& cu = cuda::driver_api();
  for (std::size_t i = 0; i < s.d.constants.size(); ++i) {
    const ConstantSymbol& c = s.d.constants[i];
    Input& in = s.inputs[s.constant_inputs[i]];
    const std::vector<std::byte>& host = s.host_bytes(in, s.variant(in, config, "constants[" + std::to_string(i) + "].count"));
    CUdeviceptr address = 0;
    std::size_t bytes = 0;
    const CUresult found = cu.cuModuleGetGlobal(&address, &bytes, module, c.symbol.c_str());
    if (found == CUDA_ERROR_NOT_FOUND)
      throw std::invalid_argument(s.d.name + ": the module has no symbol '" + c.symbol +
                                  "' (constants[" + std::to_string(i) + "]; declare it __constant__ at namespace scope, "
                                  "extern \"C\" or not, with that name)");
    MEMTUNE_CU(found);
    if (bytes != host.size())
      throw std::invalid_argument(s.d.name + ": the symbol '" + c.symbol + "' has " + std::to_string(bytes) +
                                  " bytes in the module, but constants[" + std::to_string(i) + "] gives " +
                                  std::to_string(host.size() / element_size(c.type)) + " x " + to_string(c.type) + " = " +
                                  std::to_string(host.size()) + " bytes");
    if (bytes) MEMTUNE_CU(cu.cuMemcpyHtoD(address, host.data(), bytes));
  }
}

void DescribedWorkload::poison(CUstream stream) {
  State& s = *state_;
  for (auto& b : s.buffers) {
    if (b.spec->role == BufferRole::out) poison_buffer(b.device, b.spec->type, stream);
    if (b.spec->role == BufferRole::scratch) b.device.fill_u8(0, stream);
  }
  s.refill_inout(stream);
}

void DescribedWorkload::before_launch(CUstream stream) { state_->refill_inout(stream); }

bool DescribedWorkload::refills_before_launch() const {
  for (const auto& b : state_->buffers)
    if (b.spec->role == BufferRole::inout) return true;
  return false;
}

bool DescribedWorkload::has_reference() const {
  return state_->d.verify.mode == VerifySpec::Mode::callback || state_->d.verify.mode == VerifySpec::Mode::host_check ||
         !state_->captured.empty();
}

CUdeviceptr DescribedWorkload::buffer(const std::string& name) const {
  const State::Buffer& b = state_->buffers[state_->buffer_index(name)];
  if (b.current) return b.current; // the kernel's pointer (offset included)
  if (b.input && !state_->inputs[*b.input].variants.empty())
    return state_->inputs[*b.input].variants.begin()->second.device.get();
  return b.device.get();
}

std::uint64_t DescribedWorkload::device_bytes(const search::Config& config) const {
  const State& s = *state_;
  const search::Config env = s.env(config);
  // The expected values: a callback's doubles, or a reference's outputs in
  // their own type, once per combination of verify.depends_on's values (at
  // most: an axis may be pruned on this GPU).
  const bool host_expected = s.d.verify.mode == VerifySpec::Mode::callback;
  std::uint64_t expected_copies = 1;
  if (s.d.verify.mode == VerifySpec::Mode::reference_kernel)
    for (const std::string& axis : s.d.verify.depends_on)
      for (const Parameter& p : s.d.parameters)
        if (p.axis.name == axis) expected_copies *= std::max<std::uint64_t>(1, p.axis.values.size());
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const auto& b = *s.buffers[i].spec;
    const std::int64_t n = std::max<std::int64_t>(0, evaluate(s.d, b.count, env, b.name + ".count")) +
                           std::max<std::int64_t>(0, evaluate(s.d, b.offset, env, b.name + ".offset"));
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * element_size(b.type);
    total += bytes;
    if (b.role == BufferRole::inout) total += bytes;                    // the pristine copy
    if (b.role == BufferRole::out || b.role == BufferRole::inout)
      total += static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(lane_count(b.type)) *
               (host_expected ? 8 : element_size(lane_type(b.type)) * expected_copies);
  }
  return total;
}

std::span<const std::byte> DescribedWorkload::host_input(const std::string& name, const search::Config& config) const {
  return state_->input_bytes(name, config);
}

} // namespace memtune
