// Attention and RotaryEmbedding, the transformer ops of opset 23. Attention (versions 23 to
// 25): scaled dot-product attention over 3-D (heads folded into the
// hidden size) or 4-D (batch, heads, sequence, head size) inputs, with a key/value cache
// (past_key, past_value -> present_key, present_value), grouped-query heads, an attention mask
// (bool: attend where true; float: added), causal and sliding-window masks aligned to the end
// of the cache, per-batch valid key lengths (nonpad_kv_seqlen, known at import time), softcap
// and softmax precision. The structural masks become one constant bias; a row that every key
// is masked out of gives zeros, as ONNX's reference does, not the NaN a softmax of -inf gives.
#include <cmath>
#include <limits>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

int64_t ConstDim(NodeContext& ctx, const PrimExpr& dim, const char* what) {
  auto v = AsConstInt(dim);
  if (!v) ctx.Unsupported(std::string("a symbolic ") + what);
  return *v;
}

std::vector<PrimExpr> Dims(const std::vector<int64_t>& dims) {
  std::vector<PrimExpr> out;
  for (int64_t d : dims) out.push_back(relax::DimConst(d));
  return out;
}

// A 3-D (batch, seq, heads * size) input as (batch, heads, seq, size).
Expr SplitHeads(NodeContext& ctx, const Expr& x, const std::vector<int64_t>& shape, int64_t heads,
                const char* what) {
  if (heads < 1 || shape[2] % heads != 0) {
    ctx.Invalid(std::string(what) + "'s hidden size " + std::to_string(shape[2]) +
                " does not split into " + std::to_string(heads) + " heads");
  }
  Expr y = ReshapeTo(ctx, x, Dims({shape[0], shape[1], heads, shape[2] / heads}));
  return ctx.Call("permute_dims", {y}, relax::Attrs().Set("axes", {0, 2, 1, 3}));
}

std::vector<int64_t> ConstShape(NodeContext& ctx, size_t i, const char* what) {
  std::vector<int64_t> out;
  for (const PrimExpr& d : ctx.RequireShape(i)) out.push_back(ConstDim(ctx, d, what));
  return out;
}

constexpr int64_t kMaxBiasSide = 4096;

// The causal, sliding-window and key-length masks as a (batch or 1, 1, q, kv) bias of 0 and
// -inf; nullopt when none applies.
std::optional<HostTensor> StructuralBias(DataType dtype, int64_t batch, int64_t q_len,
                                         int64_t kv_len, int64_t past_len,
                                         const std::optional<std::vector<int64_t>>& nonpad,
                                         bool causal, int64_t left, int64_t right) {
  if (!causal && left < 0 && right < 0 && !nonpad) return std::nullopt;
  int64_t b_dim = nonpad ? batch : 1;
  // The bias is a constant: a size a hostile model could make huge is refused.
  if (q_len > kMaxBiasSide || kv_len > kMaxBiasSide || b_dim > kMaxBiasSide ||
      b_dim * q_len * kv_len > kMaxBiasSide * kMaxBiasSide) {
    throw Error(ErrorKind::kUnsupported, "a causal, window or padding mask of " +
                                             std::to_string(b_dim) + " x " + std::to_string(q_len) +
                                             " x " + std::to_string(kv_len) + " elements");
  }
  HostTensor bias(dtype, {b_dim, 1, q_len, kv_len});
  double inf = std::numeric_limits<double>::infinity();
  for (int64_t b = 0; b < b_dim; ++b) {
    // The absolute position of query 0: after the cache, or (with nonpad_kv_seqlen) so that
    // the last query sits at the last valid key.
    int64_t offset = nonpad ? (*nonpad)[b] - q_len : past_len;
    for (int64_t i = 0; i < q_len; ++i) {
      for (int64_t j = 0; j < kv_len; ++j) {
        int64_t diff = i + offset - j;
        bool allowed = !causal || diff >= 0;
        if (left >= 0) allowed = allowed && diff <= left;
        if (right >= 0) allowed = allowed && -diff <= right;
        if (nonpad) allowed = allowed && j < (*nonpad)[b];
        bias.SetDouble(((b * q_len) + i) * kv_len + j, allowed ? 0.0 : -inf);
      }
    }
  }
  return bias;
}

