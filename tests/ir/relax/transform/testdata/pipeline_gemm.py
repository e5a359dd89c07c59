# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 6), dtype="float32")) -> R.Tensor(("n", 5), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv: R.Tensor((6, 5), dtype="float32") = metadata["relax.expr.Constant"][0]
            gv: R.Tensor((n, 5), dtype="float32") = R.call_tir(cls.fused_matmul_add_relu, (x, lv, R.const([-0.13708836, 0.7848137, 0.7182343, -0.016451472, -0.21083902], "float32")), out_sinfo=R.Tensor((n, 5), dtype="float32"))
            R.output(gv)
        return gv

    @T.prim_func
    def fused_matmul_add_relu(var_x: T.handle, lv: T.Buffer((T.int64(6), T.int64(5)), "float32"), param_0: T.Buffer((T.int64(5),), "float32"), var_compute: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(var_x, (n, T.int64(6)))
        compute = T.match_buffer(var_compute, (n, T.int64(5)))
        # with T.block("root"):
        T_matmul_NN = T.alloc_buffer((n, T.int64(5)))
        T_add = T.alloc_buffer((n, T.int64(5)))
        for i, j, k in T.grid(n, T.int64(5), T.int64(6)):
            with T.block("T_matmul_NN"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(x[v_i, v_k], lv[v_k, v_j])
                T.writes(T_matmul_NN[v_i, v_j])
                with T.init():
                    T_matmul_NN[v_i, v_j] = T.float32(0.0)
                T_matmul_NN[v_i, v_j] = T_matmul_NN[v_i, v_j] + x[v_i, v_k] * lv[v_k, v_j]
        for ax0, ax1 in T.grid(n, T.int64(5)):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_matmul_NN[v_ax0, v_ax1], param_0[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = T_matmul_NN[v_ax0, v_ax1] + param_0[v_ax1]
        for i0, i1 in T.grid(n, T.int64(5)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(T_add[v_i0, v_i1], T.float32(0.0))

metadata = {
    "relax.expr.Constant": [
        R.const([[-0.7730993, -0.72970825, -0.039670993, -0.65394974, 0.24487047], [0.40058702, 0.77743685, -0.32799882, 0.17598642, 0.78027797], [0.22594936, -0.01787509, 0.43476823, 0.63885033, -0.5684227], [-0.8542665, 0.7770588, 0.5977805, 0.8714005, -0.7581314], [-0.5671218, 0.39687228, -0.38789165, 0.33928943, 0.28243658], [0.27244464, 0.4237725, -0.7921892, -0.6177922, 0.7438616]], "float32"),
    ],
}
