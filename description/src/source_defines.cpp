#include <memtune/description/source_defines.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace memtune {
namespace {

struct Line {
  std::size_t begin = 0, end = 0; // [begin, end) without the newline
};

std::vector<Line> split_lines(const std::string& text) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    lines.push_back({pos, end});
    if (end == text.size()) break;
    pos = end + 1;
  }
  return lines;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "#  define NAME rest" -> directive "define", then the words after it.
struct Directive {
  std::string name;      // "define", "ifndef", "if", ... ("" when the line is no directive)
  std::string first;     // the identifier after it
  std::size_t after = 0; // offset in the line just past `first`
  std::string rest;      // the line after the directive name
};

Directive directive(const std::string& line) {
  Directive d;
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == line.size() || line[i] != '#') return d;
  ++i;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  std::size_t j = i;
  while (j < line.size() && is_ident(line[j])) ++j;
  d.name = line.substr(i, j - i);
  d.rest = line.substr(j);
  while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
  std::size_t k = j;
  while (k < line.size() && is_ident(line[k])) ++k;
  d.first = line.substr(j, k - j);
  d.after = k;
  return d;
}

// `#ifndef NAME` or `#if !defined(NAME)` / `#if !defined NAME`.
bool guards(const Directive& d, const std::string& macro) {
  if (d.name == "ifndef") return d.first == macro;
  if (d.name != "if") return false;
  std::string compact;
  for (char c : d.rest)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  return compact == "!defined(" + macro + ")" || compact == "!defined" + macro;
}

} // namespace

std::vector<MacroDefinition> find_macro_definitions(const std::string& text, const std::string& file,
                                                    const std::vector<std::string>& macros) {
  std::vector<MacroDefinition> out;
  // The macros each open conditional guards, innermost last.
  std::vector<std::string> open;
  const auto lines = split_lines(text);
  for (std::size_t n = 0; n < lines.size(); ++n) {
    std::string line = text.substr(lines[n].begin, lines[n].end - lines[n].begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const Directive d = directive(line);
    if (d.name == "if" || d.name == "ifdef" || d.name == "ifndef") {
      std::string guarded;
      for (const auto& m : macros)
        if (guards(d, m)) guarded = m;
      open.push_back(guarded);
    } else if (d.name == "else" || d.name == "elif") {
      if (!open.empty()) open.back().clear(); // the other branch: no longer the guard's
    } else if (d.name == "endif") {
      if (!open.empty()) open.pop_back();
    } else if (d.name == "define" && std::find(macros.begin(), macros.end(), d.first) != macros.end()) {
      const std::string where = file + ":" + std::to_string(n + 1);
      const bool guarded = std::find(open.begin(), open.end(), d.first) != open.end();
      if (!guarded) {
        if (d.after < line.size() && line[d.after] == '(')
          throw std::invalid_argument(where + " defines " + d.first +
                                      " as a function-like macro; memtune can only substitute a value (rename the "
                                      "tunable, or guard the definition with #ifndef " + d.first + ")");
        if (!line.empty() && line.back() == '\\')
          throw std::invalid_argument(where + " defines " + d.first +
                                      " over several lines; memtune substitutes one line (guard it with #ifndef " +
                                      d.first + ")");
      }
      out.push_back({d.first, n + 1, guarded});
    }
  }
  return out;
}

std::string substitute_defines(const std::string& text, const std::string& file,
                               const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<MacroDefinition> definitions;
  for (const auto& [name, _] : values) {
    try {
      const auto found = find_macro_definitions(text, file, {name});
      definitions.insert(definitions.end(), found.begin(), found.end());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("source.defines." + name + ": " + e.what());
    }
  }
  std::sort(definitions.begin(), definitions.end(),
            [](const MacroDefinition& a, const MacroDefinition& b) { return a.line < b.line; });
  if (std::none_of(definitions.begin(), definitions.end(), [](const MacroDefinition& d) { return !d.guarded; }))
    return text;
  const auto lines = split_lines(text);
  std::string out;
  out.reserve(text.size() + 64);
  std::size_t copied = 0;
  for (const auto& d : definitions) {
    if (d.guarded) continue;
    const Line& l = lines[d.line - 1];
    const auto value = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == d.macro; });
    out.append(text, copied, l.begin - copied);
    out += "#define " + d.macro + " " + value->second;
    if (l.end > l.begin && text[l.end - 1] == '\r') out += '\r';
    copied = l.end;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

} // namespace memtune
