// The fault-injecting measurer: measure through the wrapped device, then break what came back.
#include "runtime/fault_injection.h"

#include <fnmatch.h>

#include <cmath>
#include <limits>

namespace kiln::runtime {
namespace {

constexpr double kDrift = 3e-5;

class FaultInjectingMeasurer : public Measurer {
 public:
  FaultInjectingMeasurer(std::unique_ptr<Measurer> inner, FaultSpec fault)
      : inner_(std::move(inner)), fault_(std::move(fault)) {}

  std::string DeviceKind() const override { return inner_->DeviceKind(); }

  MeasureResult Measure(const MeasureCandidate& candidate, MeasureDetails* details) override {
    if (!FaultApplies(fault_, candidate.workload->name)) return inner_->Measure(candidate, details);
    std::string what =
        "fault injected (" + FaultKindName(fault_.kind) + ") in " + candidate.workload->name;
    if (fault_.kind == FaultKind::kCrash) {
      return FailedResult(MeasureErrorKind::kRuntimeError, what + ": the kernel crashed");
    }
    if (fault_.kind == FaultKind::kHang) {
      return FailedResult(MeasureErrorKind::kTimeout, what + ": the kernel hung");
    }
    MeasureDetails local;
    MeasureDetails& d = details ? *details : local;
    MeasureResult result = inner_->Measure(candidate, &d);
    if (!result.ok() && result.error_kind != MeasureErrorKind::kWrongResult) return result;
    for (auto& [index, tensor] : d.outputs) {
      if (d.reference == nullptr || index < 0 ||
          static_cast<size_t>(index) >= d.reference->params.size()) {
        continue;
      }
      if (!d.reference->params[index].written || tensor.numel() == 0) continue;
      switch (fault_.kind) {
        case FaultKind::kWrong: {
          double x = tensor.GetDouble(0);
          tensor.SetDouble(0, x + 1 + std::fabs(x));
          break;
        }
        case FaultKind::kNan:
          tensor.SetDouble(0, std::numeric_limits<double>::quiet_NaN());
          break;
        case FaultKind::kDrift:
          for (int64_t i = 0; i < tensor.numel(); ++i) {
            tensor.SetDouble(i, tensor.GetDouble(i) * (1 + (i % 2 == 0 ? kDrift : -kDrift)));
          }
          break;
        default:
          break;
      }
    }
    // A wrong or NaN kernel is wrong whether or not its outputs were dumped this time.
    if (result.ok() && (fault_.kind == FaultKind::kWrong || fault_.kind == FaultKind::kNan)) {
      result.error_kind = MeasureErrorKind::kWrongResult;
      result.message = what + ": its outputs were changed";
      result.repeat_seconds.clear();
      result.median_seconds = 0;
    }
    return result;
  }

  // The inner measurer's batch (its parallel builds) unless a candidate of it is faulted.
  std::vector<MeasureResult> MeasureBatch(
      const std::vector<MeasureCandidate>& candidates) override {
    for (const MeasureCandidate& c : candidates) {
      if (FaultApplies(fault_, c.workload->name)) return Measurer::MeasureBatch(candidates);
    }
    return inner_->MeasureBatch(candidates);
  }

 private:
  std::unique_ptr<Measurer> inner_;
  FaultSpec fault_;
};

}  // namespace

std::optional<FaultKind> ParseFaultKind(const std::string& name) {
  if (name == "wrong") return FaultKind::kWrong;
  if (name == "nan") return FaultKind::kNan;
  if (name == "drift") return FaultKind::kDrift;
  if (name == "crash") return FaultKind::kCrash;
  if (name == "hang") return FaultKind::kHang;
  return std::nullopt;
}

std::string FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kWrong:
      return "wrong";
    case FaultKind::kNan:
      return "nan";
    case FaultKind::kDrift:
      return "drift";
    case FaultKind::kCrash:
      return "crash";
    case FaultKind::kHang:
      return "hang";
  }
  return "?";
}

std::string DescribeFault(const FaultSpec& fault) {
  return "fault injection: " + FaultKindName(fault.kind) + " results for tasks matching '" +
         fault.task_pattern + "'";
}

bool FaultApplies(const FaultSpec& fault, const std::string& workload_name) {
  return fnmatch(fault.task_pattern.c_str(), workload_name.c_str(), 0) == 0;
}

std::unique_ptr<Measurer> WithFault(std::unique_ptr<Measurer> inner, FaultSpec fault) {
  return std::make_unique<FaultInjectingMeasurer>(std::move(inner), std::move(fault));
}

}  // namespace kiln::runtime
