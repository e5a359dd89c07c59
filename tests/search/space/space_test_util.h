// Helpers the design-space tests share: a CPU tuning context and golden sketch files
// (tests/search/testdata/space/NAME.py: each sketch's trace as a Python script).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/schedule/schedule.h"
#include "search/space/tune_context.h"
#include "tests/testing/golden.h"

namespace kiln::search::testing {

// Two cores and AVX-512, as the machines these tests run on; seed 1.
inline TuneContext CpuContext(const ir::PrimFunc& workload) {
  TuneContext context;
  context.workload = workload;
  context.task_name = workload->name;
  context.num_cores = 2;
  context.vector_bytes = 64;
  return context;
}

inline std::string SketchesText(const std::vector<Schedule>& sketches) {
  std::string text;
  for (size_t i = 0; i < sketches.size(); ++i) {
    text += "# sketch " + std::to_string(i) + "\n" + sketches[i].trace().AsPython();
  }
  return text;
}

inline void ExpectGoldenSketches(const std::vector<Schedule>& sketches, const std::string& name) {
  std::string message = kiln::testing::CheckGoldenFile(
      kiln::testing::SourcePath("tests/search/testdata/space/" + name + ".py"),
      SketchesText(sketches));
  EXPECT_EQ(message, "");
}

}  // namespace kiln::search::testing
