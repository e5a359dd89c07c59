# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def square_sum(a: T.handle, b: T.handle, indptr_j: T.handle, indices_j: T.handle, indptr_k: T.handle, indices_k: T.handle, nnz_j: T.int32, nnz_k: T.int32, M: T.int32, N1: T.int32, N2: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(M)
    J = T.sparse_variable(I, (N1, nnz_j), (indptr_j, indices_j))
    K = T.sparse_variable(J, (N2, nnz_k), (indptr_k, indices_k))
    A = T.match_sparse_buffer(a, [I, J, K], "float32")
    B = T.match_sparse_buffer(b, [I], "float32")
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
                    T.reads(B[vi], A[vi, vj, vk])
                    T.writes(B[vi])
                    B[vi] = B[vi] + A[vi, vj, vk]
