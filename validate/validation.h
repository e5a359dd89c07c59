// Validating a model on a device, TapML's way, as `tune validate` and the tests drive it:
// carve the model on the reference (validate/carve.h; an earlier carve of the same model and
// inputs in the carve directory is reused), replay every call on the device
// (validate/replay.h), offload the model call by call (validate/offload.h), and report
// (validate/report.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/module.h"
#include "validate/carve.h"
#include "validate/offload.h"
#include "validate/replay.h"
#include "validate/target_device.h"
#include "validate/tensor_diff.h"

namespace kiln::validate {

enum class Mode { kReplay, kOffload, kBoth };

// "replay", "offload", "both"; nullopt otherwise.
std::optional<Mode> ParseMode(const std::string& name);

struct ValidateOptions {
  Mode mode = Mode::kBoth;
  Tolerances tolerances;
  std::string carve_dir;                    // where the carve is kept (made if missing)
  uint64_t carve_cap_bytes = 256ull << 20;  // tensors above it are kept by digest only
  // The reference device: nullptr, the interpreter; else the loops as written built for this
  // CPU (TargetOptions::loops_as_written).
  TargetDevice* reference = nullptr;
};

struct ValidationReport {
  std::string model;
  std::string entry;
  std::string device;     // TargetDevice::Describe
  std::string reference;  // "interpreter" or the reference device's description
  std::string carve_dir;
  bool carve_reused = false;
  Carve carve;
  std::optional<ReplayReport> replay;
  std::optional<OffloadReport> offload;
  double seconds = 0;
  // Replay found every call within tolerance and offload found the model in agreement.
  bool ok() const;
};

// Validates `entry` of `module` (prepared: fused and legalized) on `inputs`.
ValidationReport Validate(const ir::relax::IRModule& module, const std::string& entry,
                          const std::string& model_name, const std::vector<ir::HostTensor>& inputs,
                          TargetDevice& device, const ValidateOptions& options);

}  // namespace kiln::validate
