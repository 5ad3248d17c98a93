#include <memtune/description/source_defines.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;

TEST_CASE("a tunable the file defines is substituted on its line, the rest byte-identical") {
  const std::string text = "// sample\n#define TILE_DIM 32\r\n#define BLOCK_ROWS 8 // rows\nint x = TILE_DIM;\n";
  const std::string out = substitute_defines(text, "transpose.cu", {{"TILE_DIM", "64"}, {"BLOCK_ROWS", "4"}});
  CHECK(out == "// sample\n#define TILE_DIM 64\r\n#define BLOCK_ROWS 4\nint x = TILE_DIM;\n");
  CHECK(substitute_defines(text, "transpose.cu", {{"OTHER", "1"}}) == text);
}

TEST_CASE("a definition under #ifndef is a default the -D overrides: left alone") {
  const std::string text = "#ifndef TILE\n#define TILE 32\n#endif\n#if !defined( ROWS )\n# define ROWS 8\n#else\n#endif\n";
  CHECK(substitute_defines(text, "k.cu", {{"TILE", "64"}, {"ROWS", "2"}}) == text);
  const auto found = find_macro_definitions(text, "k.cu", {"TILE", "ROWS"});
  REQUIRE(found.size() == 2);
  CHECK(found[0].guarded);
  CHECK(found[1].line == 5);
  // In the #else branch of the guard the definition is unconditional again.
  const std::string other = "#ifndef TILE\n#else\n#define TILE 1\n#endif\n";
  CHECK(substitute_defines(other, "k.cu", {{"TILE", "64"}}) == "#ifndef TILE\n#else\n#define TILE 64\n#endif\n");
}

TEST_CASE("a definition that cannot be rewritten is refused with the macro, the file and the line") {
  CHECK_THROWS_WITH_AS(substitute_defines("int a;\n#define TILE(x) (x)\n", "k.cu", {{"TILE", "4"}}),
                       "source.defines.TILE: k.cu:2 defines TILE as a function-like macro; memtune can only substitute "
                       "a value (rename the tunable, or guard the definition with #ifndef TILE)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(substitute_defines("\n\n#define TILE 4 \\\n  * 2\n", "dir/k.cu", {{"TILE", "4"}}),
                       doctest::Contains("source.defines.TILE: dir/k.cu:3 defines TILE over several lines"),
                       std::invalid_argument);
}
