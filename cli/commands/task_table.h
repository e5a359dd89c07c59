// The live per-task table of a tuning job, as TVM prints it (ID, name, FLOP, weight, best
// GFLOP/s, latency, weighted latency, trials, done): `tune run` draws it from the tuner's
// reports, `tune watch` and `tune submit --wait` from the coordinator's job events. On a
// terminal it is redrawn in place; otherwise a progress line is printed per round.
#pragma once

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "schemas/messages.h"
#include "search/tuner.h"

namespace kiln::cli {

// The table's lines: a header, one row per task, then the totals.
std::vector<std::string> TaskTable(const search::TuneReport& report);

// A job event as a report the table can draw (names, FLOP, weights, trials, best latencies).
search::TuneReport ReportOfEvent(const schemas::JobEventMsg& event);

// Draws reports on `out` (stderr by default): in place on a terminal (at most a few times a
// second, always the last), as a line per `per_round` trials otherwise.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(int64_t per_round);
  ProgressPrinter(int64_t per_round, bool tty, std::ostream& out);
  void operator()(const search::TuneReport& report);

 private:
  int64_t per_round_;
  bool tty_;
  std::ostream& out_;
  size_t drawn_ = 0;
  int64_t printed_trials_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace kiln::cli
