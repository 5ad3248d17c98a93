#include <memtune/compile/cubin_elf.hpp>
#include <memtune/compile/kernel_resources.hpp>

#include <regex>
#include <stdexcept>

namespace memtune {

namespace {

std::size_t to_size(const std::string& digits) { return static_cast<std::size_t>(std::stoull(digits)); }

} // namespace

std::optional<std::string> block_bound_violation(int block_threads, int max_threads, int registers) {
  if (max_threads <= 0 || block_threads <= max_threads) return std::nullopt;
  return "blocks of " + std::to_string(block_threads) + " threads, but the compiled kernel allows at most " +
         std::to_string(max_threads) + " (its __launch_bounds__, or " + std::to_string(registers) +
         " registers per thread)";
}

KernelResources parse_ptxas_report(const std::string& log, const std::string& lowered_name) {
  KernelResources r;
  // The report for a kernel starts at "Compiling entry function '<name>'" and
  // runs until the next entry function.
  std::size_t begin = log.find("Compiling entry function '" + lowered_name + "'");
  if (begin == std::string::npos) begin = 0;
  std::size_t end = log.find("Compiling entry function", begin + 1);
  const std::string section = log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);

  std::smatch m;
  if (std::regex_search(section, m, std::regex(R"(Used (\d+) registers)"))) r.registers = std::stoi(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes smem)"))) r.static_smem_bytes = to_size(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes stack frame)"))) r.stack_frame_bytes = to_size(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes spill stores)"))) r.spill_store_bytes = to_size(m[1]);
  if (std::regex_search(section, m, std::regex(R"((\d+) bytes spill loads)"))) r.spill_load_bytes = to_size(m[1]);
  return r;
}

KernelResources compiled_kernel_resources(const std::string& log, const std::string& lowered_name,
                                          const std::vector<char>& cubin) {
  KernelResources r = parse_ptxas_report(log, lowered_name);
  try {
    r.max_threads_per_block = cubin_max_threads_per_block(cubin, lowered_name);
  } catch (const std::invalid_argument&) {
    // Not an ELF memtune reads: the bound stays unknown here, and the driver
    // still refuses a block past it when the kernel is loaded.
  }
  return r;
}

} // namespace memtune
