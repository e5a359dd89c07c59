// Log formats: spdlog's pattern for text, a formatter of one JSON object per line for json.
#include "support/log_format.h"

#include <spdlog/pattern_formatter.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>

#include "support/error.h"

namespace kiln {
namespace {

std::mutex g_component_mutex;
std::string g_component = "kiln";
thread_local std::string t_component;
thread_local const nlohmann::json* t_fields = nullptr;
bool g_json = false;

constexpr const char* kTextPattern = "[%H:%M:%S.%e] [%^%l%$] %v";

std::string Component() {
  if (!t_component.empty()) return t_component;
  std::lock_guard lock(g_component_mutex);
  return g_component;
}

// "2026-11-25T18:45:10.123Z": UTC, milliseconds.
std::string IsoTime(spdlog::log_clock::time_point time) {
  auto since = time.time_since_epoch();
  std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(since).count();
  int millis =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(since).count() % 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, millis);
  return out;
}

class JsonFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::json line = {{"time", IsoTime(msg.time)},
                           {"level", std::string(spdlog::level::to_string_view(msg.level).data(),
                                                 spdlog::level::to_string_view(msg.level).size())},
                           {"component", Component()},
                           {"message", std::string(msg.payload.data(), msg.payload.size())},
                           {"fields", t_fields != nullptr ? *t_fields : nlohmann::json::object()}};
    // Messages quote user input, which need not be UTF-8: replace, never throw.
    std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text.push_back('\n');
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

void SetLogFormat(std::string_view format) {
  if (format == "json") {
    Logger().set_formatter(std::make_unique<JsonFormatter>());
    g_json = true;
  } else if (format == "text") {
    Logger().set_formatter(std::make_unique<spdlog::pattern_formatter>(kTextPattern));
    g_json = false;
  } else {
    throw Error(ErrorKind::kParse,
                "log format '" + std::string(format) + "': expected text or json");
  }
}

void SetLogComponent(std::string_view component) {
  std::lock_guard lock(g_component_mutex);
  g_component = std::string(component);
}

void SetThreadLogComponent(std::string_view component) { t_component = std::string(component); }

void LogEvent(spdlog::level::level_enum level, std::string_view message,
              const nlohmann::json& fields) {
  if (!Logger().should_log(level)) return;
  if (g_json) {
    t_fields = &fields;
    Logger().log(level, "{}", message);
    t_fields = nullptr;
    return;
  }
  std::string text(message);
  if (fields.is_object() && !fields.empty()) {
    text += " (";
    bool first = true;
    for (const auto& [key, value] : fields.items()) {
      text += (first ? "" : ", ") + key + "=" +
              (value.is_string()
                   ? value.get<std::string>()
                   : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      first = false;
    }
    text += ")";
  }
  Logger().log(level, "{}", text);
}

}  // namespace kiln
