// What a validation found, for people and programs: the whole report as JSON (every call's
// finding, the offload's runs), the one-line summary `tune validate --json` ends with, and a
// text table of the calls that failed. The HTML page is cli/report/validation_html.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "validate/validation.h"

namespace kiln::validate {

// Everything: model, device, carve (what it stores), per call its finding, the offload's runs.
nlohmann::json ReportToJson(const ValidationReport& report);

// The summary line: ok, kernels (distinct kernels called), calls, failed (task, kernel,
// onnx_nodes, bound, status, max_abs_error, nmse per failing kernel and shape, once each),
// offload (first_bad_task, first_bad_call, runs), carve (stored_bytes, stored_tensors), seconds.
nlohmann::json SummaryJson(const ValidationReport& report);

// A few lines for the terminal: the verdict, the failing kernels, the offload's answer.
std::string SummaryText(const ValidationReport& report);

}  // namespace kiln::validate
