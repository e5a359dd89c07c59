// The GNN aggregation pattern recognised at a ScatterElements or ScatterND node, over the
// bindings its Gather and Mul were converted to, and emitted as a CSR SpMM call_tir.
#include "ir/frontend/onnx/convert_gnn_spmm.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ir/frontend/onnx/csr_spmm_kernel.h"
#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

constexpr const char* kAccepted =
    "only reduction=add over a constant edge list after Gather is supported, as GNN SpMM: "
    "ScatterElements(zeros [N, F], dst broadcast to [E, F], Gather(X, src, axis=0) [E, F] "
    "optionally times a constant per-edge weight [E, 1], axis=0, reduction=add) or "
    "ScatterND(zeros [N, F], dst [E, 1], the same updates, reduction=add), with src, dst and "
    "the weights constant";

[[noreturn]] void Refuse(const NodeContext& ctx, const std::string& found) {
  // The importer names the node ("node 3 'agg' (ScatterElements): ...").
  ctx.Unsupported(found + "; " + kAccepted);
}

// The messages: X's rows gathered by constant src, each times its edge's weight.
struct Messages {
  Expr x;
  std::vector<int64_t> src;
  std::vector<double> weight;  // one per edge; empty: 1
};

// updates (input 2) traced back through an optional multiply by a constant to a take of axis 0
// with constant indices; `edges` is E.
Messages TraceMessages(NodeContext& ctx, int64_t edges) {
  Messages m;
  const relax::CallNode* call = BoundCall(ctx, ctx.Input(2));
  if (call != nullptr && call->op == "multiply") {
    Expr gathered;
    const relax::ConstantNode* w = nullptr;
    for (int i = 0; i < 2 && static_cast<size_t>(i) < call->args.size(); ++i) {
      if (const auto* c = call->args[i].as<relax::ConstantNode>()) {
        w = c;
        gathered = call->args[1 - i];
      }
    }
    if (w == nullptr || !gathered.defined()) {
      Refuse(ctx, "updates are a Mul whose weight is not a constant");
    }
    const std::vector<int64_t>& ws = w->data.shape();
    const bool scalar = w->data.numel() == 1 && ws.size() <= 2;
    const bool per_edge = ws.size() == 2 && ws[0] == edges && ws[1] == 1;
    if (!scalar && !per_edge) {
      std::string dims;
      for (int64_t d : ws) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
      Refuse(ctx, "the per-edge weight has shape [" + dims + "], not [" + std::to_string(edges) +
                      ", 1] or a scalar");
    }
    m.weight.resize(static_cast<size_t>(edges));
    for (int64_t e = 0; e < edges; ++e) m.weight[e] = w->data.GetDouble(scalar ? 0 : e);
    call = BoundCall(ctx, gathered);
  }
  if (call == nullptr || call->op != "take") {
    Refuse(ctx, "updates (input 2) are not the rows of a Gather");
  }
  if (call->attrs.GetInt("axis") != 0) Refuse(ctx, "the Gather is not along axis 0");
  const auto* idx = call->args[1].as<relax::ConstantNode>();
  if (idx == nullptr) Refuse(ctx, "the Gather's indices (the edge sources) are not constant");
  if (idx->data.shape().size() != 1 || idx->data.numel() != edges) {
    Refuse(ctx, "the Gather's indices are not a vector of the " + std::to_string(edges) + " edges");
  }
  m.x = call->args[0];
  for (int64_t e = 0; e < edges; ++e) m.src.push_back(idx->data.GetInt(e));
  return m;
}

// Input 0 as a zero float32 tensor [N, F]: a constant, or a `full` of 0 (a ConstantOfShape too
// big to evaluate at import time).
std::vector<int64_t> ZeroData(NodeContext& ctx) {
  if (std::optional<HostTensor> data = ctx.Constant(0)) {
    if (data->shape().size() != 2 || data->dtype() != DataType::Float(32)) {
      Refuse(ctx, "data (input 0) is not a float32 tensor [N, F]");
    }
    for (int64_t i = 0; i < data->numel(); ++i) {
      if (data->GetDouble(i) != 0.0) Refuse(ctx, "data (input 0) is not all zeros");
    }
    return data->shape();
  }
  const relax::CallNode* full = BoundCall(ctx, ctx.Input(0));
  std::vector<int64_t> shape = StaticShape(ctx.Input(0));
  if (full == nullptr || full->op != "full" || shape.size() != 2 ||
      ctx.InputDType(0) != DataType::Float(32)) {
    Refuse(ctx, "data (input 0) is not a constant or ConstantOfShape float32 tensor [N, F]");
  }
  if (full->attrs.GetFloat("fill_value") != 0.0) Refuse(ctx, "data (input 0) is not all zeros");
  return shape;
}

void RequireAdd(NodeContext& ctx) {
  std::string reduction = ctx.String("reduction", "none");
  if (reduction != "add") Refuse(ctx, "reduction is '" + reduction + "'");
}

