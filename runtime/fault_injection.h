// A switch for testing the tools that look for wrong kernels (validation, the tuner's checks):
// a Measurer that wraps a device's measurer and breaks the results of the kernels whose
// workload name matches a glob pattern. Off unless asked for (`kiln-worker --fault`,
// `tune validate --fault`); whoever turns it on logs it and says so where the device is
// described, so no figure is mistaken for a real one.
//
//   wrong  the kernel runs; one element of each output is moved far off (1 + |x|, added), so
//          the result is a wrong_result naming the fault
//   nan    the kernel runs; one element of each output becomes NaN (a wrong_result)
//   drift  the kernel runs; each output element moves by 3e-5 of itself, up and down in turn,
//          inside the float32 tolerance one comparison allows, so the kernel passes alone and
//          only a computation downstream that cancels (a difference of neighbours) shows it
//   crash  nothing runs: a runtime_error, as a kernel that took the device down
//   hang   nothing runs: a timeout, as a kernel stopped at the run time limit
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "runtime/measurer.h"

namespace kiln::runtime {

enum class FaultKind { kWrong, kNan, kDrift, kCrash, kHang };

struct FaultSpec {
  FaultKind kind = FaultKind::kWrong;
  std::string task_pattern = "*";  // fnmatch glob over the workload's name
};

// "wrong", "nan", "drift", "crash", "hang"; nullopt otherwise.
std::optional<FaultKind> ParseFaultKind(const std::string& name);
std::string FaultKindName(FaultKind kind);
// "fault injection: wrong results for tasks matching 'fused_matmul*'".
std::string DescribeFault(const FaultSpec& fault);

// True when the fault applies to a workload of this name.
bool FaultApplies(const FaultSpec& fault, const std::string& workload_name);

// `inner` with `fault` applied to the matching workloads; the rest pass through untouched.
std::unique_ptr<Measurer> WithFault(std::unique_ptr<Measurer> inner, FaultSpec fault);

}  // namespace kiln::runtime
