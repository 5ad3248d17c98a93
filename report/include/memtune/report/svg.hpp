#pragma once
// A small SVG layer for the HTML report: scales with readable ticks, a canvas
// that writes escaped elements, and axes. Every chart in charts.hpp is drawn
// with it; nothing here knows about tuning.
//
//   svg::Canvas c(640, 360, "best time per block size");
//   const svg::Scale x = svg::Scale::linear(0, 100, 60, 620);
//   const svg::Scale y = svg::Scale::log(1e-5, 1e-3, 320, 20);   // pixels grow downwards
//   c.circle(x(10), y(4e-5), 3, "#4c78a8", "block_size=256: 40 us");   // tooltip on hover
//   std::string markup = c.str();
#include <string>
#include <utility>
#include <vector>

namespace memtune::report::svg {

// Text for an SVG/HTML text node or attribute: & < > " ' escaped.
[[nodiscard]] std::string escape(const std::string& text);

// A compact number for ticks and labels: 3 significant digits, no trailing
// zeros ("0.25", "1.5k" is not used: "1500"; "2e-05" for tiny values).
[[nodiscard]] std::string format_number(double value);

// The width of `text` in pixels at font size `size`, estimated (0.62 em per
// character, 0.68 bold: sans-serif digits and lower case; no font metrics
// are at hand when the SVG is written). Counts characters, not UTF-8 bytes.
[[nodiscard]] double text_width(const std::string& text, double size, bool bold = false);
// `text` cut to at most `max_width` pixels, ending in "..." (one character,
// U+2026) when cut; never splits a UTF-8 sequence.
//   fit_text("staging=direct block_size=256", 60, 10) == "staging=\u2026"
[[nodiscard]] std::string fit_text(const std::string& text, double max_width, double size, bool bold = false);

// Maps a domain [d0, d1] onto pixels [r0, r1], linearly or logarithmically
// (log: d0, d1 > 0). A zero-width domain is widened so nothing divides by 0.
class Scale {
public:
  static Scale linear(double d0, double d1, double r0, double r1);
  static Scale log(double d0, double d1, double r0, double r1);

  [[nodiscard]] double operator()(double value) const;
  // Tick values inside the domain: 1-2-5 steps (linear), or decades with
  // 2x and 5x between them when the domain spans few decades (log).
  [[nodiscard]] std::vector<double> ticks(int approximate_count = 5) const;
  [[nodiscard]] bool is_log() const { return log_; }
  [[nodiscard]] std::pair<double, double> domain() const { return {d0_, d1_}; }
  [[nodiscard]] std::pair<double, double> range() const { return {r0_, r1_}; }

private:
  Scale(double d0, double d1, double r0, double r1, bool log);
  double d0_, d1_, r0_, r1_;
  bool log_;
};

// Colour of t in [0, 1] on the viridis map (dark purple -> yellow), "#rrggbb".
[[nodiscard]] std::string viridis(double t);
// The i-th colour of a 10-colour categorical palette (Tableau 10), cycling.
[[nodiscard]] const char* palette(std::size_t i);

struct Point {
  double x, y;
};

// One <svg> element. Coordinates are pixels, y down. A non-empty tooltip
// becomes a <title> child, which browsers show on hover.
class Canvas {
public:
  Canvas(double width, double height, std::string label);

  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip = {},
            double opacity = 1.0);
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1.0,
            const std::string& dash = {});
  void polyline(const std::vector<Point>& points, const std::string& stroke, double width = 1.5,
                const std::string& tooltip = {});
  void polygon(const std::vector<Point>& points, const std::string& fill, double opacity);
  void circle(double cx, double cy, double r, const std::string& fill, const std::string& tooltip = {},
              double opacity = 1.0);
  enum class Anchor { start, middle, end };
  // rotate: degrees around (x, y), e.g. -90 for a vertical axis title.
  void text(double x, double y, const std::string& text, Anchor anchor = Anchor::start, double size = 11,
            bool bold = false, double rotate = 0.0, const std::string& fill = "#222");

  // Text that never runs past max_width pixels: cut to fit (fit_text), and
  // then the whole text is its hover title, so nothing is lost.
  void label(double x, double y, const std::string& text, double max_width, Anchor anchor = Anchor::start,
             double size = 11, bool bold = false, double rotate = 0.0, const std::string& fill = "#222");

  [[nodiscard]] double width() const { return width_; }
  [[nodiscard]] double height() const { return height_; }
  [[nodiscard]] std::size_t elements() const { return elements_; }
  [[nodiscard]] std::string str() const;

private:
  double width_, height_;
  std::string label_;
  std::string body_;
  std::size_t elements_ = 0;
};

// The plot area of a chart inside its canvas, with its two scales.
struct Frame {
  double left, top, width, height;
  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double bottom() const { return top + height; }
};

// Draws the frame's box, grid lines and tick labels of both scales, and the
// axis titles (cut to the frame's sides, the whole title on hover).
void axes(Canvas& c, const Frame& f, const Scale& x, const Scale& y, const std::string& x_title,
          const std::string& y_title);
// A left axis of named bands (bar and heat-map rows) and its title; returns
// nothing: the caller places the bands at band_center(). Labels longer than
// their room (the frame's left margin, a band's width) are cut, whole on hover.
void band_labels_left(Canvas& c, const Frame& f, const std::vector<std::string>& labels, const std::string& title);
void band_labels_bottom(Canvas& c, const Frame& f, const std::vector<std::string>& labels, const std::string& title);
// Centre of band i of n over [from, to].
[[nodiscard]] double band_center(double from, double to, std::size_t i, std::size_t n);

} // namespace memtune::report::svg
