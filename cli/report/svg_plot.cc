// RenderLinePlot and its axis helpers. Coordinates are written with one decimal: enough for a
// screen and it keeps a curve of a few thousand trials to a few tens of kilobytes.
#include "cli/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kiln::cli::report {
namespace {

constexpr double kLeft = 64;  // room for the y tick labels and the y axis label
constexpr double kRight = 16;
constexpr double kTop = 34;     // the title
constexpr double kBottom = 46;  // x tick labels and the x axis label
constexpr size_t kMaxMarkers = 60;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s == "-0" ? "0" : s;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= std::abs(hi) * 1e-12) {
    double pad = lo == 0 ? 1 : std::abs(lo) * 0.5;
    lo -= lo == 0 ? 0 : pad;
    hi += pad;
  }
  target = std::max(target, 2);
  double raw = (hi - lo) / target;
  double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  double start = std::floor(lo / step) * step;
  double end = std::ceil(hi / step) * step;
  std::vector<double> ticks;
  for (int i = 0; start + i * step <= end + step * 1e-9 && i < 4 * target + 2; ++i) {
    double t = start + i * step;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

std::string FormatTick(double value) {
  char buf[32];
  if (std::abs(value) >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.6gk", value / 1000);
  } else if (value != 0 && std::abs(value) < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1e", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", value);
  }
  return buf;
}

std::string EscapeXml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderLinePlot(const PlotOptions& options, const std::vector<Series>& series) {
  const double width = std::max(options.width, 200);
  const double height = std::max(options.height, 150);
  const double plot_w = width - kLeft - kRight;
  const double plot_h = height - kTop - kBottom;

  Range xr, yr;
  for (const Series& s : series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      xr.Add(x);
      yr.Add(y);
    }
  }
  bool has_data = !xr.empty();
  if (!has_data) {
    xr = {0, 1};
    yr = {0, 1};
  }
  if (options.y_from_zero) yr.Add(0);
  std::vector<double> x_ticks = NiceTicks(xr.lo, xr.hi);
  std::vector<double> y_ticks = NiceTicks(yr.lo, yr.hi);
  const double x0 = x_ticks.front(), x1 = x_ticks.back();
  const double y0 = y_ticks.front(), y1 = y_ticks.back();
  auto px = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * plot_w; };
  auto py = [&](double y) { return kTop + plot_h - (y - y0) / (y1 - y0) * plot_h; };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"" +
                    Num(width) + "\" height=\"" + Num(height) + "\" viewBox=\"0 0 " + Num(width) +
                    " " + Num(height) + "\" role=\"img\" aria-label=\"" + EscapeXml(options.title) +
                    "\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + Num(width) + "\" height=\"" + Num(height) +
         "\" fill=\"#ffffff\"/>\n";
  svg += "<text x=\"" + Num(width / 2) + "\" y=\"20\" text-anchor=\"middle\" class=\"title\">" +
         EscapeXml(options.title) + "</text>\n";

  // Grid lines and tick labels, then the axes over them.
  svg += "<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  for (double t : y_ticks) {
    svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py(t)) + "\" x2=\"" + Num(kLeft + plot_w) +
           "\" y2=\"" + Num(py(t)) + "\"/>\n";
  }
  svg += "</g>\n<g class=\"ticks\" font-size=\"11\" fill=\"#333333\">\n";
  for (double t : x_ticks) {
    svg += "<text x=\"" + Num(px(t)) + "\" y=\"" + Num(kTop + plot_h + 16) +
           "\" text-anchor=\"middle\">" + FormatTick(t) + "</text>\n";
  }
  for (double t : y_ticks) {
    svg += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(py(t) + 4) + "\" text-anchor=\"end\">" +
           FormatTick(t) + "</text>\n";
  }
  svg += "</g>\n";
  svg += "<path class=\"axes\" d=\"M" + Num(kLeft) + " " + Num(kTop) + "V" + Num(kTop + plot_h) +
         "H" + Num(kLeft + plot_w) + "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
  svg += "<text x=\"" + Num(kLeft + plot_w / 2) + "\" y=\"" + Num(height - 8) +
         "\" text-anchor=\"middle\" font-size=\"12\">" + EscapeXml(options.x_label) + "</text>\n";
  svg += "<text transform=\"translate(14 " + Num(kTop + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" + EscapeXml(options.y_label) +
         "</text>\n";

  if (!has_data) {
    svg += "<text x=\"" + Num(kLeft + plot_w / 2) + "\" y=\"" + Num(kTop + plot_h / 2) +
           "\" text-anchor=\"middle\" fill=\"#888888\">no measurement yet</text>\n";
  }
  int legend_row = 0;
  for (const Series& s : series) {
    std::vector<std::pair<double, double>> points;
    for (const auto& p : s.points) {
      if (std::isfinite(p.first) && std::isfinite(p.second)) points.push_back(p);
    }
    if (points.empty()) continue;
    std::string d = "M" + Num(px(points[0].first)) + " " + Num(py(points[0].second));
    for (size_t i = 1; i < points.size(); ++i) {
      if (options.steps) {
        d += "H" + Num(px(points[i].first)) + "V" + Num(py(points[i].second));
      } else {
        d += "L" + Num(px(points[i].first)) + " " + Num(py(points[i].second));
      }
    }
    svg += "<path class=\"series\" d=\"" + d + "\" fill=\"none\" stroke=\"" + EscapeXml(s.color) +
           "\" stroke-width=\"2\"/>\n";
    // Markers: every point of a short curve, the last one of a long one.
    size_t first_marker = points.size() <= kMaxMarkers ? 0 : points.size() - 1;
    svg += "<g fill=\"" + EscapeXml(s.color) + "\">\n";
    for (size_t i = first_marker; i < points.size(); ++i) {
      svg += "<circle cx=\"" + Num(px(points[i].first)) + "\" cy=\"" + Num(py(points[i].second)) +
             "\" r=\"2.5\"/>\n";
    }
    svg += "</g>\n";
    if (!s.label.empty()) {
      double ly = kTop + 12 + 14 * legend_row++;
      svg += "<line x1=\"" + Num(kLeft + plot_w - 120) + "\" y1=\"" + Num(ly - 4) + "\" x2=\"" +
             Num(kLeft + plot_w - 104) + "\" y2=\"" + Num(ly - 4) + "\" stroke=\"" +
             EscapeXml(s.color) + "\" stroke-width=\"2\"/>\n";
      svg += "<text x=\"" + Num(kLeft + plot_w - 100) + "\" y=\"" + Num(ly) +
             "\" font-size=\"11\">" + EscapeXml(s.label) + "</text>\n";
    }
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace kiln::cli::report
