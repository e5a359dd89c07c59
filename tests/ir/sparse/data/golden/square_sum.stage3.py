# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def square_sum(a: T.handle, b: T.handle, var_indptr_j: T.handle, var_indices_j: T.handle, var_indptr_k: T.handle, var_indices_k: T.handle, nnz_j: T.int32, nnz_k: T.int32, M: T.int32, N1: T.int32, N2: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz_k,))
    B = T.match_buffer(b, (M,))
    indptr_j = T.match_buffer(var_indptr_j, (M + 1,), "int32")
    indices_j = T.match_buffer(var_indices_j, (nnz_j,), "int32")
    indptr_k = T.match_buffer(var_indptr_k, (nnz_j + 1,), "int32")
    indices_k = T.match_buffer(var_indices_k, (nnz_k,), "int32")
    # with T.sblock("root"):
    for i in range(M):
        with T.sblock("square_sum_init"):
            vi = T.axis.spatial(M, i)
            T.reads()
            T.writes(B[vi])
            B[vi] = T.float32(0.0)
    for i in range(M):
        for j in range(indptr_j[i + 1] - indptr_j[i]):
            for k in range(indptr_k[indptr_j[i] + j + 1] - indptr_k[indptr_j[i] + j]):
                with T.sblock("square_sum"):
                    vi = T.axis.spatial(M, i)
                    vj = T.axis.reduce(N1, j)
                    vk = T.axis.reduce(N2, k)
                    T.reads(B[vi], indptr_j[vi], indptr_k[vj + indptr_j[vi]], A[vk + indptr_k[vj + indptr_j[vi]]])
                    T.writes(B[vi])
                    B[vi] = B[vi] + A[indptr_k[indptr_j[vi] + vj] + vk]
