// kiln.Module: a model or a set of kernels as Kiln read it, with the bytes it was read from.
// An ONNX model or a Relax module (ir/model/model_file.h: the module and its entry function) is
// what tune and compile specialise and compile; a TensorIR text is a list of PrimFuncs, each a
// kernel to tune as `tune run FILE.tir` tunes them. The bytes are kept because the library
// calls that specialise a model per dims and buckets (ir/model/model_tasks.h) import it anew.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/model/model_file.h"
#include "ir/model/shape_buckets.h"

namespace kiln::python {

struct Model {
  std::string name;        // as given: a path, or the name passed to kiln.parse
  std::string model_name;  // what the library calls get: `name` with its format's extension
  std::string bytes;       // ONNX bytes, or the text
  std::string format;      // "onnx", "relax" or "tir"
  std::string func;        // the entry asked for (empty: ChooseEntryFunction's)
  std::optional<ir::model::ModelInput> input;  // onnx and relax
  std::vector<ir::PrimFunc> funcs;             // tir

  bool is_model() const { return format != "tir"; }
  // kiln::Error(kUnsupported) naming `what` when this is a TensorIR text, not a model.
  void RequireModel(const std::string& what) const;
};

// The shape buckets of `{dim: [values]}` (kiln.compile's and kiln.Client.submit's buckets=),
// checked as the --bucket flags are (ir/model/shape_buckets.h).
ir::model::BucketSpec BucketSpecOf(const std::map<std::string, std::vector<int64_t>>& buckets);

// A model read from text: a Relax module when it defines an @R.function, else TensorIR
// PrimFuncs (kiln::Error(kParse) naming `name`, the line and the column).
Model ParseModel(const std::string& text, const std::string& name, const std::string& func);
// A model file by its extension: .onnx, .relax or .py (Relax), .tir (TensorIR).
Model LoadModelFile(const std::string& path, const std::string& func);

}  // namespace kiln::python
