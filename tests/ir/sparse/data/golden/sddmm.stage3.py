# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def sddmm(a: T.handle, b: T.handle, c: T.handle, var_indptr: T.handle, var_indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (m * feat_size,))
    B = T.match_buffer(b, (n * feat_size,))
    C = T.match_buffer(c, (nnz,))
    indptr = T.match_buffer(var_indptr, (m + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    # with T.sblock("root"):
    for i in range(m):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("sddmm_init"):
                vi = T.axis.spatial(m, i)
                vj = T.axis.spatial(n, j)
                T.reads(indptr[vi])
                T.writes(C[vj + indptr[vi]])
                C[indptr[vi] + vj] = T.float32(0.0)
    for i in range(m):
        for j, k in T.grid(indptr[i + 1] - indptr[i], feat_size):
            with T.sblock("sddmm"):
                vi = T.axis.spatial(m, i)
                vj = T.axis.spatial(n, j)
                vk = T.axis.reduce(feat_size, k)
                T.reads(indptr[vi], C[vj + indptr[vi]], A[vk + feat_size * vi], indices[vj + indptr[vi]], B[vk + feat_size * indices[vj + indptr[vi]]])
                T.writes(C[vj + indptr[vi]])
                C[indptr[vi] + vj] = C[indptr[vi] + vj] + A[vi * feat_size + vk] * B[indices[indptr[vi] + vj] * feat_size + vk]
