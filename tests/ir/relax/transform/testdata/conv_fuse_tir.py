# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def max_pool2d(A: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32"), var_pool_max: T.handle):
        T.func_attr({"op_pattern": 4, "tir.noalias": T.bool(True)})
        pool_max = T.match_buffer(var_pool_max, (T.int64(1), T.int64(4), T.int64(8) // T.int64(2), T.int64(8) // T.int64(2)))
        # with T.block("root"):
        for i0, i1, i2, i3, rv0, rv1 in T.grid(T.int64(1), T.int64(4), T.int64(8) // T.int64(2), T.int64(8) // T.int64(2), T.int64(2), T.int64(2)):
            with T.block("pool_max"):
                v_i0, v_i1, v_i2, v_i3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [i0, i1, i2, i3, rv0, rv1])
                T.reads(A[v_i0, v_i1, v_i2 * T.int64(2) + v_rv0, v_i3 * T.int64(2) + v_rv1])
                T.writes(pool_max[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    pool_max[v_i0, v_i1, v_i2, v_i3] = T.float32(-3.4028234663852886e+38)
                pool_max[v_i0, v_i1, v_i2, v_i3] = T.max(pool_max[v_i0, v_i1, v_i2, v_i3], A[v_i0, v_i1, v_i2 * T.int64(2) + v_rv0, v_i3 * T.int64(2) + v_rv1])

    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32"), b: R.Tensor((4, 1, 1), dtype="float32")) -> R.Tensor((1, 4, 4, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv2: R.Tensor((1, 4, 8, 8), dtype="float32") = R.call_tir(cls.fused_conv2d_add_relu, (x, w, b), out_sinfo=R.Tensor((1, 4, 8, 8), dtype="float32"))
            gv: R.Tensor((1, 4, 4, 4), dtype="float32") = R.call_tir(cls.max_pool2d, (lv2,), out_sinfo=R.Tensor((1, 4, 4, 4), dtype="float32"))
            R.output(gv)
        return gv

    @T.prim_func
    def fused_conv2d_add_relu(x: T.Buffer((T.int64(1), T.int64(3), T.int64(8), T.int64(8)), "float32"), w: T.Buffer((T.int64(4), T.int64(3), T.int64(3), T.int64(3)), "float32"), b: T.Buffer((T.int64(4), T.int64(1), T.int64(1)), "float32"), compute: T.Buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        conv2d_nchw = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(3), T.int64(8) + T.int64(2), T.int64(8) + T.int64(2)))
        T_add = T.alloc_buffer((T.int64(1), T.int64(4), T.int64(8), T.int64(8)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(3), T.int64(8) + T.int64(2), T.int64(8) + T.int64(2)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(x[v_i0, v_i1, T.max(T.min(v_i2 - T.int64(1), T.int64(7)), T.int64(0)), T.max(T.min(v_i3 - T.int64(1), T.int64(7)), T.int64(0))])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.Select(v_i2 - T.int64(1) >= T.int64(0) and v_i2 - T.int64(1) < T.int64(8) and (v_i3 - T.int64(1) >= T.int64(0) and v_i3 - T.int64(1) < T.int64(8)), x[v_i0, v_i1, T.max(T.min(v_i2 - T.int64(1), T.int64(7)), T.int64(0)), T.max(T.min(v_i3 - T.int64(1), T.int64(7)), T.int64(0))], T.float32(0.0))
        for i0, i1, i2, i3, rc, ry, rx in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8), T.int64(3), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                v_i0, v_i1, v_i2, v_i3, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [i0, i1, i2, i3, rc, ry, rx])
                T.reads(pad_temp[v_i0, v_rc, v_i2 + v_ry, v_i3 + v_rx], w[v_i1, v_rc, v_ry, v_rx])
                T.writes(conv2d_nchw[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    conv2d_nchw[v_i0, v_i1, v_i2, v_i3] = T.float32(0.0)
                conv2d_nchw[v_i0, v_i1, v_i2, v_i3] = conv2d_nchw[v_i0, v_i1, v_i2, v_i3] + pad_temp[v_i0, v_rc, v_i2 + v_ry, v_i3 + v_rx] * w[v_i1, v_rc, v_ry, v_rx]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("T_add"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(conv2d_nchw[v_i0, v_i1, v_i2, v_i3], b[v_i1, T.int64(0), T.int64(0)])
                T.writes(T_add[v_i0, v_i1, v_i2, v_i3])
                T_add[v_i0, v_i1, v_i2, v_i3] = conv2d_nchw[v_i0, v_i1, v_i2, v_i3] + b[v_i1, T.int64(0), T.int64(0)]
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(4), T.int64(8), T.int64(8)):
            with T.block("compute"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(T_add[v_i0, v_i1, v_i2, v_i3])
                T.writes(compute[v_i0, v_i1, v_i2, v_i3])
                compute[v_i0, v_i1, v_i2, v_i3] = T.max(T_add[v_i0, v_i1, v_i2, v_i3], T.float32(0.0))
