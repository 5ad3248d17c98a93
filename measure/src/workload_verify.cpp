// DescribedWorkload's verification (workload.hpp): capturing the reference
// run's outputs, and comparing a launch's outputs with them (or with the
// callback's expected values, or through a host check), guards included.
#include "workload_state.hpp"

#include <memtune/measure/reference_run.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace memtune {

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

// "layout=1, items=4": a depends_on combination in messages.
std::string values_text(const search::Config& key) {
  std::string text;
  for (const auto& [name, value] : key.values()) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text.empty() ? "this run" : text;
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
    std::vector<ReducedReference>* reduced = nullptr;
    if (s.d.verify.mode == VerifySpec::Mode::callback) {
      segments = &s.callback_expected();
    } else {
      if (s.captured.empty()) throw std::logic_error("DescribedWorkload::verify before capture_reference");
      const search::Config key = restricted(s.last_config, s.d.verify.depends_on);
      const auto it = s.captured.find(key);
      if (it == s.captured.end())
        throw std::invalid_argument("no reference ran for " + values_text(key) +
                                    " (verify.depends_on: the reference runs once per combination of the axes' values in "
                                    "the space)");
      segments = &it->second.segments;
      reduced = &it->second.reduced;
    }
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
    for (const ReducedReference& r : reduced ? *reduced : std::vector<ReducedReference>{}) {
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
  const std::int64_t terms = tolerance_terms(s.d, s.problem, s.target);
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
    const CUdeviceptr at = b.base() + static_cast<CUdeviceptr>(from) * element_size(type);
    const std::int64_t lanes = (b.count - from) * lane_count(type);
    // inout buffers are filled, never poisoned. An integer lane may equal the
    // 0xA5 pattern by right; for 1- and 2-byte integers that is likely, so
    // only an output left entirely poisoned counts there, as for one written in part.
    DeviceVerifier verifier(at, lanes, type, tolerance_for(s.d.verify, type, terms), s.compare, b.spec->partial, stream);
    // Floating-point poison is NaN: counted on the device (a NaN the
    // reference computed would fail every candidate anyway). Integer poison
    // is a byte pattern: the output is downloaded to find it.
    std::int64_t poisoned = 0;
    if (b.spec->role == BufferRole::out)
      poisoned = is_floating(lane_type(type)) ? verifier.nan_lanes(stream)
                                              : description_detail::poisoned_lanes(type, download(at, b.count - from, type));
    const bool whole_only = b.spec->partial || description_detail::poison_is_ambiguous(type);
    if (poisoned > 0 && (!whole_only || poisoned == lanes))
      unwritten += (unwritten.empty() ? "" : "; ") + std::to_string(poisoned) + " of the " + std::to_string(lanes) +
                   " values of '" + b.spec->name + "'";
    segments.push_back({i, from - b.offset, std::move(verifier)});
  }
  if (!unwritten.empty())
    return "the reference left " + unwritten + " unwritten (still poisoned" +
           std::string(s.d.verify.mode == VerifySpec::Mode::reference_config
                           ? "): a reference configuration must write every output (mark one written in part \"partial\": true)"
                           : "): the reference kernel must write every output (mark one written in part \"partial\": true)");
  s.captured[restricted(s.last_config, s.d.verify.depends_on)] = {std::move(segments), std::move(reduced)};
  return std::nullopt;
}

} // namespace memtune
