// The JSON of a description file, parsed strictly: a key given twice, a nest
// deeper than io::JsonLimits allows, a syntax error or a number too large for
// a double is a DescriptionError naming the file and the JSON path or line.
#include <memtune/description/description_internal.hpp>

#include <memtune/description/description_json.hpp>
#include <memtune/io/json_document.hpp>

#include <set>
#include <string>
#include <vector>

namespace memtune::description_detail {
namespace {

// nlohmann keeps the last of duplicate keys silently; in a description a
// duplicate is a mistake (a parameter given twice), so the parse refuses it,
// naming the JSON path. Arrays count their elements to name paths like
// arguments[2].
class DuplicateKeyCheck {
public:
  explicit DuplicateKeyCheck(std::string origin) : origin_(std::move(origin)) {}

  bool operator()(int /*depth*/, nlohmann::ordered_json::parse_event_t event, nlohmann::ordered_json& parsed) {
    using E = nlohmann::ordered_json::parse_event_t;
    switch (event) {
    case E::object_start:
    case E::array_start:
      // Readers of the document recurse (and so does nlohmann when it frees
      // one): a deep nest must be refused before it exhausts the stack.
      if (frames_.size() >= io::JsonLimits{}.max_depth)
        throw DescriptionError(origin_, path(),
                               "nested deeper than " + std::to_string(io::JsonLimits{}.max_depth) + " levels");
      frames_.push_back({event == E::array_start, 0, {}, {}});
      break;
    case E::key: {
      Frame& f = frames_.back();
      f.key = parsed.get<std::string>();
      if (!f.keys.insert(f.key).second) throw DescriptionError(origin_, path(), "the key \"" + f.key + "\" appears twice");
      break;
    }
    case E::object_end:
    case E::array_end:
      frames_.pop_back();
      element_done();
      break;
    case E::value: element_done(); break;
    }
    return true;
  }

private:
  struct Frame {
    bool is_array;
    std::size_t index;
    std::string key;
    std::set<std::string> keys;
  };
  void element_done() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }
  std::string path() const {
    std::string out;
    for (const auto& f : frames_) {
      if (f.is_array) out += "[" + std::to_string(f.index) + "]";
      else out += (out.empty() ? "" : ".") + f.key;
    }
    return out;
  }
  std::string origin_;
  std::vector<Frame> frames_;
};

} // namespace

nlohmann::ordered_json parse_description_text(const std::string& text, const std::string& origin) {
  try {
    return nlohmann::ordered_json::parse(text, DuplicateKeyCheck(origin));
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = io::line_and_column(text, e.byte);
    std::string message = e.what();
    if (const auto at = message.find("syntax error"); at != std::string::npos) message = message.substr(at);
    throw DescriptionError(origin, line, "not valid JSON (column " + std::to_string(column) + "): " + message);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double ("1e400"): nlohmann names the token, not its place.
    std::string message = e.what();
    std::size_t line = 0;
    if (const auto quote = message.find('\''); quote != std::string::npos) {
      const std::string token = message.substr(quote + 1, message.rfind('\'') - quote - 1);
      if (const auto at = text.find(token); !token.empty() && at != std::string::npos)
        line = io::line_and_column(text, at + 1).first; // a position counts one past the character
    }
    if (const auto at = message.find("number overflow"); at != std::string::npos) message = message.substr(at);
    throw DescriptionError(origin, line, "not valid JSON: " + message);
  }
}

} // namespace memtune::description_detail
