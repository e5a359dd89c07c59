// Hand-legalized kernels and the call_tir emitter for tests.
#include "tests/ir/relax/exec/test_kernels.h"

#include <algorithm>
#include <unordered_map>

#include "ir/arith/analyzer.h"
#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/functor.h"
#include "ir/relax/op/registry.h"

namespace kiln::ir::relax::testing {

namespace {

using compute::Compute;
using compute::Const;
using compute::Placeholder;
using compute::ReduceAxis;

constexpr DataType kF32 = DataType::Float(32);

class VarSubstituter : public IRMutator {
 public:
  explicit VarSubstituter(const std::unordered_map<const ir::VarNode*, PrimExpr>& map)
      : map_(map) {}
  using IRMutator::VisitExpr_;
  PrimExpr VisitExpr_(const ir::VarNode* op) override {
    auto it = map_.find(op);
    return it != map_.end() ? it->second : GetRef<PrimExpr>(op);
  }

 private:
  const std::unordered_map<const ir::VarNode*, PrimExpr>& map_;
};

std::vector<PrimExpr> Substitute(const std::vector<PrimExpr>& dims,
                                 const std::unordered_map<const ir::VarNode*, PrimExpr>& map) {
  std::vector<PrimExpr> out;
  for (const PrimExpr& d : dims) out.push_back(VarSubstituter(map).VisitExpr(d));
  return out;
}

// Index vector `i` without its last element.
std::vector<PrimExpr> Init(const std::vector<ir::Var>& i) {
  return std::vector<PrimExpr>(i.begin(), i.end() - 1);
}

std::vector<PrimExpr> AllButLast(const std::vector<PrimExpr>& s) {
  return std::vector<PrimExpr>(s.begin(), s.end() - 1);
}

struct KernelSignature {
  std::vector<Tensor> inputs;
  std::unordered_map<const ir::VarNode*, PrimExpr> to_relax;  // kernel var -> relax var
};

KernelSignature MakeInputs(const std::vector<Expr>& args) {
  KernelSignature sig;
  std::unordered_map<const ir::VarNode*, PrimExpr> to_kernel;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto* t = args[i].struct_info().as<TensorStructInfoNode>();
    KILN_CHECK(t != nullptr && t->shape.has_value(), ErrorKind::kInternal,
               "EmitTIR: argument " + std::to_string(i) + " is not a tensor of known shape");
    for (const PrimVar& v : SymbolicVars(args[i].struct_info())) {
      if (to_kernel.count(v.get()) != 0) continue;
      PrimVar fresh(v.name(), DataType::Int(64));
      to_kernel[v.get()] = fresh;
      sig.to_relax[fresh.get()] = v;
    }
    std::string name(1, static_cast<char>('A' + i));
    sig.inputs.push_back(Placeholder(name, Substitute(*t->shape, to_kernel), t->dtype));
  }
  return sig;
}

StructInfo OutputInfo(const Tensor& out, const KernelSignature& sig) {
  return TensorStructInfo(Substitute(out.shape(), sig.to_relax), out.dtype());
}

Var Emit(BlockBuilder& bb, const Expr& call, bool output) {
  return output ? bb.EmitOutput(call) : bb.Emit(call);
}

// The kernel's shape variables that no parameter has as a whole dim: as LegalizeOps does, they
// become trailing scalar parameters, passed with tir_vars.
std::vector<ir::Var> ScalarShapeParams(const std::vector<Tensor>& params,
                                       const KernelSignature& sig) {
  std::vector<ir::Var> out;
  for (const auto& [kernel_var, relax_var] : sig.to_relax) {
    bool whole_dim = false;
    for (const Tensor& t : params) {
      for (const PrimExpr& d : t.shape()) whole_dim = whole_dim || d.get() == kernel_var;
    }
    if (!whole_dim) out.push_back(GetRef<ir::Var>(kernel_var));
  }
  std::sort(out.begin(), out.end(),
            [](const ir::Var& a, const ir::Var& b) { return a.name() < b.name(); });
  return out;
}

Var EmitKernel(BlockBuilder& bb, const std::string& name, const std::vector<Expr>& args,
               const std::vector<Tensor>& params, const std::vector<StructInfo>& out_sinfo,
               const KernelSignature& sig, bool output) {
  std::vector<ir::Var> scalars = ScalarShapeParams(params, sig);
  GlobalVar gv = bb.AddFunction(name, compute::CreatePrimFunc(params, name, scalars));
  Expr tir_vars;
  if (!scalars.empty()) {
    std::vector<PrimExpr> values;
    for (const ir::Var& v : scalars) values.push_back(sig.to_relax.at(v.get()));
    tir_vars = ShapeExpr(values);
  }
  return Emit(bb, CallTIR(gv, args, out_sinfo, tir_vars), output);
}

}  // namespace

