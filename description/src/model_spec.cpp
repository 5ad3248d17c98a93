// A description's "model" section (model_spec.hpp) turned into the
// AccessPattern the analytical model replays: one representative block, the
// one in the middle of the grid (away from the edges, as the built-in
// templates choose theirs), every thread's address per instruction and
// iteration from the section's expressions.
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/model_spec.hpp>
#include <memtune/model/global_replay.hpp>
#include <memtune/search/slot_expr.hpp>

#include <memtune/description/argument_values.hpp>
#include <memtune/description/description_internal.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

namespace memtune {

using namespace description_detail;

const std::vector<std::string>& model_thread_names() {
  static const std::vector<std::string> names{"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y",
                                              "blockIdx.z",  "blockDim.x",  "blockDim.y",  "blockDim.z", "gridDim.x",
                                              "gridDim.y",   "gridDim.z",   "iteration"};
  return names;
}

namespace {

using Address = std::optional<std::uint64_t>;
using Locals = std::map<std::string, search::Expr>; // a local's name -> its expression, bound

// The representative block: its shape, the grid's, and where it sits.
struct BlockFrame {
  Dim3 block, grid, index;
  [[nodiscard]] std::int64_t threads() const { return static_cast<std::int64_t>(block.count()); }
};

// An expression of one access with everything but threadIdx and `iteration`
// folded to constants, so that replaying a block evaluates a small tree.
class ThreadExpr {
public:
  // `locals`: the model section's locals, already bound (a local reads the ones before it).
  ThreadExpr(const KernelDescription& d, const search::Expr& e, const search::Config& env, const BlockFrame& f,
             std::string field, const Locals& locals)
      : field_(std::move(field)), origin_(origin_of(d)) {
    const std::map<std::string, std::int64_t> frame{
        {"blockIdx.x", f.index.x}, {"blockIdx.y", f.index.y}, {"blockIdx.z", f.index.z},
        {"blockDim.x", f.block.x}, {"blockDim.y", f.block.y}, {"blockDim.z", f.block.z},
        {"gridDim.x", f.grid.x},   {"gridDim.y", f.grid.y},   {"gridDim.z", f.grid.z}};
    try {
      expr_ = std::make_shared<const search::Expr>(
          resolved(d, e).substitute([&](const std::string& name) -> std::optional<search::Expr> {
            if (const auto local = locals.find(name); local != locals.end()) return local->second;
            if (env.has(name)) return search::Expr(env.at(name));
            if (const auto it = frame.find(name); it != frame.end()) return search::Expr(it->second);
            return std::nullopt;
          }));
    } catch (const std::exception& err) {
      throw DescriptionError(origin_, field_, err.what());
    }
    // What is left reads only the thread names: bound to slots, as looking
    // them up by string was most of a prediction's time.
    if (auto bound = search::SlotExpr::bind(*expr_, {"threadIdx.x", "threadIdx.y", "threadIdx.z", "iteration"}))
      slots_ = std::make_shared<const search::SlotExpr>(std::move(*bound));
  }

  // For thread (x, y, z) of the block in `iteration`.
  [[nodiscard]] std::int64_t operator()(const Dim3& thread, std::int64_t iteration) const {
    if (expr_->is_constant()) return expr_->constant_value();
    if (slots_) {
      const std::array<std::int64_t, 4> values{thread.x, thread.y, thread.z, iteration};
      if (const auto v = slots_->try_eval(values)) return *v;
      // Where it fails, Expr::eval below fails too, and says why.
    }
    // Set in place, no allocation per call; one per CPU thread, as candidates
    // may be predicted in parallel.
    thread_local search::Config scratch;
    scratch.set("threadIdx.x", thread.x);
    scratch.set("threadIdx.y", thread.y);
    scratch.set("threadIdx.z", thread.z);
    scratch.set("iteration", iteration);
    try {
      return expr_->eval(scratch);
    } catch (const std::exception& err) {
      throw DescriptionError(origin_, field_, where(thread, iteration) + ": " + err.what());
    }
  }

