// The report page: self-contained (no script, nothing fetched), the task table with the
// columns and numbers `tune run` prints, one plot for the model and one per task, and every
// text from the database escaped.
#include "cli/report/html_report.h"

#include <gtest/gtest.h>

#include <regex>

namespace kiln::cli::report {
namespace {

ReportData Example() {
  ReportData data;
  data.job.id = 7;
  data.job.model = "models/<bert>.onnx";
  data.job.target = "llvm";
  data.job.trials_done = 5;
  data.job.trials_total = 8;
  TaskHistory mm;
  mm.index = 0;
  mm.name = "matmul";
  mm.weight = 2;
  mm.flop = 4194304;
  mm.records = 3;
  mm.ok = 3;
  mm.done = true;
  mm.best_seconds = 5e-4;
  mm.best_curve = {{1, 4.194304}, {3, 8.388608}};
  TaskHistory sm;
  sm.index = 1;
  sm.name = "softmax <fused> & co";
  sm.weight = 1;
  sm.records = 1;
  data.tasks = {mm, sm};
  data.records = 4;
  data.errors = 1;
  data.model_latency_ms = {{3, 2.0}, {4, 1.0}};
  return data;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(TaskTableRows, AsTuneRunPrintsThem) {
  auto rows = TaskTableRows(Example());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"0", "matmul", "4194304", "2", "8.39", "500.00",
                                               "1000.00", "3", "Y"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "softmax <fused> & co", "0", "1", "-", "-", "-",
                                               "1", ""}));
  EXPECT_EQ(TaskTableHeader().size(), rows[0].size());
}

TEST(RenderHtmlReport, SelfContainedPageWithTableAndPlots) {
  std::string html = RenderHtmlReport(Example());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("job 7"), std::string::npos);
  // Nothing to fetch and nothing to run: the only URL is the SVG namespace.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(Count(html, "http"), Count(html, "http://www.w3.org/2000/svg"));
  // The model's plot and one per task; the task without a measurement says so.
  EXPECT_EQ(Count(html, "<svg "), 3u);
  EXPECT_EQ(Count(html, "class=\"series\""), 2u);
  EXPECT_EQ(Count(html, "no measurement yet"), 1u);
  EXPECT_NE(html.find(">best GFLOP/s<"), std::string::npos);
  EXPECT_NE(html.find(">best latency (us)<"), std::string::npos);
  // Escaped text from the database, never raw markup.
  EXPECT_NE(html.find("softmax &lt;fused&gt; &amp; co"), std::string::npos);
  EXPECT_EQ(html.find("<fused>"), std::string::npos);
  EXPECT_NE(html.find("models/&lt;bert&gt;.onnx"), std::string::npos);
  for (const std::string& h : TaskTableHeader()) {
    EXPECT_NE(html.find("<th>" + h + "</th>"), std::string::npos) << h;
  }
  EXPECT_NE(html.find("<td class=\"num\">1000.00</td>"), std::string::npos);
  // No estimate while a task has no correct measurement.
  EXPECT_NE(html.find("a task has no correct measurement yet"), std::string::npos);
  EXPECT_TRUE(std::regex_search(html, std::regex("</svg>\\s*<h2>Tasks</h2>")));
}

}  // namespace
}  // namespace kiln::cli::report
