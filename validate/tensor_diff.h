// How far a tensor computed on the device being validated is from the reference's, and
// whether that is within the tolerance of its dtype. The defaults are the measurer's
// (runtime::OutputTolerance): float32 rtol 1e-4, float16 1e-2, bfloat16 2e-2, the absolute
// part raised to rtol / 10 of the largest expected magnitude; integers and bool exact. A user
// overrides rtol or atol per dtype (`--rtol float16=2e-2`); an override is taken as given.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/host_tensor.h"

namespace kiln::validate {

struct Tolerances {
  std::map<std::string, double> rtol;  // by dtype name ("float32")
  std::map<std::string, double> atol;
  // The tolerance `expected` is held to.
  ir::Tolerance For(const ir::HostTensor& expected) const;
  // Adds "DTYPE=VALUE" options (`--rtol`, `--atol`) to `into`; kiln::Error(kParse) naming the
  // option for a malformed one, an unknown dtype or a negative value.
  static void Parse(const std::vector<std::string>& options, const std::string& flag,
                    std::map<std::string, double>& into);
};

struct TensorDiff {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;
  // Normalised mean squared error: sum (a - e)^2 / sum e^2 (0 when both are all zero).
  double nmse = 0;
  int64_t mismatches = 0;
  int64_t elements = 0;
  std::string first_bad_index;  // "[0, 3]"; empty when ok
  int64_t first_bad_flat = -1;  // the same, row-major flat
  double expected_at_first = 0, actual_at_first = 0;
  bool non_finite = false;  // a NaN or Inf where the reference has a finite value
  double rtol = 0, atol = 0;
  // "max abs 0.5, nmse 1e-3, 12 of 4096 differ, first at [0, 3]: expected 1, got 1.5".
  std::string Summary() const;
};

// Compares elementwise; a shape or dtype difference is a diff with every element bad.
TensorDiff Diff(const ir::HostTensor& expected, const ir::HostTensor& actual,
                const ir::Tolerance& tolerance);

// True when every element is finite (integers always are).
bool AllFinite(const ir::HostTensor& tensor);

}  // namespace kiln::validate
