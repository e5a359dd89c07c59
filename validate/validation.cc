// The validation driver: carve (or reuse), replay, offload.
#include "validate/validation.h"

#include <chrono>
#include <filesystem>

#include "support/error.h"

namespace kiln::validate {

std::optional<Mode> ParseMode(const std::string& name) {
  if (name == "replay") return Mode::kReplay;
  if (name == "offload") return Mode::kOffload;
  if (name == "both") return Mode::kBoth;
  return std::nullopt;
}

bool ValidationReport::ok() const {
  return (!replay || replay->failed == 0) && (!offload || offload->ok);
}

namespace {

// The carve in `dir` when it is of this model, entry and inputs, and its tensors are there.
std::optional<Carve> ReusableCarve(const std::string& dir, const std::string& model_name,
                                   const std::string& entry, const std::string& reference,
                                   const std::vector<ir::HostTensor>& inputs,
                                   const TensorStore& store) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(dir) / "carve.json", ec)) return std::nullopt;
  Carve carve = LoadCarve(dir);
  if (carve.model != model_name || carve.entry != entry || carve.reference != reference ||
      carve.inputs.size() != inputs.size()) {
    return std::nullopt;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (TensorStore::Digest(inputs[i]) != carve.inputs[i].digest) return std::nullopt;
  }
  for (const CarvedCall& c : carve.calls) {
    for (const TensorRef& r : c.outputs) {
      if (r.stored && !std::filesystem::exists(store.PathOf(r), ec)) return std::nullopt;
    }
  }
  return carve;
}

}  // namespace

ValidationReport Validate(const ir::relax::IRModule& module, const std::string& entry,
                          const std::string& model_name, const std::vector<ir::HostTensor>& inputs,
                          TargetDevice& device, const ValidateOptions& options) {
  KILN_CHECK(!options.carve_dir.empty(), ErrorKind::kInternal, "Validate: no carve directory");
  auto start = std::chrono::steady_clock::now();
  ValidationReport report;
  report.model = model_name;
  report.entry = entry;
  report.device = device.Describe();
  report.reference = options.reference ? options.reference->Describe() : "interpreter";
  report.carve_dir = options.carve_dir;
  TensorStore store(options.carve_dir, options.carve_cap_bytes);
  if (std::optional<Carve> reused =
          ReusableCarve(options.carve_dir, model_name, entry, report.reference, inputs, store)) {
    report.carve = std::move(*reused);
    report.carve_reused = true;
  } else {
    report.carve = CarveModel(module, entry, model_name, inputs, store, options.reference);
    SaveCarve(report.carve, options.carve_dir);
  }
  if (options.mode != Mode::kOffload) {
    report.replay = Replay(module, report.carve, store, device, options.tolerances);
  }
  if (options.mode != Mode::kReplay) {
    report.offload =
        Offload(module, report.carve, store, inputs, device, options.tolerances, options.reference);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace kiln::validate
