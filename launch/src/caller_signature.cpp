// What an application passes to a tuned kernel, and the check of its types
// against the description (tuned_kernel.hpp).
#include <memtune/launch/tuned_kernel.hpp>

#include <stdexcept>

namespace memtune {
namespace {

// As C++ spells the type an application uses.
const char* cpp_name(ElementType type) {
  switch (type) {
  case ElementType::f32: return "float";
  case ElementType::f64: return "double";
  case ElementType::i8: return "int8_t";
  case ElementType::u8: return "uint8_t";
  case ElementType::i16: return "int16_t";
  case ElementType::u16: return "uint16_t";
  case ElementType::i32: return "int";
  case ElementType::u32: return "unsigned";
  case ElementType::i64: return "int64_t";
  case ElementType::u64: return "uint64_t";
  case ElementType::f16: return "__half";
  case ElementType::bf16: return "__nv_bfloat16";
  }
  return to_string(type); // a vector type: float4, half2 (pass it as CUdeviceptr)
}

std::string label(const CallerParameter& p, std::size_t index) {
  return "argument " + std::to_string(index) + " ('" + p.name + "')";
}

// Why `given` cannot be passed for `expected`, or empty.
std::string mismatch(const CallerParameter& expected, const CallerArgumentType& given) {
  const CallerArgumentType& want = expected.type;
  const std::string got = ", got " + given.to_string();
  if (want.buffer && !given.buffer)
    return std::string("a buffer of ") + cpp_name(want.type) + " expected (" + want.to_string() + " or CUdeviceptr)" + got;
  if (!want.buffer && given.buffer) {
    const std::string hint = given.any_element && want.type == ElementType::u64
                                 ? " (CUdeviceptr is unsigned long long: pass a uint64 scalar as std::uint64_t)"
                                 : "";
    return std::string("a ") + cpp_name(want.type) + " scalar expected" + got + hint;
  }
  if (!want.buffer) return given.type == want.type ? "" : want.to_string() + " expected" + got;
  if (given.any_element) return "";
  if (given.type != want.type)
    return want.to_string() + " expected (" + to_string(expected.role) + " buffer of " + cpp_name(want.type) + ")" + got;
  if (given.is_const && !want.is_const)
    return "the kernel writes this " + std::string(to_string(expected.role)) + " buffer: " + want.to_string() +
           " expected" + got;
  return "";
}

} // namespace

std::string CallerArgumentType::to_string() const {
  if (any_element) return "CUdeviceptr";
  if (!buffer) return cpp_name(type);
  return std::string(is_const ? "const " : "") + cpp_name(type) + "*";
}

std::vector<CallerParameter> caller_parameters(const KernelDescription& d) {
  std::vector<CallerParameter> out;
  for (std::size_t i = 0; i < d.arguments.size(); ++i) {
    if (const auto* b = std::get_if<BufferArgument>(&d.arguments[i])) {
      if (b->role == BufferRole::scratch) continue;
      out.push_back({b->name, i, {true, false, b->role == BufferRole::in, b->type}, b->role});
    } else {
      const auto& s = std::get<ScalarArgument>(d.arguments[i]);
      if (s.from_caller) out.push_back({s.name, i, {false, false, false, s.type}, BufferRole::in});
    }
  }
  return out;
}

std::string format_caller_parameters(const std::vector<CallerParameter>& parameters) {
  std::string out = "(";
  for (std::size_t i = 0; i < parameters.size(); ++i)
    out += (i ? ", " : "") + parameters[i].type.to_string() + " " + parameters[i].name;
  return out + ")";
}

void check_caller_signature(const KernelDescription& d, std::span<const CallerArgumentType> given) {
  const std::vector<CallerParameter> expected = caller_parameters(d);
  if (given.size() != expected.size()) {
    std::string types;
    for (std::size_t i = 0; i < given.size(); ++i) types += (i ? ", " : "") + given[i].to_string();
    throw std::invalid_argument(d.name + " takes " + std::to_string(expected.size()) + " arguments from the caller " +
                                format_caller_parameters(expected) +
                                " (scratch buffers and computed scalars are memtune's), but the launcher is given " +
                                std::to_string(given.size()) + " (" + types + ")");
  }
  for (std::size_t i = 0; i < given.size(); ++i)
    if (const std::string why = mismatch(expected[i], given[i]); !why.empty())
      throw std::invalid_argument(d.name + ": " + label(expected[i], i) + ": " + why + "; the caller's arguments are " +
                                  format_caller_parameters(expected));
}

} // namespace memtune
