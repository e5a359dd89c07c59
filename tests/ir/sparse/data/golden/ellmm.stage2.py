# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def ellmm(a: T.handle, b: T.handle, c: T.handle, indices: T.handle, nb: T.int32, mb: T.int32, feat_size: T.int32, col: T.int32, blk: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(nb)
    J = T.sparse_fixed(I, (mb, col), indices)
    J_detach = T.dense_fixed(mb)
    F = T.dense_fixed(feat_size)
    BI = T.dense_fixed(blk)
    BJ = T.dense_fixed(blk)
    A = T.match_sparse_buffer(a, [I, J, BI, BJ], "float32")
    B = T.match_sparse_buffer(b, [J_detach, BJ, F], "float32")
    C = T.match_sparse_buffer(c, [I, BI, F], "float32")
    # with T.sblock("root"):
    for i, bi, f in T.grid(nb, blk, feat_size):
        with T.sblock("ellmm_init"):
            vi, vbi, vf = T.axis.remap("SSS", [i, bi, f])
            T.reads()
            T.writes(C[vi, vbi, vf])
            C[vi, vbi, vf] = T.float32(0.0)
    for i, j, bi, bj, f in T.grid(nb, col, blk, blk, feat_size):
        with T.sblock("ellmm"):
            vi, vj, vbi, vbj, vf = T.axis.remap("SRSRS", [i, j, bi, bj, f])
            T.reads(C[vi, vbi, vf], A[vi, vj, vbi, vbj], indices[vj + col * vi], B[indices[vj + col * vi], vbj, vf])
            T.writes(C[vi, vbi, vf])
            C[vi, vbi, vf] = C[vi, vbi, vf] + A[vi, vj, vbi, vbj] * B[indices[vi * col + vj], vbj, vf]
