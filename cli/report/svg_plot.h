// Line plots as inline SVG for `tune report`: axes with round-number ticks and labels, a
// title, and one path per series, so that the page needs no script and no network. Series are
// drawn as steps (a tuning curve holds its best value until the next improvement) or as
// straight segments.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kiln::cli::report {

struct Series {
  std::string label;
  std::string color = "#1f6fb4";                  // any SVG colour
  std::vector<std::pair<double, double>> points;  // (x, y); non-finite points are skipped
};

struct PlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  int width = 520;  // pixels, the whole figure
  int height = 300;
  bool steps = true;        // hold each y until the next x
  bool y_from_zero = true;  // the y axis starts at 0 (values are rates or latencies)
};

// Tick positions for an axis over [lo, hi]: multiples of 1, 2 or 5 times a power of ten,
// about `target` of them, covering the range. lo == hi gives a range around the value.
std::vector<double> NiceTicks(double lo, double hi, int target = 5);

// Formats a tick label: no trailing zeros, thousands as "12k" above 10^4, small values in
// scientific form.
std::string FormatTick(double value);

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string EscapeXml(const std::string& text);

// The <svg> element. With no finite point in any series it draws the axes and says "no
// measurement yet" in the plot area instead of a path.
std::string RenderLinePlot(const PlotOptions& options, const std::vector<Series>& series);

}  // namespace kiln::cli::report
