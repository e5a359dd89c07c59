# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csr_element_wise(a: T.handle, b: T.handle, var_indptr: T.handle, var_indices: T.handle, m: T.int32, n: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz,))
    B = T.match_buffer(b, (nnz,))
    indptr = T.match_buffer(var_indptr, (m + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    # with T.sblock("root"):
    for i in range(m):
        for j in range(indptr[i + 1] - indptr[i]):
            with T.sblock("csr_element_wise"):
                vi = T.axis.spatial(m, i)
                vj = T.axis.spatial(n, j)
                T.reads(indptr[vi], A[vj + indptr[vi]])
                T.writes(B[vj + indptr[vi]])
                B[indptr[vi] + vj] = A[indptr[vi] + vj] * T.float32(2.5)
