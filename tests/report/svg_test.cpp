#include <memtune/report/svg.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune::report::svg;

TEST_CASE("svg: escaping, numbers and colours") {
  CHECK(escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  CHECK(format_number(2823.4) == "2823");
  CHECK(format_number(0.25) == "0.25");
  CHECK(format_number(0) == "0");
  CHECK(viridis(0) == "#440154");
  CHECK(viridis(1) == "#fde725");
  CHECK(viridis(-3) == viridis(0)); // clamped
  CHECK(std::string(palette(0)) == palette(10));
}

TEST_CASE("svg: scales map domains to pixels and choose readable ticks") {
  const Scale x = Scale::linear(0, 100, 50, 550);
  CHECK(x(0) == doctest::Approx(50));
  CHECK(x(50) == doctest::Approx(300));
  CHECK(x.ticks() == std::vector<double>{0, 20, 40, 60, 80, 100});
  const Scale y = Scale::log(1, 100, 300, 0); // pixels grow downwards
  CHECK(y(10) == doctest::Approx(150));
  const auto decade_ticks = y.ticks();
  CHECK(decade_ticks.front() == doctest::Approx(1));
  CHECK(decade_ticks.back() == doctest::Approx(100));
  // Less than a factor 2: linear steps inside the domain rather than none.
  const auto narrow = Scale::log(1.0, 1.5, 0, 100).ticks();
  CHECK(narrow.size() >= 3);
  // A zero-width domain is widened instead of dividing by zero.
  const Scale flat = Scale::linear(5, 5, 0, 10);
  CHECK(std::isfinite(flat(5)));
}

TEST_CASE("svg: a canvas writes escaped elements with hover titles, and no network namespace") {
  Canvas c(100, 50, "a <plot>");
  c.rect(0, 0, 10, 10, "#fff", "block_size=256: 3.2 us & more");
  c.text(5, 5, "x<y");
  const std::string s = c.str();
  CHECK(c.elements() == 2);
  CHECK(s.find("<title>block_size=256: 3.2 us &amp; more</title>") != std::string::npos);
  CHECK(s.find("x&lt;y") != std::string::npos);
  CHECK(s.find("aria-label=\"a &lt;plot&gt;\"") != std::string::npos);
  CHECK(s.find("http") == std::string::npos);
}

TEST_CASE("svg: text fits its room, cut with an ellipsis and its whole self as the hover title") {
  CHECK(fit_text("short", 100, 10) == "short");
  const std::string cut = fit_text("staging=direct block_size=256", 60, 10);
  CHECK(cut == "staging=\u2026");
  CHECK(text_width(cut, 10) <= 60);
  CHECK(fit_text("\u00d7\u00d7\u00d7\u00d7\u00d7\u00d7", 20, 10) == "\u00d7\u00d7\u2026"); // whole UTF-8 characters only
  Canvas c(200, 50, "labels");
  c.label(0, 10, "a label far too long for forty pixels", 40);
  c.label(0, 30, "fits", 40);
  const std::string s = c.str();
  CHECK(s.find("<title>a label far too long for forty pixels</title></text>") != std::string::npos);
  CHECK(s.find(">fits</text>") != std::string::npos);
  CHECK(c.elements() == 2);
}
