// Helpers the `tune` subcommands share: the exit status of unusable input, reading input
// files, symbolic dimension values from --dim NAME=VALUE options, and the concrete shapes of
// buffers once those are bound.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/model/shape_buckets.h"
#include "ir/text/printer.h"
#include "support/error.h"
#include "support/file.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kiln::cli {

// Thrown by a command when its input or options are unusable (exit status 2), as opposed to a
// failure of the work itself (exit status 1).
struct InputError {
  Error error;
};

// Runs a command's body: an InputError is printed as "tune: KIND: message" and gives exit
// status 2.
int ExitTwoOnInputError(const std::function<int()>& run);

// The items joined by `separator`: "a, b, c".
std::string Join(const std::vector<std::string>& items, const std::string& separator = ", ");

// Parses "n=64" options into a map from dimension name to value; kiln::Error(kParse) naming
// the option when one is not NAME=VALUE with VALUE > 0.
std::map<std::string, int64_t> ParseDims(const std::vector<std::string>& dims);

// The concrete shape of `buffer` with symbolic dims replaced by their --dim values;
// kiln::Error(kParse) naming the buffer and the dimension that has no value.
std::vector<int64_t> ConcreteShape(const ir::Buffer& buffer,
                                   const std::map<std::string, int64_t>& dims);

// "[2, 3]".
std::string ShapeText(const std::vector<int64_t>& shape);

// The shape-bucket flags `tune run`, `tune submit` and `tune compile` share
// (ir/model/shape_buckets.h): --bucket NAME=V1,V2 (repeatable), --max-dim NAME=V for a bare
// --bucket NAME, --bucket-weight NAME=V:W.
struct BucketFlags {
  std::vector<std::string> buckets;
  std::vector<std::string> max_dims;
  std::vector<std::string> weights;
  // kiln::Error(kParse) naming the flag (ParseBucketFlags).
  ir::model::BucketSpec Parse() const {
    return ir::model::ParseBucketFlags(buckets, max_dims, weights);
  }
};
// Adds the three flags; `bucket_help` says what a bucket does for the command. Returns --bucket.
CLI::Option* AddBucketFlags(CLI::App* app, BucketFlags* flags, const std::string& bucket_help,
                            const std::string& weight_help);

// Adds the import options that change a model's tasks, which `tune run`, `tune compile`, `tune
// tasks` and `tune submit` take alike (a compile given other values than its tuning finds no
// records): --winograd off|auto|on (ir/relax/transform/winograd_conv2d.h, default off) and
// --sparse-attention auto|always|never (ir/frontend/onnx/sparse_attention_mode.h, default auto).
void AddImportOptions(CLI::App* app, std::string* winograd, std::string* sparse_attention);

// Adds `--dialect tvm-0.24|tvm-0.23` (the TVMScript dialect TensorIR is printed in) to a
// command that prints TensorIR; an unknown value is refused when the options are parsed.
void AddDialectOption(CLI::App* app, std::string* dialect);
// The print options for the value of that option ("" is the default dialect).
ir::TirPrintOptions DialectPrintOptions(const std::string& dialect);

}  // namespace kiln::cli
