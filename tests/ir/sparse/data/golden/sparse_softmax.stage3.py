# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def sparse_softmax(a: T.handle, b: T.handle, var_indptr: T.handle, var_indices: T.handle, n: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz,))
    B = T.match_buffer(b, (nnz,))
    indptr = T.match_buffer(var_indptr, (n + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    # with T.sblock("root"):
    TMP = T.sblock_alloc_buffer((n,))
    TMP1 = T.sblock_alloc_buffer((n,))
    for i in range(n):
        with T.sblock("sparse_softmax"):
            vi = T.axis.spatial(n, i)
            T.reads(indptr[vi:vi + 2], TMP[vi], A[indptr[vi]:indptr[vi] + (indptr[vi + 1] - indptr[vi])], TMP1[vi])
            T.writes(TMP[vi], TMP1[vi], B[indptr[vi]:indptr[vi] + (indptr[vi + 1] - indptr[vi])])
            with T.sblock("computer_max_init"):
                T.reads()
                T.writes(TMP[vi])
                TMP[vi] = T.float32(-3.4028234663852886e+38)
            for j in range(indptr[vi + 1] - indptr[vi]):
                with T.sblock("computer_max"):
                    vj = T.axis.reduce(n, j)
                    T.reads(TMP[vi], indptr[vi], A[vj + indptr[vi]])
                    T.writes(TMP[vi])
                    TMP[vi] = T.max(TMP[vi], A[indptr[vi] + vj])
            with T.sblock("exp_and_sum_init"):
                T.reads()
                T.writes(TMP1[vi])
                TMP1[vi] = T.float32(0.0)
            for j in range(indptr[vi + 1] - indptr[vi]):
                with T.sblock("exp_and_sum"):
                    vj = T.axis.reduce(n, j)
                    T.reads(TMP1[vi], indptr[vi], A[vj + indptr[vi]], TMP[vi])
                    T.writes(TMP1[vi])
                    TMP1[vi] = TMP1[vi] + T.exp(A[indptr[vi] + vj] - TMP[vi])
            for j in range(indptr[vi + 1] - indptr[vi]):
                with T.sblock("div"):
                    vj = T.axis.spatial(n, j)
                    T.reads(indptr[vi], A[vj + indptr[vi]], TMP1[vi])
                    T.writes(B[vj + indptr[vi]])
                    B[indptr[vi] + vj] = T.exp(A[indptr[vi] + vj]) / TMP1[vi]
