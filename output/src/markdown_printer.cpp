#include <memtune/output/printer.hpp>

#include <algorithm>

namespace memtune::output {
namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string("<br>") : std::string(1, c);
  return out;
}

} // namespace

void MarkdownPrinter::print(std::ostream& out, const Document& d) const {
  if (!d.title.empty()) out << "### " << cell(d.title) << "\n";
  Block::Kind previous = Block::Kind::paragraph;
  for (const Block& b : d.blocks) {
    if (b.kind == Block::Kind::table && !b.table.text) continue;
    if (!(b.kind == Block::Kind::fact && previous == Block::Kind::fact)) out << "\n";
    previous = b.kind;
    if (b.kind == Block::Kind::fact) {
      out << "- " << b.text << "\n";
    } else if (b.kind == Block::Kind::paragraph) {
      // Paragraph lines keep their breaks (a list of runner-ups, "best:"/"why:").
      std::string text = b.text;
      while (!text.empty() && text.back() == '\n') text.pop_back();
      std::size_t start = 0;
      while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        out << text.substr(start, end - start) << (end < text.size() ? "  \n" : "\n");
        start = end + 1;
      }
    } else {
      const Table& t = b.table;
      if (!t.title.empty()) out << "**" << cell(t.title) << "**\n\n";
      std::vector<const Column*> cols;
      for (const auto& c : t.columns)
        if (c.text) cols.push_back(&c);
      std::string header = "|", rule = "|";
      for (const Column* c : cols) {
        header += " " + cell(c->header) + " |";
        rule += " --- |";
      }
      out << header << "\n" << rule << "\n";
      const std::size_t n = std::min(t.rows.size(), t.text_rows);
      for (std::size_t r = 0; r < n; ++r) {
        std::string line = "|";
        for (const Column* c : cols)
          line += " " + cell(t.rows[r].contains(c->key) ? cell_text(*c, t.rows[r].at(c->key)) : "") + " |";
        out << line << "\n";
      }
      if (n < t.rows.size()) out << "\n(" << t.rows.size() - n << " more rows in --format json/csv)\n";
    }
  }
}

} // namespace memtune::output
