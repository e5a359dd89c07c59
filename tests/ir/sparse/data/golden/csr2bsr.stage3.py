# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csr2bsr(a: T.handle, b: T.handle, var_indptr_in: T.handle, var_indices_in: T.handle, var_indptr_out: T.handle, var_indices_out: T.handle, m_in: T.int32, n_in: T.int32, m_out: T.int32, n_out: T.int32, nnz_in: T.int32, nnz_out: T.int32, blk_size: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz_in,))
    B = T.match_buffer(b, (nnz_out * blk_size * blk_size,))
    indptr_in = T.match_buffer(var_indptr_in, (m_in + 1,), "int32")
    indices_in = T.match_buffer(var_indices_in, (nnz_in,), "int32")
    indptr_out = T.match_buffer(var_indptr_out, (m_out + 1,), "int32")
    indices_out = T.match_buffer(var_indices_out, (nnz_out,), "int32")
    # with T.sblock("root"):
    for i in range(m_in):
        for j in range(indptr_in[i + 1] - indptr_in[i]):
            with T.sblock("csr2bsr"):
                vi = T.axis.spatial(m_in, i)
                vj = T.axis.spatial(n_in, j)
                T.reads(indptr_out[vi // blk_size:vi // blk_size + 2], indices_out[0:0 + nnz_out], indptr_in[vi], indices_in[vj + indptr_in[vi]], A[vj + indptr_in[vi]])
                T.writes(B[0:0 + nnz_out * blk_size * blk_size])
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
                    B[((indptr_out[vi // blk_size] + B_search_0_1_lo[0]) * blk_size + vi % blk_size) * blk_size + indices_in[indptr_in[vi] + vj] % blk_size] = A[indptr_in[vi] + vj]
