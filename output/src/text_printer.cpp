#include <memtune/output/printer.hpp>

#include <algorithm>

namespace memtune::output {
namespace {

bool numeric_column(const Table& t, const Column& c) {
  for (const auto& row : t.rows)
    if (row.contains(c.key) && !row.at(c.key).is_null()) return row.at(c.key).is_number();
  return false;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

void print_table(std::ostream& out, const Table& t) {
  std::vector<const Column*> cols;
  for (const auto& c : t.columns)
    if (c.text) cols.push_back(&c);
  const std::size_t n = std::min(t.rows.size(), t.text_rows);
  std::vector<std::vector<std::string>> cells(n);
  std::vector<std::size_t> width;
  std::vector<bool> right;
  for (const Column* c : cols) {
    width.push_back(c->header.size());
    right.push_back(!c->left && numeric_column(t, *c));
  }
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const auto& row = t.rows[r];
      cells[r].push_back(row.contains(cols[i]->key) ? cell_text(*cols[i], row.at(cols[i]->key)) : "");
      width[i] = std::max(width[i], cells[r].back().size());
    }
  // Two spaces between columns; the last column is not padded on the right.
  auto line = [&](auto&& text_of) {
    std::string s;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      std::string cell = pad(text_of(i), width[i], right[i]);
      if (i + 1 == cols.size() && !right[i]) cell = text_of(i);
      s += (i ? "  " : "") + cell;
    }
    out << s << "\n";
  };
  line([&](std::size_t i) { return cols[i]->header; });
  for (std::size_t r = 0; r < n; ++r) line([&](std::size_t i) { return cells[r][i]; });
  if (n < t.rows.size()) out << "(" << t.rows.size() - n << " more rows in --format json/csv)\n";
}

} // namespace

void TablePrinter::print(std::ostream& out, const Document& d) const {
  if (!d.title.empty()) out << d.title << "\n";
  Block::Kind previous = Block::Kind::fact;
  bool first = true;
  for (const Block& b : d.blocks) {
    if (b.kind == Block::Kind::table && !b.table.text) continue;
    // Facts run together under the title; anything else is set apart by a blank line.
    if (!(b.kind == Block::Kind::fact && previous == Block::Kind::fact) && !(first && d.title.empty())) out << "\n";
    switch (b.kind) {
    case Block::Kind::fact: out << "  " << b.text << "\n"; break;
    case Block::Kind::paragraph: out << b.text << (b.text.empty() || b.text.back() != '\n' ? "\n" : ""); break;
    case Block::Kind::table:
      if (!b.table.title.empty()) out << b.table.title << "\n";
      print_table(out, b.table);
      break;
    }
    previous = b.kind;
    first = false;
  }
}

} // namespace memtune::output
