#pragma once
// The one result model every command prints through (printer.hpp): a title,
// the machine-readable data, and the blocks a person reads, in order.
//
//   output::Document d;
//   d.title = "memtune targets";
//   d.data["folder"] = "configs/targets";
//   output::Table& t = d.add_table("targets");
//   t.columns = {{.key = "name", .header = "name"}, {.key = "sms", .header = "SMs", .format = "%d"}};
//   t.rows.push_back({{"name", "k20"}, {"sms", 13}});
//   output::print(std::cout, d, output::Format::table);
//
// JSON is `data` plus every table's rows under its key (schema_version and
// tool are added by the printer); CSV is every table with the schema and tool
// versions in comment lines; table and markdown show the title, the facts,
// the tables and the paragraphs.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace memtune::output {

struct Column {
  std::string key;         // the row's key
  std::string header;      // what table, markdown and CSV call it
  std::string format = {}; // printf format of a number in text ("%.2f"); empty: as written
  double scale = 1.0;      // text and CSV show value * scale (seconds -> "time us": 1e6)
  bool text = true;        // shown by table and markdown
  bool csv = true;         // written by CSV
  bool json = true;        // false: a text helper (e.g. "config_text"), dropped from JSON rows
  bool left = false;       // align left in text even when the values are numbers (a rank)
};

struct Table {
  std::string key;                   // JSON key and CSV section name
  std::string title;                 // a line above the table in text and markdown; may be empty
  std::vector<Column> columns;
  std::vector<nlohmann::json> rows;  // objects; keys that are no column still reach JSON
  std::size_t text_rows = std::numeric_limits<std::size_t>::max(); // rows table/markdown show (JSON, CSV: all)
  bool text = true;                  // false: JSON and CSV only (a paragraph tells people about it)
  bool json = true;                  // false: the document's data already holds these rows, richer
};

struct Block {
  enum class Kind { fact, paragraph, table };
  Kind kind = Kind::paragraph;
  std::string text;   // fact: one line; paragraph: one or more lines
  Table table;        // Kind::table
};

struct Document {
  std::string title;                              // first line; markdown heading
  nlohmann::json data = nlohmann::json::object(); // JSON fields besides the tables
  std::deque<Block> blocks; // a deque: add_table's reference stays valid while blocks are added

  void fact(std::string line) { blocks.push_back({Block::Kind::fact, std::move(line), {}}); }
  void paragraph(std::string text) { blocks.push_back({Block::Kind::paragraph, std::move(text), {}}); }
  Table& add_table(std::string key);
  [[nodiscard]] const Table* table(const std::string& key) const;
};

// The cell as text and CSV show it: numbers through the column's scale and
// format, strings as they are, objects as "k=v k=v", null as "".
[[nodiscard]] std::string cell_text(const Column& column, const nlohmann::json& value);

} // namespace memtune::output
