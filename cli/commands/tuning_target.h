// `tune run --until-faster-than TARGET`: tuning in stages that stops once the compiled model
// beats TARGET on this machine. TARGET is a latency ("2.5ms", "800us", "0.004s") or "ort",
// ONNX Runtime's latency on the same model, inputs and threads (bench/ort_latency.py in the
// project's virtual environment, timed once before tuning). After each stage the model is
// compiled with the tuning database so far and timed, each as a user would run it (`tune
// compile`, then `tune bench` on the same inputs ONNX Runtime ran), so the verdict is the one
// the user would get from those commands.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

struct TuningTarget {
  std::string spelling;  // as given
  bool ort = false;      // ONNX Runtime's latency, measured here
  double latency_s = 0;  // the latency to beat, when given as one
};

// "ort" or a positive latency with its unit (s, ms, us); nullopt for anything else.
std::optional<TuningTarget> ParseTuningTarget(const std::string& text);

// The trials of each stage: a quarter, a quarter, then the rest (stages of no trials left
// out), so that a model already fast after a few minutes stops there.
std::vector<int64_t> TargetStages(int64_t trials);

// What compiling and timing need besides the tuning itself.
struct TargetRun {
  std::string tune;                     // this program's path
  std::string python;                   // the Python with onnxruntime (for "ort")
  std::string model;                    // the ONNX file tuned
  std::map<std::string, int64_t> dims;  // every symbolic dim bound, as the tuning bound them
  std::string winograd = "off";         // the import options the tasks came from
  std::string sparse_attention = "auto";
  int threads = 1;       // the model's threads when timed (both sides)
  std::string db;        // the tuning database
  std::string work_dir;  // artifacts and inputs
};

// Measures the target and, after each stage, the compiled model against it.
class TargetCheck {
 public:
  TargetCheck(TuningTarget target, TargetRun run);

  // The latency to beat: ONNX Runtime timed here (once, on inputs it saves for the Kiln
  // side), or the one given. kiln::Error(kIO) naming the command when ONNX Runtime cannot run.
  double TargetSeconds();

  struct Stage {
    int64_t trials = 0;    // tuned in this stage
    double tuning_s = 0;   // this stage's tuning wall time
    double latency_s = 0;  // the compiled model's median latency after it
    bool faster = false;   // below the target
  };
  // Compiles the model with the database so far and times it: records it as a stage.
  const Stage& AfterStage(int64_t trials, double tuning_s);

  // {"target", "target_latency_s", "threads", "reached", "minutes_to_target", "stages"}.
  nlohmann::json Json() const;
  bool reached() const { return !stages_.empty() && stages_.back().faster; }

 private:
  TuningTarget target_;
  TargetRun run_;
  std::optional<double> target_s_;
  std::vector<std::string> input_flags_;  // `tune bench --input NAME=FILE.npy`
  std::vector<Stage> stages_;
};

}  // namespace kiln::cli
