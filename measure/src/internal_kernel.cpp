#include <memtune/measure/internal_kernel.hpp>

#include <memtune/compile/nvrtc_compiler.hpp>

#include <stdexcept>
#include <utility>

namespace memtune {

InternalKernel::InternalKernel(std::string source, const std::string& name, const std::string& file_name,
                               const UploadContext& context) {
  CompileRequest request;
  request.source = std::move(source);
  request.source_name = file_name;
  request.name_expression = name;
  request.compute_capability = context.compute_capability;
  const CompileResult compiled = compile_cached(request, context.cache);
  if (!compiled.ok) throw std::logic_error(file_name + ", memtune's own kernel, does not compile:\n" + compiled.log);
  module_ = cuda::Module(compiled.cubin);
  function_ = module_.function(compiled.lowered_name);
}

} // namespace memtune
