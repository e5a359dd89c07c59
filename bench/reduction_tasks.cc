// The softmax and layer_norm TensorIR texts, their sizes filled into one template each.
#include "bench/reduction_tasks.h"

namespace kiln::bench {
namespace {

// `text` with every "{name}" replaced by its value.
std::string Fill(std::string text, const std::string& name, int64_t value) {
  const std::string key = "{" + name + "}";
  const std::string with = std::to_string(value);
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + with.size())) {
    text.replace(at, key.size(), with);
  }
  return text;
}

const char kSoftmax[] = R"(# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def softmax(A: T.Buffer((T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})), "float32"), T_softmax_norm: T.Buffer((T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})), "float32")):
    T.func_attr({"tirx.noalias": True})
    T_softmax_maxelem = T.sblock_alloc_buffer((T.int64(1), T.int64({heads}), T.int64({rows})))
    T_softmax_exp = T.sblock_alloc_buffer((T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})))
    T_softmax_expsum = T.sblock_alloc_buffer((T.int64(1), T.int64({heads}), T.int64({rows})))
    for i0, i1, i2, k0 in T.grid(T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_softmax_maxelem"):
            v_i0, v_i1, v_i2, v_k0 = T.axis.remap("SSSR", [i0, i1, i2, k0])
            T.reads(A[v_i0, v_i1, v_i2, v_k0])
            T.writes(T_softmax_maxelem[v_i0, v_i1, v_i2])
            with T.init():
                T_softmax_maxelem[v_i0, v_i1, v_i2] = T.float32(-3.4028234663852886e+38)
            T_softmax_maxelem[v_i0, v_i1, v_i2] = T.max(T_softmax_maxelem[v_i0, v_i1, v_i2], A[v_i0, v_i1, v_i2, v_k0])
    for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_softmax_exp"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(A[v_i0, v_i1, v_i2, v_i3], T_softmax_maxelem[v_i0, v_i1, v_i2])
            T.writes(T_softmax_exp[v_i0, v_i1, v_i2, v_i3])
            T_softmax_exp[v_i0, v_i1, v_i2, v_i3] = T.exp(A[v_i0, v_i1, v_i2, v_i3] - T_softmax_maxelem[v_i0, v_i1, v_i2])
    for i0, i1, i2, k0 in T.grid(T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_softmax_expsum"):
            v_i0, v_i1, v_i2, v_k0 = T.axis.remap("SSSR", [i0, i1, i2, k0])
            T.reads(T_softmax_exp[v_i0, v_i1, v_i2, v_k0])
            T.writes(T_softmax_expsum[v_i0, v_i1, v_i2])
            with T.init():
                T_softmax_expsum[v_i0, v_i1, v_i2] = T.float32(0.0)
            T_softmax_expsum[v_i0, v_i1, v_i2] = T_softmax_expsum[v_i0, v_i1, v_i2] + T_softmax_exp[v_i0, v_i1, v_i2, v_k0]
    for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64({heads}), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_softmax_norm"):
            v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(T_softmax_exp[v_i0, v_i1, v_i2, v_i3], T_softmax_expsum[v_i0, v_i1, v_i2])
            T.writes(T_softmax_norm[v_i0, v_i1, v_i2, v_i3])
            T_softmax_norm[v_i0, v_i1, v_i2, v_i3] = T_softmax_exp[v_i0, v_i1, v_i2, v_i3] / T_softmax_expsum[v_i0, v_i1, v_i2]
)";

const char kLayerNorm[] = R"(# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def layer_norm(A: T.Buffer((T.int64(1), T.int64({rows}), T.int64({cols})), "float32"), B: T.Buffer((T.int64({cols}),), "float32"), C: T.Buffer((T.int64({cols}),), "float32"), T_layer_norm: T.Buffer((T.int64(1), T.int64({rows}), T.int64({cols})), "float32")):
    T.func_attr({"tirx.noalias": True})
    T_layer_norm_sum = T.sblock_alloc_buffer((T.int64(1), T.int64({rows})))
    T_layer_norm_var = T.sblock_alloc_buffer((T.int64(1), T.int64({rows})))
    for ax0, ax1, k0 in T.grid(T.int64(1), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_layer_norm_sum"):
            v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
            T.reads(A[v_ax0, v_ax1, v_k0])
            T.writes(T_layer_norm_sum[v_ax0, v_ax1])
            with T.init():
                T_layer_norm_sum[v_ax0, v_ax1] = T.float32(0.0)
            T_layer_norm_sum[v_ax0, v_ax1] = T_layer_norm_sum[v_ax0, v_ax1] + A[v_ax0, v_ax1, v_k0]
    for ax0, ax1, k0 in T.grid(T.int64(1), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_layer_norm_var"):
            v_ax0, v_ax1, v_k0 = T.axis.remap("SSR", [ax0, ax1, k0])
            T.reads(A[v_ax0, v_ax1, v_k0], T_layer_norm_sum[v_ax0, v_ax1])
            T.writes(T_layer_norm_var[v_ax0, v_ax1])
            with T.init():
                T_layer_norm_var[v_ax0, v_ax1] = T.float32(0.0)
            T_layer_norm_var[v_ax0, v_ax1] = T_layer_norm_var[v_ax0, v_ax1] + (A[v_ax0, v_ax1, v_k0] - T_layer_norm_sum[v_ax0, v_ax1] / T.float32({cols}.0)) * (A[v_ax0, v_ax1, v_k0] - T_layer_norm_sum[v_ax0, v_ax1] / T.float32({cols}.0))
    for ax0, ax1, ax2 in T.grid(T.int64(1), T.int64({rows}), T.int64({cols})):
        with T.sblock("T_layer_norm"):
            v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
            T.reads(A[v_ax0, v_ax1, v_ax2], T_layer_norm_sum[v_ax0, v_ax1], T_layer_norm_var[v_ax0, v_ax1], B[v_ax2], C[v_ax2])
            T.writes(T_layer_norm[v_ax0, v_ax1, v_ax2])
            T_layer_norm[v_ax0, v_ax1, v_ax2] = (A[v_ax0, v_ax1, v_ax2] - T_layer_norm_sum[v_ax0, v_ax1] / T.float32({cols}.0)) * T.rsqrt(T_layer_norm_var[v_ax0, v_ax1] / T.float32({cols}.0) + T.float32(1e-12)) * B[v_ax2] + C[v_ax2]
)";

}  // namespace

std::string SoftmaxTensorIr(int64_t heads, int64_t rows, int64_t cols) {
  return Fill(Fill(Fill(kSoftmax, "heads", heads), "rows", rows), "cols", cols);
}

std::string LayerNormTensorIr(int64_t rows, int64_t cols) {
  return Fill(Fill(kLayerNorm, "rows", rows), "cols", cols);
}

}  // namespace kiln::bench
