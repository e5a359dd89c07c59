# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def ellmm(a: T.handle, b: T.handle, c: T.handle, var_indices: T.handle, nb: T.int32, mb: T.int32, feat_size: T.int32, col: T.int32, blk: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nb * col * blk * blk,))
    B = T.match_buffer(b, (mb * blk * feat_size,))
    C = T.match_buffer(c, (nb * blk * feat_size,))
    indices = T.match_buffer(var_indices, (nb * col,), "int32")
    # with T.sblock("root"):
    for i, bi, f in T.grid(nb, blk, feat_size):
        with T.sblock("ellmm_init"):
            vi, vbi, vf = T.axis.remap("SSS", [i, bi, f])
            T.reads()
            T.writes(C[vf + feat_size * vbi + blk * feat_size * vi])
            C[(vi * blk + vbi) * feat_size + vf] = T.float32(0.0)
    for i, j, bi, bj, f in T.grid(nb, col, blk, blk, feat_size):
        with T.sblock("ellmm"):
            vi, vj, vbi, vbj, vf = T.axis.remap("SRSRS", [i, j, bi, bj, f])
            T.reads(C[vf + feat_size * vbi + blk * feat_size * vi], A[vbj + blk * vbi + blk * blk * vj + blk * blk * col * vi], indices[vj + col * vi], B[vf + feat_size * vbj + blk * feat_size * indices[vj + col * vi]])
            T.writes(C[vf + feat_size * vbi + blk * feat_size * vi])
            C[(vi * blk + vbi) * feat_size + vf] = C[(vi * blk + vbi) * feat_size + vf] + A[((vi * col + vj) * blk + vbi) * blk + vbj] * B[(indices[vi * col + vj] * blk + vbj) * feat_size + vf]
