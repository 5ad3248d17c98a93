#include <memtune/measure/evaluation.hpp>

#include <array>
#include <stdexcept>

namespace memtune {
namespace {
constexpr std::array<std::pair<Status, const char*>, 6> kNames{{{Status::ok, "ok"},
                                                               {Status::compile_failed, "compile_failed"},
                                                               {Status::exceeds_device_limits, "exceeds_device_limits"},
                                                               {Status::launch_failed, "launch_failed"},
                                                               {Status::wrong_result, "wrong_result"},
                                                               {Status::timeout, "timeout"}}};
} // namespace

const char* to_string(Status status) {
  for (const auto& [s, name] : kNames)
    if (s == status) return name;
  return "unknown";
}

Status status_from_string(const std::string& text) {
  for (const auto& [s, name] : kNames)
    if (text == name) return s;
  throw std::invalid_argument("unknown status '" + text + "'");
}

} // namespace memtune
