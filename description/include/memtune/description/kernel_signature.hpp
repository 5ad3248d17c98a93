#pragma once
// Does a description's argument list match the kernel it names? NVRTC's
// lowered (mangled) name tells the kernel's parameter types for a C++ kernel;
// an extern "C" kernel's name tells nothing, and then nothing is checked.
//
//   kernel_parameters("_Z9transposeILi32ELi8ELi1EEvPfPKfii")
//     -> {"float*", "float const*", "int", "int"}
#include <memtune/description/kernel_description.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune {

// The parameter types of a mangled kernel name, as the demangler spells them;
// nullopt for a name that is not mangled (extern "C") or cannot be demangled.
[[nodiscard]] std::optional<std::vector<std::string>> kernel_parameters(const std::string& lowered_name);

// Why the description's arguments do not match the kernel's parameters (count,
// a buffer where the kernel takes a value or the reverse, or a known scalar
// type of another size or kind: float vs integer), naming the description and
// the kernel's signature; nullopt when they match or the kernel cannot tell.
// Signedness is not compared (int vs unsigned), nor vector and struct
// pointees (a float buffer may be read as float4*).
[[nodiscard]] std::optional<std::string> signature_mismatch(const KernelDescription& description,
                                                            const std::string& lowered_name);

} // namespace memtune
