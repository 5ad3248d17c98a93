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
#include "host_check_library.hpp"
#include "poison.hpp"
#include "reduced_output.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace memtune {

using namespace description_detail;

namespace {

// The configuration's values of `axes` only: the key of a variant.
search::Config restricted(const search::Config& config, const std::vector<std::string>& axes) {
  search::Config key;
  for (const auto& a : axes)
    if (config.has(a)) key.set(a, config.at(a));
  return key;
}

void poison_buffer(GuardedBuffer& b, ElementType type, CUstream stream) {
  const PoisonPattern p = poison_pattern(type);
  if (p.word) b.fill_u32(p.value, stream);
  else b.fill_u8(static_cast<unsigned char>(p.value), stream);
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
    std::vector<std::byte> host;
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
  std::map<search::Config, std::vector<OutputSegment>> expected_by_key; // callback mode, by verify.depends_on
  std::vector<OutputSegment> captured;                                  // reference modes
  std::vector<ReducedReference> captured_reduced;                       // reference modes, verify.reduced
  bool has_captured = false;
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
      if (e.values.size() % static_cast<std::size_t>(lane_count(buffers[b].spec->type)) != 0)
        throw std::invalid_argument("the reference of " + d.name + " gives " + std::to_string(e.values.size()) +
                                    " values for '" + e.buffer + "', not whole elements of " + to_string(buffers[b].spec->type));
      segments.push_back({b, e.offset,
                          DeviceVerifier(e.values, buffers[b].spec->type, e.tolerance, compare, buffers[b].spec->partial)});
    }
    return expected_by_key.emplace(key, std::move(segments)).first->second;
  }
};

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
      b.offset = v.offset;
      b.current = v.device.get() + static_cast<CUdeviceptr>(v.offset) * element_size(b.spec->type);
    } else {
      const std::int64_t offset = buffer_offset(s.d, b.spec->offset, env, field);
      const std::int64_t n = buffer_count(s.d, *b.spec, env, field) + offset;
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

namespace {

// The first `count` elements from `at`, downloaded.
std::vector<std::byte> download(CUdeviceptr at, std::int64_t count, ElementType type) {
  std::vector<std::byte> bytes(static_cast<std::size_t>(count) * element_size(type));
  if (!bytes.empty()) MEMTUNE_CU(cuda::driver_api().cuMemcpyDtoH(bytes.data(), at, bytes.size()));
  return bytes;
}

// `v` folded into `all`: the first failure names the buffer and the element.
void merge(Verification& all, const Verification& v, const std::string& buffer, std::int64_t element_offset) {
  all.max_abs_error = std::max(all.max_abs_error, v.max_abs_error);
  all.bad_count += v.bad_count;
  if (!v.ok && all.ok) {
    all.ok = false;
    all.buffer = buffer;
    all.first_bad = v.first_bad < 0 ? -1 : element_offset + v.first_bad;
    all.tolerance = v.tolerance;
    if (!v.note.empty()) all.note += (all.note.empty() ? "" : "; ") + v.note;
  }
  if (all.ok) all.tolerance = std::max(all.tolerance, v.tolerance);
}

} // namespace

Verification DescribedWorkload::verify(CUstream stream) {
  State& s = *state_;
  Verification all;
  all.ok = true;
  if (s.d.verify.mode == VerifySpec::Mode::host_check) {
    MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(stream));
    std::vector<std::vector<std::byte>> copies;
    std::vector<description_detail::HostBufferView> views;
    copies.reserve(s.buffers.size()); // the views point into it
    for (const State::Buffer& b : s.buffers) {
      // Inputs as filled (the kernel only reads them); outputs and scratch as the launch left them.
      std::span<const std::byte> bytes;
      if (b.spec->role == BufferRole::in && b.variant) {
        bytes = b.variant->host;
      } else {
        copies.push_back(b.current ? download(b.base(), b.count, b.spec->type) : std::vector<std::byte>{});
        bytes = copies.back();
      }
      views.push_back({b.spec, bytes, b.current ? b.offset : 0, b.current ? b.count - b.offset : 0});
    }
    search::Config parameters;
    for (const auto& [name, value] : s.last_config.values())
      if (name.empty() || name.front() != '#') parameters.set(name, value);
    all = s.host_check->run(s.problem, parameters, views);
  } else {
    std::vector<OutputSegment>* segments = nullptr;
    if (s.d.verify.mode == VerifySpec::Mode::callback) segments = &s.callback_expected();
    else if (s.has_captured) segments = &s.captured;
    else throw std::logic_error("DescribedWorkload::verify before capture_reference");
    for (OutputSegment& seg : *segments) {
      const State::Buffer& b = s.buffers[seg.buffer];
      const std::int64_t elements = seg.verifier.size() / lane_count(b.spec->type);
      const std::int64_t end = seg.offset + elements;
      if (seg.offset < -b.offset || end > b.count - b.offset) {
        all.ok = false;
        all.buffer = b.spec->name;
        all.note = "the expected values of '" + b.spec->name + "' cover elements [" + std::to_string(seg.offset) + ", " +
                   std::to_string(end) + "), but this configuration's buffer has " + std::to_string(b.count - b.offset) +
                   (b.offset ? " (and " + std::to_string(b.offset) + " in front)" : "");
        all.max_abs_error = INFINITY;
        all.bad_count += seg.verifier.size();
        continue;
      }
      const CUdeviceptr at = b.current + static_cast<CUdeviceptr>(seg.offset * static_cast<std::int64_t>(element_size(b.spec->type)));
      const Verification v = seg.verifier.verify(at, stream);
      // first_bad counts lanes from `at`: as an element of the kernel's buffer.
      Verification element = v;
      if (v.first_bad >= 0) element.first_bad = v.first_bad / lane_count(b.spec->type);
      merge(all, element, b.spec->name, seg.offset);
    }
    for (const ReducedReference& r : s.captured_reduced) {
      const State::Buffer& b = s.buffers[r.buffer];
      const std::int64_t count = reduced_count(s.d, *r.spec, s.env(s.last_config), b.count - b.offset);
      MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(stream));
      const std::vector<std::byte> bytes = download(b.current, count, b.spec->type);
      const auto got = description_detail::reduce_output(r.spec->op, b.spec->type, bytes, count);
      merge(all, description_detail::compare_reduced(*r.spec, b.spec->type, got, count, r.value, r.count), b.spec->name, 0);
    }
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
  std::vector<ReducedReference> reduced;
  std::string unwritten;
  const auto reduced_spec = [&](const std::string& name) -> const ReducedOutput* {
    for (const ReducedOutput& r : s.d.verify.reduced)
      if (r.buffer == name) return &r;
    return nullptr;
  };
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const State::Buffer& b = s.buffers[i];
    if (b.spec->role != BufferRole::out && b.spec->role != BufferRole::inout) continue;
    const ElementType type = b.spec->type;
    if (const ReducedOutput* r = reduced_spec(b.spec->name)) {
      const std::int64_t count = reduced_count(s.d, *r, s.env(s.last_config), b.count - b.offset);
      const std::vector<std::byte> bytes = download(b.current, count, type);
      const auto value = description_detail::reduce_output(r->op, type, bytes, count);
      if (value.unwritten > 0)
        unwritten += (unwritten.empty() ? "" : "; ") + std::to_string(value.unwritten) + " of the first " +
                     std::to_string(count) + " elements of '" + b.spec->name + "' (reduced: " + to_string(r->op) + ")";
      reduced.push_back({i, r, value, count});
      continue;
    }
    // An out buffer is compared from the kernel's pointer; one written in
    // part, and an inout one, from the allocation's start: a stray write into
    // the padding in front differs there from the reference's poison or fill.
    const std::int64_t from = b.spec->role == BufferRole::out && !b.spec->partial ? b.offset : 0;
    const std::vector<std::byte> raw =
        download(b.base() + static_cast<CUdeviceptr>(from) * element_size(type), b.count - from, type);
    const ElementType lane = lane_type(type);
    const std::size_t lane_bytes = element_size(lane);
    std::vector<double> values(raw.size() / lane_bytes);
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = lane_value(lane, raw.data() + k * lane_bytes);
    // inout buffers are filled, never poisoned. An integer lane may equal the
    // 0xA5 pattern by right; for 1- and 2-byte integers that is likely, so
    // only an output left entirely poisoned counts there, as for one written in part.
    const std::int64_t poisoned = b.spec->role == BufferRole::out ? description_detail::poisoned_lanes(type, raw) : 0;
    const auto lanes = static_cast<std::int64_t>(values.size());
    const bool whole_only = b.spec->partial || description_detail::poison_is_ambiguous(type);
    if (poisoned > 0 && (!whole_only || poisoned == lanes))
      unwritten += (unwritten.empty() ? "" : "; ") + std::to_string(poisoned) + " of the " + std::to_string(lanes) +
                   " values of '" + b.spec->name + "'";
    segments.push_back({i, from - b.offset, DeviceVerifier(values, type, tolerance_for(s.d.verify, type), s.compare, b.spec->partial)});
  }
  if (!unwritten.empty())
    return "the reference left " + unwritten + " unwritten (still poisoned" +
           std::string(s.d.verify.mode == VerifySpec::Mode::reference_config
                           ? "): a reference configuration must write every output (mark one written in part \"partial\": true)"
                           : "): the reference kernel must write every output (mark one written in part \"partial\": true)");
  s.captured = std::move(segments);
  s.captured_reduced = std::move(reduced);
  s.has_captured = true;
  return std::nullopt;
}

bool DescribedWorkload::has_reference() const {
  return state_->d.verify.mode == VerifySpec::Mode::callback || state_->d.verify.mode == VerifySpec::Mode::host_check ||
         state_->has_captured;
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
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    const auto& b = *s.buffers[i].spec;
    const std::int64_t n = std::max<std::int64_t>(0, evaluate(s.d, b.count, env, b.name + ".count")) +
                           std::max<std::int64_t>(0, evaluate(s.d, b.offset, env, b.name + ".offset"));
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * element_size(b.type);
    total += bytes;
    if (b.role == BufferRole::inout) total += bytes;                    // the pristine copy
    if (b.role == BufferRole::out || b.role == BufferRole::inout) // expected, one double per lane
      total += static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(lane_count(b.type)) * 8;
  }
  return total;
}

std::span<const std::byte> DescribedWorkload::host_input(const std::string& name, const search::Config& config) const {
  return state_->input_bytes(name, config);
}

} // namespace memtune
