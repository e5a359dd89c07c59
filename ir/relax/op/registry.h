// The Relax op registry: for each op name, its argument count, the attributes it takes (name,
// type, default) and its struct info inference function. relax::Call builds an op call: it
// checks the attributes against the schema, fills in defaults and infers the result's struct
// info, so a shape error surfaces where the graph is built, naming the op and the dims.
// Ops are registered per family (op/unary.cc, op/binary.cc, ...), once, on first use.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/relax/expr.h"

namespace kiln::ir::relax {

// What an inference function sees of a call being built.
struct OpCall {
  const std::string& op;
  const std::vector<Expr>& args;
  const Attrs& attrs;  // checked and with defaults filled in
  const std::vector<StructInfo>& sinfo_args;
};

using InferStructInfoFn = std::function<StructInfo(const OpCall& call)>;

struct AttrSpec {
  std::string name;
  AttrType type;
  std::optional<AttrValue> default_value;  // nullopt: optional without default, or required
  bool required = false;
  // A kIntList attribute that also takes a single int, kept as an int (not made a one-element
  // list): TVM's split(indices_or_sections=2) against split(indices_or_sections=[2]).
  bool int_or_list = false;
};

// How an op's loops relate its outputs to its inputs, which is what operator fusion decides
// on (the kinds and their order follow TVM's TOpPattern): elementwise and broadcast ops fuse
// into their producers and consumers, injective ops into consumers, a reduction or an
// out-elementwise-fusable op (matmul, conv2d) takes elementwise consumers; opaque ops do not
// fuse.
enum class OpPattern : uint8_t {
  kElemWise,
  kBroadcast,
  kInjective,
  kCommReduce,
  kOutEWiseFusable,
  kOpaque,
};
const char* OpPatternName(OpPattern pattern);  // "elemwise", "broadcast", ...

struct OpInfo {
  std::string name;  // as in TVMScript without "R.": "add", "nn.conv2d"
  int min_args = 0;
  int max_args = 0;  // -1: any number
  std::vector<AttrSpec> attrs;
  InferStructInfoFn infer;
  OpPattern pattern = OpPattern::kOpaque;
};

class OpRegistry {
 public:
  // The registry with every built-in op.
  static OpRegistry& Global();
  // Throws kInternal when `info.name` is taken.
  void Register(OpInfo info);
  // Sets the fusion pattern of the registered ops `names`; throws kInternal for an unknown one.
  void SetPattern(std::initializer_list<std::string_view> names, OpPattern pattern);
  const OpInfo* Find(std::string_view name) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  std::map<std::string, OpInfo, std::less<>> ops_;
};

// A call of op `op`. Throws kType naming the op for unknown attributes, wrong argument
// counts or types, and shape mismatches; kUnsupported for an unknown op.
Expr Call(const std::string& op, std::vector<Expr> args, Attrs attrs = Attrs(),
          std::vector<StructInfo> sinfo_args = {});

// R.call_tir(func, (args...), out_sinfo): calls the PrimFunc `func` of the same module with
// `args` followed by freshly allocated outputs; one output gives a tensor, several a tuple.
// `tir_vars` (a shape value) passes shape variables to the PrimFunc's scalar parameters.
Expr CallTIR(const GlobalVar& func, std::vector<Expr> args, std::vector<StructInfo> out_sinfo,
             const Expr& tir_vars = Expr());
// R.call_dps_packed("cblas.sgemm", (args...), out_sinfo): the same for a library kernel.
Expr CallDPSPacked(const std::string& symbol, std::vector<Expr> args,
                   std::vector<StructInfo> out_sinfo);

}  // namespace kiln::ir::relax
