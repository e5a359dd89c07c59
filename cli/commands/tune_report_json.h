// TuneReportJson: a tuning job's report (search/tuner.h) as the JSON object `tune run --json`
// prints and the Python package's kiln.tune returns: per task its FLOP, weight, trials, best,
// untuned and seeded latency, best trace, errors and search figures; the job's totals.
#pragma once

#include <nlohmann/json.hpp>

#include "search/tuner.h"

namespace kiln::cli {

nlohmann::json TuneReportJson(const search::TuneReport& report);

}  // namespace kiln::cli
