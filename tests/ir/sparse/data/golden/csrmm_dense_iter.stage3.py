# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def csrmm_dense_iter(a: T.handle, b: T.handle, c: T.handle, var_indptr: T.handle, var_indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz,))
    B = T.match_buffer(b, (n * feat_size,))
    C = T.match_buffer(c, (m * feat_size,))
    indptr = T.match_buffer(var_indptr, (m + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    # with T.sblock("root"):
    for i, k in T.grid(m, feat_size):
        with T.sblock("csrmm_init"):
            vi, vk = T.axis.remap("SS", [i, k])
            T.reads()
            T.writes(C[vk + feat_size * vi])
            C[vi * feat_size + vk] = T.float32(0.0)
    for i, j, k in T.grid(m, n, feat_size):
        with T.sblock("csrmm"):
            vi, vj, vk = T.axis.remap("SRS", [i, j, k])
            T.reads(indptr[vi:vi + 2], indices[0:0 + nnz], A[0:0 + nnz], C[vk + feat_size * vi], B[vk + feat_size * vj])
            T.writes(C[vk + feat_size * vi])
            A_search_0_value = T.sblock_alloc_buffer((1,), scope="local")
            with T.sblock("A_search_0"):
                T.reads(indptr[vi:vi + 2], indices[0:0 + nnz], A[0:0 + nnz])
                T.writes(A_search_0_value[0])
                A_search_0_1_lo = T.sblock_alloc_buffer((1,), "int32", scope="local")
                A_search_0_1_hi = T.sblock_alloc_buffer((1,), "int32", scope="local")
                A_search_0_1_lo[0] = 0
                A_search_0_1_hi[0] = indptr[vi + 1] - indptr[vi]
                for step in range(32):
                    if A_search_0_1_lo[0] < A_search_0_1_hi[0]:
                        if indices[indptr[vi] + (A_search_0_1_lo[0] + A_search_0_1_hi[0]) // 2] < vj:
                            A_search_0_1_lo[0] = (A_search_0_1_lo[0] + A_search_0_1_hi[0]) // 2 + 1
                        else:
                            A_search_0_1_hi[0] = (A_search_0_1_lo[0] + A_search_0_1_hi[0]) // 2
                if A_search_0_1_lo[0] < indptr[vi + 1] - indptr[vi]:
                    if indices[indptr[vi] + A_search_0_1_lo[0]] != vj:
                        A_search_0_1_lo[0] = indptr[vi + 1] - indptr[vi]
                if A_search_0_1_lo[0] < indptr[vi + 1] - indptr[vi]:
                    A_search_0_value[0] = A[indptr[vi] + A_search_0_1_lo[0]]
                else:
                    A_search_0_value[0] = T.float32(0.0)
            C[vi * feat_size + vk] = C[vi * feat_size + vk] + A_search_0_value[0] * B[vj * feat_size + vk]