// The node's result: C = A * X for the edges (dst[e], src[e], weight[e]).
Outputs EmitSpmm(NodeContext& ctx, int64_t rows, int64_t feat, std::vector<int64_t> dst) {
  const int64_t edges = static_cast<int64_t>(dst.size());
  if (StaticShape(ctx.Input(2)) != std::vector<int64_t>{edges, feat}) {
    Refuse(ctx, "updates (input 2) are not of static shape [" + std::to_string(edges) + ", " +
                    std::to_string(feat) + "]");
  }
  Messages m = TraceMessages(ctx, edges);
  std::vector<int64_t> x_shape = StaticShape(m.x);
  const auto* x_info = m.x.struct_info().as<relax::TensorStructInfoNode>();
  if (x_shape.size() != 2 || x_info == nullptr || x_info->dtype != DataType::Float(32)) {
    Refuse(ctx, "the gathered X is not a float32 matrix of static shape");
  }
  if (x_shape[1] != feat) {
    ctx.Invalid("the gathered rows have " + std::to_string(x_shape[1]) + " features and the data " +
                std::to_string(feat));
  }
  const int64_t cols = x_shape[0];
  std::vector<ir::sparse::CooEntry> entries;
  std::vector<bool> has_edge(static_cast<size_t>(rows), false);
  for (int64_t e = 0; e < edges; ++e) {
    int64_t d = dst[e] < 0 ? dst[e] + rows : dst[e];
    if (d < 0 || d >= rows) {
      ctx.Invalid("index " + std::to_string(dst[e]) + " of edge " + std::to_string(e) +
                  " is out of range for " + std::to_string(rows) + " rows");
    }
    int64_t s = m.src[e];
    if (s < 0 || s >= cols) {
      ctx.Invalid("source " + std::to_string(s) + " of edge " + std::to_string(e) +
                  " is out of range for " + std::to_string(cols) + " rows of X");
    }
    entries.push_back({d, s, m.weight.empty() ? 1.0 : m.weight[e]});
    has_edge[d] = true;
  }
  // The kernel writes a row of C at its first nonzero: a row with no edge gets an explicit zero
  // (compiler/sparse's PadEmptyRows).
  for (int64_t r = 0; r < rows; ++r) {
    if (!has_edge[r]) entries.push_back({r, 0, 0.0});
  }
  ir::sparse::CsrMatrix a = ir::sparse::CsrFromEntries(rows, cols, std::move(entries));
  ir::PrimFunc kernel = CsrSpmmKernel(a, feat);
  // Fusion would make another function of it: it stays the kernel its records are keyed by.
  Annotations attrs = kernel->attrs;
  attrs["op_pattern"] = IntImm(DataType::Int(32), 8);
  kernel = MakePrimFunc(kernel->name, kernel->params, kernel->buffer_map, kernel->body, attrs);
  relax::GlobalVar func = ctx.builder().AddFunction("csr_spmm", kernel);

  auto ints = [](const std::vector<int32_t>& v, size_t min_size) {
    HostTensor t(DataType::Int(32), {static_cast<int64_t>(std::max(v.size(), min_size))});
    if (!v.empty()) std::memcpy(t.data(), v.data(), v.size() * sizeof(int32_t));
    return t;
  };
  HostTensor values(DataType::Float(32), {std::max<int64_t>(a.nnz(), 1)});
  if (a.nnz() > 0) std::memcpy(values.data(), a.values.data(), a.values.size() * sizeof(float));
  std::vector<Expr> args = {relax::Constant(ints(a.indptr, 1)), relax::Constant(ints(a.indices, 1)),
                            relax::Constant(values), m.x};
  return {ctx.Emit(
      relax::CallTIR(func, args,
                     {relax::TensorStructInfo({relax::DimConst(rows), relax::DimConst(feat)},
                                              DataType::Float(32))}))};
}

}  // namespace

Outputs ScatterElementsAsSpmm(NodeContext& ctx) {
  RequireAdd(ctx);
  if (ctx.Int("axis", 0) != 0) Refuse(ctx, "axis is not 0");
  std::vector<int64_t> data = ZeroData(ctx);
  const int64_t feat = data[1];
  // A constant [E, F], or dst [E, 1] broadcast to it (an Expand too big to fold at import).
  std::optional<HostTensor> indices = ctx.Constant(1);
  int64_t width = feat;
  if (!indices) {
    const relax::CallNode* expand = BoundCall(ctx, ctx.Input(1));
    const auto* column = expand != nullptr && expand->op == "broadcast_to"
                             ? expand->args[0].as<relax::ConstantNode>()
                             : nullptr;
    if (column != nullptr && StaticShape(ctx.Input(1)).size() == 2 &&
        StaticShape(ctx.Input(1))[1] == feat) {
      indices = column->data;
      width = 1;
    }
  }
  if (!indices || !indices->dtype().is_int() || indices->shape().size() != 2 ||
      indices->shape()[1] != width) {
    Refuse(ctx, "indices (input 1) are not a constant [E, " + std::to_string(feat) +
                    "] or a constant [E, 1] expanded to it");
  }
  const int64_t edges = indices->shape()[0];
  std::vector<int64_t> dst;
  for (int64_t e = 0; e < edges; ++e) {
    int64_t d = indices->GetInt(e * width);
    for (int64_t f = 1; f < width; ++f) {
      if (indices->GetInt(e * width + f) != d) {
        Refuse(ctx, "indices (input 1) row " + std::to_string(e) +
                        " is not one destination for every feature");
      }
    }
    dst.push_back(d);
  }
  return EmitSpmm(ctx, data[0], feat, std::move(dst));
}

Outputs ScatterNDAsSpmm(NodeContext& ctx) {
  RequireAdd(ctx);
  std::vector<int64_t> data = ZeroData(ctx);
  std::optional<HostTensor> indices = ctx.Constant(1);
  if (!indices || !indices->dtype().is_int() || indices->shape().size() != 2 ||
      indices->shape()[1] != 1) {
    Refuse(ctx, "indices (input 1) are not a constant [E, 1]");
  }
  std::vector<int64_t> dst;
  for (int64_t e = 0; e < indices->shape()[0]; ++e) dst.push_back(indices->GetInt(e));
  return EmitSpmm(ctx, data[0], data[1], std::move(dst));
}

}  // namespace kiln::ir::frontend::onnx
