// WinogradConv2d: the weight transform computed on the host, the input and output transforms
// written as TensorIR (TVMScript text, parsed), the batched product as a Relax matmul.
#include "ir/relax/transform/winograd_conv2d.h"

#include <array>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/relax/expr_functor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/text/parser.h"
#include "support/error.h"

namespace kiln::ir::relax::transform {

namespace {

// The transform matrices of F(m, 3): B^T (alpha x alpha), G (alpha x 3), A^T (m x alpha).
struct WinogradMatrices {
  int m = 0;
  int alpha = 0;
  std::vector<std::vector<double>> bt, g, at;
};

WinogradMatrices Matrices(int m) {
  WinogradMatrices w;
  w.m = m;
  w.alpha = m + 2;
  if (m == 2) {
    w.bt = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
    w.g = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    w.at = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    return w;
  }
  w.bt = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
          {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  w.g = {{1.0 / 4, 0, 0},
         {-1.0 / 6, -1.0 / 6, -1.0 / 6},
         {-1.0 / 6, 1.0 / 6, -1.0 / 6},
         {1.0 / 24, 1.0 / 12, 1.0 / 6},
         {1.0 / 24, -1.0 / 12, 1.0 / 6},
         {0, 0, 1}};
  w.at = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  return w;
}

std::string I64(int64_t v) { return "T.int64(" + std::to_string(v) + ")"; }

// c * term, leaving out a factor of 1 and writing -1 as a negation; "" for c = 0.
std::string Scaled(double c, const std::string& term) {
  if (c == 0) return "";
  if (c == 1) return term;
  if (c == -1) return "T.float32(-1.0) * " + term;
  std::ostringstream s;
  s.precision(17);
  s << "T.float32(" << c << ") * " << term;
  return s.str();
}

// sum_i coeffs[i] * terms[i] over the nonzero coefficients, parenthesised.
std::string LinearCombination(const std::vector<double>& coeffs,
                              const std::vector<std::string>& terms) {
  std::string out;
  for (size_t i = 0; i < coeffs.size(); ++i) {
    std::string t = Scaled(coeffs[i], terms[i]);
    if (t.empty()) continue;
    out += (out.empty() ? "" : " + ") + t;
  }
  return out.empty() ? "T.float32(0.0)" : "(" + out + ")";
}

struct ConvShape {
  int64_t n = 0, c = 0, h = 0, w = 0, k = 0;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t tiles_h = 0, tiles_w = 0;
  int64_t tiles() const { return n * tiles_h * tiles_w; }
};

// Tile vp (of N x tiles_h x tiles_w, row-major) as its image and the first row and column
// it covers: one loop over tiles, so that the default schedule parallelises over all of them.
struct TileIndex {
  std::string n, row, col;
};

TileIndex TileIndexOf(const ConvShape& s, int64_t m) {
  int64_t per_image = s.tiles_h * s.tiles_w;
  TileIndex t;
  t.n = s.n == 1 ? I64(0) : "vp // " + I64(per_image);
  std::string th =
      s.n == 1 ? "vp // " + I64(s.tiles_w) : "vp % " + I64(per_image) + " // " + I64(s.tiles_w);
  t.row = "(" + th + ") * " + I64(m);
  t.col = "vp % " + I64(s.tiles_w) + " * " + I64(m);
  return t;
}

// V[xi * alpha + nu, p, c] = (B^T d B)[xi, nu] over the tile p of the zero-padded input. The
// padded input is one stage (channel-last, covering whole tiles); the transform is one block
// per (tile, channel) storing all alpha^2 values, each written as B^T[nu, :] applied to the
// column sums t[xi][s] = B^T[xi, :] d[:, s], spelled the same in every store so that the C
// compiler computes each once (the separable form: 2 alpha^2 (alpha - 1) additions at most
// instead of alpha^4).
std::string InputTransformText(const std::string& name, const ConvShape& s,
                               const WinogradMatrices& w) {
  int64_t alpha = w.alpha, m = w.m;
  int64_t hp = s.tiles_h * m + 2, wp = s.tiles_w * m + 2;
  std::ostringstream o;
  o << "@T.prim_func(s_tir=True)\n"
    << "def " << name << "(x: T.Buffer((" << I64(s.n) << ", " << I64(s.c) << ", " << I64(s.h)
    << ", " << I64(s.w) << "), \"float32\"), V: T.Buffer((" << I64(alpha * alpha) << ", "
    << I64(s.tiles()) << ", " << I64(s.c) << "), \"float32\")):\n"
    << "    T.func_attr({\"tirx.noalias\": True})\n"
    << "    data_pad = T.sblock_alloc_buffer((" << I64(s.n) << ", " << I64(hp) << ", " << I64(wp)
    << ", " << I64(s.c) << "))\n";
  // Channel-last, so that the transform below reads and writes whole vectors of channels.
  std::string row =
      "T.max(T.min(v1 - " + I64(s.pad_top) + ", " + I64(s.h - 1) + "), " + I64(0) + ")";
  std::string col =
      "T.max(T.min(v2 - " + I64(s.pad_left) + ", " + I64(s.w - 1) + "), " + I64(0) + ")";
  std::string load = "x[v0, v3, " + row + ", " + col + "]";
  o << "    for i0, i1, i2, i3 in T.grid(" << I64(s.n) << ", " << I64(hp) << ", " << I64(wp) << ", "
    << I64(s.c) << "):\n"
    << "        with T.sblock(\"data_pad\"):\n"
    << "            v0, v1, v2, v3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])\n"
    << "            T.reads(" << load << ")\n"
    << "            T.writes(data_pad[v0, v1, v2, v3])\n"
    << "            data_pad[v0, v1, v2, v3] = T.Select(v1 >= " << I64(s.pad_top) << " and v1 < "
    << I64(s.pad_top + s.h) << " and (v2 >= " << I64(s.pad_left) << " and v2 < "
    << I64(s.pad_left + s.w) << "), " << load << ", T.float32(0.0))\n";

  TileIndex t = TileIndexOf(s, m);
  o << "    for p, c in T.grid(" << I64(s.tiles()) << ", " << I64(s.c) << "):\n"
    << "        with T.sblock(\"input_transform\"):\n"
    << "            vp, vc = T.axis.remap(\"SS\", [p, c])\n"
    << "            T.reads(data_pad[" << t.n << ", " << t.row << ":" << t.row << " + "
    << I64(alpha) << ", " << t.col << ":" << t.col << " + " << I64(alpha) << ", vc])\n"
    << "            T.writes(V[" << I64(0) << ":" << I64(alpha * alpha) << ", vp, vc])\n";
  auto d = [&](int64_t r, int64_t c) {
    return "data_pad[" + t.n + ", " + t.row + " + " + I64(r) + ", " + t.col + " + " + I64(c) +
           ", vc]";
  };
  for (int64_t xi = 0; xi < alpha; ++xi) {
    // t[s] = sum_r B^T[xi, r] d[r, s]
    std::vector<std::string> sums(alpha);
    for (int64_t c = 0; c < alpha; ++c) {
      std::vector<std::string> terms;
      for (int64_t r = 0; r < alpha; ++r) terms.push_back(d(r, c));
      sums[c] = LinearCombination(w.bt[xi], terms);
    }
    for (int64_t nu = 0; nu < alpha; ++nu) {
      o << "            V[" << I64(xi * alpha + nu)
        << ", vp, vc] = " << LinearCombination(w.bt[nu], sums) << "\n";
    }
  }
  return o.str();
}

// Y[n, k, h, w] from M[e, p, k]: one block per (tile, output channel) storing the m x m
// outputs of A^T M A into a tile-aligned buffer (the same separable spelling as the input
// transform), then a copy that crops the partial tiles at the bottom and right edges; the
// epilogue FuseOps appends reads that copy, and the default schedule inlines into it.
std::string OutputTransformText(const std::string& name, const ConvShape& s,
                                const WinogradMatrices& w) {
  int64_t alpha = w.alpha, m = w.m;
  int64_t hp = s.tiles_h * m, wp = s.tiles_w * m;
  std::ostringstream o;
  o << "@T.prim_func(s_tir=True)\n"
    << "def " << name << "(M: T.Buffer((" << I64(alpha * alpha) << ", " << I64(s.tiles()) << ", "
    << I64(s.k) << "), \"float32\"), Y: T.Buffer((" << I64(s.n) << ", " << I64(s.k) << ", "
    << I64(s.out_h) << ", " << I64(s.out_w) << "), \"float32\")):\n"
    << "    T.func_attr({\"tirx.noalias\": True})\n"
    << "    inverse = T.sblock_alloc_buffer((" << I64(s.n) << ", " << I64(s.k) << ", " << I64(hp)
    << ", " << I64(wp) << "))\n";
  TileIndex t = TileIndexOf(s, m);
  o << "    for p, k in T.grid(" << I64(s.tiles()) << ", " << I64(s.k) << "):\n"
    << "        with T.sblock(\"output_transform\"):\n"
    << "            vp, vk = T.axis.remap(\"SS\", [p, k])\n"
    << "            T.reads(M[" << I64(0) << ":" << I64(alpha * alpha) << ", vp, vk])\n"
    << "            T.writes(inverse[" << t.n << ", vk, " << t.row << ":" << t.row << " + "
    << I64(m) << ", " << t.col << ":" << t.col << " + " << I64(m) << "])\n";
  for (int64_t vh = 0; vh < m; ++vh) {
    // t[b] = sum_a A^T[vh, a] M[a, b]
    std::vector<std::string> sums(alpha);
    for (int64_t b = 0; b < alpha; ++b) {
      std::vector<std::string> terms;
      for (int64_t a = 0; a < alpha; ++a) terms.push_back("M[" + I64(a * alpha + b) + ", vp, vk]");
      sums[b] = LinearCombination(w.at[vh], terms);
    }
    for (int64_t vw = 0; vw < m; ++vw) {
      o << "            inverse[" << t.n << ", vk, " << t.row << " + " << I64(vh) << ", " << t.col
        << " + " << I64(vw) << "] = " << LinearCombination(w.at[vw], sums) << "\n";
    }
  }
  o << "    for i0, i1, i2, i3 in T.grid(" << I64(s.n) << ", " << I64(s.k) << ", " << I64(s.out_h)
    << ", " << I64(s.out_w) << "):\n"
    << "        with T.sblock(\"winograd_output\"):\n"
    << "            v0, v1, v2, v3 = T.axis.remap(\"SSSS\", [i0, i1, i2, i3])\n"
    << "            T.reads(inverse[v0, v1, v2, v3])\n"
    << "            T.writes(Y[v0, v1, v2, v3])\n"
    << "            Y[v0, v1, v2, v3] = inverse[v0, v1, v2, v3]\n";
  return o.str();
}

// U[xi * alpha + nu, c, k] = (G g[k, c] G^T)[xi, nu], in double, stored as float32.
HostTensor WeightTransform(const HostTensor& weight, const WinogradMatrices& w) {
  int64_t k_out = weight.shape()[0], c_in = weight.shape()[1];
  int64_t alpha = w.alpha;
  HostTensor u(DataType::Float(32), {alpha * alpha, c_in, k_out});
  for (int64_t k = 0; k < k_out; ++k) {
    for (int64_t c = 0; c < c_in; ++c) {
      double g[3][3];
      for (int r = 0; r < 3; ++r) {
        for (int q = 0; q < 3; ++q) g[r][q] = weight.GetDouble(((k * c_in + c) * 3 + r) * 3 + q);
      }
      std::vector<std::array<double, 3>> gg(alpha);  // G g
      for (int64_t xi = 0; xi < alpha; ++xi) {
        for (int q = 0; q < 3; ++q) {
          double sum = 0;
          for (int r = 0; r < 3; ++r) sum += w.g[xi][r] * g[r][q];
          gg[xi][q] = sum;
        }
      }
      for (int64_t xi = 0; xi < alpha; ++xi) {
        for (int64_t nu = 0; nu < alpha; ++nu) {
          double sum = 0;
          for (int q = 0; q < 3; ++q) sum += gg[xi][q] * w.g[nu][q];
          u.SetDouble(((xi * alpha + nu) * c_in + c) * k_out + k, sum);
        }
      }
    }
  }
  return u;
}

std::optional<std::vector<int64_t>> StaticShape(const StructInfo& info, DataType dtype) {
  const auto* t = info.as<TensorStructInfoNode>();
  if (t == nullptr || t->dtype != dtype || !t->shape) return std::nullopt;
  std::vector<int64_t> out;
  for (const PrimExpr& d : *t->shape) {
    std::optional<int64_t> v = AsConstInt(d);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

class WinogradRewriter : public ExprMutator {
 public:
  WinogradRewriter(IRModule& module, const WinogradOptions& options)
      : module_(module), options_(options), matrices_(Matrices(options.tile)) {}

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    in_dataflow_ = block.is_dataflow;
    return ExprMutator::VisitBindingBlock(block);
  }

  void VisitBinding(const Binding& binding, std::vector<Binding>& out) override {
    if (!binding.is_match_cast()) {
      if (const auto* c = binding.value.as<ConstantNode>()) constants_[binding.var.get()] = c;
      if (Rewrite(binding, out)) return;
    }
    ExprMutator::VisitBinding(binding, out);
  }

  int rewritten() const { return rewritten_; }

 private:
  Var Emit(std::vector<Binding>& out, const Expr& value, const std::string& name) {
    Var var =
        in_dataflow_ ? DataflowVar(name, value.struct_info()) : Var(name, value.struct_info());
    out.push_back(VarBinding(var, value));
    return var;
  }

  const ConstantNode* AsConstant(const Expr& e) const {
    if (const auto* c = e.as<ConstantNode>()) return c;
    if (const auto* v = e.as<VarNode>()) {
      auto it = constants_.find(v);
      if (it != constants_.end()) return it->second;
    }
    return nullptr;
  }

  // The conv's shape when the rewrite applies to it (and pays, under kAuto).
  std::optional<ConvShape> Eligible(const CallNode& call) const {
    if (call.op != "nn.conv2d" || call.args.size() != 2) return std::nullopt;
    const Attrs& a = call.attrs;
    auto ints = [&](const char* n, std::vector<int64_t> d) { return a.Has(n) ? a.GetInts(n) : d; };
    auto text = [&](const char* n, const char* d) {
      return a.Has(n) ? a.GetString(n) : std::string(d);
    };
    if (ints("strides", {1, 1}) != std::vector<int64_t>{1, 1} ||
        ints("dilation", {1, 1}) != std::vector<int64_t>{1, 1} ||
        (a.Has("groups") && a.GetInt("groups") != 1) || text("data_layout", "NCHW") != "NCHW" ||
        text("kernel_layout", "OIHW") != "OIHW" || text("out_layout", "NCHW") != "NCHW") {
      return std::nullopt;
    }
    // Input and output float32 (checked below) leave out_dtype float32 or unset.
    DataType f32 = DataType::Float(32);
    auto x = StaticShape(call.args[0].struct_info(), f32);
    auto y = StaticShape(call.struct_info, f32);
    const ConstantNode* weight = AsConstant(call.args[1]);
    if (!x || !y || weight == nullptr || x->size() != 4 || y->size() != 4) return std::nullopt;
    const HostTensor& g = weight->data;
    if (g.dtype() != f32 || g.shape().size() != 4 || g.shape()[1] != (*x)[1] || g.shape()[2] != 3 ||
        g.shape()[3] != 3) {
      return std::nullopt;
    }
    std::vector<int64_t> pad = ints("padding", {0, 0, 0, 0});
    if (pad.size() == 1) pad = {pad[0], pad[0], pad[0], pad[0]};
    if (pad.size() == 2) pad = {pad[0], pad[1], pad[0], pad[1]};
    if (pad.size() != 4) return std::nullopt;
    ConvShape s;
    s.n = (*x)[0];
    s.c = (*x)[1];
    s.h = (*x)[2];
    s.w = (*x)[3];
    s.k = g.shape()[0];
    s.pad_top = pad[0];
    s.pad_left = pad[1];
    s.pad_bottom = pad[2];
    s.pad_right = pad[3];
    s.out_h = s.h + s.pad_top + s.pad_bottom - 2;
    s.out_w = s.w + s.pad_left + s.pad_right - 2;
    if (s.out_h <= 0 || s.out_w <= 0 || (*y)[0] != s.n || (*y)[1] != s.k || (*y)[2] != s.out_h ||
        (*y)[3] != s.out_w) {
      return std::nullopt;
    }
    if (options_.mode == WinogradMode::kAuto &&
        (s.c < options_.min_channels || s.k < options_.min_channels ||
         s.out_h * s.out_w < options_.min_pixels)) {
      return std::nullopt;
    }
    s.tiles_h = (s.out_h + options_.tile - 1) / options_.tile;
    s.tiles_w = (s.out_w + options_.tile - 1) / options_.tile;
    return s;
  }

  // The kernel of `text`, added once per distinct text (convolutions of one shape share it).
  GlobalVar Kernel(const std::string& hint,
                   const std::function<std::string(const std::string&)>& text,
                   const std::string& key, OpPattern pattern) {
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    std::string name = module_.UniqueName(hint);
    PrimFunc f = ParsePrimFunc(text(name), "WinogradConv2d " + name);
    GlobalVar gvar = module_.Add(name, WithOpPattern(f, pattern));
    kernels_[key] = gvar;
    return gvar;
  }

  bool Rewrite(const Binding& binding, std::vector<Binding>& out) {
    const auto* call = binding.value.as<CallNode>();
    if (call == nullptr) return false;
    std::optional<ConvShape> shape = Eligible(*call);
    if (!shape) return false;
    const ConvShape& s = *shape;
    Expr data = VisitExpr(call->args[0]);
    const std::string& name = binding.var.name();
    int64_t alpha = matrices_.alpha;
    std::string key = std::to_string(matrices_.m) + ":" + std::to_string(s.n) + "," +
                      std::to_string(s.c) + "," + std::to_string(s.h) + "," + std::to_string(s.w) +
                      "," + std::to_string(s.k) + "," + std::to_string(s.pad_top) + "," +
                      std::to_string(s.pad_left) + "," + std::to_string(s.pad_bottom) + "," +
                      std::to_string(s.pad_right);

    GlobalVar input = Kernel(
        "winograd_input_transform",
        [&](const std::string& n) { return InputTransformText(n, s, matrices_); }, "in" + key,
        OpPattern::kOpaque);
    GlobalVar output = Kernel(
        "winograd_output_transform",
        [&](const std::string& n) { return OutputTransformText(n, s, matrices_); }, "out" + key,
        OpPattern::kOutEWiseFusable);

    const ConstantNode* weight = AsConstant(call->args[1]);
    Expr u = Constant(WeightTransform(weight->data, matrices_));
    DataType f32 = DataType::Float(32);
    Var v = Emit(out,
                 CallTIR(input, {data},
                         {TensorStructInfo(
                             {IntImm(DataType::Int(64), alpha * alpha),
                              IntImm(DataType::Int(64), s.tiles()), IntImm(DataType::Int(64), s.c)},
                             f32)}),
                 name + "_winograd_v");
    Var prod = Emit(out, Call("matmul", {v, u}), name + "_winograd_m");
    Expr y = CallTIR(output, {prod}, {call->struct_info});
    Var var = binding.var;
    out.push_back(VarBinding(var, y));
    ++rewritten_;
    return true;
  }

  IRModule& module_;
  const WinogradOptions& options_;
  WinogradMatrices matrices_;
  bool in_dataflow_ = false;
  int rewritten_ = 0;
  std::unordered_map<const VarNode*, const ConstantNode*> constants_;
  std::unordered_map<std::string, GlobalVar> kernels_;
};

}  // namespace

std::optional<WinogradMode> ParseWinogradMode(std::string_view text) {
  if (text == "off") return WinogradMode::kOff;
  if (text == "auto") return WinogradMode::kAuto;
  if (text == "on") return WinogradMode::kOn;
  return std::nullopt;
}

const char* WinogradModeName(WinogradMode mode) {
  switch (mode) {
    case WinogradMode::kOff:
      return "off";
    case WinogradMode::kAuto:
      return "auto";
    case WinogradMode::kOn:
      return "on";
  }
  return "off";
}

IRModule WinogradConv2d(const IRModule& module, const WinogradOptions& options) {
  KILN_CHECK(options.tile == 2 || options.tile == 4, ErrorKind::kUnsupported,
             "WinogradConv2d: tile m = " + std::to_string(options.tile) +
                 " is not supported (2 or 4 expected)");
  if (options.mode == WinogradMode::kOff) return module;
  IRModule out = module;
  for (const std::string& name : module.names()) {
    const Function* f = module.LookupFunction(name);
    if (f == nullptr) continue;
    WinogradRewriter rewriter(out, options);
    Expr rewritten = rewriter.VisitExpr(*f);
    if (rewriter.rewritten() > 0) out.Update(name, Function(rewritten.ptr()));
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
