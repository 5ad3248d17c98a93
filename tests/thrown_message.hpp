#pragma once
// Tests' view of an error: the message of the `Error` that `f` throws, or
// "nothing thrown" (any other exception escapes to the test, which fails).
//
//   CHECK(thrown_message<DescriptionError>([&] { (void)load_description(file); }) == "file: field 'x': ...");
#include <functional>
#include <string>

template <class Error> std::string thrown_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "nothing thrown";
}
