// The validation page: plain HTML and one style sheet, no scripts.
#include "cli/report/validation_html.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/report/page_style.h"
#include "cli/report/svg_plot.h"

namespace kiln::cli::report {
namespace {

// After kPageStyle.
const char* kStyle = R"(table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #dddddd; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.name { font-family: monospace; }
tr.bad td { background: #fde8e8; }
span.ok { color: #11772a; font-weight: bold; }
span.bad { color: #b3261e; font-weight: bold; }
)";

std::string Cell(const std::string& text, const char* cls = nullptr) {
  std::string open = cls ? std::string("<td class=\"") + cls + "\">" : "<td>";
  return open + EscapeXml(text) + "</td>";
}

std::string Num(double v, const char* format = "%.3g") {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Micros(double seconds) { return seconds > 0 ? Num(seconds * 1e6, "%.1f") : "-"; }

std::string Verdict(bool ok) {
  return ok ? "<span class=\"ok\">ok</span>" : "<span class=\"bad\">disagrees</span>";
}

}  // namespace

std::string RenderValidationHtml(const validate::ValidationReport& report) {
  std::string title = "Kiln validation: " + report.model + " on " + report.device;
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<title>" + EscapeXml(title) + "</title>\n<style>" + kPageStyle + kStyle +
          "</style>\n</head>\n";
  html += "<body>\n<h1>" + EscapeXml(title) + "</h1>\n<dl class=\"summary\">\n";
  auto item = [&](const std::string& k, const std::string& v_html) {
    html += "<dt>" + EscapeXml(k) + "</dt><dd>" + v_html + "</dd>\n";
  };
  item("verdict", Verdict(report.ok()));
  item("reference", EscapeXml(report.reference));
  item("kernel calls", std::to_string(report.carve.calls.size()));
  item("carve", EscapeXml(report.carve_dir + (report.carve_reused ? " (reused)" : "") + ", " +
                          std::to_string(report.carve.stored_tensors) + " tensors, " +
                          std::to_string(report.carve.stored_bytes) + " bytes"));
  if (report.carve.first_non_finite) {
    item("reference's first NaN/Inf",
         EscapeXml("call " + std::to_string(*report.carve.first_non_finite) + " (" +
                   report.carve.calls[*report.carve.first_non_finite].task + ")"));
  }
  if (report.offload) {
    const validate::OffloadReport& o = *report.offload;
    std::string answer =
        o.ok ? "every call offloaded, the model agrees"
        : o.first_bad_call
            ? "first bad call " + std::to_string(*o.first_bad_call) + ": " + o.first_bad_task
            : "the model's outputs disagree";
    item("offload",
         Verdict(o.ok) + " " +
             EscapeXml(answer + " (" + std::to_string(o.runs.size()) + " whole-model runs)"));
  }
  item("seconds", Num(report.seconds, "%.1f"));
  html += "</dl>\n";

  if (report.replay) {
    html +=
        "<h2>Kernel calls (replay)</h2>\n<table>\n<tr><th>Call</th><th>Status</th>"
        "<th>Task</th><th>Kernel</th><th>Binding</th><th>Bound</th><th>Max abs</th>"
        "<th>NMSE</th><th>Mismatches</th><th>Reference (us)</th><th>Device (us)</th>"
        "<th>Schedule</th><th>Message</th></tr>\n";
    std::vector<const validate::KernelFinding*> order;
    for (const auto& f : report.replay->calls) {
      if (!f.ok()) order.push_back(&f);
    }
    for (const auto& f : report.replay->calls) {
      if (f.ok()) order.push_back(&f);
    }
    for (const validate::KernelFinding* f : order) {
      html += f->ok() ? "<tr>" : "<tr class=\"bad\">";
      html += Cell(std::to_string(f->call), "num") + Cell(f->status) + Cell(f->task, "name") +
              Cell(f->prim_func, "name") + Cell(f->binding, "name") +
              Cell(nlohmann::json(f->bound).dump(), "name") +
              Cell(Num(f->diff.max_abs_error), "num") + Cell(Num(f->diff.nmse), "num") +
              Cell(std::to_string(f->diff.mismatches) + " / " + std::to_string(f->diff.elements),
                   "num") +
              Cell(Micros(f->reference_seconds), "num") + Cell(Micros(f->device_seconds), "num") +
              Cell(f->schedule) + Cell(f->message) + "</tr>\n";
    }
    html += "</table>\n";
  }
  if (report.offload) {
    html +=
        "<h2>Offload runs</h2>\n<table>\n<tr><th>Calls on the device</th><th>Agrees</th>"
        "<th>First disagreeing call</th><th>What</th><th>Seconds</th></tr>\n";
    for (const validate::OffloadRun& r : report.offload->runs) {
      html += r.agrees ? "<tr>" : "<tr class=\"bad\">";
      html += Cell(std::to_string(r.offloaded), "num") + Cell(r.agrees ? "yes" : "no") +
              Cell(r.first_disagreeing
                       ? (*r.first_disagreeing < 0 ? std::string("the model's output")
                                                   : std::to_string(*r.first_disagreeing))
                       : "-",
                   "num") +
              Cell(r.what) + Cell(Num(r.seconds, "%.2f"), "num") + "</tr>\n";
    }
    html += "</table>\n";
  }
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace kiln::cli::report
