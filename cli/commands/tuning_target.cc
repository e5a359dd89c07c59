// `tune run --until-faster-than`: the target, the stages, and each stage's compile and timing.
#include "cli/commands/tuning_target.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "runtime/subprocess.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

// Runs a command to its end; the last line of its output as JSON. kiln::Error(kIO) naming the
// command with the end of its output when it fails.
json RunForJson(const std::vector<std::string>& argv, double limit_s) {
  runtime::ProcessOptions options;
  options.argv = argv;
  options.capture_output = true;
  options.time_limit_s = limit_s;
  options.max_output_bytes = 8 << 20;
  const runtime::ProcessResult result = runtime::RunProcess(options);
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  std::string text = result.output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (!result.ok()) {
    const size_t keep = 3000;
    throw Error(ErrorKind::kIO, "--until-faster-than: " + command + ": " + result.Describe() +
                                    "\n" +
                                    (text.size() > keep ? text.substr(text.size() - keep) : text));
  }
  const size_t newline = text.rfind('\n');
  try {
    return json::parse(text.substr(newline == std::string::npos ? 0 : newline + 1));
  } catch (const json::exception&) {
    throw Error(ErrorKind::kIO, "--until-faster-than: " + command +
                                    ": its last line is not the JSON object it prints");
  }
}

void AddDims(std::vector<std::string>& argv, const std::map<std::string, int64_t>& dims) {
  for (const auto& [name, value] : dims) {
    argv.push_back("--dim");
    argv.push_back(name + "=" + std::to_string(value));
  }
}

}  // namespace

std::optional<TuningTarget> ParseTuningTarget(const std::string& text) {
  if (text == "ort") return TuningTarget{text, true, 0};
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.' ||
          text[digits] == 'e' || text[digits] == '-')) {
    ++digits;
  }
  const std::string number = text.substr(0, digits), unit = text.substr(digits);
  double scale = 0;
  if (unit == "s") scale = 1;
  if (unit == "ms") scale = 1e-3;
  if (unit == "us") scale = 1e-6;
  if (number.empty() || scale == 0) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !(value > 0)) return std::nullopt;
  return TuningTarget{text, false, value * scale};
}

std::vector<int64_t> TargetStages(int64_t trials) {
  const int64_t quarter = trials / 4;
  std::vector<int64_t> stages;
  for (int64_t s : {quarter, quarter, trials - 2 * quarter}) {
    if (s > 0) stages.push_back(s);
  }
  return stages;
}

TargetCheck::TargetCheck(TuningTarget target, TargetRun run)
    : target_(std::move(target)), run_(std::move(run)) {
  if (!target_.ort) target_s_ = target_.latency_s;
}

double TargetCheck::TargetSeconds() {
  if (target_s_) return *target_s_;
  const std::string inputs = run_.work_dir + "/inputs";
  const char* source_dir = KILN_SOURCE_DIR;
  std::vector<std::string> argv = {run_.python,
                                   std::string(source_dir) + "/bench/ort_latency.py",
                                   run_.model,
                                   "--threads",
                                   std::to_string(run_.threads),
                                   "--fill-from-model",
                                   "--save-inputs",
                                   inputs};
  AddDims(argv, run_.dims);
  const json ort = RunForJson(argv, 900);
  target_s_ = ort.at("latency_s").get<double>();
  for (const auto& [name, path] : ort.at("inputs").items()) {
    input_flags_.push_back("--input");
    input_flags_.push_back(name + "=" + path.get<std::string>());
  }
  return *target_s_;
}

const TargetCheck::Stage& TargetCheck::AfterStage(int64_t trials, double tuning_s) {
  const double target_s = TargetSeconds();
  const std::string artifact =
      run_.work_dir + "/stage" + std::to_string(stages_.size() + 1) + ".kiln";
  std::vector<std::string> compile = {run_.tune,
                                      "compile",
                                      run_.model,
                                      "--db",
                                      run_.db,
                                      "-o",
                                      artifact,
                                      "--json",
                                      "--winograd",
                                      run_.winograd,
                                      "--sparse-attention",
                                      run_.sparse_attention};
  AddDims(compile, run_.dims);
  RunForJson(compile, 3600);
  std::vector<std::string> bench = {
      run_.tune, "bench", artifact, "--threads", std::to_string(run_.threads), "--json"};
  bench.insert(bench.end(), input_flags_.begin(), input_flags_.end());
  const double latency_s = RunForJson(bench, 3600).at("median_s").get<double>();
  std::filesystem::remove_all(artifact);
  stages_.push_back({trials, tuning_s, latency_s, latency_s < target_s});
  return stages_.back();
}

json TargetCheck::Json() const {
  json stages = json::array();
  double tuning_s = 0;
  std::optional<double> minutes;
  for (const Stage& s : stages_) {
    tuning_s += s.tuning_s;
    stages.push_back({{"trials", s.trials},
                      {"tuning_s", s.tuning_s},
                      {"latency_s", s.latency_s},
                      {"faster", s.faster}});
    if (s.faster && !minutes) minutes = tuning_s / 60;
  }
  return {{"target", target_.spelling},
          {"target_latency_s", target_s_ ? json(*target_s_) : json()},
          {"threads", run_.threads},
          {"reached", reached()},
          {"minutes_to_target", minutes ? json(*minutes) : json()},
          {"stages", stages}};
}

}  // namespace kiln::cli
