// The one logger Kiln writes through. Levels follow spdlog; the level comes from
// KILN_LOG_LEVEL (trace, debug, info, warn, error, off) or SetLogLevel. Logs go to stderr so
// that stdout stays for a command's output (and its --json line).
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace kiln {

spdlog::logger& Logger();
void SetLogLevel(std::string_view level);

}  // namespace kiln

#define KILN_LOG_TRACE(...) ::kiln::Logger().trace(__VA_ARGS__)
#define KILN_LOG_DEBUG(...) ::kiln::Logger().debug(__VA_ARGS__)
#define KILN_LOG_INFO(...) ::kiln::Logger().info(__VA_ARGS__)
#define KILN_LOG_WARN(...) ::kiln::Logger().warn(__VA_ARGS__)
#define KILN_LOG_ERROR(...) ::kiln::Logger().error(__VA_ARGS__)
