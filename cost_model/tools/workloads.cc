// TVMScript text of the dataset workloads.
#include "cost_model/tools/workloads.h"

#include <fmt/format.h>

namespace kiln::cost_model::tools {

std::string MatmulScript(int n) {
  return fmt::format(R"(# from tvm.script import tir as T
@T.prim_func
def matmul(A: T.Buffer(({0}, {0}), "float32"), B: T.Buffer(({0}, {0}), "float32"), C: T.Buffer(({0}, {0}), "float32")):
    T.func_attr({{"global_symbol": "matmul", "tir.noalias": True}})
    for i, j, k in T.grid({0}, {0}, {0}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)",
                     n);
}

std::string Conv2dScript(int c, int s) {
  return fmt::format(R"(# from tvm.script import tir as T
@T.prim_func
def conv2d(I: T.Buffer((1, {0}, {2}, {2}), "float32"), W: T.Buffer(({0}, {0}, 3, 3), "float32"), O: T.Buffer((1, {0}, {1}, {1}), "float32")):
    T.func_attr({{"global_symbol": "conv2d", "tir.noalias": True}})
    for n, f, y, x, rc, ry, rx in T.grid(1, {0}, {1}, {1}, {0}, 3, 3):
        with T.block("conv"):
            vn, vf, vy, vx, vrc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
            T.reads(I[vn, vrc, vy + vry, vx + vrx], W[vf, vrc, vry, vrx])
            T.writes(O[vn, vf, vy, vx])
            with T.init():
                O[vn, vf, vy, vx] = T.float32(0)
            O[vn, vf, vy, vx] = O[vn, vf, vy, vx] + I[vn, vrc, vy + vry, vx + vrx] * W[vf, vrc, vry, vrx]
)",
                     c, s, s + 2);
}

}  // namespace kiln::cost_model::tools
