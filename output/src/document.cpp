#include <memtune/output/document.hpp>
#include <memtune/output/printer.hpp>

#include <cstdio>

namespace memtune::output {

Table& Document::add_table(std::string key) {
  Block b;
  b.kind = Block::Kind::table;
  b.table.key = std::move(key);
  blocks.push_back(std::move(b));
  return blocks.back().table;
}

const Table* Document::table(const std::string& key) const {
  for (const Block& b : blocks)
    if (b.kind == Block::Kind::table && b.table.key == key) return &b.table;
  return nullptr;
}

std::string cell_text(const Column& column, const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) {
    if (column.format.empty() && column.scale == 1.0) return v.dump();
    const double x = v.get<double>() * column.scale;
    char buf[64];
    const std::string& f = column.format.empty() ? std::string("%g") : column.format;
    // Integer formats take an integer argument.
    if (f.find('d') != std::string::npos) std::snprintf(buf, sizeof buf, f.c_str(), static_cast<long long>(x));
    else std::snprintf(buf, sizeof buf, f.c_str(), x);
    return buf;
  }
  if (v.is_object()) {
    std::string s;
    for (const auto& [k, x] : v.items()) s += (s.empty() ? "" : " ") + k + "=" + cell_text({}, x);
    return s;
  }
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + cell_text({}, x);
  return s;
}

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"table", "json", "csv", "markdown"};
  return names;
}

std::optional<Format> parse_format(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "json") return Format::json;
  if (name == "csv") return Format::csv;
  if (name == "markdown" || name == "md") return Format::markdown;
  return std::nullopt;
}

void print(std::ostream& out, const Document& document, Format format) {
  switch (format) {
  case Format::table: TablePrinter{}.print(out, document); break;
  case Format::json: JsonPrinter{}.print(out, document); break;
  case Format::csv: CsvPrinter{}.print(out, document); break;
  case Format::markdown: MarkdownPrinter{}.print(out, document); break;
  }
}

bool print(std::ostream& out, const Document& document, Format format, const std::string& table) {
  if (table.empty()) {
    print(out, document, format);
    return true;
  }
  for (const Block& b : document.blocks) {
    if (b.kind != Block::Kind::table || b.table.key != table) continue;
    out << csv_text(b.table);
    return true;
  }
  return false;
}

std::string table_keys(const Document& document) {
  std::string keys;
  for (const Block& b : document.blocks)
    if (b.kind == Block::Kind::table) keys += (keys.empty() ? "" : ", ") + b.table.key;
  return keys.empty() ? "none" : keys;
}

} // namespace memtune::output
