// Logger set-up: one stderr logger named "kiln", level from KILN_LOG_LEVEL.
#include "support/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <string>

namespace kiln {

spdlog::logger& Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("kiln");
    l->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    const char* env = std::getenv("KILN_LOG_LEVEL");
    l->set_level(env ? spdlog::level::from_str(env) : spdlog::level::warn);
    return l;
  }();
  return *logger;
}

void SetLogLevel(std::string_view level) {
  Logger().set_level(spdlog::level::from_str(std::string(level)));
}

}  // namespace kiln
