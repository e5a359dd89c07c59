// Reducers. Until Compute takes it apart, a reducer is a Call to a reserved op whose
// arguments are the source, the condition (true when none was given) and, per axis, the
// axis variable, the domain's min and its extent; no intrinsic has such a name, so a reducer
// that escapes a stage is rejected by every consumer of the IR.
#include "ir/compute/reduce.h"

#include <cfloat>
#include <cstdint>
#include <limits>
#include <string_view>

#include "ir/functor.h"

namespace kiln::ir::compute {
namespace {

constexpr std::string_view kReducerPrefix = "compute.reduce.";

const char* OpSuffix(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
      return "sum";
    case ReduceKind::kMax:
      return "max";
    case ReduceKind::kMin:
      return "min";
    case ReduceKind::kProd:
      return "prod";
  }
  return "?";
}

std::optional<ReduceKind> KindOfOp(std::string_view op) {
  if (!op.starts_with(kReducerPrefix)) return std::nullopt;
  op.remove_prefix(kReducerPrefix.size());
  for (ReduceKind kind :
       {ReduceKind::kSum, ReduceKind::kMax, ReduceKind::kMin, ReduceKind::kProd}) {
    if (op == OpSuffix(kind)) return kind;
  }
  return std::nullopt;
}

Expr MakeReducer(ReduceKind kind, Expr source, std::vector<IterVar> axes, Expr where) {
  const std::string what = ReduceKindName(kind);
  KILN_CHECK(source.defined(), ErrorKind::kInvalidIR, what + ": undefined source");
  DataType dtype = source.dtype();
  KILN_CHECK(dtype.is_scalar() &&
                 (dtype.is_float() || dtype.is_int() || dtype.is_uint() ||
                  (dtype.is_bool() && (kind == ReduceKind::kMax || kind == ReduceKind::kMin))),
             ErrorKind::kType, what + ": cannot reduce values of dtype " + dtype.ToString());
  KILN_CHECK(!axes.empty(), ErrorKind::kInvalidIR, what + ": no reduce axes");
  KILN_CHECK(!where.defined() || (where.dtype().is_bool() && where.dtype().is_scalar()),
             ErrorKind::kType, what + ": the condition is not a scalar bool");
  std::vector<Expr> args = {std::move(source), where.defined() ? std::move(where) : BoolImm(true)};
  for (size_t a = 0; a < axes.size(); ++a) {
    const IterVar& axis = axes[a];
    KILN_CHECK(
        axis.var.defined() && axis.kind == IterKind::kReduce, ErrorKind::kInvalidIR,
        what + ": axis " + std::to_string(a) + " is not a reduce axis (make it with ReduceAxis)");
    for (size_t b = 0; b < a; ++b) {
      KILN_CHECK(!axes[b].var.same_as(axis.var), ErrorKind::kInvalidIR,
                 what + ": reduce axis " + axis.var.name() + " is listed twice");
    }
    args.push_back(axis.var);
    args.push_back(axis.dom.min);
    args.push_back(axis.dom.extent);
  }
  return Call(dtype, std::string(kReducerPrefix) + OpSuffix(kind), std::move(args));
}

class ReductionFinder : public IRVisitor {
 public:
  bool found = false;
  void VisitExpr_(const CallNode* op) override {
    if (KindOfOp(op->op)) found = true;
    IRVisitor::VisitExpr_(op);
  }
};

}  // namespace

const char* ReduceKindName(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
      return "Sum";
    case ReduceKind::kMax:
      return "Max";
    case ReduceKind::kMin:
      return "Min";
    case ReduceKind::kProd:
      return "Prod";
  }
  return "?";
}

IterVar ReduceAxis(Expr extent, std::string name) {
  KILN_CHECK(extent.defined(), ErrorKind::kInvalidIR, "ReduceAxis " + name + ": undefined extent");
  return ReduceAxis(
      Range{IntImm(extent.dtype().is_int() ? extent.dtype() : DataType::Int(32), 0), extent},
      std::move(name));
}

IterVar ReduceAxis(Range dom, std::string name) {
  KILN_CHECK(dom.min.defined() && dom.extent.defined(), ErrorKind::kInvalidIR,
             "ReduceAxis " + name + ": undefined domain");
  KILN_CHECK(dom.extent.dtype().is_int() && dom.extent.dtype().is_scalar() &&
                 dom.min.dtype() == dom.extent.dtype(),
             ErrorKind::kType,
             "ReduceAxis " + name + ": the domain must be scalar integers of one dtype, got " +
                 dom.min.dtype().ToString() + " and " + dom.extent.dtype().ToString());
  auto extent = AsConstInt(dom.extent);
  KILN_CHECK(!extent || *extent > 0, ErrorKind::kInvalidIR,
             "ReduceAxis " + name + ": the extent must be positive");
  DataType dtype = dom.extent.dtype();
  return IterVar{Var(std::move(name), dtype), std::move(dom), IterKind::kReduce};
}

