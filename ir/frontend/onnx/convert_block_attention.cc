// The masked-attention pattern recognised at its final MatMul, over the bindings its Softmax,
// mask, scale and score MatMul were converted to, and emitted as the three block-sparse
// attention kernels when the mask is block-structured.
#include "ir/frontend/onnx/convert_block_attention.h"

#include <spdlog/fmt/fmt.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/frontend/onnx/sparse_attention_mode.h"
#include "ir/sparse/attention_kernel_text.h"
#include "ir/sparse/csr_matrix.h"
#include "ir/text/parser.h"
#include "support/logging.h"

namespace kiln::ir::frontend::onnx {

namespace {

using ir::sparse::AttentionStage;
using relax::Expr;

// A mask element at or below this (or -inf) is a masked position: exporters write -inf, -1e4,
// -1e9 or the float minimum there.
constexpr double kMaskedAtMost = -1e4;
// The block sizes tried, largest first.
constexpr int64_t kBlockSizes[] = {64, 32, 16, 8};

thread_local SparseAttentionMode current_mode = SparseAttentionMode::kAuto;

DataType DTypeOf(const Expr& e) {
  const auto* t = e.struct_info().as<relax::TensorStructInfoNode>();
  return t == nullptr ? DataType() : t->dtype;
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

// `e` as a multiply by a scalar constant, or a divide by one: the other operand (of `e`'s
// shape) and the factor.
struct Scaled {
  Expr x;
  double factor = 1;
};
std::optional<Scaled> ScalarScale(NodeContext& ctx, const Expr& e) {
  const relax::CallNode* c = BoundCall(ctx, e);
  if (c == nullptr || (c->op != "multiply" && c->op != "divide") || c->args.size() != 2) {
    return std::nullopt;
  }
  for (int i = 0; i < 2; ++i) {
    if (c->op == "divide" && i == 0) continue;  // c / x is no scale
    const auto* k = c->args[i].as<relax::ConstantNode>();
    if (k == nullptr || k->data.numel() != 1 || !k->data.dtype().is_float()) continue;
    const Expr& other = c->args[1 - i];
    if (StaticShape(other) != StaticShape(e) || StaticShape(e).empty()) continue;
    double v = k->data.GetDouble(0);
    if (c->op == "divide") {
      if (v == 0) return std::nullopt;
      v = 1 / v;
    }
    return Scaled{other, v};
  }
  return std::nullopt;
}

bool Masked(double v) { return v <= kMaskedAtMost; }  // -inf included

// The [L, L] pattern (1 attended) of a mask constant of shape [L, L] with leading 1s, or why not.
std::string MaskShapeProblem(const HostTensor& t, int64_t seq_len) {
  const std::vector<int64_t>& s = t.shape();
  bool ok = s.size() >= 2 && s[s.size() - 1] == seq_len && s[s.size() - 2] == seq_len;
  for (size_t i = 0; ok && i + 2 < s.size(); ++i) ok = s[i] == 1;
  if (ok) return "";
  return "the mask constant has shape " + ShapeText(s) + ", not [" + std::to_string(seq_len) +
         ", " + std::to_string(seq_len) + "] shared by every head";
}

// An additive mask: 0 attended, a large negative masked.
std::string AdditivePattern(const HostTensor& m, std::vector<char>& attended) {
  attended.assign(static_cast<size_t>(m.numel()), 0);
  for (int64_t i = 0; i < m.numel(); ++i) {
    const double v = m.GetDouble(i);
    if (v == 0) {
      attended[i] = 1;
    } else if (!Masked(v)) {
      return "mask element " + std::to_string(i) + " is " + std::to_string(v) +
             ", neither 0 (attended) nor a large negative (masked, <= -1e4)";
    }
  }
  return "";
}

// The block layout of `attended` (L x L) for the largest block size that fits, or why none does.
struct BlockLayout {
  ir::sparse::CsrMatrix layout;
  int64_t block = 0;
};
std::string FindBlockLayout(const std::vector<char>& attended, int64_t seq_len, BlockLayout& out) {
  std::string why = "the sequence length " + std::to_string(seq_len) +
                    " is not a multiple of 8, the smallest block size";
  for (int64_t b : kBlockSizes) {
    if (seq_len % b != 0) continue;
    const int64_t n = seq_len / b;
    ir::sparse::CsrMatrix layout;
    layout.rows = layout.cols = n;
    layout.indptr.push_back(0);
    std::string mixed;
    for (int64_t bi = 0; bi < n && mixed.empty(); ++bi) {
      for (int64_t bj = 0; bj < n && mixed.empty(); ++bj) {
        const char first = attended[(bi * b) * seq_len + bj * b];
        for (int64_t r = 0; r < b && mixed.empty(); ++r) {
          for (int64_t c = 0; c < b; ++c) {
            if (attended[(bi * b + r) * seq_len + bj * b + c] != first) {
              mixed = "block (" + std::to_string(bi) + ", " + std::to_string(bj) + ") of " +
                      std::to_string(b) + " x " + std::to_string(b) + " tokens is partly attended";
              break;
            }
          }
        }
        if (mixed.empty() && first) layout.indices.push_back(static_cast<int32_t>(bj));
      }
      if (mixed.empty() && static_cast<int64_t>(layout.indices.size()) == layout.indptr.back()) {
        // Whole blocks, so the tokens of this block row attend to no key at any block size.
        return "block row " + std::to_string(bi) + " (tokens " + std::to_string(bi * b) + " to " +
               std::to_string(bi * b + b - 1) + ") attends to no key";
      }
      layout.indptr.push_back(static_cast<int32_t>(layout.indices.size()));
    }
    if (!mixed.empty()) {
      why = "the mask is not block-structured: " + mixed;
      continue;
    }
    layout.values.assign(layout.indices.size(), 1.0f);
    out.layout = std::move(layout);
    out.block = b;
    return "";
  }
  return why;
}

// What the pattern found before the final MatMul.
struct Found {
  Expr q, kt, v;
  int64_t heads = 0, seq_len = 0, head_dim = 0;
  double scale = 1;
  std::vector<char> attended;  // L x L
};

// The masked attention ending at `ctx`'s MatMul, or why it is none; `softmax` is input 0's.
std::string Trace(NodeContext& ctx, const relax::CallNode* softmax, Found& f) {
  const std::vector<int64_t> p_shape = StaticShape(ctx.Input(0));
  const std::vector<int64_t> v_shape = StaticShape(ctx.Input(1));
  const int rank = static_cast<int>(p_shape.size());
  if (rank != 3 && rank != 4) {
    return "the attention weights have shape " + ShapeText(p_shape) +
           ", not [H, L, L] or [1, H, L, L]";
  }
  const int64_t axis = softmax->attrs.GetInt("axis");
  if (axis != rank - 1 && axis != -1) return "the Softmax is not over the last axis";
  if (DTypeOf(ctx.Input(0)) != DataType::Float(32) ||
      DTypeOf(ctx.Input(1)) != DataType::Float(32)) {
    return "the attention is not float32";
  }
  if (rank == 4 && p_shape[0] != 1) return "a batch of " + std::to_string(p_shape[0]);
  f.heads = p_shape[rank - 3];
  f.seq_len = p_shape[rank - 1];
  if (p_shape[rank - 2] != f.seq_len) {
    return "the queries (" + std::to_string(p_shape[rank - 2]) + ") and keys (" +
           std::to_string(f.seq_len) + ") differ in number";
  }
  if (v_shape.size() != p_shape.size() || v_shape[rank - 3] != f.heads ||
      v_shape[rank - 2] != f.seq_len || (rank == 4 && v_shape[0] != 1)) {
    return "V has shape " + ShapeText(v_shape) + ", not [.., " + std::to_string(f.heads) + ", " +
           std::to_string(f.seq_len) + ", D]";
  }
  f.head_dim = v_shape[rank - 1];
  f.v = ctx.Input(1);

  // A scale after the mask (positive, so the masked positions stay masked).
  Expr x = softmax->args[0];
  if (std::optional<Scaled> s = ScalarScale(ctx, x)) {
    if (!(s->factor > 0)) return "the masked scores are scaled by a factor that is not positive";
    f.scale *= s->factor;
    x = s->x;
  }
  // The mask.
  const relax::CallNode* masking = BoundCall(ctx, x);
  Expr scores;
  if (masking != nullptr && masking->op == "add" && masking->args.size() == 2) {
    const relax::ConstantNode* m = nullptr;
    for (int i = 0; i < 2 && m == nullptr; ++i) {
      if ((m = masking->args[i].as<relax::ConstantNode>()) != nullptr)
        scores = masking->args[1 - i];
    }
    if (m == nullptr) return "the Softmax's input is an Add without a constant mask";
    if (std::string p = MaskShapeProblem(m->data, f.seq_len); !p.empty()) return p;
    if (std::string p = AdditivePattern(m->data, f.attended); !p.empty()) return p;
  } else if (masking != nullptr && masking->op == "where" && masking->args.size() == 3) {
    const auto* cond = masking->args[0].as<relax::ConstantNode>();
    if (cond == nullptr || cond->data.dtype() != DataType::Bool()) {
      return "the Softmax's input is a Where whose condition is not a constant bool mask";
    }
    if (std::string p = MaskShapeProblem(cond->data, f.seq_len); !p.empty()) return p;
    // Where(C, scores, fill): attended where C; Where(C, fill, scores): attended where not C.
    bool attended_where = true;
    const relax::ConstantNode* fill = masking->args[2].as<relax::ConstantNode>();
    scores = masking->args[1];
    if (fill == nullptr) {
      fill = masking->args[1].as<relax::ConstantNode>();
      scores = masking->args[2];
      attended_where = false;
    }
    if (fill == nullptr || fill->data.numel() != 1 || !Masked(fill->data.GetDouble(0))) {
      return "the Where's other value is not a large negative scalar (masked, <= -1e4)";
    }
    f.attended.assign(static_cast<size_t>(cond->data.numel()), 0);
    for (int64_t i = 0; i < cond->data.numel(); ++i) {
      f.attended[i] = (cond->data.GetInt(i) != 0) == attended_where;
    }
  } else {
    return "the Softmax's input is no Add or Where of a constant mask";
  }
  // A scale before the mask, then the scores.
  if (std::optional<Scaled> s = ScalarScale(ctx, scores)) {
    f.scale *= s->factor;
    scores = s->x;
  }
  const relax::CallNode* mm = BoundCall(ctx, scores);
  if (mm == nullptr || mm->op != "matmul" || mm->args.size() != 2 || mm->attrs.Has("out_dtype")) {
    return "the masked scores are no MatMul of Q and K^T";
  }
  f.q = mm->args[0];
  f.kt = mm->args[1];
  if (std::optional<Scaled> s = ScalarScale(ctx, f.q)) {
    f.scale *= s->factor;
    f.q = s->x;
  }
  std::vector<int64_t> q_shape = StaticShape(f.q), kt_shape = StaticShape(f.kt);
  std::vector<int64_t> want_q = v_shape, want_kt = v_shape;
  want_kt[rank - 2] = f.head_dim;
  want_kt[rank - 1] = f.seq_len;
  if (q_shape != want_q || kt_shape != want_kt) {
    return "Q " + ShapeText(q_shape) + " and K^T " + ShapeText(kt_shape) + " are not " +
           ShapeText(want_q) + " and " + ShapeText(want_kt) + " (V's head size)";
  }
  if (!std::isfinite(f.scale) || static_cast<float>(f.scale) == 0) return "the scale is not finite";
  return "";
}

// K [.., H, L, D] from K^T: the operand of a Transpose of the last two axes, else transposed.
Expr KeysOf(NodeContext& ctx, const Expr& kt, int rank) {
  std::vector<int64_t> swap;
  for (int i = 0; i < rank; ++i) swap.push_back(i);
  std::swap(swap[rank - 1], swap[rank - 2]);
  const relax::CallNode* t = BoundCall(ctx, kt);
  if (t != nullptr && t->op == "permute_dims") {
    std::optional<std::vector<int64_t>> axes = t->attrs.GetOptionalInts("axes");
    if (axes && *axes == swap) return t->args[0];
  }
  return ctx.Call("permute_dims", {kt}, relax::Attrs().Set("axes", swap));
}

ir::PrimFunc Kernel(const ir::sparse::AttentionKernelShape& shape) {
  ir::PrimFunc k =
      ir::ParsePrimFunc(ir::sparse::AttentionKernelText(shape), "<block-sparse attention kernel>");
  // Fusion would make another function of it: it stays the kernel its records are keyed by.
  Annotations attrs = k->attrs;
  attrs["op_pattern"] = IntImm(DataType::Int(32), 8);
  return MakePrimFunc(k->name, k->params, k->buffer_map, k->body, attrs);
}

HostTensor Int32s(const std::vector<int32_t>& v) {
  HostTensor t(DataType::Int(32), {static_cast<int64_t>(std::max<size_t>(v.size(), 1))});
  if (!v.empty()) std::memcpy(t.data(), v.data(), v.size() * sizeof(int32_t));
  return t;
}

}  // namespace

std::optional<SparseAttentionMode> ParseSparseAttentionMode(std::string_view text) {
  if (text == "auto") return SparseAttentionMode::kAuto;
  if (text == "always") return SparseAttentionMode::kAlways;
  if (text == "never") return SparseAttentionMode::kNever;
  return std::nullopt;
}

std::string SparseAttentionModeName(SparseAttentionMode mode) {
  switch (mode) {
    case SparseAttentionMode::kAlways:
      return "always";
    case SparseAttentionMode::kNever:
      return "never";
    case SparseAttentionMode::kAuto:
      break;
  }
  return "auto";
}

SparseAttentionMode CurrentSparseAttentionMode() { return current_mode; }

ScopedSparseAttentionMode::ScopedSparseAttentionMode(SparseAttentionMode mode)
    : previous_(current_mode) {
  current_mode = mode;
}

ScopedSparseAttentionMode::~ScopedSparseAttentionMode() { current_mode = previous_; }

std::optional<Outputs> MatMulAsBlockAttention(NodeContext& ctx) {
  if (ctx.num_inputs() != 2 || !ctx.HasInput(0) || !ctx.HasInput(1)) return std::nullopt;
  const relax::CallNode* softmax = BoundCall(ctx, ctx.Input(0));
  if (softmax == nullptr || softmax->op != "nn.softmax") return std::nullopt;
  const std::string node = "ONNX node '" + ctx.node().name + "' (MatMul)";
  const SparseAttentionMode mode = CurrentSparseAttentionMode();
  if (mode == SparseAttentionMode::kNever) {
    KILN_LOG_INFO("{}: attention kept dense (--sparse-attention never)", node);
    return std::nullopt;
  }
  Found f;
  std::string why = Trace(ctx, softmax, f);
  BlockLayout mask;
  if (why.empty()) why = FindBlockLayout(f.attended, f.seq_len, mask);
  if (why.empty() && mode == SparseAttentionMode::kAuto) {
    const double blocks = static_cast<double>(mask.layout.rows) * mask.layout.cols;
    const double density = static_cast<double>(mask.layout.nnz()) / blocks;
    if (density > kSparseAttentionMaxDensity) {
      why = fmt::format(
          "the mask's blocks of {} are {:.1f}% attended ({} of {}), above the {:.0f}% where the "
          "block-sparse kernels beat the dense ones (--sparse-attention always converts it)",
          mask.block, 100 * density, mask.layout.nnz(), static_cast<int64_t>(blocks),
          100 * kSparseAttentionMaxDensity);
    }
  }
  if (!why.empty()) {
    KILN_LOG_INFO("{}: the masked attention stays dense: {}", node, why);
    return std::nullopt;
  }
  const int rank = static_cast<int>(StaticShape(f.v).size());
  ir::sparse::AttentionKernelShape shape;
  shape.heads = f.heads;
  shape.head_dim = f.head_dim;
  shape.block = mask.block;
  shape.block_rows = mask.layout.rows;
  shape.blocks = mask.layout.nnz();
  shape.structure_hash = ir::sparse::AttentionStructureHash(mask.layout, mask.block);
  shape.scale = static_cast<float>(f.scale);
  std::vector<ir::PrimFunc> kernels;
  try {
    for (AttentionStage stage : ir::sparse::kAttentionStages) {
      shape.stage = stage;
      kernels.push_back(Kernel(shape));
    }
  } catch (const Error& e) {
    KILN_LOG_INFO("{}: the masked attention stays dense: {}", node, e.what());
    return std::nullopt;
  }
  KILN_LOG_INFO(
      "{}: masked attention as block-sparse attention: {} heads, {} tokens, head size "
      "{}, blocks of {} ({} of {}), scale {}",
      node, f.heads, f.seq_len, f.head_dim, mask.block, mask.layout.nnz(),
      mask.layout.rows * mask.layout.rows, shape.scale);

  const int64_t rows = f.heads * f.seq_len, blocks = std::max<int64_t>(mask.layout.nnz(), 1);
  const std::vector<PrimExpr> flat = {relax::DimConst(rows), relax::DimConst(f.head_dim)};
  Expr q = ReshapeTo(ctx, f.q, flat);
  Expr k = ReshapeTo(ctx, KeysOf(ctx, f.kt, rank), flat);
  Expr v = ReshapeTo(ctx, f.v, flat);
  Expr indptr = relax::Constant(Int32s(mask.layout.indptr));
  Expr indices = relax::Constant(Int32s(mask.layout.indices));
  relax::StructInfo scores_info =
      relax::TensorStructInfo({relax::DimConst(f.heads), relax::DimConst(blocks),
                               relax::DimConst(mask.block), relax::DimConst(mask.block)},
                              DataType::Float(32));
  auto call = [&](size_t i, std::vector<Expr> args, relax::StructInfo out) {
    relax::GlobalVar func = ctx.builder().AddFunction(kernels[i]->name, kernels[i]);
    return ctx.Emit(relax::CallTIR(func, std::move(args), {std::move(out)}));
  };
  Expr s = call(0, {indptr, indices, q, k}, scores_info);
  Expr p = call(1, {indptr, s}, scores_info);
  Expr o = call(2, {indptr, indices, p, v}, relax::TensorStructInfo(flat, DataType::Float(32)));
  std::vector<PrimExpr> out_dims;
  for (int64_t d : StaticShape(f.v)) out_dims.push_back(relax::DimConst(d));
  return Outputs{ReshapeTo(ctx, o, out_dims)};
}

}  // namespace kiln::ir::frontend::onnx
