#include "session_environment.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/io/json_document.hpp>

#include <string>

namespace memtune {
namespace {

constexpr const char* kConfigVariable = "$MEMTUNE_CONFIG";

} // namespace

search::Config pinned_config(const char* text, const search::Space& space) {
  const nlohmann::json value = io::parse_json(text, kConfigVariable).root(); // syntax: InputError with the column
  search::Config config;
  try {
    config = space.config_from_json(value);
  } catch (const std::invalid_argument& e) {
    // Space's messages start with "config: "; the variable is the file here.
    std::string message = e.what();
    if (message.rfind("config: ", 0) == 0) message.erase(0, 8);
    throw InputError(kConfigVariable, 0, "", message + " (the axes: " + space.to_json().at("axes").dump() + ")");
  }
  if (auto why = space.violation(config))
    throw InputError(kConfigVariable, 0, "", "configuration " + space.format(config) + " is not valid here: " + *why);
  return config;
}

bool tuning_disabled(const char* text) {
  if (!text || !*text) return false;
  const std::string value = text;
  if (value == "0") return false;
  if (value == "1") return true;
  throw InputError("$MEMTUNE_NO_TUNE", 0, "", "'" + value + "': expected 1 (never tune) or 0 (tune when needed)");
}

} // namespace memtune
