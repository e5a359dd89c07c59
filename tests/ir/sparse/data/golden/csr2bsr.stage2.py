# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csr2bsr(a: T.handle, b: T.handle, indptr_in: T.handle, indices_in: T.handle, indptr_out: T.handle, indices_out: T.handle, m_in: T.int32, n_in: T.int32, m_out: T.int32, n_out: T.int32, nnz_in: T.int32, nnz_out: T.int32, blk_size: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(m_in)
    J = T.sparse_variable(I, (n_in, nnz_in), (indptr_in, indices_in))
    I_bsr = T.dense_fixed(m_out)
    J_bsr = T.sparse_variable(I_bsr, (n_out, nnz_out), (indptr_out, indices_out))
    BI = T.dense_fixed(blk_size)
    BJ = T.dense_fixed(blk_size)
    A = T.match_sparse_buffer(a, [I, J], "float32")
    B = T.match_sparse_buffer(b, [I_bsr, J_bsr, BI, BJ], "float32")
    # with T.sblock("root"):
    for i in range(m_in):
        for j in range(indptr_in[i + 1] - indptr_in[i]):
            with T.sblock("csr2bsr"):
                vi = T.axis.spatial(m_in, i)
                vj = T.axis.spatial(n_in, j)
                T.reads(indptr_out[vi // blk_size:vi // blk_size + 2], indices_out[0:0 + nnz_out], indptr_in[vi], indices_in[vj + indptr_in[vi]], A[vi, vj])
                T.writes(B[0:0 + m_out, 0:0 + n_out, 0:0 + blk_size, 0:0 + blk_size])
                B_search_0_1_lo = T.sblock_alloc_buffer((1,), "int32", scope="local")
                with T.sblock("B_search_0"):
                    T.reads(indptr_out[vi // blk_size:vi // blk_size + 2], B_search_0_1_lo[0], indices_out[0:0 + nnz_out], indptr_in[vi], indices_in[vj + indptr_in[vi]])
                    T.writes(B_search_0_1_lo[0])
                    B_search_0_1_hi = T.sblock_alloc_buffer((1,), "int32", scope="local")
                    B_search_0_1_lo[0] = 0
                    B_search_0_1_hi[0] = indptr_out[vi // blk_size + 1] - indptr_out[vi // blk_size]
                    for step in range(32):
                        if B_search_0_1_lo[0] < B_search_0_1_hi[0]:
                            if indices_out[indptr_out[vi // blk_size] + (B_search_0_1_lo[0] + B_search_0_1_hi[0]) // 2] < indices_in[indptr_in[vi] + vj] // blk_size:
                                B_search_0_1_lo[0] = (B_search_0_1_lo[0] + B_search_0_1_hi[0]) // 2 + 1
                            else:
                                B_search_0_1_hi[0] = (B_search_0_1_lo[0] + B_search_0_1_hi[0]) // 2
                    if B_search_0_1_lo[0] < indptr_out[vi // blk_size + 1] - indptr_out[vi // blk_size]:
                        if indices_out[indptr_out[vi // blk_size] + B_search_0_1_lo[0]] != indices_in[indptr_in[vi] + vj] // blk_size:
                            B_search_0_1_lo[0] = indptr_out[vi // blk_size + 1] - indptr_out[vi // blk_size]
                if B_search_0_1_lo[0] < indptr_out[vi // blk_size + 1] - indptr_out[vi // blk_size]:
                    B[vi // blk_size, B_search_0_1_lo[0], vi % blk_size, indices_in[indptr_in[vi] + vj] % blk_size] = A[vi, vj]
