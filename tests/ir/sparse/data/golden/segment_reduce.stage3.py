# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def segment_reduce(a: T.handle, b: T.handle, var_indptr: T.handle, n: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz,))
    B = T.match_buffer(b, (n,))
    indptr = T.match_buffer(var_indptr, (n + 1,), "int32")
    # with T.sblock("root"):
    for i in range(n):
        with T.sblock("segment_reduce_init"):
            vi = T.axis.spatial(n, i)
            T.reads()
            T.writes(B[vi])
            B[vi] = T.float32(0.0)
    for i in range(n):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("segment_reduce"):
                vi = T.axis.spatial(n, i)
                vj = T.axis.reduce(100, j)
                T.reads(B[vi], indptr[vi], A[vj + indptr[vi]])
                T.writes(B[vi])
                B[vi] = B[vi] + A[indptr[vi] + vj]