  [[nodiscard]] static std::string where(const Dim3& t, std::int64_t iteration) {
    return "thread (" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) +
           ") iteration " + std::to_string(iteration);
  }
  [[nodiscard]] const search::Expr& bound() const { return *expr_; }
  [[nodiscard]] const std::string& field() const { return field_; }
  [[nodiscard]] const std::string& origin() const { return origin_; }

private:
  std::shared_ptr<const search::Expr> expr_;
  std::shared_ptr<const search::SlotExpr> slots_; // null where a name is not a thread name
  std::string field_, origin_;
};

// An expression that reads no thread name (validate() checks), evaluated once for the block.
std::int64_t block_value(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                         const BlockFrame& f, const Locals& locals, const std::string& field) {
  return ThreadExpr(d, e, env, f, field, locals)(Dim3{0, 0, 0}, 0);
}

// The byte address of (warp, lane, iteration) for an access `width` bytes
// wide at `element_bytes` per index: nullopt past the block's threads or
// where the access's guard fails. `buffer` (a global access): the buffer's
// name and bytes, which the access must stay within, as on the GPU.
struct BufferExtent {
  std::string name;
  std::int64_t bytes = 0;
};
std::function<Address(int, int, std::int64_t)> addresses(const BlockFrame& f, ThreadExpr index,
                                                         std::optional<ThreadExpr> active,
                                                         std::int64_t element_bytes, std::int64_t width,
                                                         std::optional<BufferExtent> buffer = std::nullopt) {
  return [f, index = std::move(index), active = std::move(active), element_bytes, width,
          buffer = std::move(buffer)](int warp, int lane, std::int64_t iteration) -> Address {
    const std::int64_t t = std::int64_t{warp} * 32 + lane;
    if (t >= f.threads()) return std::nullopt;
    const Dim3 thread{static_cast<unsigned>(t % f.block.x), static_cast<unsigned>(t / f.block.x % f.block.y),
                      static_cast<unsigned>(t / (std::int64_t{f.block.x} * f.block.y))};
    if (active && (*active)(thread, iteration) == 0) return std::nullopt;
    const std::int64_t i = index(thread, iteration);
    const auto fail = [&](const std::string& why) {
      throw DescriptionError(index.origin(), index.field(), ThreadExpr::where(thread, iteration) + ": " + why);
    };
    if (i < 0) fail("index " + std::to_string(i) + " is negative (guard the access with \"if\")");
    if (i > (std::numeric_limits<std::int64_t>::max() / element_bytes)) fail("index " + std::to_string(i) + " overflows");
    const std::int64_t byte = i * element_bytes;
    if (byte % width != 0)
      fail("byte offset " + std::to_string(byte) + " is not aligned to the " + std::to_string(width) +
           "-byte access (a misaligned address fault on the GPU)");
    if (buffer && byte > buffer->bytes - width)
      fail("index " + std::to_string(i) + " is past the end of the buffer '" + buffer->name + "' (" +
           std::to_string(buffer->bytes / element_bytes) + " elements; guard the access with \"if\")");
    return static_cast<std::uint64_t>(byte);
  };
}

// [bytes] what one instruction moves: `vector` elements of `element_bytes`.
// `element_field`: where element_bytes is written (a shared access), empty
// where the buffer's type gives it.
std::int64_t access_width(std::int64_t element_bytes, std::int64_t vector, const std::string& origin,
                          const std::string& element_field, const std::string& vector_field) {
  const auto valid = [](std::int64_t w) { return w == 1 || w == 2 || w == 4 || w == 8 || w == 16; };
  if (!element_field.empty() && !valid(element_bytes))
    throw DescriptionError(origin, element_field,
                           std::to_string(element_bytes) + "-byte elements: an element is 1, 2, 4, 8 or 16 bytes");
  // Both bounded first, so that the product cannot overflow (a buffer's element is at most 32 bytes).
  const bool bounded = vector >= 1 && vector <= 16 && element_bytes >= 1 && element_bytes <= 32;
  const std::int64_t width = bounded ? element_bytes * vector : 0;
  if (!valid(width))
    throw DescriptionError(origin, vector_field,
                           std::to_string(vector) + " elements of " + std::to_string(element_bytes) + " bytes " +
                               (bounded ? "is a " + std::to_string(width) + "-byte access" : std::string("in one access")) +
                               "; one instruction moves 1, 2, 4, 8 or 16 bytes");
  return width;
}

constexpr std::int64_t kMaxIterations = std::int64_t{1} << 30;

std::int64_t iterations_of(const KernelDescription& d, const search::Expr& e, const search::Config& env,
                           const BlockFrame& f, const Locals& locals, const std::string& field) {
  const std::int64_t n = block_value(d, e, env, f, locals, field);
  if (n < 0) throw DescriptionError(origin_of(d), field, std::to_string(n) + " iterations: a loop runs 0 or more times");
  // A thread's loop of 2^30 trips is not a memory-bound kernel's: the figure is
  // a mistake (a size read twice), and its prediction would be hours.
  if (n > kMaxIterations)
    throw DescriptionError(origin_of(d), field,
                           std::to_string(n) + " iterations per thread: more than " + std::to_string(kMaxIterations));
  return n;
}

// Instructions a thread issues per access besides the access itself: its
// 64-bit address, a guard and loop control (the time model's
// instruction_overhead covers what the compiler adds). A rule for any
// kernel: the built-in transpose counts its own from Nsight Compute's
// counts instead (transpose_access.cpp), which a description cannot give.
constexpr double kGlobalAccessInstructions = 5;
constexpr double kSharedAccessInstructions = 1;
constexpr double kPrologueInstructions = 15; // indices, exit

} // namespace

