# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csrmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(m)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    J_detach = T.dense_fixed(n)
    K = T.dense_fixed(feat_size)
    A = T.match_sparse_buffer(a, [I, J], "float32")
    B = T.match_sparse_buffer(b, [J_detach, K], "float32")
    C = T.match_sparse_buffer(c, [I, K], "float32")
    # with T.sblock("root"):
    for i, k in T.grid(m, feat_size):
        with T.sblock("csrmm_init"):
            vi, vk = T.axis.remap("SS", [i, k])
            T.reads()
            T.writes(C[vi, vk])
            C[vi, vk] = T.float32(0.0)
    for i in range(m):
        for j, k in T.grid(indptr[i + 1] - indptr[i], feat_size):
            with T.sblock("csrmm"):
                vi = T.axis.spatial(m, i)
                vj = T.axis.reduce(n, j)
                vk = T.axis.spatial(feat_size, k)
                T.reads(C[vi, vk], A[vi, vj], indptr[vi], indices[vj + indptr[vi]], B[indices[vj + indptr[vi]], vk])
                T.writes(C[vi, vk])
                C[vi, vk] = C[vi, vk] + A[vi, vj] * B[indices[indptr[vi] + vj], vk]