Var EmitTIR(BlockBuilder& bb, const std::string& name, const std::vector<Expr>& args,
            const KernelBody& body, bool output) {
  KernelSignature sig = MakeInputs(args);
  Tensor out = body(sig.inputs);
  std::vector<Tensor> params = sig.inputs;
  params.push_back(out);
  return EmitKernel(bb, name, args, params, {OutputInfo(out, sig)}, sig, output);
}

Var EmitTIRMulti(BlockBuilder& bb, const std::string& name, const std::vector<Expr>& args,
                 const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body,
                 bool output) {
  KernelSignature sig = MakeInputs(args);
  std::vector<Tensor> outs = body(sig.inputs);
  std::vector<Tensor> params = sig.inputs;
  std::vector<StructInfo> out_sinfo;
  for (const Tensor& t : outs) {
    params.push_back(t);
    out_sinfo.push_back(OutputInfo(t, sig));
  }
  return EmitKernel(bb, name, args, params, out_sinfo, sig, output);
}

Tensor MatmulKernel(const std::vector<Tensor>& in) {
  const Tensor &a = in[0], &b = in[1];
  PrimExpr k_extent = a.shape().back();
  std::vector<PrimExpr> shape = AllButLast(a.shape());
  shape.push_back(b.shape()[1]);
  IterVar k = ReduceAxis(k_extent, "k");
  return Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<PrimExpr> ai = Init(i);
        ai.push_back(k.var);
        return compute::Sum(a(ai) * b(k.var, i.back()), {k});
      },
      "matmul");
}

Tensor BatchMatmulKernel(const std::vector<Tensor>& in) {
  const Tensor &a = in[0], &b = in[1];
  IterVar k = ReduceAxis(a.shape()[2], "k");
  return Compute(
      {a.shape()[0], a.shape()[1], b.shape()[2]},
      [&](ir::Var bi, ir::Var i, ir::Var j) {
        return compute::Sum(a(bi, i, k.var) * b(bi, k.var, j), {k});
      },
      "matmul");
}

Tensor AddKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(), [&](const std::vector<ir::Var>& i) { return in[0](i) + in[1](i); }, "T_add");
}

Tensor BiasAddKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(), [&](const std::vector<ir::Var>& i) { return in[0](i) + in[1](i.back()); },
      "T_add");
}

Tensor SubColumnKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(),
      [&](ir::Var i, ir::Var j) { return in[0](i, j) - in[1](i, IntImm(i.dtype(), 0)); },
      "T_subtract");
}

Tensor MulColumnKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(),
      [&](ir::Var i, ir::Var j) { return in[0](i, j) * in[1](i, IntImm(i.dtype(), 0)); },
      "T_multiply");
}

Tensor ReluKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(),
      [&](const std::vector<ir::Var>& i) { return ir::Max(in[0](i), Const(kF32, 0)); }, "compute");
}

Tensor GeluKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(),
      [&](const std::vector<ir::Var>& i) {
        PrimExpr x = in[0](i);
        return Const(kF32, 0.5) * x *
               (Const(kF32, 1.0) + compute::Erf(x * Const(kF32, 0.7071067811865476)));
      },
      "T_gelu");
}

