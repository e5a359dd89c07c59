// RenderHtmlReport: the page, built from plain strings; every text taken from the database
// (model path, task names, error messages) is escaped.
#include "cli/report/html_report.h"

#include <cstdio>
#include <ctime>

#include "cli/report/page_style.h"
#include "cli/report/svg_plot.h"

namespace kiln::cli::report {
namespace {

constexpr const char* kCurveColor = "#1f6fb4";
constexpr const char* kModelColor = "#c2410c";

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A task's calls per model run: "3", or "1.5" when bucket weights make it fractional.
std::string Weight(double w) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", w);
  return buf;
}

std::string UtcTime(double unix_seconds) {
  if (!(unix_seconds > 0)) return "-";
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// After kPageStyle.
const char* kStyle = R"(table.tasks { border-collapse: collapse; font-size: 13px; }
table.tasks th, table.tasks td { padding: 3px 10px; border-bottom: 1px solid #dddddd; }
table.tasks td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.tasks td.name { font-family: monospace; }
table.tasks tr.total td { font-weight: bold; border-bottom: none; }
div.curves { display: flex; flex-wrap: wrap; gap: 12px; }
svg.plot { border: 1px solid #dddddd; }
svg.plot text.title { font-size: 13px; font-weight: bold; }
)";

}  // namespace

const std::vector<std::string>& TaskTableHeader() {
  static const std::vector<std::string> header = {
      "ID", "Name", "FLOP", "Weight", "GFLOP/s", "Latency (us)", "Weighted (us)", "Trials", "Done"};
  return header;
}

std::vector<std::vector<std::string>> TaskTableRows(const ReportData& data) {
  std::vector<std::vector<std::string>> rows;
  for (const TaskHistory& t : data.tasks) {
    bool has = t.best_seconds.has_value();
    double best = has ? *t.best_seconds : 0;
    rows.push_back({std::to_string(t.index), t.name, Fixed(t.flop, 0), Weight(t.weight),
                    has && t.flop > 0 ? Fixed(t.flop / best / 1e9, 2) : "-",
                    has ? Fixed(best * 1e6, 2) : "-",
                    has ? Fixed(best * static_cast<double>(t.weight) * 1e6, 2) : "-",
                    std::to_string(t.records), t.done ? "Y" : ""});
  }
  return rows;
}

std::string RenderHtmlReport(const ReportData& data) {
  const database::Job& job = data.job;
  std::string title = "Kiln tuning report: job " + std::to_string(job.id);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + EscapeXml(title) + "</title>\n<style>" + kPageStyle + kStyle +
          "</style>\n</head>\n";
  html += "<body>\n<h1>" + EscapeXml(title) + "</h1>\n<dl class=\"summary\">\n";
  auto item = [&](const std::string& key, const std::string& value) {
    html += "<dt>" + EscapeXml(key) + "</dt><dd>" + EscapeXml(value) + "</dd>\n";
  };
  item("Model", job.model);
  item("Target", job.target);
  item("Device", job.device.empty() ? "any" : job.device);
  item("State", std::string(database::JobStateName(job.state)) +
                    (job.error.empty() ? "" : ": " + job.error));
  item("Trials", std::to_string(job.trials_done) + " of " + std::to_string(job.trials_total));
  item("Measured",
       std::to_string(data.records) + " candidates, " + std::to_string(data.errors) + " errors");
  item("Started", UtcTime(job.created_unix));
  item("Updated", UtcTime(job.updated_unix));
  item("Estimated latency", data.total_weighted_seconds
                                ? Fixed(*data.total_weighted_seconds * 1e3, 3) + " ms"
                                : std::string("- (a task has no correct measurement yet)"));
  html += "</dl>\n";

  html += "<h2>Model</h2>\n";
  PlotOptions model_plot;
  model_plot.title = "Estimated latency (sum of weight x best task latency)";
  model_plot.x_label = "trials (whole job)";
  model_plot.y_label = "latency (ms)";
  model_plot.width = 760;
  html += RenderLinePlot(model_plot, {{"model", kModelColor, data.model_latency_ms}});

  html += "<h2>Tasks</h2>\n<table class=\"tasks\">\n<tr>";
  for (const std::string& h : TaskTableHeader()) html += "<th>" + EscapeXml(h) + "</th>";
  html += "</tr>\n";
  for (const auto& row : TaskTableRows(data)) {
    html += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      html += std::string(i == 1 ? "<td class=\"name\">" : "<td class=\"num\">") +
              EscapeXml(row[i]) + "</td>";
    }
    html += "</tr>\n";
  }
  html += "<tr class=\"total\"><td></td><td>Total</td><td colspan=\"4\"></td><td class=\"num\">" +
          (data.total_weighted_seconds ? Fixed(*data.total_weighted_seconds * 1e6, 2)
                                       : std::string("-")) +
          "</td><td class=\"num\">" + std::to_string(data.records) + "</td><td></td></tr>\n";
  html += "</table>\n";

  html += "<h2>Tuning curves</h2>\n<div class=\"curves\">\n";
  for (const TaskHistory& t : data.tasks) {
    PlotOptions plot;
    plot.title = std::to_string(t.index) + ": " + t.name;
    plot.x_label = "trials (this task)";
    plot.y_label = t.flop > 0 ? "best GFLOP/s" : "best latency (us)";
    html += RenderLinePlot(plot, {{"", kCurveColor, t.best_curve}});
  }
  html += "</div>\n</body>\n</html>\n";
  return html;
}

}  // namespace kiln::cli::report
