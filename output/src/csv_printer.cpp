#include <memtune/output/printer.hpp>
#include <memtune/io/number_text.hpp>
#include <memtune/io/version.hpp>

namespace memtune::output {
namespace {

// RFC 4180: quote a field that holds a comma, a quote or a line break.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

} // namespace

std::string csv_text(const Table& t) {
  std::string text;
  std::string header;
  for (const Column& c : t.columns)
    if (c.csv) header += (header.empty() ? "" : ",") + field(c.key);
  text += header + "\n";
  for (const auto& row : t.rows) {
    std::string line;
    bool any = false;
    for (const Column& c : t.columns) {
      if (!c.csv) continue;
      std::string cell;
      if (row.contains(c.key)) {
        const auto& v = row.at(c.key);
        // The data's unit, not the text's scale; ten significant digits.
        cell = v.is_number_float() ? number_text("%.10g", v.get<double>()) : cell_text({}, v);
      }
      line += (any ? "," : "") + field(cell);
      any = true;
    }
    text += line + "\n";
  }
  return text;
}

void CsvPrinter::print(std::ostream& out, const Document& d) const {
  // Comment lines (pandas: comment='#') carry what JSON carries as fields.
  out << "# schema_version: " << kSchemaVersion << "\n# tool: memtune " << kVersion << "\n";
  if (!d.title.empty()) out << "# " << d.title << "\n";
  bool first = true;
  for (const Block& b : d.blocks) {
    if (b.kind != Block::Kind::table) continue;
    if (!first) out << "\n";
    first = false;
    out << "# table: " << b.table.key << "\n" << csv_text(b.table);
  }
}

} // namespace memtune::output