Outputs Attention(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  DataType dtype = ctx.InputDType(0);
  int rank = ctx.InputRank(0);
  if (rank != 3 && rank != 4) ctx.Invalid("Q must be 3-D or 4-D");
  if (ctx.InputRank(1) != rank || ctx.InputRank(2) != rank) {
    ctx.Invalid("Q, K and V must have the same rank");
  }
  std::vector<int64_t> qs = ConstShape(ctx, 0, "Q dim"), ks = ConstShape(ctx, 1, "K dim"),
                       vs = ConstShape(ctx, 2, "V dim");
  Expr q = ctx.Input(0), k = ctx.Input(1), v = ctx.Input(2);
  std::optional<int64_t> q_heads = ctx.OptInt("q_num_heads"), kv_heads = ctx.OptInt("kv_num_heads");
  if (rank == 3) {
    if (!q_heads || !kv_heads) ctx.Invalid("3-D inputs need q_num_heads and kv_num_heads");
    q = SplitHeads(ctx, q, qs, *q_heads, "Q");
    k = SplitHeads(ctx, k, ks, *kv_heads, "K");
    v = SplitHeads(ctx, v, vs, *kv_heads, "V");
    qs = {qs[0], *q_heads, qs[1], qs[2] / *q_heads};
    ks = {ks[0], *kv_heads, ks[1], ks[2] / *kv_heads};
    vs = {vs[0], *kv_heads, vs[1], vs[2] / *kv_heads};
  }
  int64_t batch = qs[0], q_len = qs[2];
  if (ks[1] != vs[1] || ks[1] < 1 || qs[1] % ks[1] != 0) {
    ctx.Invalid(std::to_string(qs[1]) + " query heads do not group over " + std::to_string(ks[1]) +
                " key and " + std::to_string(vs[1]) + " value heads");
  }
  // The cache: past keys and values before the new ones.
  if (ctx.HasInput(4) != ctx.HasInput(5)) ctx.Invalid("past_key and past_value go together");
  int64_t past_len = 0;
  if (ctx.HasInput(4)) {
    past_len = ConstShape(ctx, 4, "past_key dim").at(2);
    k = ctx.Call("concat", {relax::Tuple({ctx.Input(4), k})}, relax::Attrs().Set("axis", 2));
    v = ctx.Call("concat", {relax::Tuple({ctx.Input(5), v})}, relax::Attrs().Set("axis", 2));
  }
  Expr present_k = k, present_v = v;
  int64_t kv_len = ks[2] + past_len;
  std::optional<std::vector<int64_t>> nonpad;
  if (ctx.version() >= 24 && ctx.HasInput(6)) {
    if (ctx.HasInput(4)) ctx.Invalid("nonpad_kv_seqlen cannot be combined with a past cache");
    nonpad = ctx.RequireConstInts(6, "nonpad_kv_seqlen");
    if (static_cast<int64_t>(nonpad->size()) != batch) {
      ctx.Invalid("nonpad_kv_seqlen needs one length per batch entry");
    }
  }
  int64_t left = -1, right = -1;
  if (ctx.version() >= 25) {
    left = ctx.Int("left_window_size", -1);
    right = ctx.Int("right_window_size", -1);
    if (left < -1 || right < -1) ctx.Invalid("window sizes must be -1 or non-negative");
  }
  bool causal = ctx.Int("is_causal", 0) != 0;

  // 16-bit inputs are computed in float32 and rounded once at the end, as ONNX's reference
  // effectively does (its float16 matmul accumulates in float32).
  DataType cdt = dtype.bits() < 32 ? DataType::Float(32) : dtype;
  if (cdt != dtype) {
    for (Expr* e : {&q, &k, &v}) *e = ctx.Call("astype", {*e}, relax::Attrs().Set("dtype", cdt));
  }
  // The bias: the mask input (bool as 0 / -inf, padded with -inf up to the keys) plus the
  // structural masks.
  double inf = std::numeric_limits<double>::infinity();
  Expr bias;
  if (ctx.HasInput(3)) {
    std::vector<int64_t> ms = ConstShape(ctx, 3, "attn_mask dim");
    if (ms.empty()) ctx.Invalid("attn_mask must have at least one dim");
    Expr m = ctx.Input(3);
    if (ctx.InputDType(3).is_bool()) {
      m = ctx.Call("where", {m, ctx.Scalar(0, cdt), ctx.Scalar(-inf, cdt)});
    } else if (ctx.InputDType(3) != cdt) {
      m = ctx.Call("astype", {m}, relax::Attrs().Set("dtype", cdt));
    }
    if (ms.back() < kv_len) {
      std::vector<int64_t> pad_shape = ms;
      pad_shape.back() = kv_len - ms.back();
      HostTensor pad(cdt, pad_shape);
      for (int64_t i = 0; i < pad.numel(); ++i) pad.SetDouble(i, -inf);
      m = ctx.Call("concat", {relax::Tuple({m, relax::Constant(pad)})},
                   relax::Attrs().Set("axis", static_cast<int64_t>(ms.size()) - 1));
    } else if (ms.back() > kv_len) {
      ctx.Invalid("attn_mask has " + std::to_string(ms.back()) + " keys, more than the " +
                  std::to_string(kv_len) + " there are");
    }
    bias = m;
  }
  if (auto s = StructuralBias(cdt, batch, q_len, kv_len, past_len, nonpad, causal, left, right)) {
    bias = bias.defined() ? ctx.Call("add", {bias, relax::Constant(*s)}) : relax::Constant(*s);
  }

  // Grouped-query heads: each key and value head serves a run of query heads.
  int64_t reps = qs[1] / ks[1];
  auto repeat = [&](const Expr& x, int64_t size) {
    if (reps == 1) return x;
    Expr e = ctx.Call("expand_dims", {x}, relax::Attrs().Set("axis", {2}));
    e = ctx.Call("broadcast_to", {e, relax::ShapeExpr(Dims({batch, ks[1], reps, kv_len, size}))});
    return ReshapeTo(ctx, e, Dims({batch, qs[1], kv_len, size}));
  };
  k = repeat(k, ks[3]);
  v = repeat(v, vs[3]);

  double scale = 1.0 / std::sqrt(static_cast<double>(qs[3]));
  if (ctx.HasAttr("scale")) scale = ctx.Float("scale", scale);
  Expr root = ctx.Scalar(std::sqrt(scale), cdt);
  Expr kt = ctx.Call("permute_dims", {ctx.Call("multiply", {k, root})},
                     relax::Attrs().Set("axes", {0, 1, 3, 2}));
  Expr qk = ctx.Call("matmul", {ctx.Call("multiply", {q, root}), kt});
  double softcap = ctx.Float("softcap", 0.0);
  if (softcap > 0) {
    qk = ctx.Call("multiply",
                  {ctx.Call("tanh", {ctx.Call("divide", {qk, ctx.Scalar(softcap, cdt)})}),
                   ctx.Scalar(softcap, cdt)});
  }
  Expr logits = bias.defined() ? ctx.Call("add", {qk, bias}) : qk;
  DataType softmax_dtype = cdt;
  if (auto precision = ctx.OptInt("softmax_precision")) {
    std::optional<DataType> d = ToKilnDType(static_cast<int32_t>(*precision));
    if (!d || !d->is_float()) {
      ctx.Invalid("softmax_precision " + OnnxDTypeName(static_cast<int32_t>(*precision)) +
                  " is not a floating-point dtype");
    }
    softmax_dtype = *d;
  }
  Expr x = logits;
  if (softmax_dtype != cdt) {
    x = ctx.Call("astype", {x}, relax::Attrs().Set("dtype", softmax_dtype));
  }
  Expr p = ctx.Call("nn.softmax", {x}, relax::Attrs().Set("axis", -1));
  if (bias.defined()) {
    // Rows whose every key is masked out (all -inf; a max over them need not be -inf).
    Expr neg_inf = ctx.Call(
        "logical_and", {ctx.Call("isinf", {bias}), ctx.Call("less", {bias, ctx.Scalar(0, cdt)})});
    Expr as_int = ctx.Call("astype", {neg_inf}, relax::Attrs().Set("dtype", DataType::Int(8)));
    Expr masked = ctx.Call("astype", {ctx.Call("min", {as_int}, AxisAttrs({-1}, true))},
                           relax::Attrs().Set("dtype", DataType::Bool()));
    p = ctx.Call("where", {masked, ctx.Scalar(0, softmax_dtype), p});
  }
  if (softmax_dtype != cdt) p = ctx.Call("astype", {p}, relax::Attrs().Set("dtype", cdt));
  Expr y = ctx.Call("matmul", {p, v});
  if (rank == 3) {
    y = ctx.Call("permute_dims", {y}, relax::Attrs().Set("axes", {0, 2, 1, 3}));
    y = ReshapeTo(ctx, y, Dims({batch, q_len, qs[1] * vs[3]}));
  }
  auto back = [&](const Expr& e) {
    return cdt == dtype ? e : ctx.Call("astype", {e}, relax::Attrs().Set("dtype", dtype));
  };
  Outputs outs = {back(y), present_k, present_v};
  int64_t mode = ctx.Int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) ctx.Invalid("qk_matmul_output_mode " + std::to_string(mode));
  if (ctx.node().outputs.size() > 3 && !ctx.node().outputs[3].empty()) {
    outs.push_back(back(mode <= 1 ? qk : mode == 2 ? logits : p));
  }
  return outs;
}

