#include <memtune/description/kernel_signature.hpp>

#include <memtune/description/description_internal.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace memtune {
namespace {

// The text between the outermost parentheses that close the demangled name,
// split at top-level commas.
std::vector<std::string> split_parameters(const std::string& demangled) {
  const std::size_t close = demangled.rfind(')');
  if (close == std::string::npos) return {};
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return {};
  std::vector<std::string> out;
  std::string current;
  int nesting = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = demangled[i];
    if (c == '<' || c == '(' || c == '[') ++nesting;
    if (c == '>' || c == ')' || c == ']') --nesting;
    if (c == ',' && nesting == 0) {
      out.push_back(current);
      current.clear();
      continue;
    }
    if (!(c == ' ' && current.empty())) current += c;
  }
  if (!current.empty()) out.push_back(current);
  if (out.size() == 1 && out[0] == "void") out.clear();
  return out;
}

std::string strip(std::string text, const std::string& word) {
  for (std::size_t at; (at = text.find(word)) != std::string::npos;) text.erase(at, word.size());
  while (!text.empty() && text.back() == ' ') text.pop_back();
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  return text;
}

// The element type of a demangled scalar or CUDA vector type (__half,
// float4, __nv_bfloat162); nullopt for anything else (structs, enums, templates).
std::optional<ElementType> scalar_type(const std::string& type) {
  static const std::pair<const char*, ElementType> kNames[] = {
      {"float", ElementType::f32},         {"double", ElementType::f64},
      {"signed char", ElementType::i8},    {"char", ElementType::i8},
      {"unsigned char", ElementType::u8},  {"short", ElementType::i16},
      {"unsigned short", ElementType::u16}, {"int", ElementType::i32},
      {"unsigned int", ElementType::u32},  {"long", ElementType::i64},
      {"long long", ElementType::i64},     {"unsigned long", ElementType::u64},
      {"unsigned long long", ElementType::u64}};
  const std::string bare = strip(strip(type, "const"), "volatile");
  for (const auto& [name, t] : kNames)
    if (bare == name) return t;
  return element_type_from_string(bare);
}

// Whether a pointer to `pointee` can carry a buffer of `buffer`: the same lane
// (signedness aside), however many lanes each has. A kernel that reads a float
// buffer through float4* (or a float4 buffer through float*) is the usual
// vector-load idiom, the bytes are the same; a double through float2* is not.
// A buffer of single bytes (int8, uint8) is raw memory and fits any pointer:
// the CUDA samples' `unsigned char* d_idata` passed as `TData*` for every
// TData of a templated copy; it is compared byte by byte.
bool lanes_fit(ElementType pointee, ElementType buffer) {
  const ElementType a = lane_type(pointee), b = lane_type(buffer);
  if (element_size(buffer) == 1) return true;
  return a == b || (element_size(a) == element_size(b) && is_floating(a) == is_floating(b));
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

} // namespace

std::optional<std::vector<std::string>> kernel_parameters(const std::string& lowered_name) {
  if (lowered_name.rfind("_Z", 0) != 0) return std::nullopt; // extern "C": nothing to read
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(lowered_name.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !demangled) return std::nullopt;
  return split_parameters(demangled.get());
}

std::optional<std::string> signature_mismatch(const KernelDescription& d, const std::string& lowered_name) {
  const auto parameters = kernel_parameters(lowered_name);
  if (!parameters) return std::nullopt;
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(lowered_name.c_str(), nullptr, nullptr, &status), std::free);
  const std::string signature = demangled ? demangled.get() : lowered_name;
  const std::string where = d.name + " (" + (d.origin.empty() ? "built in C++" : d.origin) + ")";
  if (parameters->size() != d.arguments.size()) {
    std::vector<std::string> described;
    for (const auto& a : d.arguments) described.push_back(argument_name(a));
    return where + " describes " + std::to_string(d.arguments.size()) + " arguments (" + join(described) +
           ") but the kernel takes " + std::to_string(parameters->size()) + ": " + signature;
  }
  for (std::size_t i = 0; i < parameters->size(); ++i) {
    std::string type = strip((*parameters)[i], "__restrict__");
    type = strip(type, "__restrict");
    const bool pointer = !type.empty() && type.back() == '*';
    const auto mismatch = [&](const std::string& what) {
      return where + ": arguments[" + std::to_string(i) + "] ('" + argument_name(d.arguments[i]) + "') " + what +
             ", but the kernel's parameter " + std::to_string(i) + " is '" + (*parameters)[i] + "': " + signature;
    };
    if (const auto* b = std::get_if<BufferArgument>(&d.arguments[i])) {
      if (!pointer) return mismatch(std::string("is a buffer of ") + to_string(b->type));
      const auto pointee = scalar_type(type.substr(0, type.size() - 1));
      if (!b->type_from.empty()) {
        // The type is the problem's label: any of the labels' types fits here (the workload resolves it per problem).
        const auto labels = description_detail::labels_of(d, b->type_from);
        bool fits = !pointee || !labels;
        for (const auto& label : labels ? *labels : std::vector<std::string>{})
          if (const auto t = element_type_from_string(label); t && pointee && lanes_fit(*pointee, *t)) fits = true;
        if (!fits) return mismatch("is a buffer of {" + b->type_from + "}");
        continue;
      }
      if (pointee && !lanes_fit(*pointee, b->type))
        return mismatch(std::string("is a buffer of ") + to_string(b->type));
      continue;
    }
    const auto& s = std::get<ScalarArgument>(d.arguments[i]);
    if (pointer) return mismatch(std::string("is a scalar ") + to_string(s.type));
    const auto t = scalar_type(type);
    if (t && element_size(*t) != element_size(s.type)) return mismatch(std::string("is a scalar ") + to_string(s.type));
    if (t && is_floating(*t) != is_floating(s.type)) return mismatch(std::string("is a scalar ") + to_string(s.type));
  }
  return std::nullopt;
}

} // namespace memtune
