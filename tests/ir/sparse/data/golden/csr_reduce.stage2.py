# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csr_reduce(a: T.handle, b: T.handle, indptr: T.handle, indices: T.handle, n: T.int32, m: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(n)
    J = T.sparse_variable(I, (m, nnz), (indptr, indices))
    A = T.match_sparse_buffer(a, [I, J], "float32")
    B = T.match_sparse_buffer(b, [I], "float32")
    # with T.sblock("root"):
    for i in range(n):
        with T.sblock("csr_reduce_init"):
            vi = T.axis.spatial(n, i)
            T.reads()
            T.writes(B[vi])
            B[vi] = T.float32(0.0)
    for i in range(n):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("csr_reduce"):
                vi = T.axis.spatial(n, i)
                vj = T.axis.reduce(m, j)
                T.reads(B[vi], A[vi, vj])
                T.writes(B[vi])
                B[vi] = B[vi] + A[vi, vj]
