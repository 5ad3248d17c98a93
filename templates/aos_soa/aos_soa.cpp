// The aos_soa template's kernel description: templates/aos_soa/aos_soa.cu as
// data. The expected outputs depend on the layout axis (AoS or SoA
// arrangement): the reference kernel runs once per layout.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/aos_soa.hpp>
#include "embedded_sources.hpp"

#include "aos_soa_geometry.hpp"

#include <cfloat>
#include <string>

namespace memtune::templates {

using search::Axis;

namespace {
// Block indices stay far inside the grid limit; element indices are 64-bit in the kernel.
constexpr std::int64_t kMaxN = (std::int64_t{1} << 31) - (std::int64_t{1} << 20);
constexpr std::int64_t kMaxFields = 8;

// aos_soa.cu's aos_soa_reference: one thread per struct in the layout's
// arrangement (AoS order, or the field arrays at the SoA pitch), in double;
// run once per layout (verify.depends_on), on that layout's buffers.
ReferenceKernel reference_kernel() {
  return {"aos_soa_reference<{op + 0}, {layout == \"soa\"}, {fields}>", {}, {search::parse_expr("256")},
          {search::parse_expr("ceil_div(n, 256)")}, 0};
}

KernelDescription describe() {
  ProblemParameter op{"op", 0, 0, 2, "read (out[i] = sum of the fields), write (field f = in[i]*(f+1)) or "
                                     "readwrite (field f = field f * c_f + 1)", false};
  op.labels = aos_soa_op_labels();
  return KernelBuilder("aos_soa")
      .summary("array of n structs of F floats (read: sum the fields; write: fields from a scalar; readwrite: scale "
               "in place) in AoS, SoA, AoS via __ldg, AoS staged in shared memory, or AoS with vector accesses")
      .source("aos_soa.cu", embedded::aos_soa_cu)
      // `+ 0`: the enumerations' indices (aos_soa.cu's OP and LAYOUT), not their labels.
      .kernel("aos_soa_kernel<{op + 0}, {layout + 0}, {fields}, {block_size}, {items}>")
      .size("n", std::int64_t{1} << 24, "elements (structs)", 1, kMaxN)
      .problem(op)
      .problem({"fields", 3, 1, kMaxFields, "floats per struct", false})
      .parameter(Axis::categorical("layout", aos_soa_layout_labels(),
                                   "struct array layout and access: aos (4-byte field accesses), soa (field arrays, "
                                   "up to 16-byte accesses), aos_ldg (aos through the read-only cache), aos_smem "
                                   "(tile staged through shared memory with 16-byte accesses), aos_vec (8/16-byte "
                                   "accesses over a thread's consecutive structs)"))
      .parameter(Axis::ordinal("block_size", {64, 128, 256, 512, 1024}, "threads per block"))
      .parameter(Axis::ordinal("items", {1, 2, 4, 8}, "elements per thread (independent accesses in flight)"))
      // aos_soa.cu's arithmetic (AosSoaGeometry reads it from here).
      .derived("pitch", "round_up(n, 4)") // aos_soa_pitch: every SoA field array starts 16-byte aligned
      .derived("tile", "block_size * items")
      .derived("blocks", "ceil_div(n, tile)")
      .derived("soa_w", "min(items, 4)") // soa: consecutive elements per access
      // aos_vec: floats per access; aos_smem: floats per shared access of a struct.
      .derived("vec_v", "items * fields % 4 == 0 ? 4 : items * fields % 2 == 0 ? 2 : 1")
      .derived("smem_w", "fields % 4 == 0 ? 4 : fields % 2 == 0 ? 2 : 1")
      .derived("smem_bytes", "layout == \"aos_smem\" ? tile * fields * 4 : 0")
      .constraint("block_size <= max_threads_per_block", "threads per block above the device limit")
      .constraint("op != \"write\" || layout != \"aos_ldg\"",
                  "write reads no struct: the read-only path would only carry the scalar input")
      // aos_vec moves a thread's items*F consecutive floats in 8- or 16-byte
      // vectors; with an odd count it would be aos again.
      .constraint("layout != \"aos_vec\" || items * fields % 2 == 0",
                  "aos_vec needs an even items*fields (8/16-byte accesses that stay aligned)")
      // A thread keeps items*fields floats in registers; __launch_bounds__(block)
      // leaves it 65536/block of them (64K registers per block on every GPU since
      // Kepler), and about 40 go to addresses and guards. Beyond that NVRTC spills
      // to local memory (seen at block 1024 with 32 and 64 floats per thread).
      .constraint("block_size * (items * fields + 40) <= 65536",
                  "items*fields floats per thread do not fit in the registers a block_size block leaves each thread "
                  "(would spill)")
      .constraint("smem_bytes <= max_shared_memory_per_block_optin",
                  "aos_smem tile (block_size*items*fields floats) exceeds shared memory per block")
      .block("block_size")
      .grid("blocks")
      .shared_memory("smem_bytes")
      // in: the scalars (write) or the structs in the layout's arrangement
      // (random either way: the reference reads them as the layout does);
      // out: the sums (read) or the structs, sized for either arrangement,
      // written in part (the padding after each SoA field array, the tail of
      // the AoS structs).
      .buffer("in", ElementType::f32, "op == \"write\" ? n : layout == \"soa\" ? fields * pitch : n * fields",
              BufferRole::in)
      .buffer("out", ElementType::f32, "op == \"read\" ? n : max(n * fields, fields * pitch)", BufferRole::out)
      .written_in_part("out")
      .scalar("n", ElementType::i64, "n")
      .scalar("pitch", ElementType::i64, "pitch")
      // The structs in and the sums out (read), the scalars in and the structs
      // out (write), the structs in and out (readwrite).
      .bytes_moved("op == \"readwrite\" ? 2 * n * fields * 4 : (n * fields + n) * 4")
      // |x| <= 1. read: F-1 float additions of a sum bounded by F (F terms of
      // up to F each: F*F); write: one rounding of a product up to 8;
      // readwrite: one fma, result up to 3.25 (8 covers both). Twice that.
      .verify_with_kernel(reference_kernel(), {2.0 * FLT_EPSILON, 0.0}, "op == \"read\" ? fields * fields : 8",
                          {"layout"})
      .access_pattern(aos_soa_access_pattern)
      .explain(aos_soa_explain)
      // SoA with one float4 per field and thread: coalesced 16-byte accesses on
      // every GPU, no shared memory, valid for every op and field count.
      .default_config(nlohmann::json{{"layout", "soa"}, {"block_size", 256}, {"items", 4}})
      .build();
}
} // namespace

const std::vector<std::string>& aos_soa_op_labels() {
  static const std::vector<std::string> labels{"read", "write", "readwrite"};
  return labels;
}

const std::vector<std::string>& aos_soa_layout_labels() {
  static const std::vector<std::string> labels{"aos", "soa", "aos_ldg", "aos_smem", "aos_vec"};
  return labels;
}

std::int64_t aos_soa_pitch(std::int64_t n) { return (n + 3) / 4 * 4; }

double aos_soa_readwrite_scale(int field) { return 0.5 + 0.25 * field; }

const KernelDescription& aos_soa_description() {
  static const KernelDescription description = describe();
  return description;
}

} // namespace memtune::templates
