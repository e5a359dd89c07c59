# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csrmm(a: T.handle, b: T.handle, c: T.handle, var_indptr: T.handle, var_indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz,))
    B = T.match_buffer(b, (n * feat_size,))
    C = T.match_buffer(c, (m * feat_size,))
    indptr = T.match_buffer(var_indptr, (m + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    # with T.sblock("root"):
    for i, k in T.grid(m, feat_size):
        with T.sblock("csrmm_init"):
            vi, vk = T.axis.remap("SS", [i, k])
            T.reads()
            T.writes(C[vk + feat_size * vi])
            C[vi * feat_size + vk] = T.float32(0.0)
    for i in range(m):
        for j, k in T.grid(indptr[i + 1] - indptr[i], feat_size):
            with T.sblock("csrmm"):
                vi = T.axis.spatial(m, i)
                vj = T.axis.reduce(n, j)
                vk = T.axis.spatial(feat_size, k)
                T.reads(C[vk + feat_size * vi], indptr[vi], A[vj + indptr[vi]], indices[vj + indptr[vi]], B[vk + feat_size * indices[vj + indptr[vi]]])
                T.writes(C[vk + feat_size * vi])
                C[vi * feat_size + vk] = C[vi * feat_size + vk] + A[indptr[vi] + vj] * B[indices[indptr[vi] + vj] * feat_size + vk]
