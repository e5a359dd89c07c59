# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csr_element_wise(a: T.handle, b: T.handle, indptr: T.handle, indices: T.handle, m: T.int32, n: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(m)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    A = T.match_sparse_buffer(a, [I, J], "float32")
    B = T.match_sparse_buffer(b, [I, J], "float32")
    # with T.sblock("root"):
    for i in range(m):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("csr_element_wise"):
                vi = T.axis.spatial(m, i)
                vj = T.axis.spatial(n, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.5)
