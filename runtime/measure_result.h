// MeasureResult: what one measurement of one candidate kernel on one device produced. It is
// the record a worker reports and the tuning database stores: an outcome kind, a message
// naming what went wrong, the build time, every repeat's time and the median, and how far
// the outputs were from the reference.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/host_tensor.h"

namespace kiln::runtime {

// The outcome of a measurement. A candidate that crashes, hangs, fails to build or computes
// the wrong thing is an error result, never a fast one.
enum class MeasureErrorKind {
  kOk,
  kBuildError,    // the compiler rejected the source or ran past its time limit
  kRuntimeError,  // the kernel crashed (the message names the signal) or returned non-zero
  kTimeout,       // the run passed its wall-clock limit and was stopped; a median_seconds
                  // above 0 is how long it ran (the early cutoff's abandoned run), a lower bound
  kWrongResult,   // outputs differ from the reference (set by the caller's check)
  kSandboxViolation,  // the kernel made a system call its runner forbids (opened a file,
                      // connected, forked, exec'd: runtime/sandbox_lockdown.h) and was killed
};

// "ok", "build_error", "runtime_error", "timeout", "wrong_result", "sandbox_violation":
// stable names, used on the wire and in the database.
std::string_view MeasureErrorKindName(MeasureErrorKind kind);
std::optional<MeasureErrorKind> ParseMeasureErrorKind(std::string_view name);

struct MeasureResult {
  MeasureErrorKind error_kind = MeasureErrorKind::kOk;
  std::string message;  // empty when ok
  double build_seconds = 0;
  bool build_cache_hit = false;
  std::vector<double> repeat_seconds;  // seconds per run, one entry per repeat
  double median_seconds = 0;
  int number = 0;  // runs per repeat that timing settled on
  // How long the timing process's threads waited for a core, per second timed (runtime/
  // cpu_wait.h; the first run's when it was the measurement, or was slower): at
  // kContendedShare or above, the machine was busy and the time is too high; 0 where it was
  // not measured.
  double contention = 0;
  // Correctness against the reference; checked is false until CheckOutputs has run.
  bool correctness_checked = false;
  double max_abs_error = 0;
  double max_rel_error = 0;
  // Which reference the outputs were compared with and what was compared ("interpreter,
  // full; compared C[0:64, 0:64]", "trusted build verified against the interpreter on ...").
  std::string reference;

  bool ok() const { return error_kind == MeasureErrorKind::kOk; }
};

// Compares `actual` outputs with `expected` ones (same order; each pair compared with
// OutputTolerance(expected) unless `tolerance` is given), records the largest errors and, on
// a mismatch, turns `result` into kWrongResult with a message naming the output (by
// `names[i]` when given, else "output i") and the element's index. Does nothing to a result
// that is already an error.
void CheckOutputs(const std::vector<ir::HostTensor>& expected,
                  const std::vector<ir::HostTensor>& actual, MeasureResult& result,
                  std::optional<ir::Tolerance> tolerance = std::nullopt,
                  const std::vector<std::string>& names = {});

// The tolerance a kernel's output is held to: the dtype's (ir::DefaultTolerance), with the
// absolute part raised to rtol / 10 of the output's largest finite magnitude for floats.
// Summing in another order (a schedule may reorder a reduction's loops) moves a result by
// rounding relative to the terms summed, not to the result, so an element that cancels to
// near zero would otherwise fail for rounding alone; a wrong kernel misses by far more.
ir::Tolerance OutputTolerance(const ir::HostTensor& expected);

// "[1, 5]": the index of element `flat` of a row-major tensor of `shape`.
std::string ElementIndex(const std::vector<int64_t>& shape, int64_t flat);
// "[2, 3]": a shape in messages.
std::string ShapeText(const std::vector<int64_t>& shape);

// A result of error `kind` with `message`, nothing measured.
MeasureResult FailedResult(MeasureErrorKind kind, std::string message);

}  // namespace kiln::runtime