// The last-axis slice [begin, end) with `step`.
Expr LastAxis(NodeContext& ctx, const Expr& x, int64_t begin, int64_t end, int64_t step = 1) {
  relax::Attrs attrs;
  attrs.Set("axes", {3}).Set("begin", {begin}).Set("end", {end}).Set("strides", {step});
  return ctx.Call("strided_slice", {x}, attrs);
}

// RotaryEmbedding (version 23): the first rotary_embedding_dim features of each head rotated by
// the position's angles, as halves or (interleaved) as even/odd pairs.
Outputs RotaryEmbedding(NodeContext& ctx) {
  RequireFloatInput(ctx, 0);
  int rank = ctx.InputRank(0);
  if (rank != 3 && rank != 4) ctx.Invalid("the input must be 3-D or 4-D");
  std::vector<int64_t> s = ConstShape(ctx, 0, "input dim");
  bool interleaved = ctx.Int("interleaved", 0) != 0;
  int64_t heads = ctx.Int("num_heads", 0);
  Expr x = ctx.Input(0);
  std::vector<int64_t> bshd;  // (batch, seq, heads, size)
  if (rank == 4) {
    x = ctx.Call("permute_dims", {x}, relax::Attrs().Set("axes", {0, 2, 1, 3}));
    bshd = {s[0], s[2], s[1], s[3]};
  } else {
    if (heads < 1 || s[2] % heads != 0) ctx.Invalid("num_heads must divide the hidden size");
    bshd = {s[0], s[1], heads, s[2] / heads};
    x = ReshapeTo(ctx, x, Dims(bshd));
  }
  int64_t size = bshd[3];
  int64_t rot = ctx.Int("rotary_embedding_dim", 0);
  if (rot == 0) rot = size;
  if (rot < 2 || rot > size || rot % 2 != 0) {
    ctx.Invalid("rotary_embedding_dim " + std::to_string(rot) + " for heads of " +
                std::to_string(size));
  }
  Expr cos = ctx.Input(1), sin = ctx.Input(2);
  if (ctx.HasInput(3)) {
    cos = ctx.Call("take", {cos, ctx.Input(3)}, relax::Attrs().Set("axis", 0));
    sin = ctx.Call("take", {sin, ctx.Input(3)}, relax::Attrs().Set("axis", 0));
  }
  cos = ctx.Call("expand_dims", {cos}, relax::Attrs().Set("axis", {2}));
  sin = ctx.Call("expand_dims", {sin}, relax::Attrs().Set("axis", {2}));
  int64_t half = rot / 2;
  Expr x1 = interleaved ? LastAxis(ctx, x, 0, rot, 2) : LastAxis(ctx, x, 0, half);
  Expr x2 = interleaved ? LastAxis(ctx, x, 1, rot, 2) : LastAxis(ctx, x, half, rot);
  Expr real =
      ctx.Call("subtract", {ctx.Call("multiply", {cos, x1}), ctx.Call("multiply", {sin, x2})});
  Expr imag = ctx.Call("add", {ctx.Call("multiply", {sin, x1}), ctx.Call("multiply", {cos, x2})});
  Expr rotated;
  if (interleaved) {
    relax::Attrs last = relax::Attrs().Set("axis", {4});
    Expr pairs = ctx.Call("concat",
                          {relax::Tuple({ctx.Call("expand_dims", {real}, last),
                                         ctx.Call("expand_dims", {imag}, last)})},
                          relax::Attrs().Set("axis", 4));
    rotated = ReshapeTo(ctx, pairs, Dims({bshd[0], bshd[1], bshd[2], rot}));
  } else {
    rotated = ctx.Call("concat", {relax::Tuple({real, imag})}, relax::Attrs().Set("axis", 3));
  }
  Expr y = rot == size ? rotated
                       : ctx.Call("concat", {relax::Tuple({rotated, LastAxis(ctx, x, rot, size)})},
                                  relax::Attrs().Set("axis", 3));
  if (rank == 4) return {ctx.Call("permute_dims", {y}, relax::Attrs().Set("axes", {0, 2, 1, 3}))};
  return {ReshapeTo(ctx, y, Dims(s))};
}

}  // namespace

void RegisterAttentionConverters(ConverterTable& t) {
  t.Add("Attention", 23, Attention, 25);
  t.Add("RotaryEmbedding", 23, RotaryEmbedding, 23);
}

}  // namespace kiln::ir::frontend::onnx