Tensor ExpKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(), [&](const std::vector<ir::Var>& i) { return compute::Exp(in[0](i)); },
      "compute");
}

Tensor SquareKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(), [&](const std::vector<ir::Var>& i) { return in[0](i) * in[0](i); },
      "T_multiply");
}

Tensor RsqrtEpsKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(),
      [&](const std::vector<ir::Var>& i) { return compute::Rsqrt(in[0](i) + Const(kF32, 1e-5)); },
      "compute");
}

KernelBody ScaleKernel(double factor) {
  return [factor](const std::vector<Tensor>& in) {
    return Compute(
        in[0].shape(),
        [&](const std::vector<ir::Var>& i) { return in[0](i) * Const(kF32, factor); },
        "T_multiply");
  };
}

Tensor SumKernel(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  std::vector<PrimExpr> shape = AllButLast(x.shape());
  shape.push_back(IntImm(DataType::Int(64), 1));
  IterVar k = ReduceAxis(x.shape().back(), "k");
  return Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<PrimExpr> xi = Init(i);
        xi.push_back(k.var);
        return compute::Sum(x(xi), {k});
      },
      "T_sum");
}

Tensor MeanKernel(const std::vector<Tensor>& in) {
  Tensor sum = SumKernel(in);
  PrimExpr n = in[0].shape().back();
  return Compute(
      sum.shape(), [&](const std::vector<ir::Var>& i) { return sum(i) / ir::Cast(kF32, n); },
      "T_divide");
}

Tensor SoftmaxKernel(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  std::vector<PrimExpr> outer = AllButLast(x.shape());
  auto with_k = [](const std::vector<ir::Var>& i, const ir::Var& k) {
    std::vector<PrimExpr> out(i.begin(), i.end());
    out.push_back(k);
    return out;
  };
  IterVar k1 = ReduceAxis(x.shape().back(), "k");
  Tensor max_elem = Compute(
      outer,
      [&](const std::vector<ir::Var>& i) { return compute::Max(x(with_k(i, k1.var)), {k1}); },
      "T_softmax_maxelem");
  Tensor e = Compute(
      x.shape(),
      [&](const std::vector<ir::Var>& i) { return compute::Exp(x(i) - max_elem(Init(i))); },
      "T_softmax_exp");
  IterVar k2 = ReduceAxis(x.shape().back(), "k");
  Tensor sum = Compute(
      outer,
      [&](const std::vector<ir::Var>& i) { return compute::Sum(e(with_k(i, k2.var)), {k2}); },
      "T_softmax_expsum");
  return Compute(
      x.shape(), [&](const std::vector<ir::Var>& i) { return e(i) / sum(Init(i)); },
      "T_softmax_norm");
}

KernelBody ReshapeKernel(ShapeFn shape_fn) {
  return [shape_fn](const std::vector<Tensor>& in) {
    const Tensor& x = in[0];
    std::vector<PrimExpr> shape = shape_fn(x.shape());
    arith::Analyzer analyzer;
    for (PrimExpr& d : shape) d = analyzer.Simplify(d);
    return Compute(
        shape,
        [&](const std::vector<ir::Var>& i) {
          PrimExpr flat = i[0];
          for (size_t d = 1; d < i.size(); ++d) flat = flat * shape[d] + i[d];
          std::vector<PrimExpr> xi(x.ndim());
          for (size_t d = x.ndim(); d-- > 0;) {
            xi[d] = ir::FloorMod(flat, x.shape()[d]);
            flat = ir::FloorDiv(flat, x.shape()[d]);
          }
          return x(xi);
        },
        "T_reshape");
  };
}

KernelBody PermuteKernel(std::vector<int> axes) {
  return [axes](const std::vector<Tensor>& in) {
    const Tensor& x = in[0];
    std::vector<PrimExpr> shape;
    for (int a : axes) shape.push_back(x.shape()[a]);
    return Compute(
        shape,
        [&](const std::vector<ir::Var>& i) {
          std::vector<PrimExpr> xi(axes.size());
          for (size_t d = 0; d < axes.size(); ++d) xi[axes[d]] = i[d];
          return x(xi);
        },
        "T_transpose");
  };
}

