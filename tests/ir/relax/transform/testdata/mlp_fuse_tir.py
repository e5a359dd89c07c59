# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), w0: R.Tensor((8, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w_out: R.Tensor((8, 4), dtype="float32"), b_out: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv2: R.Tensor((n, 8), dtype="float32") = R.call_tir(cls.fused_matmul_add_gelu, (x, w0, b0), out_sinfo=R.Tensor((n, 8), dtype="float32"))
            gv: R.Tensor((n, 4), dtype="float32") = R.call_tir(cls.fused_matmul1_add1_relu, (lv2, w_out, b_out), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            R.output(gv)
        return gv

    @T.prim_func
    def fused_matmul_add_gelu(var_x: T.handle, w0: T.Buffer((T.int64(8), T.int64(8)), "float32"), b0: T.Buffer((T.int64(8),), "float32"), var_T_gelu: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(8)))
        T_gelu = T.match_buffer(var_T_gelu, (n, T.int64(8)))
        # with T.block("root"):
        matmul = T.alloc_buffer((n, T.int64(8)))
        T_add = T.alloc_buffer((n, T.int64(8)))
        for i0, i1, k in T.grid(n, T.int64(8), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], w0[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * w0[v_k, v_i1]
        for i0, i1 in T.grid(n, T.int64(8)):
            with T.block("T_add"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(matmul[v_i0, v_i1], b0[v_i1])
                T.writes(T_add[v_i0, v_i1])
                T_add[v_i0, v_i1] = matmul[v_i0, v_i1] + b0[v_i1]
        for i0, i1 in T.grid(n, T.int64(8)):
            with T.block("T_gelu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add[v_i0, v_i1])
                T.writes(T_gelu[v_i0, v_i1])
                T_gelu[v_i0, v_i1] = T.float32(0.5) * T_add[v_i0, v_i1] * (T.float32(1.0) + T.erf(T_add[v_i0, v_i1] * T.float32(0.7071067811865476)))

    @T.prim_func
    def fused_matmul1_add1_relu(var_lv2: T.handle, w_out: T.Buffer((T.int64(8), T.int64(4)), "float32"), b_out: T.Buffer((T.int64(4),), "float32"), var_compute: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        lv2 = T.match_buffer(var_lv2, (n, T.int64(8)))
        compute = T.match_buffer(var_compute, (n, T.int64(4)))
        # with T.block("root"):
        matmul = T.alloc_buffer((n, T.int64(4)))
        T_add = T.alloc_buffer((n, T.int64(4)))
        for i0, i1, k in T.grid(n, T.int64(4), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(lv2[v_i0, v_k], w_out[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + lv2[v_i0, v_k] * w_out[v_k, v_i1]
        for i0, i1 in T.grid(n, T.int64(4)):
            with T.block("T_add"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(matmul[v_i0, v_i1], b_out[v_i1])
                T.writes(T_add[v_i0, v_i1])
                T_add[v_i0, v_i1] = matmul[v_i0, v_i1] + b_out[v_i1]
        for i0, i1 in T.grid(n, T.int64(4)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(T_add[v_i0, v_i1], T.float32(0.0))
