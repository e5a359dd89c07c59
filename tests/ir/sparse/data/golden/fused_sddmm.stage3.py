# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def fused_sddmm(a: T.handle, b: T.handle, c: T.handle, var_indptr: T.handle, var_indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (m * feat_size,))
    B = T.match_buffer(b, (n * feat_size,))
    C = T.match_buffer(c, (nnz,))
    indptr = T.match_buffer(var_indptr, (m + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
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
            T.writes(C[vj])
            C[indptr[sddmm_I_of_J[vj]] + (vj - indptr[sddmm_I_of_J[vj]])] = T.float32(0.0)
    for j, k in T.grid(nnz, feat_size):
        with T.sblock("sddmm"):
            vj, vk = T.axis.remap("SR", [j, k])
            T.reads(sddmm_I_of_J[vj], indptr[sddmm_I_of_J[vj]], C[vj], A[vk + feat_size * sddmm_I_of_J[vj]], indices[vj], B[vk + feat_size * indices[vj]])
            T.writes(C[vj])
            C[indptr[sddmm_I_of_J[vj]] + (vj - indptr[sddmm_I_of_J[vj]])] = C[indptr[sddmm_I_of_J[vj]] + (vj - indptr[sddmm_I_of_J[vj]])] + A[sddmm_I_of_J[vj] * feat_size + vk] * B[indices[vj] * feat_size + vk]
