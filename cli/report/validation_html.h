// The page `tune validate -o report.html` writes: the verdict, the carve, a table of every
// kernel call (status, errors, time on the reference and on the device, the task, the binding
// it came from, the kernel's schedule) with failing calls first, and the offload's runs.
#pragma once

#include <string>

#include "validate/validation.h"

namespace kiln::cli::report {

std::string RenderValidationHtml(const validate::ValidationReport& report);

}  // namespace kiln::cli::report
