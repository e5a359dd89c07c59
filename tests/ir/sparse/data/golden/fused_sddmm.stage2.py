# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def fused_sddmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(m)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    J_detach = T.dense_fixed(n)
    K = T.dense_fixed(feat_size)
    A = T.match_sparse_buffer(a, [I, K], "float32")
    B = T.match_sparse_buffer(b, [J_detach, K], "float32")
    C = T.match_sparse_buffer(c, [I, J], "float32")
    # with T.sblock("root"):
    sddmm_I_of_J = T.sblock_alloc_buffer((nnz,), "int32")
    for p in range(nnz):
        with T.sblock("sddmm_fuse_search"):
            vp = T.axis.spatial(nnz, p)
            T.reads(indptr[0:0 + (m + 1)])
            T.writes(sddmm_I_of_J[vp])
            sddmm_I_lo = T.sblock_alloc_buffer((1,), "int32", scope="local")
            sddmm_I_hi = T.sblock_alloc_buffer((1,), "int32", scope="local")
            sddmm_I_lo[0] = 0
            sddmm_I_hi[0] = m
            for step in range(32):
                if sddmm_I_lo[0] < sddmm_I_hi[0]:
                    if indptr[(sddmm_I_lo[0] + sddmm_I_hi[0]) // 2 + 1] <= vp:
                        sddmm_I_lo[0] = (sddmm_I_lo[0] + sddmm_I_hi[0]) // 2 + 1
                    else:
                        sddmm_I_hi[0] = (sddmm_I_lo[0] + sddmm_I_hi[0]) // 2
            sddmm_I_of_J[vp] = sddmm_I_lo[0]
    for j in range(nnz):
        with T.sblock("sddmm_init"):
            vj = T.axis.spatial(nnz, j)
            T.reads(sddmm_I_of_J[vj], indptr[sddmm_I_of_J[vj]])
            T.writes(C[sddmm_I_of_J[vj], vj - indptr[sddmm_I_of_J[vj]]])
            C[sddmm_I_of_J[vj], vj - indptr[sddmm_I_of_J[vj]]] = T.float32(0.0)
    for j, k in T.grid(nnz, feat_size):
        with T.sblock("sddmm"):
            vj, vk = T.axis.remap("SR", [j, k])
            T.reads(sddmm_I_of_J[vj], indptr[sddmm_I_of_J[vj]], C[sddmm_I_of_J[vj], vj - indptr[sddmm_I_of_J[vj]]], A[sddmm_I_of_J[vj], vk], indices[vj], B[indices[vj], vk])
            T.writes(C[sddmm_I_of_J[vj], vj - indptr[sddmm_I_of_J[vj]]])
            C[sddmm_I_of_J[vj], vj - indptr[sddmm_I_of_J[vj]]] = C[sddmm_I_of_J[vj], vj - indptr[sddmm_I_of_J[vj]]] + A[sddmm_I_of_J[vj], vk] * B[indices[vj], vk]
