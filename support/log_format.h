// Structured logs: the format of the one logger's lines (support/logging.h) and events with
// fields. In the "text" format (the default) a line is "[time] [level] message"; in "json"
// every line is one JSON object {"time", "level", "component", "message", "fields"}, so that
// log collectors read the daemons' logs without parsing prose. The component says which part
// of a process wrote the line ("coordinator", "worker", "tune"): a process default, which a
// thread may override (the embedded mode runs a coordinator and a worker in one process).
// A separate library from kiln_support, so that only the programs that choose a format link it.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "support/logging.h"

namespace kiln {

// "text" or "json"; kiln::Error(kParse) naming the value otherwise.
void SetLogFormat(std::string_view format);
// The component of lines written by threads that did not name their own.
void SetLogComponent(std::string_view component);
// The component of lines written by the calling thread ("" : the process default again).
void SetThreadLogComponent(std::string_view component);

// Logs `message` with `fields` (a JSON object): in JSON lines as "fields", in text appended
// as " (key=value, ...)". Nothing is built when the level is off.
void LogEvent(spdlog::level::level_enum level, std::string_view message,
              const nlohmann::json& fields);

}  // namespace kiln
