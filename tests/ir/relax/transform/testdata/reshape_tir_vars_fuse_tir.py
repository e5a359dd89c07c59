# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(["n"]), x: R.Tensor(("n * 4",), dtype="float32")) -> R.Tensor(("n * 4",), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            gv: R.Tensor((n * 4,), dtype="float32") = R.call_tir(cls.fused_reshape_exp_reshape1, (x,), out_sinfo=R.Tensor((n * 4,), dtype="float32"), tir_vars=R.shape([n]))
            R.output(gv)
        return gv

    @T.prim_func
    def fused_reshape_exp_reshape1(var_x: T.handle, var_T_reshape_1: T.handle, n: T.int64):
        T.func_attr({"tir.noalias": T.bool(True)})
        x = T.match_buffer(var_x, (n * T.int64(4),))
        T_reshape_1 = T.match_buffer(var_T_reshape_1, (n * T.int64(4),))
        # with T.block("root"):
        T_reshape = T.alloc_buffer((n, T.int64(4)))
        compute = T.alloc_buffer((n, T.int64(4)))
        for i0, i1 in T.grid(n, T.int64(4)):
            with T.block("T_reshape"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(x[(v_i0 * T.int64(4) + v_i1) % (n * T.int64(4))])
                T.writes(T_reshape[v_i0, v_i1])
                T_reshape[v_i0, v_i1] = x[(v_i0 * T.int64(4) + v_i1) % (n * T.int64(4))]
        for i0, i1 in T.grid(n, T.int64(4)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_reshape[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.exp(T_reshape[v_i0, v_i1])
        for i0 in range(n * T.int64(4)):
            with T.block("T_reshape_1"):
                v_i0 = T.axis.spatial(n * T.int64(4), i0)
                T.reads(compute[v_i0 // T.int64(4) % n, v_i0 % T.int64(4)])
                T.writes(T_reshape_1[v_i0])
                T_reshape_1[v_i0] = compute[v_i0 // T.int64(4) % n, v_i0 % T.int64(4)]
