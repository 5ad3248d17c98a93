#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_signature.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {
const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";
constexpr const char* kTransposeMangled = "_Z9transposeILi32ELi8ELi1EEvPfPKfii";
} // namespace

TEST_CASE("the kernel's parameters come from its mangled name; extern \"C\" names tell nothing") {
  CHECK(kernel_parameters(kTransposeMangled) == std::vector<std::string>{"float*", "float const*", "int", "int"});
  CHECK_FALSE(kernel_parameters("memtune_compare").has_value());
  CHECK(kernel_parameters("_Z1kv") == std::vector<std::string>{});
  // Template arguments with commas and parentheses do not split parameters.
  CHECK(kernel_parameters("_Z6reduceIfLi256EEvPKT_PS0_x") ==
        std::vector<std::string>{"float const*", "float*", "long long"});
}

TEST_CASE("a description whose arguments do not match the kernel is refused, naming both") {
  KernelDescription d = load_description(kAssets / "transpose.json");
  // The name NVRTC gives the compiled kernel.
  const search::Config c{{"TILE", 32}, {"ROWS", 8}, {"PAD", 1}};
  Target t;
  t.cc_major = 9;
  t.max_threads_per_block = 1024;
  const CompileResult compiled = nvrtc_compile(d.compile_request(d.launch(c, d.complete({}), t), 90));
  REQUIRE_MESSAGE(compiled.ok, compiled.log);
  CHECK(compiled.lowered_name == kTransposeMangled);
  CHECK_FALSE(signature_mismatch(d, compiled.lowered_name).has_value());

  KernelDescription fewer = d;
  fewer.arguments.pop_back();
  const auto count = signature_mismatch(fewer, kTransposeMangled);
  REQUIRE(count.has_value());
  CHECK(*count == "transpose_test (" + d.origin + ") describes 3 arguments (out, in, rows) but the kernel takes 4: "
                  "void transpose<32, 8, 1>(float*, float const*, int, int)");

  KernelDescription wrong_element = d;
  std::get<BufferArgument>(wrong_element.arguments[1]).type = ElementType::f64;
  const auto element = signature_mismatch(wrong_element, kTransposeMangled);
  REQUIRE(element.has_value());
  CHECK(element->find("arguments[1] ('in') is a buffer of double, but the kernel's parameter 1 is 'float const*'") !=
        std::string::npos);

  KernelDescription scalar_for_pointer = d;
  scalar_for_pointer.arguments[0] = ScalarArgument{"out", ElementType::i64, 0, std::nullopt, false};
  CHECK(signature_mismatch(scalar_for_pointer, kTransposeMangled).value().find("is a scalar int64") != std::string::npos);

  KernelDescription float_scalar = d;
  std::get<ScalarArgument>(float_scalar.arguments[2]).type = ElementType::f32;
  CHECK(signature_mismatch(float_scalar, kTransposeMangled).value().find("('rows') is a scalar float") != std::string::npos);

  KernelDescription unsigned_scalar = d; // signedness is not compared
  std::get<ScalarArgument>(unsigned_scalar.arguments[2]).type = ElementType::u32;
  CHECK_FALSE(signature_mismatch(unsigned_scalar, kTransposeMangled).has_value());

  CHECK_FALSE(signature_mismatch(fewer, "transpose_extern_c").has_value());
}

TEST_CASE("a buffer read through a vector of its own lane type fits; another lane type does not") {
  const KernelDescription d = load_description(kAssets / "transpose.json");
  // transpose<32, 8, 1>(float*, float4 const*, int, int): the float input read as float4.
  constexpr const char* kFloat4In = "_Z9transposeILi32ELi8ELi1EEvPfPK6float4ii";
  REQUIRE(kernel_parameters(kFloat4In) == std::vector<std::string>{"float*", "float4 const*", "int", "int"});
  CHECK_FALSE(signature_mismatch(d, kFloat4In).has_value());

  KernelDescription float4_buffer = d; // and a float4 buffer read through float*
  std::get<BufferArgument>(float4_buffer.arguments[1]).type = vector_type(ElementType::f32, 4);
  CHECK_FALSE(signature_mismatch(float4_buffer, kTransposeMangled).has_value());

  KernelDescription doubles = d; // 8-byte lanes through float4*: not the same data
  std::get<BufferArgument>(doubles.arguments[1]).type = ElementType::f64;
  CHECK(signature_mismatch(doubles, kFloat4In)
            .value()
            .find("('in') is a buffer of double, but the kernel's parameter 1 is 'float4 const*'") != std::string::npos);

  KernelDescription ints = d; // int lanes through float4*
  std::get<BufferArgument>(ints.arguments[1]).type = ElementType::i32;
  CHECK(signature_mismatch(ints, kFloat4In).has_value());

  KernelDescription bytes = d; // raw bytes (the samples' unsigned char* cast to TData*) fit any pointer
  std::get<BufferArgument>(bytes.arguments[0]).type = ElementType::u8;
  std::get<BufferArgument>(bytes.arguments[1]).type = ElementType::i8;
  CHECK_FALSE(signature_mismatch(bytes, kFloat4In).has_value());
  KernelDescription byte_vectors = d; // but char4 lanes are bytes read four at a time, not raw memory
  std::get<BufferArgument>(byte_vectors.arguments[1]).type = vector_type(ElementType::u8, 4);
  CHECK(signature_mismatch(byte_vectors, kFloat4In).has_value());
}