Tensor Conv2dKernel(const std::vector<Tensor>& in) {
  const Tensor &data = in[0], &weight = in[1];
  const auto& s = data.shape();
  PrimExpr two = IntImm(s[2].dtype(), 2), one = IntImm(s[2].dtype(), 1);
  Tensor pad = Compute(
      {s[0], s[1], s[2] + two, s[3] + two},
      [&](ir::Var n, ir::Var c, ir::Var h, ir::Var w) {
        return compute::PaddedLoad(data, {n, c, h - one, w - one}, Const(kF32, 0));
      },
      "pad_temp");
  IterVar rc = ReduceAxis(s[1], "rc");
  IterVar rh = ReduceAxis(weight.shape()[2], "ry");
  IterVar rw = ReduceAxis(weight.shape()[3], "rx");
  return Compute(
      {s[0], weight.shape()[0], s[2], s[3]},
      [&](ir::Var n, ir::Var f, ir::Var h, ir::Var w) {
        return compute::Sum(
            pad(n, rc.var, h + rh.var, w + rw.var) * weight(f, rc.var, rh.var, rw.var),
            {rc, rh, rw});
      },
      "conv2d_nchw");
}

Tensor ChannelBiasKernel(const std::vector<Tensor>& in) {
  return Compute(
      in[0].shape(),
      [&](ir::Var n, ir::Var c, ir::Var h, ir::Var w) {
        PrimExpr zero = IntImm(c.dtype(), 0);
        return in[0](n, c, h, w) + in[1](c, zero, zero);
      },
      "T_add");
}

Tensor MaxPool2x2Kernel(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  const auto& s = x.shape();
  PrimExpr two = IntImm(s[2].dtype(), 2);
  IterVar rh = ReduceAxis(two, "rv0");
  IterVar rw = ReduceAxis(two, "rv1");
  return Compute(
      {s[0], s[1], ir::FloorDiv(s[2], two), ir::FloorDiv(s[3], two)},
      [&](ir::Var n, ir::Var c, ir::Var h, ir::Var w) {
        return compute::Max(x(n, c, h * two + rh.var, w * two + rw.var), {rh, rw});
      },
      "pool_max");
}

std::vector<Tensor> SplitLastAxisKernel(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  std::vector<PrimExpr> shape = AllButLast(x.shape());
  PrimExpr half = ir::FloorDiv(x.shape().back(), IntImm(x.shape().back().dtype(), 2));
  shape.push_back(half);
  Tensor lo = Compute(
      shape, [&](const std::vector<ir::Var>& i) { return x(i); }, "T_split");
  Tensor hi = Compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        std::vector<PrimExpr> xi = Init(i);
        xi.push_back(i.back() + half);
        return x(xi);
      },
      "T_split_1");
  return {lo, hi};
}

exec::Value RandomTensor(std::vector<int64_t> shape, uint64_t seed) {
  return exec::Value::Tensor(HostTensor::Random(kF32, std::move(shape), seed));
}

double MaxAbsDiff(const exec::Value& a, const exec::Value& b) {
  if (a.is_tuple()) {
    KILN_CHECK(b.is_tuple() && a.fields().size() == b.fields().size(), ErrorKind::kRuntime,
               "MaxAbsDiff: " + a.Describe() + " vs " + b.Describe());
    double m = 0;
    for (size_t i = 0; i < a.fields().size(); ++i) {
      m = std::max(m, MaxAbsDiff(a.fields()[i], b.fields()[i]));
    }
    return m;
  }
  const HostTensor &x = a.tensor(), &y = b.tensor();
  KILN_CHECK(x.shape() == y.shape() && x.dtype() == y.dtype(), ErrorKind::kRuntime,
             "MaxAbsDiff: " + x.Describe() + " vs " + y.Describe());
  TensorComparison c = CompareTensors(x, y, 0, 0);
  return c.max_abs_error;
}

}  // namespace kiln::ir::relax::testing
