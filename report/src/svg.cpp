#include <memtune/report/svg.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace memtune::report::svg {
namespace {

std::string num(double v) {
  // Pixels: two decimals are plenty and keep the file small.
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string title_child(const std::string& tooltip) {
  return tooltip.empty() ? std::string{} : "<title>" + escape(tooltip) + "</title>";
}

} // namespace

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += ch;
    }
  }
  return out;
}

std::string format_number(double v) {
  if (v == 0.0 || !std::isfinite(v)) return v == 0.0 ? "0" : (std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
  char buf[32];
  // Thousands stay whole numbers ("2823", not "2.82e+03"): GB/s and counts.
  if (std::fabs(v) >= 1000 && std::fabs(v) < 1e7) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

Scale::Scale(double d0, double d1, double r0, double r1, bool log) : d0_(d0), d1_(d1), r0_(r0), r1_(r1), log_(log) {
  if (log_) {
    if (!(d0_ > 0)) d0_ = d1_ > 0 ? d1_ / 10 : 1.0;
    if (!(d1_ > 0)) d1_ = d0_ * 10;
    if (d1_ == d0_) d0_ /= 1.1, d1_ *= 1.1;
  } else if (d1_ == d0_) {
    const double pad = d0_ == 0 ? 1.0 : std::fabs(d0_) * 0.1;
    d0_ -= pad, d1_ += pad;
  }
}

Scale Scale::linear(double d0, double d1, double r0, double r1) { return {d0, d1, r0, r1, false}; }
Scale Scale::log(double d0, double d1, double r0, double r1) { return {d0, d1, r0, r1, true}; }

double Scale::operator()(double v) const {
  double t;
  if (log_) t = (std::log(std::max(v, 1e-300)) - std::log(d0_)) / (std::log(d1_) - std::log(d0_));
  else t = (v - d0_) / (d1_ - d0_);
  return r0_ + t * (r1_ - r0_);
}

std::vector<double> Scale::ticks(int count) const {
  const double lo = std::min(d0_, d1_), hi = std::max(d0_, d1_);
  std::vector<double> out;
  if (log_) {
    const double decades = std::log10(hi / lo);
    // Few decades: 1, 2, 5 per decade; many: every decade (or every k-th).
    const std::array<double, 3> within = {1, 2, 5};
    const int step = std::max(1, static_cast<int>(std::ceil(decades / count)));
    for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
      if (decades > 2.5 && e % step != 0) continue;
      for (const double m : within) {
        if (decades > 2.5 && m != 1) continue;
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    }
    if (out.size() < 2) {
      // Less than a factor 2 wide: fall back to linear steps in the domain.
      return Scale::linear(lo, hi, 0, 1).ticks(count);
    }
    return out;
  }
  const double raw = (hi - lo) / std::max(count, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

std::string viridis(double t) {
  // Nine stops of matplotlib's viridis, linearly interpolated.
  static constexpr std::array<std::array<int, 3>, 9> stops = {{{68, 1, 84},
                                                              {71, 44, 122},
                                                              {59, 81, 139},
                                                              {44, 113, 142},
                                                              {33, 144, 141},
                                                              {39, 173, 129},
                                                              {92, 200, 99},
                                                              {170, 220, 50},
                                                              {253, 231, 37}}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * (stops.size() - 1);
  const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(std::lround(stops[i][0] + f * (stops[i + 1][0] - stops[i][0]))),
                static_cast<int>(std::lround(stops[i][1] + f * (stops[i + 1][1] - stops[i][1]))),
                static_cast<int>(std::lround(stops[i][2] + f * (stops[i + 1][2] - stops[i][2]))));
  return buf;
}

const char* palette(std::size_t i) {
  static constexpr std::array<const char*, 10> colours = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return colours[i % colours.size()];
}

Canvas::Canvas(double width, double height, std::string label) : width_(width), height_(height), label_(std::move(label)) {}

void Canvas::rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip,
                  double opacity) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.0)) + "\" height=\"" +
           num(std::max(h, 0.0)) + "\" fill=\"" + escape(fill) + "\"" +
           (opacity < 1.0 ? " fill-opacity=\"" + num(opacity) + "\"" : std::string{}) +
           (tooltip.empty() ? "/>" : ">" + title_child(tooltip) + "</rect>");
  ++elements_;
}

void Canvas::line(double x1, double y1, double x2, double y2, const std::string& stroke, double width,
                  const std::string& dash) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
           "\" stroke=\"" + escape(stroke) + "\" stroke-width=\"" + num(width) + "\"" +
           (dash.empty() ? std::string{} : " stroke-dasharray=\"" + escape(dash) + "\"") + "/>";
  ++elements_;
}

void Canvas::polyline(const std::vector<Point>& points, const std::string& stroke, double width,
                      const std::string& tooltip) {
  std::string pts;
  for (const Point& p : points) pts += (pts.empty() ? "" : " ") + num(p.x) + "," + num(p.y);
  body_ += "<polyline points=\"" + pts + "\" fill=\"none\" stroke=\"" + escape(stroke) + "\" stroke-width=\"" +
           num(width) + "\"" + (tooltip.empty() ? "/>" : ">" + title_child(tooltip) + "</polyline>");
  ++elements_;
}

