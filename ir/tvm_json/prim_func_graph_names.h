// What the reader and the writer of TensorIR graphs (prim_func_graph.h) share: TVM's names of
// Kiln's binary nodes, intrinsics and function attributes, both ways, and the enum values and
// limits of the graph's shape. Internal to ir/tvm_json.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "ir/expr.h"
#include "ir/op.h"
#include "ir/text/print_util.h"

namespace kiln::ir::tvm_json::graph_names {

// TVM's binary expression nodes and Kiln's, both ways.
struct BinaryKind {
  const char* tvm;
  ir::NodeKind kiln;
  Expr (*make)(Expr, Expr);
};
#define KILN_TVM_BINARY(name)            \
  {"prim." #name, ir::NodeKind::k##name, \
   [](Expr a, Expr b) { return name(std::move(a), std::move(b)); }},
inline const BinaryKind kBinaryKinds[] = {KILN_BINARY_NODES(KILN_TVM_BINARY)};
#undef KILN_TVM_BINARY

inline const BinaryKind* FindBinary(std::string_view tvm) {
  for (const BinaryKind& kind : kBinaryKinds) {
    if (tvm == kind.tvm) return &kind;
  }
  return nullptr;
}

// ForKind and TVM's ForKind enum agree: serial, parallel, vectorized, unrolled, thread binding.
constexpr int64_t kNumForKinds = 5;
// TVM's IterVarType values that a block iterator may have, and Kiln's kinds.
constexpr int64_t kTvmDataPar = 0, kTvmThreadIndex = 1, kTvmCommReduce = 2, kTvmOpaque = 4;

// Nesting deeper than this is a malformed (or cyclic) graph: TensorIR functions that a tuner
// sees nest loops and expressions a few dozen levels at most.
constexpr int kMaxDepth = 400;

// The op names TVM gives Kiln's intrinsics: "tirx.exp", and "prim.if_then_else".
inline std::string TvmOpName(std::string_view kiln) {
  if (kiln == kIfThenElse) return "prim.if_then_else";
  return "tirx." + std::string(kiln);
}

inline std::string KilnOpName(std::string_view tvm) {
  for (std::string_view prefix : {"tirx.", "prim.", "tir."}) {
    if (tvm.substr(0, prefix.size()) == prefix) return std::string(tvm.substr(prefix.size()));
  }
  return std::string(tvm);
}

// Function attribute keys: Kiln keeps the names TVM used up to 0.23.
inline std::string KilnAttrKey(const std::string& tvm) {
  for (const RenamedAttrKey& key : RenamedAttrKeys()) {
    if (tvm == key.tvm024) return std::string(key.kiln);
  }
  return tvm;
}

inline std::string TvmAttrKey(const std::string& kiln) {
  for (const RenamedAttrKey& key : RenamedAttrKeys()) {
    if (kiln == key.kiln) return std::string(key.tvm024);
  }
  return kiln;
}

}  // namespace kiln::ir::tvm_json::graph_names
