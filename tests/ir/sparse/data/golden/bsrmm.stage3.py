# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def bsrmm(a: T.handle, b: T.handle, c: T.handle, var_indptr: T.handle, var_indices: T.handle, nb: T.int32, mb: T.int32, nnzb: T.int32, blk: T.int32, feat_size: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnzb * blk * blk,))
    B = T.match_buffer(b, (mb * blk * feat_size,))
    C = T.match_buffer(c, (nb * blk * feat_size,))
    indptr = T.match_buffer(var_indptr, (nb + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnzb,), "int32")
    # with T.sblock("root"):
    for i, bi, f in T.grid(nb, blk, feat_size):
        with T.sblock("bsrmm_init"):
            vi, vbi, vf = T.axis.remap("SSS", [i, bi, f])
            T.reads()
            T.writes(C[vf + feat_size * vbi + blk * feat_size * vi])
            C[(vi * blk + vbi) * feat_size + vf] = T.float32(0.0)
    for i, bi, bj, f in T.grid(nb, blk, blk, feat_size):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("bsrmm"):
                vi, vbi, vbj, vf = T.axis.remap("SSRS", [i, bi, bj, f])
                vj = T.axis.reduce(mb, j)
                T.reads(C[vf + feat_size * vbi + blk * feat_size * vi], indptr[vi], A[vbj + blk * vbi + blk * blk * vj + blk * blk * indptr[vi]], indices[vj + indptr[vi]], B[vf + feat_size * vbj + blk * feat_size * indices[vj + indptr[vi]]])
                T.writes(C[vf + feat_size * vbi + blk * feat_size * vi])
                C[(vi * blk + vbi) * feat_size + vf] = C[(vi * blk + vbi) * feat_size + vf] + A[((indptr[vi] + vj) * blk + vbi) * blk + vbj] * B[(indices[indptr[vi] + vj] * blk + vbj) * feat_size + vf]