void Canvas::polygon(const std::vector<Point>& points, const std::string& fill, double opacity) {
  std::string pts;
  for (const Point& p : points) pts += (pts.empty() ? "" : " ") + num(p.x) + "," + num(p.y);
  body_ += "<polygon points=\"" + pts + "\" fill=\"" + escape(fill) + "\" fill-opacity=\"" + num(opacity) +
           "\" stroke=\"none\"/>";
  ++elements_;
}

void Canvas::circle(double cx, double cy, double r, const std::string& fill, const std::string& tooltip,
                    double opacity) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" + escape(fill) + "\"" +
           (opacity < 1.0 ? " fill-opacity=\"" + num(opacity) + "\"" : std::string{}) +
           (tooltip.empty() ? "/>" : ">" + title_child(tooltip) + "</circle>");
  ++elements_;
}

double text_width(const std::string& text, double size, bool bold) {
  std::size_t chars = 0;
  for (const unsigned char ch : text) chars += (ch & 0xC0) != 0x80; // UTF-8 continuation bytes are not characters
  return static_cast<double>(chars) * size * (bold ? 0.68 : 0.62);
}

std::string fit_text(const std::string& text, double max_width, double size, bool bold) {
  if (text_width(text, size, bold) <= max_width) return text;
  const double per_char = size * (bold ? 0.68 : 0.62);
  const auto keep = static_cast<std::size_t>(std::max(0.0, std::floor(max_width / per_char) - 1)); // one for the ellipsis
  std::size_t end = 0, chars = 0;
  while (end < text.size() && chars < keep) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    ++chars;
  }
  return text.substr(0, end) + "\u2026";
}

void Canvas::label(double x, double y, const std::string& text, double max_width, Anchor anchor, double size, bool bold,
                   double rotate, const std::string& fill) {
  const std::string shown = fit_text(text, max_width, size, bold);
  this->text(x, y, shown, anchor, size, bold, rotate, fill);
  if (shown != text) body_.insert(body_.size() - 7, title_child(text)); // inside the </text> just written
}

void Canvas::text(double x, double y, const std::string& text, Anchor anchor, double size, bool bold, double rotate,
                  const std::string& fill) {
  const char* a = anchor == Anchor::start ? "start" : anchor == Anchor::middle ? "middle" : "end";
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + a + "\" font-size=\"" + num(size) +
           "\" fill=\"" + escape(fill) + "\"" + (bold ? " font-weight=\"bold\"" : "") +
           (rotate != 0.0 ? " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\"" : std::string{}) +
           ">" + escape(text) + "</text>";
  ++elements_;
}

std::string Canvas::str() const {
  return "<svg class=\"plot\" width=\"" + num(width_) + "\" height=\"" +
         num(height_) + "\" viewBox=\"0 0 " + num(width_) + " " + num(height_) + "\" role=\"img\" aria-label=\"" +
         escape(label_) + "\" font-family=\"sans-serif\">" + body_ + "</svg>";
}

void axes(Canvas& c, const Frame& f, const Scale& x, const Scale& y, const std::string& x_title,
          const std::string& y_title) {
  for (const double t : x.ticks()) {
    const double px = x(t);
    c.line(px, f.top, px, f.bottom(), "#e6e6e6");
    c.text(px, f.bottom() + 14, format_number(t), Canvas::Anchor::middle, 10);
  }
  for (const double t : y.ticks()) {
    const double py = y(t);
    c.line(f.left, py, f.right(), py, "#e6e6e6");
    c.text(f.left - 5, py + 3.5, format_number(t), Canvas::Anchor::end, 10);
  }
  c.line(f.left, f.bottom(), f.right(), f.bottom(), "#555");
  c.line(f.left, f.top, f.left, f.bottom(), "#555");
  c.label(f.left + f.width / 2, f.bottom() + 32, x_title, f.width, Canvas::Anchor::middle, 11);
  c.label(f.left - 44, f.top + f.height / 2, y_title, f.height, Canvas::Anchor::middle, 11, false, -90);
}

double band_center(double from, double to, std::size_t i, std::size_t n) {
  return from + (to - from) * (static_cast<double>(i) + 0.5) / static_cast<double>(std::max<std::size_t>(n, 1));
}

void band_labels_left(Canvas& c, const Frame& f, const std::vector<std::string>& labels, const std::string& title) {
  // The title's column (x 4..18) is kept free when there is one.
  const double room = f.left - 5 - (title.empty() ? 2 : 20);
  for (std::size_t i = 0; i < labels.size(); ++i)
    c.label(f.left - 5, band_center(f.top, f.bottom(), i, labels.size()) + 3.5, labels[i], room, Canvas::Anchor::end, 10);
  if (!title.empty()) c.label(12, f.top + f.height / 2, title, f.height, Canvas::Anchor::middle, 11, false, -90);
}

void band_labels_bottom(Canvas& c, const Frame& f, const std::vector<std::string>& labels, const std::string& title) {
  const double room = f.width / static_cast<double>(std::max<std::size_t>(labels.size(), 1)) - 2;
  for (std::size_t i = 0; i < labels.size(); ++i)
    c.label(band_center(f.left, f.right(), i, labels.size()), f.bottom() + 14, labels[i], room, Canvas::Anchor::middle, 10);
  if (!title.empty()) c.label(f.left + f.width / 2, f.bottom() + 32, title, f.width, Canvas::Anchor::middle, 11);
}

} // namespace memtune::report::svg
