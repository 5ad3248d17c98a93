#pragma once
// The toolkit's nvcc as a compiler back end: it takes what NVRTC refuses,
// host code beside the kernels (`int main`, host helpers) and host headers
// (<cstdio>, <vector>). Same contract as nvrtc_compile(): a compile error is
// data (ok == false with nvcc's output).
//
// nvcc cannot be asked for a template instantiation's mangled name. memtune
// compiles a small translation unit that includes the source and takes the
// address of the name expression (which instantiates it), and instantiates a
// marker kernel whose one template argument is that address
// (`memtune_kernel_marker<&testKernel<uint8>>`, C++17 and later): the
// marker's demangled name spells the kernel as the compiler resolved it,
// typedefs, default template arguments and constant expressions included
// (`void testKernel<unsigned char>(unsigned char*, unsigned char*, int)`),
// which picks it among the CUBIN's entry points as nvrtcGetLoweredName would.
// Without the marker (an older -std), the entry point whose demangled name is
// the expression as written (`ns::tile<32, float>`), or the only one of that
// function name.
#include <memtune/compile/compile_request.hpp>
#include <memtune/compile/cubin_elf.hpp> // cubin_kernel_symbols

#include <filesystem>
#include <string>
#include <vector>

namespace memtune {

// Compiles with cuda_toolkit().nvcc; throws std::runtime_error naming where it
// looked when the toolkit has no nvcc.
CompileResult nvcc_compile(const CompileRequest& request);

// "nvcc 13.0 (/usr/local/cuda/bin/nvcc)"; throws like nvcc_compile().
std::string nvcc_identity();

// The symbol among `symbols` that `name_expression` names (see above; the
// marker itself is never the answer); throws std::invalid_argument listing
// the kernels when none or several match.
std::string find_kernel_symbol(const std::vector<std::string>& symbols, const std::string& name_expression);

} // namespace memtune
