# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def matmul(var_A: T.handle, B: T.Buffer((T.int64(8), T.int64(8)), "float32"), var_matmul: T.handle):
        T.func_attr({"op_pattern": 4, "tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(8)))
        matmul_1 = T.match_buffer(var_matmul, (n, T.int64(8)))
        # with T.block("root"):
        for i0, i1, k in T.grid(n, T.int64(8), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(matmul_1[v_i0, v_i1])
                with T.init():
                    matmul_1[v_i0, v_i1] = T.float32(0.0)
                matmul_1[v_i0, v_i1] = matmul_1[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]

    @T.prim_func
    def add(var_A: T.handle, B: T.Buffer((T.int64(8),), "float32"), var_T_add: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(8)))
        T_add = T.match_buffer(var_T_add, (n, T.int64(8)))
        # with T.block("root"):
        for i0, i1 in T.grid(n, T.int64(8)):
            with T.block("T_add"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1], B[v_i1])
                T.writes(T_add[v_i0, v_i1])
                T_add[v_i0, v_i1] = A[v_i0, v_i1] + B[v_i1]

    @T.prim_func
    def gelu(var_A: T.handle, var_T_gelu: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(8)))
        T_gelu = T.match_buffer(var_T_gelu, (n, T.int64(8)))
        # with T.block("root"):
        for i0, i1 in T.grid(n, T.int64(8)):
            with T.block("T_gelu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1])
                T.writes(T_gelu[v_i0, v_i1])
                T_gelu[v_i0, v_i1] = T.float32(0.5) * A[v_i0, v_i1] * (T.float32(1.0) + T.erf(A[v_i0, v_i1] * T.float32(0.7071067811865476)))

    @T.prim_func
    def matmul1(var_A: T.handle, B: T.Buffer((T.int64(8), T.int64(4)), "float32"), var_matmul: T.handle):
        T.func_attr({"global_symbol": "matmul", "op_pattern": 4, "tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(8)))
        matmul = T.match_buffer(var_matmul, (n, T.int64(4)))
        # with T.block("root"):
        for i0, i1, k in T.grid(n, T.int64(4), T.int64(8)):
            with T.block("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(A[v_i0, v_k], B[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + A[v_i0, v_k] * B[v_k, v_i1]

    @T.prim_func
    def add1(var_A: T.handle, B: T.Buffer((T.int64(4),), "float32"), var_T_add: T.handle):
        T.func_attr({"global_symbol": "add", "op_pattern": 0, "tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(4)))
        T_add = T.match_buffer(var_T_add, (n, T.int64(4)))
        # with T.block("root"):
        for i0, i1 in T.grid(n, T.int64(4)):
            with T.block("T_add"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1], B[v_i1])
                T.writes(T_add[v_i0, v_i1])
                T_add[v_i0, v_i1] = A[v_i0, v_i1] + B[v_i1]

    @T.prim_func
    def relu(var_A: T.handle, var_compute: T.handle):
        T.func_attr({"op_pattern": 0, "tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(4)))
        compute = T.match_buffer(var_compute, (n, T.int64(4)))
        # with T.block("root"):
        for i0, i1 in T.grid(n, T.int64(4)):
            with T.block("compute"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(A[v_i0, v_i1])
                T.writes(compute[v_i0, v_i1])
                compute[v_i0, v_i1] = T.max(A[v_i0, v_i1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32"), w0: R.Tensor((8, 8), dtype="float32"), b0: R.Tensor((8,), dtype="float32"), w_out: R.Tensor((8, 4), dtype="float32"), b_out: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv: R.Tensor((n, 8), dtype="float32") = R.call_tir(cls.matmul, (x, w0), out_sinfo=R.Tensor((n, 8), dtype="float32"))
            lv1: R.Tensor((n, 8), dtype="float32") = R.call_tir(cls.add, (lv, b0), out_sinfo=R.Tensor((n, 8), dtype="float32"))
            lv2: R.Tensor((n, 8), dtype="float32") = R.call_tir(cls.gelu, (lv1,), out_sinfo=R.Tensor((n, 8), dtype="float32"))
            lv3: R.Tensor((n, 4), dtype="float32") = R.call_tir(cls.matmul1, (lv2, w_out), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            lv4: R.Tensor((n, 4), dtype="float32") = R.call_tir(cls.add1, (lv3, b_out), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            gv: R.Tensor((n, 4), dtype="float32") = R.call_tir(cls.relu, (lv4,), out_sinfo=R.Tensor((n, 4), dtype="float32"))
            R.output(gv)
        return gv
