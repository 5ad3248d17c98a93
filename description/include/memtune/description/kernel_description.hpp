#pragma once
// A kernel description: everything memtune needs to tune, verify, model,
// record, save, load and launch one CUDA kernel, as data. The built-in
// templates (templates/<name>/) and a user's kernel (`memtune tune --spec
// kernel.json`, docs/kernel-description.md) are both descriptions; the tuning
// loop, the CLI and the launcher know nothing else about a kernel.
//
// Built in C++ with KernelBuilder (kernel_builder.hpp), or read from a JSON
// file with the same content (description_json.hpp). Expressions are typed
// trees (search::Expr), written as text in both (`ceil_div(n, BLOCK * ITEMS)`)
// and parsed once, with errors that name the field.
//
// Names an expression can read, all 64-bit integers:
//   - tunable parameters (the search axes; an enumeration's value is the index
//     of its label, a boolean is 0 or 1);
//   - problem variables (`n`, `rows`), with defaults, set on the command line;
//   - device attributes of the GPU tuned for (device_attributes below);
//   - derived values, named helper expressions evaluated in order.
// A name is one of these only: a clash is a description error.
//
// Patterns (the kernel's name expression, -D macro values, pruning reasons)
// are text with `{expression}` placeholders: `reduce<{T}, {BLOCK * 2}>`. A
// placeholder that is just the name of an enumeration renders its label
// (`float`), a boolean renders `true`/`false`, anything else the integer.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/baseline.hpp>
#include <memtune/compile/compile_request.hpp>
#include <memtune/description/element_type.hpp>
#include <memtune/description/model_spec.hpp>
#include <memtune/cuda/launch_spec.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/search/expr.hpp>
#include <memtune/search/space.hpp>
#include <memtune/model/target.hpp>
#include <memtune/description/verification.hpp>

