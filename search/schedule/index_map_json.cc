// IndexMap <-> TVM's JSON object graph of a tirx.IndexMap, through ir/tvm_json.
#include "search/schedule/index_map_json.h"

#include <unordered_map>
#include <utility>

#include "ir/arith/const_fold.h"
#include "ir/tvm_json/graph.h"
#include "ir/tvm_json/writer.h"

namespace kiln::search {

using namespace ir;
using tvm_json::Graph;
using tvm_json::GraphFormat;
using tvm_json::GraphWriter;
using tvm_json::WriterField;

namespace {

// TVM's type keys of the binary nodes an index map uses, and Kiln's node kinds.
struct BinaryKind {
  const char* tvm;
  NodeKind kiln;
  Expr (*make)(Expr, Expr);
};
const BinaryKind kBinaryKinds[] = {
    {"prim.Add", NodeKind::kAdd, [](Expr a, Expr b) { return Add(std::move(a), std::move(b)); }},
    {"prim.Sub", NodeKind::kSub, [](Expr a, Expr b) { return Sub(std::move(a), std::move(b)); }},
    {"prim.Mul", NodeKind::kMul, [](Expr a, Expr b) { return Mul(std::move(a), std::move(b)); }},
    {"prim.FloorDiv", NodeKind::kFloorDiv,
     [](Expr a, Expr b) { return FloorDiv(std::move(a), std::move(b)); }},
    {"prim.FloorMod", NodeKind::kFloorMod,
     [](Expr a, Expr b) { return FloorMod(std::move(a), std::move(b)); }},
    {"prim.Min", NodeKind::kMin, [](Expr a, Expr b) { return Min(std::move(a), std::move(b)); }},
    {"prim.Max", NodeKind::kMax, [](Expr a, Expr b) { return Max(std::move(a), std::move(b)); }},
};

constexpr const char* kTvmVersion = "0.27.0.post1";

class Reader {
 public:
  explicit Reader(const Graph& graph) : graph_(graph) {}

  DataType Dtype(int64_t node) {
    const std::string& text = graph_.Str(graph_.Ref(node, "ty"), "dtype");
    KILN_CHECK(text == "int32" || text == "int64", ErrorKind::kParse,
               graph_.Where(node) + ": index map dtype " + text + " is not int32 or int64");
    return text == "int32" ? DataType::Int(32) : DataType::Int(64);
  }

  Var VarAt(int64_t node) {
    auto it = vars_.find(node);
    if (it != vars_.end()) return it->second;
    KILN_CHECK(graph_.node(node).type_key == "ir.Var", ErrorKind::kParse,
               graph_.Where(node) + ": expected an ir.Var");
    Var var(graph_.StringValue(graph_.Ref(node, "name")), Dtype(node));
    vars_.emplace(node, var);
    return var;
  }

  Expr ExprAt(int64_t node, int depth = 0) {
    KILN_CHECK(depth < 64, ErrorKind::kParse, graph_.Where(node) + ": expression nested too deep");
    const std::string& type = graph_.node(node).type_key;
    if (type == "ir.Var") {
      KILN_CHECK(vars_.count(node), ErrorKind::kParse,
                 graph_.Where(node) + ": a variable that is not one of the map's indices");
      return vars_.at(node);
    }
    if (type == "ir.IntImm") return IntImm(Dtype(node), graph_.BoxedInt(node, "value"));
    for (const BinaryKind& kind : kBinaryKinds) {
      if (type == kind.tvm) {
        return kind.make(ExprAt(graph_.Ref(node, "a"), depth + 1),
                         ExprAt(graph_.Ref(node, "b"), depth + 1));
      }
    }
    throw Error(ErrorKind::kParse, graph_.Where(node) + ": " + type +
                                       " is not supported in an index map (variables, integer "
                                       "constants, + - * // % min max)");
  }

