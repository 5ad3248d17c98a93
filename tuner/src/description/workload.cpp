// The generic workload of a kernel description: inputs, device buffers,
// poisoning, expected outputs and their verification (workload.hpp).
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/description/workload.hpp>
#include <memtune/device_verifier.hpp>

#include "argument_values.hpp"
#include "description_internal.hpp"
#include "fill.hpp"
#include "guarded_buffer.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace memtune {

using namespace description_detail;

namespace {

constexpr unsigned kFloatNaN = 0x7FC00000U;     // a quiet NaN, as the templates always poisoned
constexpr unsigned char kDoubleNaNByte = 0xFF;  // 0xFF...FF is a NaN as a double
constexpr unsigned char kIntegerPoison = 0xA5;

// The configuration's values of `axes` only: the key of a variant.
search::Config restricted(const search::Config& config, const std::vector<std::string>& axes) {
  search::Config key;
  for (const auto& a : axes)
    if (config.has(a)) key.set(a, config.at(a));
  return key;
}

void poison_buffer(GuardedBuffer& b, ElementType type, CUstream stream) {
  if (type == ElementType::f32) b.fill_u32(kFloatNaN, stream);
  else if (type == ElementType::f64) b.fill_u8(kDoubleNaNByte, stream);
  else b.fill_u8(kIntegerPoison, stream);
}

// One input (an in or inout buffer, or a constant symbol) in all the
// variants a run needs: one per value of its fill's depends_on axes and
// element count.
struct Input {
  std::string name;
  ElementType type;
  const search::Expr* count;
  const Fill* fill;
  std::uint64_t seed;
  bool count_reads_config;
  struct Variant {
    std::vector<std::byte> host;
    std::int64_t count = 0;
    GuardedBuffer device;        // buffers: what the kernel gets
    cuda::DeviceBuffer pristine; // inout buffers: the filled data, copied back before every launch
  };
  std::map<search::Config, Variant> variants;
};

struct OutputSegment {
  std::size_t buffer = 0; // index into State::buffers
  std::int64_t offset = 0;
  DeviceVerifier verifier;
};

} // namespace

struct DescribedWorkload::State {
  KernelDescription d;
  Problem problem;
  Target target;
  std::uint64_t seed;

  struct Buffer {
    const BufferArgument* spec;
    std::optional<std::size_t> input; // index into inputs (in, inout)
    GuardedBuffer device;             // out, scratch: one buffer, grown to the largest count
    std::int64_t count = 0;           // of the last kernel_args
    CUdeviceptr current = 0;          // what the kernel got last
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
  std::map<search::Config, std::vector<OutputSegment>> expected_by_key; // callback mode, by verify.depends_on
  std::vector<OutputSegment> captured;                                  // reference modes
  bool has_captured = false;

  search::Config env(const search::Config& config) const {
    return description_detail::environment(d, &config, problem, &target);
  }

  std::int64_t count_of(const Input& in, const search::Config& config, const std::string& field) const {
    const std::int64_t n = evaluate(d, *in.count, env(config), field);
    if (n < 0) throw std::invalid_argument(field + " = " + in.count->to_string() + " is " + std::to_string(n));
    return n;
  }

  Input::Variant& variant(Input& in, const search::Config& config, const std::string& field) {
    search::Config key = restricted(config, in.fill->depends_on);
    const std::int64_t count = in.count_reads_config ? count_of(in, config, field) : -1;
    if (in.count_reads_config) key.set("#count", count);
    auto it = in.variants.find(key);
    if (it != in.variants.end()) return it->second;
    Input::Variant v;
    v.count = in.count_reads_config ? count : count_of(in, {}, field);
    const search::Config fill_config = restricted(config, in.fill->depends_on);
    v.host = fill_host(*in.fill, in.type, v.count, FillRequest{problem, fill_config, in.seed});
    return in.variants.emplace(std::move(key), std::move(v)).first->second;
  }

  static void upload_variant(Input::Variant& v, bool pristine_copy) {
    if (v.device.get() || v.host.empty()) return;
    v.device = GuardedBuffer(v.host.size());
    v.device.upload(v.host.data(), v.host.size());
    if (pristine_copy) {
      v.pristine = cuda::DeviceBuffer(v.host.size());
      v.pristine.upload(v.host.data(), v.host.size());
    }
  }