#include <nlohmann/json.hpp>

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace memtune {

struct TuningResult;

inline constexpr int kDescriptionSchemaVersion = 1;

// ---------------------------------------------------------------- source

struct SourceFile {
  std::string name;  // as NVRTC sees it (shown in compiler messages; what #include "name" finds)
  std::string text;  // the file's content (read once when the description is loaded)
  std::string path;  // where it was read from (its folder is searched for headers); empty when built in memory
};

// A kernel name chosen by a condition: one description, several kernels whose
// template parameters differ (matvec: matvec_stream<...> or matvec_tiled<...>).
struct KernelChoice {
  search::Expr condition; // over parameters, problem variables, device attributes and derived values
  std::string kernel;     // name-expression pattern used where the condition holds
};

struct SourceSpec {
  // files[0] is the translation unit compiled; the others are headers it may
  // #include by name (given to NVRTC as in-memory headers, part of the cache key).
  std::vector<SourceFile> files;
  std::vector<std::string> include_paths; // -I folders besides those memtune finds (the file's own, the toolkit's)
  // Extra compiler options, patterns like the defines: "-maxrregcount={REGS}", "--use_fast_math".
  std::vector<std::string> options;
  CompilerKind compiler = CompilerKind::automatic; // "compiler": "auto" | "nvrtc" | "nvcc"
  std::string kernel;                     // name-expression pattern: "transpose<{TILE}, {ROWS}>" or "saxpy"
  // Tried in order before `kernel`, which then names the kernel where no
  // condition holds. JSON: "kernel": [{"if": "KIND == \"a\"", "name": "a<{X}>"}, {"name": "b<{Y}>"}].
  std::vector<KernelChoice> kernel_if;
  // -D macros: name -> value pattern ("MEMTUNE_TAPS" -> "{taps}"). A macro
  // the source also #defines has that line substituted (source_defines.hpp).
  std::vector<std::pair<std::string, std::string>> defines;
};

// ---------------------------------------------------------------- parameters

// A tunable parameter: a search axis (ordinal integers, an enumeration of
// labels, or a boolean = the enumeration {"false", "true"}), present only where
// `only_if` holds on the problem and device (e.g. the shared-memory bank mode
// on Kepler). A pruned parameter is absent from every configuration, and the
// run says why (`pruned_reason`, a pattern).
struct Parameter {
  search::Axis axis;
  std::optional<search::Expr> only_if;
  std::string pruned_reason;
  // Integer parameters only: the values kept for a problem and device, v
  // staying where `values_if`, reading the parameter's own name as v, holds
  // (matvec: threads_per_row 32 and 128 for row-major A only). A parameter
  // left without a value is pruned.
  std::optional<search::Expr> values_if;
  [[nodiscard]] bool is_boolean() const;
};

struct DerivedValue {
  std::string name;
  search::Expr value;
};

struct ConstraintSpec {
  search::Expr condition; // over parameters, problem variables, device attributes and derived values
  std::string reason;     // why a configuration that breaks it is left out, for people
  // Where breaking it only makes a configuration a duplicate (the fdtd's zfill
  // that gives one z-chunk at this size is zfill 0): the parameters that turn
  // it into the configuration of the same kernel that the space keeps, as
  // (name, value as written). space() hands them to its constraint
  // (search::Constraint::duplicates_of), so that a profile entry of another
  // size whose best breaks it is taken as that configuration, not passed
  // over (search::Space::same_kernel). Empty for a plain constraint.
  std::vector<std::pair<std::string, std::string>> same_as;
};

// ---------------------------------------------------------------- arguments

enum class BufferRole {
  in,      // read by the kernel: filled before the run
  out,     // written by the kernel: poisoned (NaN / 0xA5 bytes) before every verified launch, then verified
  inout,   // filled, and re-filled from the pristine copy before every launch (timed ones too); verified
  scratch, // owned by memtune (and by the launcher in an application): zero before every verified launch;
           // the kernel must leave it as it needs it for the next launch (e.g. split-K counters back at zero)
};
const char* to_string(BufferRole role);

struct FillRequest {
  const Problem& problem;
  const search::Config& config; // values of the fill's depends_on axes (others absent)
  std::uint64_t seed;
};
using CustomFill = std::function<void(const FillRequest&, std::span<std::byte> out)>;

// How memtune fills an input. Never zeros by default: zeros hide unwritten
// outputs and wrong indexing.
struct Fill {
  enum class Kind { random, constant, custom };
  Kind kind = Kind::random;
  // random: floats uniform in [lo, hi]; integers uniform in [lo, hi] inclusive.
  // The default for floats, range [-1, 1], is memtune::fill_random: values in
  // [-1, -0.01] U [0.01, 1]. The default for integers is [1, 100].
  std::optional<double> lo, hi;
  double value = 0.0;   // constant
  // random, floating-point types: the values scaled so that the sum of their
  // magnitudes is this (JSON "sum_abs"). A filter's taps or a stencil's
  // coefficients summed to 1 keep every output within the inputs' range, so
  // one tolerance holds at every size.
  std::optional<double> sum_abs;
  CustomFill custom;    // custom (C++ only)
  // Axes whose value changes the content (custom fills only: an AoS vs SoA
  // layout parameter): one copy per value combination.
  std::vector<std::string> depends_on;

  // A random fill uniform in [lo, hi] (JSON {"random": [lo, hi]}).
  static Fill random_in(double lo, double hi) {
    Fill f;
    f.lo = lo;
    f.hi = hi;
    return f;
  }
};

struct BufferArgument {
  std::string name;
  ElementType type = ElementType::f32;
  search::Expr count = 0; // [elements] may read parameters (a padded pitch) and problem variables
  BufferRole role = BufferRole::in;
  Fill fill;              // in, inout (scratch buffers are zeroed; out buffers are poisoned)
  // [elements] The kernel receives base + offset; memtune allocates offset +
  // count elements and fills (in, inout) or poisons (out) all of them; an out
  // buffer is verified from the kernel's pointer, a partial or inout one
  // over the whole allocation. A padded array whose rows start aligned (the CUDA
  // samples' FDTD3d passes `buffer + 28`). May read parameters like count.
  search::Expr offset = 0;
  // Non-empty: the element type is the label of this problem enumeration
  // (JSON "buffer": "{T}" with "T": {"values": ["int", "float"]}), resolved
  // per problem (resolve_element_types); `type` holds the default label's.
  std::string type_from;
  // out buffers: the kernel writes only part of it (an interior). Reference
  // and candidate start from the same poison, so an element both leave
  // untouched agrees; a reference is refused only when it writes none of it.
  bool partial = false;
};

struct ScalarArgument {
  std::string name;
  ElementType type = ElementType::i32;
  search::Expr value = 0;              // integers (and floats given as an expression)
  std::optional<double> float_value;   // floats given as a number (`"value": 0.5` in JSON)
  // true: the application passes this argument to the launcher (the value
  // above is used while tuning); false: memtune computes it (sizes, pitches).
  bool from_caller = false;
};

using Argument = std::variant<BufferArgument, ScalarArgument>;
[[nodiscard]] const std::string& argument_name(const Argument& argument);

// A __constant__ (or __device__) variable of the module, filled before the
// kernel runs: by memtune while tuning; in an application by the caller
// (KernelLauncher::set_constant) when from_caller, else by memtune's fill.
struct ConstantSymbol {
  std::string symbol;
  ElementType type = ElementType::f32;
  search::Expr count = 1; // [elements]
  Fill fill;
  bool from_caller = true;
};

// ---------------------------------------------------------------- verification

// Expected values for part of one output buffer (elements [offset, offset + values.size())).
struct ExpectedOutput {
  std::string buffer;
  std::int64_t offset = 0; // [elements]
  std::vector<double> values;
  Tolerance tolerance;
};
// One buffer's expected values as the list a reference returns, moved in:
// `return {{"out", 0, values, tol}}` copies them (an initializer list's
// elements are const), 0.5 GB for a 512x512x256 volume.
[[nodiscard]] inline std::vector<ExpectedOutput> expected_values(std::string buffer, std::vector<double> values,
                                                                 Tolerance tolerance) {
  std::vector<ExpectedOutput> list;
  list.push_back({std::move(buffer), 0, std::move(values), tolerance});
  return list;
}

// What a C++ reference sees: the problem, the configuration's values of the
// reference's depends_on axes, and the host copy of every filled input
// (buffers and constant symbols) by name, as the kernel gets it.
struct ReferenceRequest {
  const Problem& problem;
  const search::Config& config;
  std::function<std::span<const std::byte>(const std::string& name)> input;
  template <class T> [[nodiscard]] std::span<const T> input_as(const std::string& name) const {
    const auto bytes = input(name);
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
};
using ReferenceFunction = std::function<std::vector<ExpectedOutput>(const ReferenceRequest&)>;

// A separate, trusted kernel that computes the same outputs from the same
// arguments (in the same order).
// Its name, block, grid and shared memory read problem variables, device
// attributes and derived values that read no parameter, and the axes of
// VerifySpec::depends_on: where those are given, it runs once per combination
// of their values a candidate has (aos_soa: once per layout), on that
// combination's arguments.
struct ReferenceKernel {
  std::string kernel;               // name-expression pattern
  std::vector<SourceFile> files;    // empty: the description's own source
  std::vector<search::Expr> block;  // 1-3 expressions over problem variables, device attributes and derived
  std::vector<search::Expr> grid;   // values that read no parameter
  search::Expr shared_memory = 0;   // [bytes]
};

// An output compared through one number: op over its first `count`
// elements, the candidate's against the reference's. A reduction's first
// pass writes one partial sum per block: the number of partials changes with
// the configuration, their sum does not.
struct ReducedOutput {
  enum class Op { sum, min, max, count }; // count: the elements that are not zero
  std::string buffer;                     // an out or inout buffer; its elements are not compared one by one
  Op op = Op::sum;
  search::Expr count = 0;                 // [elements] evaluated per configuration (the reference's for the reference)
  // |c - r| <= abs + rel * m, m = the larger sum of |x| of the two runs for
  // `sum` (rounding grows with the magnitudes added, not with the result),
  // |r| otherwise. Unset: abs 0, rel default_relative_tolerance(type).
  std::optional<Tolerance> tolerance;
};
[[nodiscard]] const char* to_string(ReducedOutput::Op op);

// A check from a shared library (memtune/description/host_check.h, the C ABI): the
// function gets the problem, the configuration and host copies of every
// buffer after the candidate's launch, and says pass or fail with a message.
struct HostCheck {
  std::filesystem::path library; // absolute (a file's relative path is resolved against its folder)
  std::string function;
};

struct VerifySpec {
  enum class Mode {
    reference_config, // Kernel Tuner's `answer` idea: one configuration of the same kernel, run first, is the truth
    reference_kernel, // a separate kernel
    callback,         // a C++ function computing the expected outputs on the host (library API; the built-ins)
    host_check,       // a C function from a shared library (JSON "library" and "function")
  };
  Mode mode = Mode::reference_config;
  nlohmann::json reference_config = nlohmann::json::object(); // {parameter: value or label}; empty: the default config
  std::optional<ReferenceKernel> reference_kernel;
  ReferenceFunction callback;
  // callback, reference_kernel: axes whose value changes the expected outputs
  // (one set of expected values per combination).
  std::vector<std::string> depends_on;
  Tolerance tolerance{0.0, 1e-5};      // reference_config and reference_kernel modes
  // How many terms one output sums (JSON "tolerance": {"terms": "6 * radius + 1"}),
  // over problem variables: abs and rel are per term, their rounding errors
  // add up. The bound a float reduction of that many terms needs.
  search::Expr tolerance_terms = 1;
  // Whether `tolerance` was given: if not, an output of a coarser type gets
  // its type's default_relative_tolerance (half 1e-3, bfloat16 1e-2).
  bool tolerance_given = false;
  std::vector<ReducedOutput> reduced;  // reference_config and reference_kernel modes
  std::optional<HostCheck> host_check;
};
// The tolerance element-wise comparisons of `type` use, for outputs that
// sum `terms` terms (VerifySpec::tolerance_terms evaluated on the problem).
[[nodiscard]] Tolerance tolerance_for(const VerifySpec& verify, ElementType type, std::int64_t terms = 1);

// ---------------------------------------------------------------- hooks (C++ only)

// What a baseline (`--compare cublas`) gets: the problem and the run's device
// buffers by argument name.
struct BaselineContext {
  const Problem& problem;
  std::function<CUdeviceptr(const std::string& buffer)> buffer;
};
using BaselineFactory = std::function<std::unique_ptr<Baseline>(const BaselineContext&)>;

// A baseline memtune provides, bound to the description's buffers and
// problem as data, so that it travels to a worker process like the rest of
// the description (a C++ BaselineFactory cannot). JSON:
//   "baselines": {"cublas": {"call": "cublas_sgemv",
//                            "buffers": {"A": "A", "x": "x", "y": "y"},
//                            "values": {"rows": "rows", "cols": "cols", "row_major": "layout == \"row\""}}}
// library_baseline_calls() lists the calls and the operands each needs.
struct LibraryBaseline {
  std::string call;
  std::map<std::string, std::string> buffers; // the call's operand -> a buffer argument's name
  std::map<std::string, search::Expr> values; // the call's integer operand -> an expression over problem variables
};
struct LibraryBaselineCall {
  std::string name;                 // "cublas_sgemv"
  std::string summary;              // for people: what it computes
  std::vector<std::string> buffers; // operands naming a buffer
  std::vector<std::string> values;  // integer operands
};
[[nodiscard]] const std::vector<LibraryBaselineCall>& library_baseline_calls();

// Optional extras only the built-in templates need to provide.
struct DescriptionHooks {
  // The model's warp-level access pattern: without it, a modeled run predicts
  // occupancy, registers and the limiter only, and says time is not modeled.
  std::function<AccessPattern(const search::Config&, const Problem&, const Target&)> access_pattern;
  // What the template adds to the rationale once a run is done.
  std::function<std::string(const TuningResult&)> explain;
  // Baselines by name, timed after the search on the run's buffers.
  std::map<std::string, BaselineFactory> baselines;
  // A sensible configuration for when tuning is impossible or disabled; must
  // be valid in space(problem, target). Without it: the JSON "default", else
  // the first valid configuration in grid order.
  std::function<search::Config(const Problem&, const Target&)> default_config;
};

// ---------------------------------------------------------------- the description

struct LaunchExprs {
  search::Expr block_x = 1, block_y = 1, block_z = 1;
  search::Expr grid_x = 1, grid_y = 1, grid_z = 1;
  search::Expr shared_memory = 0; // [bytes] dynamic shared memory per block
  bool cooperative = false;       // cuLaunchCooperativeKernel (LaunchSpec::cooperative)
};

// The device attributes an expression can read, by name, from a target:
//   max_threads_per_block, max_shared_memory_per_block (without opt-in),
//   max_shared_memory_per_block_optin, shared_memory_per_sm, sm_count,
//   warp_size, max_threads_per_sm, max_warps_per_sm, max_blocks_per_sm,
//   registers_per_sm, registers_per_block, max_registers_per_thread,
//   compute_capability (90 for sm_90), l2_bytes, bank_mode_choice (1 on
//   Kepler, whose shared-memory banks can be 4 or 8 bytes wide).
[[nodiscard]] std::map<std::string, std::int64_t> device_attributes(const Target& target);
[[nodiscard]] const std::vector<std::string>& device_attribute_names();

struct KernelDescription {
  std::string name;    // "filter", "transpose": the profile key and the CLI's name
  std::string summary; // one line for people
  std::string origin;  // where it came from: "built-in", or the JSON file's path
  SourceSpec source;
  std::vector<ProblemParameter> problem;   // problem variables, in order
  std::vector<Parameter> parameters;       // in grid order (the first varies slowest)
  std::vector<DerivedValue> derived;       // evaluated in order; each may read the ones before it
  std::vector<ConstraintSpec> constraints; // checked before anything compiles
  LaunchExprs launch_exprs;
  std::vector<Argument> arguments;         // in the kernel's parameter order
  std::vector<ConstantSymbol> constants;
  std::optional<search::Expr> bytes_moved_expr; // problem variables only; default: in once, out once, inout twice
  // The memory accesses for the analytical model, as data (a file's "model"
  // section, model_spec.hpp); hooks.access_pattern takes precedence.
  std::optional<ModelSpec> model;
  VerifySpec verify;
  nlohmann::json default_config_json;      // optional {parameter: value}; see DescriptionHooks::default_config
  // What tuning it minimises unless the run says otherwise (`--objective`):
  // "" (time), "time", "energy" or "edp" (objective.hpp).
  std::string objective;
  // Baselines by name (`--compare NAME`), as data; hooks.baselines adds C++ ones.
  std::map<std::string, LibraryBaseline> baselines;
  DescriptionHooks hooks;

  // Throws DescriptionError (description_json.hpp) naming the field and the
  // reason: duplicate or clashing names, an expression reading an unknown
  // name, a label that is not one, a buffer count or bytes_moved that cannot
  // be evaluated, a verify mode without what it needs, ...
  void validate() const;

  // ---- what the tuning loop asks (a description must be valid)

  // Problem variables with defaults filled in and ranges checked
  // (std::invalid_argument naming the variable).
  [[nodiscard]] Problem complete(const Problem& given) const;
  // The search space for a problem on a target: parameters whose only_if
  // fails are pruned with their reason; every constraint, bound to the
  // problem, the device attributes and the derived values, reads axes only.
  [[nodiscard]] search::Space space(const Problem& problem, const Target& target) const;
  // Name expression, -D options, grid, block and dynamic shared memory of one
  // configuration (throws std::invalid_argument when an expression cannot be
  // evaluated, e.g. a zero grid, naming the field).
  [[nodiscard]] LaunchSpec launch(const search::Config& config, const Problem& problem, const Target& target) const;
  // The compile request for one launch on an architecture.
  [[nodiscard]] CompileRequest compile_request(const LaunchSpec& launch, int compute_capability) const;
  // VerifySpec::reference_config: the configuration whose outputs are the
  // truth (the parameters given there, the others from default_config;
  // parameters pruned on this target dropped). Throws std::invalid_argument
  // when it is not valid in space(problem, target), saying why.
  [[nodiscard]] search::Config reference_configuration(const Problem& problem, const Target& target) const;
  // VerifySpec::reference_kernel: its launch (it reads no parameter but the
  // depends_on axes, whose values `axes` gives) and its compile request (its
  // own files, or the description's source).
  [[nodiscard]] LaunchSpec reference_launch(const Problem& problem, const Target& target,
                                            const search::Config& axes = {}) const;
  [[nodiscard]] CompileRequest reference_compile_request(const LaunchSpec& launch, int compute_capability) const;
  [[nodiscard]] search::Config default_config(const Problem& problem, const Target& target) const;
  // [bytes] the minimum one launch moves through DRAM: the numerator of GB/s.
  [[nodiscard]] std::uint64_t bytes_moved(const Problem& problem) const;
  // The same for a description whose element types are resolved.
  [[nodiscard]] std::uint64_t bytes_moved_resolved(const Problem& problem) const;
  // Every name an expression of this description can read, with its value, for
  // one configuration (config may be empty: then parameters and the derived
  // values that read them are absent).
  [[nodiscard]] search::Config environment(const search::Config& config, const Problem& problem,
                                           const Target& target) const;

  // The description for one problem: buffers whose element type comes from
  // a problem enumeration ("buffer": "{T}") get the problem's label's type.
  [[nodiscard]] KernelDescription resolve_element_types(const Problem& problem) const;

  [[nodiscard]] bool has_model() const { return static_cast<bool>(hooks.access_pattern) || model.has_value(); }
  // What the analytical model replays for one configuration: hooks.access_pattern,
  // else the "model" section's accesses (model_spec.cpp). Throws
  // DescriptionError naming the field where an access cannot be evaluated
  // (a negative index, a misaligned address), std::logic_error without a model.
  [[nodiscard]] AccessPattern access_pattern(const search::Config& config, const Problem& problem,
                                             const Target& target) const;
  [[nodiscard]] std::vector<std::string> baseline_names() const;
  // Throws std::invalid_argument naming an unknown baseline and the known ones.
  void check_baseline_names(const std::vector<std::string>& names) const;
  // Names of the problem variables that are sizes (profiles fall back to the nearest size).
  [[nodiscard]] std::vector<std::string> size_variables() const;

  // A digest (32 hex characters) of everything that changes what is measured:
  // the JSON form below and every source file's text. Journals and recordings
  // carry it, so a journal of another kernel is refused.
  [[nodiscard]] std::string fingerprint() const;
  // The JSON form (description_json.hpp's format); C++ hooks are not part of it.
  [[nodiscard]] nlohmann::ordered_json to_json() const;

  // The whole description as data, for a process that has no file to read it
  // from (memtune-worker): {"description": to_json(), "source_files": [...],
  // "reference_files": [...]}, each file {name, text, path}. Read back by
  // description_from_data (description_json.hpp) with the same fingerprint.
  [[nodiscard]] nlohmann::ordered_json to_data() const;
  // Why to_data() would lose what a candidate's measurement needs: the C++
  // callback that only this process holds (a verify_with reference, a custom
  // fill, a baseline), named; "" when it would lose nothing. The model's
  // hooks (access_pattern, explain, default_config) are not measured and do
  // not count.
  [[nodiscard]] std::string not_data_because() const;
};

} // namespace memtune
