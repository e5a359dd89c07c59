// The SVG line plot of `tune report`: tick choice, label format, escaping, and the drawn path
// of a series read back as coordinates (steps hold their value; points map into the plot area,
// larger values higher up).
#include "cli/report/svg_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>

namespace kiln::cli::report {
namespace {

// The numbers of the d attribute of the first path with class "series".
std::vector<double> SeriesPathNumbers(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("class=\"series\" d=\"([^\"]*)\""))) << svg;
  std::vector<double> numbers;
  std::string d = m[1];
  std::regex number("-?[0-9]+(\\.[0-9]+)?");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), number); it != std::sregex_iterator();
       ++it) {
    numbers.push_back(std::stod(it->str()));
  }
  return numbers;
}

TEST(NiceTicks, RoundStepsCoveringTheRange) {
  EXPECT_EQ(NiceTicks(0, 10), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(NiceTicks(0, 95), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  std::vector<double> ticks = NiceTicks(0.13, 0.71);
  EXPECT_LE(ticks.front(), 0.13);
  EXPECT_GE(ticks.back(), 0.71);
  for (size_t i = 1; i < ticks.size(); ++i) EXPECT_NEAR(ticks[i] - ticks[i - 1], 0.2, 1e-12);
  // One value: a range around it; zero: [0, 1].
  ticks = NiceTicks(5, 5);
  EXPECT_LT(ticks.front(), 5);
  EXPECT_GT(ticks.back(), 5);
  EXPECT_EQ(NiceTicks(0, 0).front(), 0);
  EXPECT_EQ(NiceTicks(0, 0).back(), 1);
  EXPECT_EQ(NiceTicks(NAN, 1), (std::vector<double>{0, 1}));
  EXPECT_LE(NiceTicks(0, 1e300).size(), 22u);
}

TEST(FormatTick, ShortLabels) {
  EXPECT_EQ(FormatTick(0), "0");
  EXPECT_EQ(FormatTick(2.5), "2.5");
  EXPECT_EQ(FormatTick(0.30000000000000004), "0.3");
  EXPECT_EQ(FormatTick(12000), "12k");
  EXPECT_EQ(FormatTick(0.0002), "2.0e-04");
}

TEST(EscapeXml, Markup) {
  EXPECT_EQ(EscapeXml("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST(RenderLinePlot, StepPathInsideThePlotArea) {
  PlotOptions options;
  options.title = "matmul <1024>";
  options.x_label = "trials";
  options.y_label = "GFLOP/s";
  options.width = 500;
  options.height = 300;
  std::string svg = RenderLinePlot(options, {{"", "#123456", {{1, 10}, {4, 30}, {8, 30}}}});
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("matmul &lt;1024&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">trials<"), std::string::npos);
  EXPECT_NE(svg.find(">GFLOP/s<"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#123456\""), std::string::npos);
  // M x0 y0 H x1 V y1 H x2 V y2: a step up at trial 4.
  std::vector<double> d = SeriesPathNumbers(svg);
  ASSERT_EQ(d.size(), 6u) << svg;
  double x0 = d[0], y0 = d[1], x1 = d[2], y1 = d[3], x2 = d[4], y2 = d[5];
  EXPECT_LT(x0, x1);
  EXPECT_LT(x1, x2);
  EXPECT_LT(y1, y0);  // 30 is drawn above 10
  EXPECT_EQ(y1, y2);
  for (double x : {x0, x1, x2}) {
    EXPECT_GT(x, 0);
    EXPECT_LT(x, 500);
  }
  for (double y : {y0, y1, y2}) {
    EXPECT_GT(y, 0);
    EXPECT_LT(y, 300);
  }
  // The y axis starts at zero: 10 is a third of the way from 0 to 30.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(svg, m, std::regex("class=\"axes\" d=\"M([0-9.]+) ([0-9.]+)V([0-9.]+)")));
  double bottom = std::stod(m[3]);
  EXPECT_NEAR((bottom - y0) / (bottom - y1), 1.0 / 3, 0.02);
}

TEST(RenderLinePlot, StraightSegmentsAndSkippedNonFinitePoints) {
  PlotOptions options;
  options.steps = false;
  std::string svg =
      RenderLinePlot(options, {{"model", "red", {{0, 5}, {1, NAN}, {2, INFINITY}, {3, 2}}}});
  std::vector<double> d = SeriesPathNumbers(svg);
  EXPECT_EQ(d.size(), 4u) << svg;                     // M x y L x y
  EXPECT_NE(svg.find(">model<"), std::string::npos);  // the legend
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(RenderLinePlot, NoDataDrawsAxesAndSaysSo) {
  std::string svg = RenderLinePlot({}, {{"", "blue", {}}});
  EXPECT_EQ(svg.find("class=\"series\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"axes\""), std::string::npos);
  EXPECT_NE(svg.find("no measurement yet"), std::string::npos);
}

TEST(RenderLinePlot, OnePointIsVisible) {
  std::string svg = RenderLinePlot({}, {{"", "blue", {{1, 3.5}}}});
  EXPECT_EQ(SeriesPathNumbers(svg).size(), 2u);
  EXPECT_NE(svg.find("<circle"), std::string::npos);
}

}  // namespace
}  // namespace kiln::cli::report
