// Running one ONNX backend test directory (model.onnx plus test_data_set_N/input_*.pb and
// output_*.pb, the layout of ONNX's own node tests) through Kiln: import, the tuning pipeline
// (legalize, fold, fuse), the reference executor, and a comparison with the expected outputs
// as ONNX's backend tests make it (numpy's allclose: |actual - expected| <= atol + rtol *
// |expected|, NaN equal to NaN; integers and booleans exactly; bfloat16 at rtol 2^-6 or more,
// two of its ulps, as ONNX's runner does). `tune onnx-test` prints these
// results; the node-test suite in tests/cli checks them for every supported op.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/relax/transform/pipeline.h"

namespace kiln::cli {

struct OnnxTestOptions {
  double rtol = 1e-3;
  double atol = 1e-7;
  // Run the whole tuning pipeline (legalize, fold, fuse); false runs LegalizeOps only.
  bool fuse = true;
  ir::relax::transform::PipelineOptions pipeline;  // with fuse: the pipeline's rewrites
};

struct OnnxTestResult {
  std::string dir;
  // "pass", "fail" (wrong outputs, or an error while importing, preparing or running), or
  // "unsupported" (an op, attribute or dtype Kiln does not handle; `reason` says which).
  std::string status;
  double max_abs_error = 0;
  std::string reason;                 // empty on pass
  std::vector<std::string> op_types;  // the model's op types, sorted
  int data_sets = 0;                  // test_data_set_N folders compared
  double seconds = 0;
};

OnnxTestResult RunOnnxBackendTest(const std::string& dir, const OnnxTestOptions& options = {});

// {"dir", "status", "max_abs_error", "reason", "ops", "data_sets", "seconds"}.
nlohmann::json ToJson(const OnnxTestResult& result);

}  // namespace kiln::cli
