// The page `tune report` writes: one self-contained HTML file (inline CSS and SVG, no script,
// nothing fetched) with the job's summary, the estimated model latency over trials, the task
// table as `tune run` prints it, and one tuning curve per task.
#pragma once

#include <string>
#include <vector>

#include "cli/report/tuning_history.h"

namespace kiln::cli::report {

// The table's rows as `tune run` prints them: ID, Name, FLOP, Weight, GFLOP/s, Latency (us),
// Weighted (us), Trials, Done; "-" where a task has no correct measurement yet.
std::vector<std::vector<std::string>> TaskTableRows(const ReportData& data);
const std::vector<std::string>& TaskTableHeader();

std::string RenderHtmlReport(const ReportData& data);

}  // namespace kiln::cli::report
