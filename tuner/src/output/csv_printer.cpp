#include <memtune/output/printer.hpp>
#include <memtune/version.hpp>

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

void CsvPrinter::print(std::ostream& out, const Document& d) const {
  // Comment lines (pandas: comment='#') carry what JSON carries as fields.
  out << "# schema_version: " << kSchemaVersion << "\n# tool: memtune " << kVersion << "\n";
  if (!d.title.empty()) out << "# " << d.title << "\n";
  bool first = true;
  for (const Block& b : d.blocks) {
    if (b.kind != Block::Kind::table) continue;
    if (!first) out << "\n";
    first = false;
    out << "# table: " << b.table.key << "\n";
    std::string header;
    for (const Column& c : b.table.columns)
      if (c.csv) header += (header.empty() ? "" : ",") + field(c.key);
    out << header << "\n";
    for (const auto& row : b.table.rows) {
      std::string line;
      bool any = false;
      for (const Column& c : b.table.columns) {
        if (!c.csv) continue;
        // CSV keeps the unit of the data (seconds), not the text's scale.
        Column raw = c;
        raw.scale = 1.0;
        raw.format = c.format.empty() ? "" : "%.9g";
        line += (any ? "," : "") + field(row.contains(c.key) ? cell_text(raw, row.at(c.key)) : "");
        any = true;
      }
      out << line << "\n";
    }
  }
}

} // namespace memtune::output