  void refill_inout(CUstream stream) {
    for (auto& b : buffers) {
      if (b.spec->role != BufferRole::inout || !b.variant || b.variant->host.empty()) continue;
      MEMTUNE_CU(cuda::driver_api().cuMemcpyDtoDAsync(b.variant->device.get(), b.variant->pristine.get(),
                                                      b.variant->host.size(), stream));
    }
  }

  std::span<const std::byte> input_bytes(const std::string& name, const search::Config& config) {
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].name == name) return variant(inputs[i], config, name).host;
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
      segments.push_back({b, e.offset, DeviceVerifier(e.values, buffers[b].spec->type, e.tolerance, compare)});
    }
    return expected_by_key.emplace(key, std::move(segments)).first->second;
  }
};

DescribedWorkload::DescribedWorkload(const KernelDescription& description, const Problem& problem, const Target& target,
                                     std::uint64_t seed)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.d = description;
  s.problem = description.complete(problem);
  s.target = target;
  s.seed = seed;
  std::uint64_t item = 0;
  for (std::size_t i = 0; i < s.d.arguments.size(); ++i) {
    const auto* b = std::get_if<BufferArgument>(&s.d.arguments[i]);
    if (!b) {
      s.buffer_of_argument.push_back(SIZE_MAX);
      continue;
    }
    State::Buffer buffer{b, std::nullopt, {}, 0, 0, nullptr};
    if (b->role == BufferRole::in || b->role == BufferRole::inout) {
      buffer.input = s.inputs.size();
      s.inputs.push_back({b->name, b->type, &b->count, &b->fill, seed + item++, reads_parameter(s.d, b->count), {}});
    }
    s.buffer_of_argument.push_back(s.buffers.size());
    s.buffers.push_back(std::move(buffer));
  }
  for (const auto& c : s.d.constants) {
    s.constant_inputs.push_back(s.inputs.size());
    s.inputs.push_back({c.symbol, c.type, &c.count, &c.fill, seed + item++, reads_parameter(s.d, c.count), {}});
  }
  // Inputs that are the same for every configuration are filled now (no GPU needed).
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
    for (auto& [key, v] : s.inputs[*b.input].variants) State::upload_variant(v, b.spec->role == BufferRole::inout);
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
      State::upload_variant(v, b.spec->role == BufferRole::inout);
      b.variant = &v;
      b.count = v.count;
      b.current = v.device.get();
    } else {
      const std::int64_t n = buffer_count(s.d, *b.spec, env, field);
      const std::size_t bytes = static_cast<std::size_t>(n) * element_size(b.spec->type);
      if (bytes > b.device.bytes()) b.device = GuardedBuffer(bytes);
      b.count = n;
      b.current = b.device.get();
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
    const std::vector<std::byte>& host = s.variant(s.inputs[s.constant_inputs[i]], config, "constants[" + std::to_string(i) + "].count").host;
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

Verification DescribedWorkload::verify(CUstream stream) {
  State& s = *state_;
  std::vector<OutputSegment>* segments = nullptr;
  if (s.d.verify.mode == VerifySpec::Mode::callback) segments = &s.callback_expected();
  else if (s.has_captured) segments = &s.captured;
  else throw std::logic_error("DescribedWorkload::verify before capture_reference");

  Verification all;
  all.ok = true;
  for (OutputSegment& seg : *segments) {
    const State::Buffer& b = s.buffers[seg.buffer];
    const std::int64_t end = seg.offset + seg.verifier.size();
    if (seg.offset < 0 || end > b.count) {
      all.ok = false;
      all.buffer = b.spec->name;
      all.note = "the expected values of '" + b.spec->name + "' cover elements [" + std::to_string(seg.offset) + ", " +
                 std::to_string(end) + "), but this configuration's buffer has " + std::to_string(b.count);
      all.max_abs_error = INFINITY;
      all.bad_count += seg.verifier.size();
      continue;
    }
    const CUdeviceptr at = b.current + static_cast<CUdeviceptr>(seg.offset) * element_size(b.spec->type);
    const Verification v = seg.verifier.verify(at, stream);
    all.max_abs_error = std::max(all.max_abs_error, v.max_abs_error);
    all.bad_count += v.bad_count;
    if (!v.ok && all.ok) { // the first failing segment names the buffer and the element
      all.ok = false;
      all.buffer = b.spec->name;
      all.first_bad = seg.offset + v.first_bad;
      all.tolerance = v.tolerance;
    }
    if (all.ok) all.tolerance = std::max(all.tolerance, v.tolerance);
  }
  // A write past a buffer's end changed its guard region, not a neighbour.
  for (auto& b : s.buffers) {
    GuardedBuffer* guarded = b.input ? (b.variant ? &b.variant->device : nullptr) : &b.device;
    if (!guarded || !guarded->get()) continue;
    if (const auto where = guarded->check(stream)) {
      all.ok = false;
      if (all.buffer.empty()) all.buffer = b.spec->name;
      all.note += (all.note.empty() ? "" : "; ") + std::string("the kernel wrote outside '") + b.spec->name +
                  "': " + *where + " changed (memtune guards every buffer; without the guards these writes land in "
                  "another buffer)";
    }
  }
  return all;
}

std::optional<std::string> DescribedWorkload::capture_reference(CUstream stream) {
  State& s = *state_;
  MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(stream));
  std::vector<OutputSegment> segments;
  std::string unwritten;
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const State::Buffer& b = s.buffers[i];
    if (b.spec->role != BufferRole::out && b.spec->role != BufferRole::inout) continue;
    const ElementType type = b.spec->type;
    std::vector<std::byte> raw(static_cast<std::size_t>(b.count) * element_size(type));
    if (!raw.empty()) MEMTUNE_CU(cuda::driver_api().cuMemcpyDtoH(raw.data(), b.current, raw.size()));
    std::vector<double> values(static_cast<std::size_t>(b.count));
    std::int64_t poisoned = 0;
    with_element_type(type, [&](auto zero) {
      using T = decltype(zero);
      T poison{};
      std::memset(&poison, kIntegerPoison, sizeof poison);
      for (std::size_t k = 0; k < values.size(); ++k) {
        T x;
        std::memcpy(&x, raw.data() + k * sizeof(T), sizeof(T));
        values[k] = static_cast<double>(x);
        if (b.spec->role != BufferRole::out) continue; // inout buffers are filled, never poisoned
        if constexpr (std::is_floating_point_v<T>) poisoned += std::isnan(x) ? 1 : 0;
        else poisoned += x == poison ? 1 : 0;
      }
    });
    // An integer element may equal the 0xA5 pattern by right; for 1- and
    // 2-byte integers that is likely, so only an output left entirely
    // poisoned counts there.
    const bool narrow = !is_floating(type) && element_size(type) < 4;
    if (poisoned > 0 && (!narrow || poisoned == b.count))
      unwritten += (unwritten.empty() ? "" : "; ") + std::to_string(poisoned) + " of the " + std::to_string(b.count) +
                   " elements of '" + b.spec->name + "'";
    segments.push_back({i, 0, DeviceVerifier(values, type, s.d.verify.tolerance, s.compare)});
  }
  if (!unwritten.empty())
    return "the reference left " + unwritten + " unwritten (still poisoned" +
           std::string(s.d.verify.mode == VerifySpec::Mode::reference_config ? "): a reference configuration must write every output"
                                                                           : "): the reference kernel must write every output");
  s.captured = std::move(segments);
  s.has_captured = true;
  return std::nullopt;
}

bool DescribedWorkload::has_reference() const {
  return state_->d.verify.mode == VerifySpec::Mode::callback || state_->has_captured;
}

CUdeviceptr DescribedWorkload::buffer(const std::string& name) const {
  const State::Buffer& b = state_->buffers[state_->buffer_index(name)];
  if (b.current) return b.current;
  if (b.input && !state_->inputs[*b.input].variants.empty())
    return state_->inputs[*b.input].variants.begin()->second.device.get();
  return b.device.get();
}

std::uint64_t DescribedWorkload::device_bytes(const search::Config& config) const {
  const State& s = *state_;
  const search::Config env = s.env(config);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const auto& b = *s.buffers[i].spec;
    const std::int64_t n = std::max<std::int64_t>(0, evaluate(s.d, b.count, env, b.name + ".count"));
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * element_size(b.type);
    total += bytes;
    if (b.role == BufferRole::inout) total += bytes;                    // the pristine copy
    if (b.role == BufferRole::out || b.role == BufferRole::inout) total += static_cast<std::uint64_t>(n) * 8; // expected
  }
  return total;
}

std::span<const std::byte> DescribedWorkload::host_input(const std::string& name, const search::Config& config) const {
  return state_->input_bytes(name, config);
}

} // namespace memtune