Expr Sum(Expr source, std::vector<IterVar> axes, Expr where) {
  return MakeReducer(ReduceKind::kSum, std::move(source), std::move(axes), std::move(where));
}
Expr Max(Expr source, std::vector<IterVar> axes, Expr where) {
  return MakeReducer(ReduceKind::kMax, std::move(source), std::move(axes), std::move(where));
}
Expr Min(Expr source, std::vector<IterVar> axes, Expr where) {
  return MakeReducer(ReduceKind::kMin, std::move(source), std::move(axes), std::move(where));
}
Expr Prod(Expr source, std::vector<IterVar> axes, Expr where) {
  return MakeReducer(ReduceKind::kProd, std::move(source), std::move(axes), std::move(where));
}

Expr MinValue(DataType dtype) {
  KILN_CHECK(dtype.is_scalar(), ErrorKind::kType,
             "MinValue: " + dtype.ToString() + " is not scalar");
  if (dtype.is_bool()) return BoolImm(false);
  if (dtype.is_float()) {
    if (dtype.code() == DataType::Code::kBFloat) return FloatImm(dtype, -0x1.fep127);
    if (dtype.bits() == 16) return FloatImm(dtype, -65504.0);
    if (dtype.bits() == 32) return FloatImm(dtype, -static_cast<double>(FLT_MAX));
    if (dtype.bits() == 64) return FloatImm(dtype, -DBL_MAX);
  }
  if (dtype.is_uint()) return IntImm(dtype, 0);
  if (dtype.is_int() && dtype.bits() >= 1 && dtype.bits() <= 64) {
    return IntImm(dtype, dtype.bits() == 64 ? std::numeric_limits<int64_t>::min()
                                            : -(int64_t{1} << (dtype.bits() - 1)));
  }
  throw Error(ErrorKind::kUnsupported, "MinValue: no lowest value for " + dtype.ToString());
}

Expr MaxValue(DataType dtype) {
  KILN_CHECK(dtype.is_scalar(), ErrorKind::kType,
             "MaxValue: " + dtype.ToString() + " is not scalar");
  if (dtype.is_bool()) return BoolImm(true);
  if (dtype.is_float()) {
    if (dtype.code() == DataType::Code::kBFloat) return FloatImm(dtype, 0x1.fep127);
    if (dtype.bits() == 16) return FloatImm(dtype, 65504.0);
    if (dtype.bits() == 32) return FloatImm(dtype, static_cast<double>(FLT_MAX));
    if (dtype.bits() == 64) return FloatImm(dtype, DBL_MAX);
  }
  if (dtype.is_int() && dtype.bits() >= 1 && dtype.bits() <= 64) {
    return IntImm(dtype, dtype.bits() == 64 ? std::numeric_limits<int64_t>::max()
                                            : (int64_t{1} << (dtype.bits() - 1)) - 1);
  }
  if (dtype.is_uint() && dtype.bits() >= 1 && dtype.bits() <= 63) {
    return IntImm(dtype, (int64_t{1} << dtype.bits()) - 1);
  }
  throw Error(ErrorKind::kUnsupported, "MaxValue: no highest value for " + dtype.ToString());
}

Expr ReduceIdentity(ReduceKind kind, DataType dtype) {
  switch (kind) {
    case ReduceKind::kSum:
      return MakeConst(dtype, 0);
    case ReduceKind::kMax:
      return MinValue(dtype);
    case ReduceKind::kMin:
      return MaxValue(dtype);
    case ReduceKind::kProd:
      return MakeConst(dtype, 1);
  }
  throw Error(ErrorKind::kInternal, "ReduceIdentity: unknown reduce kind");
}

Expr ReduceCombine(ReduceKind kind, Expr acc, Expr value) {
  switch (kind) {
    case ReduceKind::kSum:
      return std::move(acc) + std::move(value);
    case ReduceKind::kMax:
      return ir::Max(std::move(acc), std::move(value));
    case ReduceKind::kMin:
      return ir::Min(std::move(acc), std::move(value));
    case ReduceKind::kProd:
      return std::move(acc) * std::move(value);
  }
  throw Error(ErrorKind::kInternal, "ReduceCombine: unknown reduce kind");
}

std::optional<Reduction> AsReduction(const Expr& e) {
  const auto* call = e.as<CallNode>();
  if (call == nullptr) return std::nullopt;
  auto kind = KindOfOp(call->op);
  if (!kind) return std::nullopt;
  KILN_CHECK(call->args.size() >= 5 && (call->args.size() - 2) % 3 == 0, ErrorKind::kInternal,
             "malformed reducer " + call->op);
  Reduction r;
  r.kind = *kind;
  r.source = call->args[0];
  if (!IsConstInt(call->args[1], 1) || !call->args[1].dtype().is_bool()) {
    r.condition = call->args[1];
  }
  for (size_t i = 2; i < call->args.size(); i += 3) {
    r.axes.push_back(IterVar{Var(call->args[i].ptr()), Range{call->args[i + 1], call->args[i + 2]},
                             IterKind::kReduce});
  }
  return r;
}

bool ContainsReduction(const Expr& e) {
  ReductionFinder finder;
  if (e.defined()) finder.VisitExpr(e);
  return finder.found;
}

}  // namespace kiln::ir::compute