 private:
  const Graph& graph_;
  std::unordered_map<int64_t, Var> vars_;
};

class Writer {
 public:
  int64_t Type(DataType dtype) {
    int64_t& node = types_[dtype.bits()];
    if (node == 0) {
      node = writer_.AddObject("ir.PrimType", {WriterField::Ref("span", null_),
                                               WriterField::String("dtype", dtype.ToString())});
    }
    return node;
  }

  int64_t AddVar(const Var& var) {
    auto it = vars_.find(var.get());
    if (it != vars_.end()) return it->second;
    int64_t type = Type(var.dtype());
    int64_t name = writer_.AddString(var.name());
    int64_t node =
        writer_.AddObject("ir.Var", {WriterField::Ref("span", null_), WriterField::Ref("ty", type),
                                     WriterField::Ref("name", name)});
    vars_.emplace(var.get(), node);
    return node;
  }

  int64_t AddExpr(const Expr& e) {
    if (e.kind() == NodeKind::kVar) return AddVar(Var(e.ptr()));
    if (const auto* imm = e.as<IntImmNode>()) {
      int64_t type = Type(e.dtype());
      // TVM writes one "int" node per value, just before its first use.
      auto [it, added] = ints_.emplace(imm->value, 0);
      if (added) it->second = writer_.AddInt(imm->value);
      return writer_.AddObject("ir.IntImm",
                               {WriterField::Ref("span", null_), WriterField::Ref("ty", type),
                                WriterField::Ref("value", it->second)});
    }
    for (const BinaryKind& kind : kBinaryKinds) {
      if (e.kind() != kind.kiln) continue;
      Expr lhs, rhs;
      ir::arith::GetBinaryOperands(e, &lhs, &rhs);
      int64_t a = AddExpr(lhs);
      int64_t b = AddExpr(rhs);
      int64_t type = Type(e.dtype());
      return writer_.AddObject(kind.tvm,
                               {WriterField::Ref("span", null_), WriterField::Ref("ty", type),
                                WriterField::Ref("a", a), WriterField::Ref("b", b)});
    }
    throw Error(
        ErrorKind::kUnsupported,
        std::string("index map: ") + NodeKindName(e.kind()) +
            " has no TVM JSON form here (variables, integer constants, + - * // % min max)");
  }

  std::string Write(const IndexMap& map) {
    null_ = writer_.AddNull();
    std::vector<int64_t> params, results;
    for (const Var& p : map.params) params.push_back(AddVar(p));
    int64_t initial = writer_.AddArray(params);
    for (const Expr& e : map.results) results.push_back(AddExpr(e));
    int64_t final_indices = writer_.AddArray(results);
    int64_t root =
        writer_.AddObject("tirx.IndexMap", {WriterField::Ref("initial_indices", initial),
                                            WriterField::Ref("final_indices", final_indices),
                                            WriterField::Ref("inverse_index_map", null_)});
    return writer_.Write(root, GraphFormat::kFfi, kTvmVersion, 2);
  }

 private:
  GraphWriter writer_;
  int64_t null_ = 0;
  std::unordered_map<int, int64_t> types_;
  std::unordered_map<int64_t, int64_t> ints_;
  std::unordered_map<const ir::VarNode*, int64_t> vars_;
};

}  // namespace

IndexMap IndexMapFromTvmJson(std::string_view json_text) {
  Graph graph = Graph::Parse(json_text, "TransformLayout index map");
  int64_t root = graph.root();
  KILN_CHECK(
      graph.node(root).type_key == "tirx.IndexMap" || graph.node(root).type_key == "tir.IndexMap",
      ErrorKind::kParse, graph.Where(root) + ": expected a tirx.IndexMap");
  Reader reader(graph);
  IndexMap map;
  for (int64_t v : graph.Elements(graph.Ref(root, "initial_indices"))) {
    map.params.push_back(reader.VarAt(v));
  }
  for (int64_t e : graph.Elements(graph.Ref(root, "final_indices"))) {
    map.results.push_back(reader.ExprAt(e));
  }
  return map;
}

std::string IndexMapToTvmJson(const IndexMap& map) { return Writer().Write(map); }

}  // namespace kiln::search
