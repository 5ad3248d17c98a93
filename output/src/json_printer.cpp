#include <memtune/output/printer.hpp>
#include <memtune/io/version.hpp>

namespace memtune::output {

nlohmann::json to_json(const Document& d) {
  nlohmann::json j = d.data;
  j["schema_version"] = kSchemaVersion;
  j["tool"] = std::string("memtune ") + kVersion;
  for (const Block& b : d.blocks) {
    if (b.kind != Block::Kind::table || !b.table.json) continue;
    nlohmann::json rows = nlohmann::json::array();
    for (nlohmann::json row : b.table.rows) {
      for (const Column& c : b.table.columns)
        if (!c.json) row.erase(c.key);
      rows.push_back(std::move(row));
    }
    j[b.table.key] = std::move(rows);
  }
  return j;
}

void JsonPrinter::print(std::ostream& out, const Document& d) const { out << to_json(d).dump(2) << "\n"; }

} // namespace memtune::output
