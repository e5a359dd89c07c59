# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def sparse_softmax(a: T.handle, b: T.handle, indptr: T.handle, indices: T.handle, n: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(n)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    A = T.match_sparse_buffer(a, [I, J], "float32")
    B = T.match_sparse_buffer(b, [I, J], "float32")
    TMP = T.alloc_sparse_buffer([I], "float32")
    TMP1 = T.alloc_sparse_buffer([I], "float32")
    # with T.sblock("root"):
    for i in range(n):
        with T.sblock("sparse_softmax"):
            vi = T.axis.spatial(n, i)
            T.reads(indptr[vi:vi + 2], TMP[vi], A[vi, 0:0 + (indptr[vi + 1] - indptr[vi])], TMP1[vi])
            T.writes(TMP[vi], TMP1[vi], B[vi, 0:0 + (indptr[vi + 1] - indptr[vi])])
            with T.sblock("computer_max_init"):
                T.reads()
                T.writes(TMP[vi])
                TMP[vi] = T.float32(-3.4028234663852886e+38)
            for j in range(indptr[vi + 1] - indptr[vi]):
                with T.sblock("computer_max"):
                    vj = T.axis.reduce(n, j)
                    T.reads(TMP[vi], A[vi, vj])
                    T.writes(TMP[vi])
                    TMP[vi] = T.max(TMP[vi], A[vi, vj])
            with T.sblock("exp_and_sum_init"):
                T.reads()
                T.writes(TMP1[vi])
                TMP1[vi] = T.float32(0.0)
            for j in range(indptr[vi + 1] - indptr[vi]):
                with T.sblock("exp_and_sum"):
                    vj = T.axis.reduce(n, j)
                    T.reads(TMP1[vi], A[vi, vj], TMP[vi])
                    T.writes(TMP1[vi])
                    TMP1[vi] = TMP1[vi] + T.exp(A[vi, vj] - TMP[vi])
            for j in range(indptr[vi + 1] - indptr[vi]):
                with T.sblock("div"):
                    vj = T.axis.spatial(n, j)
                    T.reads(A[vi, vj], TMP1[vi])
                    T.writes(B[vi, vj])
                    B[vi, vj] = T.exp(A[vi, vj]) / TMP1[vi]
