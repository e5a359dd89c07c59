# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def bsrmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, indices: T.handle, nb: T.int32, mb: T.int32, nnzb: T.int32, blk: T.int32, feat_size: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(nb)
    J = T.sparse_variable(I, (mb, nnzb), (indptr, indices))
    J_detach = T.dense_fixed(mb)
    BI = T.dense_fixed(blk)
    BJ = T.dense_fixed(blk)
    F = T.dense_fixed(feat_size)
    A = T.match_sparse_buffer(a, [I, J, BI, BJ], "float32")
    B = T.match_sparse_buffer(b, [J_detach, BJ, F], "float32")
    C = T.match_sparse_buffer(c, [I, BI, F], "float32")
    # with T.sblock("root"):
    for i, bi, f in T.grid(nb, blk, feat_size):
        with T.sblock("bsrmm_init"):
            vi, vbi, vf = T.axis.remap("SSS", [i, bi, f])
            T.reads()
            T.writes(C[vi, vbi, vf])
            C[vi, vbi, vf] = T.float32(0.0)
    for i, bi, bj, f in T.grid(nb, blk, blk, feat_size):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("bsrmm"):
                vi, vbi, vbj, vf = T.axis.remap("SSRS", [i, bi, bj, f])
                vj = T.axis.reduce(mb, j)
                T.reads(C[vi, vbi, vf], A[vi, vj, vbi, vbj], indptr[vi], indices[vj + indptr[vi]], B[indices[vj + indptr[vi]], vbj, vf])
                T.writes(C[vi, vbi, vf])
                C[vi, vbi, vf] = C[vi, vbi, vf] + A[vi, vj, vbi, vbj] * B[indices[indptr[vi] + vj], vbj, vf]
