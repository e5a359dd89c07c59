// The task table: formatting, the event-to-report view, and the terminal-aware printer.
#include "cli/commands/task_table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace kiln::cli {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Pad(const std::string& s, size_t width, bool right = true) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// At most `width` characters; a trailing bucket label, "(seq=32)", is kept whole.
std::string ShortName(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  size_t open = name.rfind(" (");
  std::string suffix =
      open != std::string::npos && name.back() == ')' && name.size() - open < width / 2
          ? name.substr(open)
          : "";
  return name.substr(0, width - 3 - suffix.size()) + "..." + suffix;
}

std::string WeightText(double w) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", w);
  return buf;
}

double Gflops(const search::TaskReport& t) {
  return t.best_seconds > 0 && t.flop > 0 ? t.flop / t.best_seconds / 1e9 : 0;
}

}  // namespace

std::vector<std::string> TaskTable(const search::TuneReport& report) {
  size_t name_width = 4;
  for (const auto& t : report.tasks)
    name_width = std::max(name_width, std::min<size_t>(t.name.size(), 48));
  std::vector<std::string> lines;
  lines.push_back(Pad("ID", 3) + "  " + Pad("Name", name_width, false) + "  " + Pad("FLOP", 12) +
                  "  " + Pad("Weight", 6) + "  " + Pad("GFLOP/s", 8) + "  " +
                  Pad("Latency (us)", 12) + "  " + Pad("Weighted (us)", 13) + "  " +
                  Pad("Trials", 6) + "  Done");
  double total_weighted = 0;
  bool all_measured = true;
  for (size_t i = 0; i < report.tasks.size(); ++i) {
    const auto& t = report.tasks[i];
    std::string name = ShortName(t.name, 48);
    bool has = t.best_seconds > 0;
    all_measured = all_measured && has;
    if (has) total_weighted += t.best_seconds * t.weight;
    lines.push_back(Pad(std::to_string(i), 3) + "  " + Pad(name, name_width, false) + "  " +
                    Pad(Fixed(t.flop, 0), 12) + "  " + Pad(WeightText(t.weight), 6) + "  " +
                    Pad(has && t.flop > 0 ? Fixed(Gflops(t), 2) : "-", 8) + "  " +
                    Pad(has ? Fixed(t.best_seconds * 1e6, 2) : "-", 12) + "  " +
                    Pad(has ? Fixed(t.best_seconds * t.weight * 1e6, 2) : "-", 13) + "  " +
                    Pad(std::to_string(t.trials), 6) + "  " + (t.done ? "Y" : ""));
  }
  lines.push_back("Total trials: " + std::to_string(report.total_trials) +
                  "  Total weighted latency: " +
                  (all_measured ? Fixed(total_weighted * 1e6, 2) + " us" : std::string("-")) +
                  "  Elapsed: " + Fixed(report.wall_seconds, 1) + " s");
  return lines;
}

search::TuneReport ReportOfEvent(const schemas::JobEventMsg& event) {
  search::TuneReport report;
  for (const schemas::TaskProgressMsg& t : event.tasks) {
    search::TaskReport r;
    r.name = t.name;
    r.flop = t.flop;
    r.weight = t.weight;
    r.trials = static_cast<int64_t>(t.trials_done);
    r.best_seconds = t.best_seconds;
    r.untuned_seconds = t.untuned_seconds;
    r.done = t.done;
    report.tasks.push_back(std::move(r));
  }
  report.total_trials = static_cast<int64_t>(event.trials_done);
  report.wall_seconds = event.elapsed_s;
  report.finished = event.state == "done" || event.state == "failed" || event.state == "cancelled";
  return report;
}

ProgressPrinter::ProgressPrinter(int64_t per_round)
    : ProgressPrinter(per_round, isatty(2) != 0, std::cerr) {}

ProgressPrinter::ProgressPrinter(int64_t per_round, bool tty, std::ostream& out)
    : per_round_(per_round), tty_(tty), out_(out) {}

void ProgressPrinter::operator()(const search::TuneReport& report) {
  auto now = std::chrono::steady_clock::now();
  if (tty_) {
    if (!report.finished && now - last_ < std::chrono::milliseconds(300)) return;
    last_ = now;
    std::vector<std::string> lines = TaskTable(report);
    std::string out;
    if (drawn_ > 0) out += "\x1b[" + std::to_string(drawn_) + "A\x1b[J";
    for (const std::string& line : lines) out += line + "\n";
    drawn_ = lines.size();
    out_ << out << std::flush;
    return;
  }
  if (!report.finished && report.total_trials < printed_trials_ + per_round_) return;
  printed_trials_ = report.total_trials;
  std::string best;
  for (const auto& t : report.tasks) {
    if (t.best_seconds <= 0) continue;
    best +=
        (best.empty() ? "" : ", ") + t.name + " " +
        (t.flop > 0 ? Fixed(Gflops(t), 1) + " GFLOP/s" : Fixed(t.best_seconds * 1e6, 1) + " us");
  }
  out_ << "[" << Fixed(report.wall_seconds, 0) << " s] " << report.total_trials
       << " trials; best: " << (best.empty() ? "none yet" : best) << std::endl;
}

}  // namespace kiln::cli
