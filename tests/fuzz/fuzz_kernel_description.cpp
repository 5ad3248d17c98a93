// Kernel description files (tune --spec, templates/<name>/): any bytes read as
// a description or give a DescriptionError naming the file and the field (a
// syntax error: the line). Source files resolve in tests/assets/descriptions,
// so a seed's kernel source is found and its signature and expressions are
// checked as load_description checks them.
#include "harness.hpp"

#include <memtune/description/description_json.hpp>

MEMTUNE_FUZZ_TEXT(text) {
  (void)memtune::description_from_text(text, "fuzz-description.json", MEMTUNE_FUZZ_ASSETS "/descriptions");
}