AccessPattern KernelDescription::access_pattern(const search::Config& config, const Problem& problem,
                                                const Target& target) const {
  if (hooks.access_pattern) return hooks.access_pattern(config, problem, target);
  if (!model) throw std::logic_error(name + " has no access pattern: its time cannot be modeled");
  const ModelSpec& m = *model;
  const LaunchSpec l = launch(config, problem, target);
  const BlockFrame f{l.block, l.grid, {l.grid.x / 2, l.grid.y / 2, l.grid.z / 2}};
  const search::Config env = environment(config, problem, target);
  const std::string origin = origin_of(*this);

  Locals locals;
  for (const auto& [local, value] : m.locals)
    locals.insert_or_assign(local, ThreadExpr(*this, value, env, f, "model.locals." + local, locals).bound());
  const auto value = [&](const search::Expr& e, const std::string& field) {
    return block_value(*this, e, env, f, locals, field);
  };

  AccessPattern a;
  a.block_threads = static_cast<int>(f.threads());
  a.blocks = static_cast<std::int64_t>(l.grid.count());
  a.barrier_between_load_and_compute = value(m.barrier, "model.barrier") != 0;
  const std::int64_t bank_bytes = value(m.bank_bytes, "model.bank_bytes");
  if (std::find(target.bank_widths_bytes.begin(), target.bank_widths_bytes.end(), bank_bytes) ==
      target.bank_widths_bytes.end())
    throw DescriptionError(origin, "model.bank_bytes",
                           std::to_string(bank_bytes) + "-byte banks: " + target.name + " has " +
                               (target.bank_widths_bytes.size() > 1 ? "4- or 8-byte banks" : "4-byte banks"));
  a.bank_width_bytes = static_cast<int>(bank_bytes);
  a.loads_iteration_major = a.stores_iteration_major = true; // one loop body issues every access of an iteration
  const int warps = static_cast<int>((f.threads() + 31) / 32);

  const auto thread_expr = [&](const search::Expr& e, const std::string& field) {
    return ThreadExpr(*this, e, env, f, field, locals);
  };
  const auto optional_thread_expr = [&](const std::optional<search::Expr>& e, const std::string& field) {
    return e ? std::optional<ThreadExpr>(thread_expr(*e, field)) : std::nullopt;
  };
  double per_thread = kPrologueInstructions, loads_per_thread = 0, load_bytes = 0, load_instructions = 0, trips = 1;

  std::map<std::string, std::pair<double, double>> touched; // buffer -> (loaded, stored) sectors x 32 per block
  for (std::size_t i = 0; i < m.global.size(); ++i) {
    const GlobalAccessSpec& g = m.global[i];
    const std::string field = "model.global[" + std::to_string(i) + "]";
    const auto buffer = std::find_if(arguments.begin(), arguments.end(), [&](const Argument& arg) {
      return std::holds_alternative<BufferArgument>(arg) && argument_name(arg) == g.buffer;
    });
    const BufferArgument& buffer_argument = std::get<BufferArgument>(*buffer);
    const auto element_bytes = static_cast<std::int64_t>(element_size(buffer_argument.type));
    std::int64_t buffer_bytes = 0;
    try {
      buffer_bytes = buffer_count(*this, buffer_argument, env,
                                  "arguments[" + std::to_string(buffer - arguments.begin()) + "]") * element_bytes;
    } catch (const std::invalid_argument& err) {
      throw DescriptionError(origin, "arguments", err.what());
    }
    const std::int64_t width = access_width(element_bytes, value(g.vector, field + ".vector"), origin, "",
                                            field + ".vector");
    GlobalInstruction ins;
    ins.name = g.name;
    ins.kind = g.kind;
    ins.width_bytes = static_cast<int>(width);
    ins.iterations = iterations_of(*this, g.iterations, env, f, locals, field + ".iterations");
    ins.path = g.path;
    ins.address = addresses(f, thread_expr(g.index, field + ".index"), optional_thread_expr(g.active, field + ".if"),
                            element_bytes, width, BufferExtent{g.buffer, buffer_bytes});
    const double bytes = touched_bytes(ins, warps);
    auto& [loaded, stored] = touched[g.buffer];
    (g.kind == model::AccessKind::load ? loaded : stored) += bytes;
    const auto executions = static_cast<double>(ins.iterations);
    per_thread += executions * kGlobalAccessInstructions;
    trips = std::max(trips, executions);
    if (g.kind == model::AccessKind::load && ins.iterations > 0) {
      loads_per_thread += executions;
      load_bytes += executions * static_cast<double>(width);
      ++load_instructions;
    }
    a.global.push_back(std::move(ins));
  }
  for (std::size_t i = 0; i < m.shared.size(); ++i) {
    const SharedAccessSpec& s = m.shared[i];
    const std::string field = "model.shared[" + std::to_string(i) + "]";
    const std::int64_t element_bytes = value(s.element_bytes, field + ".element_bytes");
    const std::int64_t width = access_width(element_bytes, value(s.vector, field + ".vector"), origin,
                                            field + ".element_bytes", field + ".vector");
    model::SharedInstruction ins;
    ins.name = s.name;
    ins.kind = s.kind;
    ins.width_bytes = static_cast<int>(width);
    ins.iterations = iterations_of(*this, s.iterations, env, f, locals, field + ".iterations");
    ins.address = addresses(f, thread_expr(s.index, field + ".index"),
                            optional_thread_expr(s.active, field + ".if"), element_bytes, width);
    per_thread += static_cast<double>(ins.iterations) * kSharedAccessInstructions;
    trips = std::max(trips, static_cast<double>(ins.iterations));
    a.shared.push_back(std::move(ins));
  }

  const double compute =
      m.compute_per_thread ? static_cast<double>(value(*m.compute_per_thread, "model.compute_per_thread")) : 0;
  if (compute < 0)
    throw DescriptionError(origin, "model.compute_per_thread",
                           std::to_string(static_cast<std::int64_t>(compute)) +
                               " instructions: must be >= 0 (what a thread issues besides its accesses)");
  per_thread += compute;
  a.warp_instructions_per_block = per_thread * warps;
  a.fp32_instructions_per_block = compute * warps;
  a.loads_in_flight_per_thread =
      m.loads_in_flight ? static_cast<double>(value(*m.loads_in_flight, "model.loads_in_flight"))
                        : std::max(1.0, load_instructions);
  if (a.loads_in_flight_per_thread < 1)
    throw DescriptionError(origin, "model.loads_in_flight", "a thread keeps at least one load in flight");
  a.bytes_per_load = loads_per_thread > 0 ? load_bytes / loads_per_thread : 4;
  a.memory_round_trips_per_block = std::max(1.0, std::ceil(loads_per_thread / a.loads_in_flight_per_thread));
  a.main_loop_trips_per_thread = trips;

  // Traffic per buffer: what the grid's blocks request (the representative
  // block's sectors, times the blocks), of which the buffer's distinct bytes
  // cross DRAM once; a byte two blocks read is re-read from L2 while the
  // data touched between the two reads fits there. Blocks side by side in x
  // run at the same time (the resident blocks); a block's neighbour in y is
  // a grid row later in launch order.
  std::vector<model::ArrayTraffic> arrays;
  double per_block_bytes = 0;
  for (const auto& entry : touched) {
    const std::string& buffer = entry.first; // not a structured binding: a lambda below captures it (clang 14)
    const auto arg = std::find_if(arguments.begin(), arguments.end(),
                                  [&](const Argument& x) { return argument_name(x) == buffer; });
    const auto& b = std::get<BufferArgument>(*arg);
    std::int64_t count = 0;
    try {
      count = evaluate(*this, b.count, env, "count of the buffer '" + buffer + "'");
    } catch (const std::invalid_argument& err) {
      throw DescriptionError(origin, "arguments", err.what());
    }
    const double size = std::ceil(static_cast<double>(count) * static_cast<double>(element_size(b.type)) / 32.0) * 32.0;
    const auto [loaded, stored] = entry.second;
    const auto blocks = static_cast<double>(a.blocks);
    if (loaded > 0) arrays.push_back({buffer, std::min(size, loaded * blocks), loaded * blocks, 0, false});
    if (stored > 0)
      arrays.push_back({loaded > 0 ? buffer + " (stored)" : buffer, std::min(size, stored * blocks), stored * blocks, 0, true});
    per_block_bytes += loaded + stored;
  }
  const double grid_row = f.grid.y * f.grid.z > 1 ? static_cast<double>(f.grid.x) : 1.0;
  a.arrays_by_residency = [arrays, per_block_bytes, grid_row](double resident_blocks) {
    std::vector<model::ArrayTraffic> out = arrays;
    for (auto& t : out)
      if (!t.written && t.requested_bytes > t.footprint_bytes)
        t.reuse_window_bytes = per_block_bytes * std::max(resident_blocks, grid_row);
    return out;
  };
  a.arrays = a.arrays_by_residency(1);
  return a;
}

} // namespace memtune
