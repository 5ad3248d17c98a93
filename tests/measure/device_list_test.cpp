// --devices' list (measure/include/memtune/measure/device_list.hpp): parsing, resolving
// against the GPUs a driver reports, and grouping GPUs by model.
#include <memtune/measure/device_list.hpp>

#include <doctest/doctest.h>

using namespace memtune;

TEST_CASE("'all' and ordinal lists parse; anything else is refused saying what is wrong") {
  CHECK(DeviceList::parse("all").all);
  CHECK(DeviceList::parse("0").ordinals == std::vector<int>{0});
  CHECK(DeviceList::parse("2,0,5").ordinals == std::vector<int>{2, 0, 5});
  CHECK(DeviceList::parse("2,0,5").first() == 2);
  CHECK(DeviceList::parse("all").first() == 0);
  CHECK(DeviceList::parse("2,0,5").to_string() == "2,0,5");
  CHECK(DeviceList::parse("all").to_string() == "all");
  CHECK_THROWS_WITH_AS(DeviceList::parse(""), doctest::Contains("got nothing"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("0,x"), doctest::Contains("'x' in '0,x' is not a GPU ordinal"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("0,,1"), doctest::Contains("'' in '0,,1' is not a GPU ordinal"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("0,"), doctest::Contains("is not a GPU ordinal"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("-1"), doctest::Contains("'-1'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("1 ,2"), doctest::Contains("'1 '"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("ALL"), doctest::Contains("is not a GPU ordinal"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(DeviceList::parse("1,0,1"), doctest::Contains("GPU 1 is listed twice"), std::invalid_argument);
}

TEST_CASE("all resolves to the GPUs the driver reports; a list is itself") {
  CHECK(DeviceList::parse("all").resolve(3) == std::vector<int>{0, 1, 2});
  CHECK(DeviceList::parse("all").resolve(1) == std::vector<int>{0});
  CHECK(DeviceList::parse("2,0").resolve(3) == std::vector<int>{2, 0});
  CHECK(DeviceList::parse("0,2").resolve(2) == std::vector<int>{0, 2}); // GPU 2's worker refuses it
}

TEST_CASE("GPUs group by model in the order they come; a mixed host's error names every model") {
  const DeviceFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132};
  const DeviceFingerprint a100{"NVIDIA A100-SXM4-80GB", 8, 0, 108};
  const DeviceFingerprint h100_cut{"NVIDIA H100 80GB HBM3", 9, 0, 114}; // same name, fewer SMs: another model
  const auto one = group_by_model({{0, h100}, {1, h100}});
  REQUIRE(one.size() == 1);
  CHECK(one[0].ordinals == std::vector<int>{0, 1});

  const auto groups = group_by_model({{0, h100}, {1, a100}, {2, h100}, {3, h100_cut}});
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].model == h100);
  CHECK(groups[0].ordinals == std::vector<int>{0, 2});
  CHECK(groups[1].ordinals == std::vector<int>{1});
  CHECK(groups[2].ordinals == std::vector<int>{3});
  CHECK(describe(groups[0]) == "0, 2: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)");

  const MixedDevices mixed(groups);
  const std::string what = mixed.what();
  CHECK(what.find("3 models") != std::string::npos);
  CHECK(what.find("0, 2: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs); 1: NVIDIA A100-SXM4-80GB (sm_80, 108 SMs); 3: "
                  "NVIDIA H100 80GB HBM3 (sm_90, 114 SMs)") != std::string::npos);
  CHECK(what.find("--devices 0,2") != std::string::npos);
  CHECK(what.find("--mixed-devices") != std::string::npos);
  CHECK(mixed.groups().size() == 3);
  CHECK(group_by_model({}).empty());
}

TEST_CASE("a model's file carries the model's name") {
  const DeviceFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132};
  CHECK(path_for_model("out/f.json", h100) == std::filesystem::path("out/f.nvidia-h100-80gb-hbm3-132sm.json"));
  CHECK(path_for_model("f.json.journal", h100) == std::filesystem::path("f.json.nvidia-h100-80gb-hbm3-132sm.journal"));
}
