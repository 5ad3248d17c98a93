#include <memtune/io/json_fields.hpp>

#include <doctest/doctest.h>

#include "thrown_message.hpp"

#include <functional>

using namespace memtune;
using memtune::io::JsonFields;
using nlohmann::json;

TEST_CASE("typed getters name the field and say what was expected") {
  const json j = json::parse(R"({"device": {"sm_count": 4294967428, "name": "H100", "cc": "9.0"},
                                  "n": -5, "t": 1.5, "big": 18446744073709551615, "list": [1, "x"], "flag": true})");
  const JsonFields root(j);
  CHECK(root.at("device").at("name").string() == "H100");
  CHECK(root.at("flag").boolean());
  CHECK(root.at("t").number(0.0) == 1.5);
  CHECK(root.at("n").integer<int>() == -5);
  CHECK(root.at("big").integer<std::uint64_t>() == 18446744073709551615ULL);
  // An integer that does not fit is refused, never wrapped (4294967428 became 132).
  CHECK(thrown_message<InputError>([&] { (void)root.at("device").at("sm_count").integer<int>(1, 1024); }) ==
        "field 'device.sm_count': expected an integer in [1, 1024], got 4294967428");
  CHECK(thrown_message<InputError>([&] { (void)root.at("t").integer<int>(); }) == "field 't': expected an integer, got 1.5");
  CHECK(thrown_message<InputError>([&] { (void)root.at("device").at("cc").integer<int>(); }) ==
        "field 'device.cc': expected an integer, got \"9.0\"");
  CHECK(thrown_message<InputError>([&] { (void)root.at("n").integer<std::size_t>(); }).find("expected an integer in [0, ") !=
        std::string::npos);
  CHECK(thrown_message<InputError>([&] { (void)root.at("t").number(2.0, 3.0); }) == "field 't': expected a number in [2, 3], got 1.5");
  CHECK(thrown_message<InputError>([&] { (void)root.at("list").at(1).integer<int>(); }) == "field 'list[1]': expected an integer, got \"x\"");
  CHECK(thrown_message<InputError>([&] { (void)root.at("list").at(5); }) == "field 'list': has 2 elements, no element 5");
  CHECK(thrown_message<InputError>([&] { (void)root.at("device").at("memory"); }) == "field 'device.memory': missing");
  CHECK(thrown_message<InputError>([&] { (void)root.at("n").at("x"); }) == "field 'n': expected an object, got a number");
  CHECK(thrown_message<InputError>([&] { (void)root.at("flag").string(); }) == "field 'flag': expected a string, got a boolean true");
  CHECK(thrown_message<InputError>([&] { root.at("device").only_keys({"name", "cc"}); }) ==
        "field 'device.sm_count': unknown field (known: name, cc)");
}

TEST_CASE("find, elements and members carry the path") {
  const json j = json::parse(R"({"a": [{"b": 1}, {"b": "two"}], "o": {"k": 3}})");
  const JsonFields root(j);
  CHECK_FALSE(root.find("missing"));
  REQUIRE(root.find("o"));
  const auto elements = root.at("a").elements();
  REQUIRE(elements.size() == 2);
  CHECK(elements[1].path() == "a[1]");
  CHECK(thrown_message<InputError>([&] { (void)elements[1].at("b").integer<int>(); }) == "field 'a[1].b': expected an integer, got \"two\"");
  const auto members = root.at("o").members();
  REQUIRE(members.size() == 1);
  CHECK(members[0].second.path() == "o.k");
}

TEST_CASE("shown values are cut and never throw on invalid UTF-8") {
  CHECK(io::shown(json(std::string(100, 'x')), 10) == "\"xxxxxxxxx...");
  CHECK_NOTHROW((void)io::shown(json(std::string("\xff\xfe"))));
}
