#pragma once
// Printers of the result model (document.hpp), one per format, chosen by
// `--format table|json|csv|markdown` (nvbench's printer_base and
// google/benchmark's reporters are the model).
#include <memtune/output/document.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::output {

enum class Format { table, json, csv, markdown };

[[nodiscard]] const std::vector<std::string>& format_names(); // "table", "json", "csv", "markdown"
[[nodiscard]] std::optional<Format> parse_format(const std::string& name);

class Printer {
public:
  virtual ~Printer() = default;
  virtual void print(std::ostream& out, const Document& document) const = 0;
};

class TablePrinter final : public Printer {
public:
  void print(std::ostream& out, const Document& document) const override;
};
class JsonPrinter final : public Printer {
public:
  void print(std::ostream& out, const Document& document) const override;
};
class CsvPrinter final : public Printer {
public:
  void print(std::ostream& out, const Document& document) const override;
};
class MarkdownPrinter final : public Printer {
public:
  void print(std::ostream& out, const Document& document) const override;
};

// One table as RFC 4180 CSV: a header row of the CSV columns' keys, one row
// per line; numbers as the data has them (seconds, fractions), not scaled.
[[nodiscard]] std::string csv_text(const Table& table);

// The JSON printer's document: data, every table's rows, schema_version, tool.
[[nodiscard]] nlohmann::json to_json(const Document& document);

void print(std::ostream& out, const Document& document, Format format);
// `--format csv --table KEY`: that one table as plain CSV (its header row and
// rows, no comment lines), so one stream or file holds one table that any CSV
// reader takes as it is. An empty `table` prints the whole document as
// `format` says. Returns false, printing nothing, when the document has no
// table of that key; `table_keys` lists the keys it has.
bool print(std::ostream& out, const Document& document, Format format, const std::string& table);
[[nodiscard]] std::string table_keys(const Document& document); // "ranked, failures"

} // namespace memtune::output
