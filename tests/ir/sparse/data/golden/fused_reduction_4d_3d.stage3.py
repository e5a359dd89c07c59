# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def fused_reduction_4d_3d(x: T.handle, y: T.handle, var_indptr_j: T.handle, var_indptr_k: T.handle, var_indptr_l: T.handle, n: T.int32, nnz_j: T.int32, nnz_k: T.int32, nnz_l: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    X = T.match_buffer(x, (nnz_l,))
    Y = T.match_buffer(y, (nnz_k,))
    indptr_j = T.match_buffer(var_indptr_j, (n + 1,), "int32")
    indptr_k = T.match_buffer(var_indptr_k, (nnz_j + 1,), "int32")
    indptr_l = T.match_buffer(var_indptr_l, (nnz_k + 1,), "int32")
    # with T.sblock("root"):
    reduction_4d_3d_J_of_K = T.sblock_alloc_buffer((nnz_k,), "int32")
    reduction_4d_3d_I_of_K = T.sblock_alloc_buffer((nnz_k,), "int32")
    for p in range(nnz_k):
        with T.sblock("reduction_4d_3d_fuse_search"):
            vp = T.axis.spatial(nnz_k, p)
            T.reads(indptr_k[0:0 + (nnz_j + 1)], indptr_j[0:0 + (n + 1)], reduction_4d_3d_J_of_K[vp])
            T.writes(reduction_4d_3d_J_of_K[vp], reduction_4d_3d_I_of_K[vp])
            reduction_4d_3d_J_lo = T.sblock_alloc_buffer((1,), "int32", scope="local")
            reduction_4d_3d_J_hi = T.sblock_alloc_buffer((1,), "int32", scope="local")
            reduction_4d_3d_I_lo = T.sblock_alloc_buffer((1,), "int32", scope="local")
            reduction_4d_3d_I_hi = T.sblock_alloc_buffer((1,), "int32", scope="local")
            reduction_4d_3d_J_lo[0] = 0
            reduction_4d_3d_J_hi[0] = nnz_j
            for step in range(32):
                if reduction_4d_3d_J_lo[0] < reduction_4d_3d_J_hi[0]:
                    if indptr_k[(reduction_4d_3d_J_lo[0] + reduction_4d_3d_J_hi[0]) // 2 + 1] <= vp:
                        reduction_4d_3d_J_lo[0] = (reduction_4d_3d_J_lo[0] + reduction_4d_3d_J_hi[0]) // 2 + 1
                    else:
                        reduction_4d_3d_J_hi[0] = (reduction_4d_3d_J_lo[0] + reduction_4d_3d_J_hi[0]) // 2
            reduction_4d_3d_J_of_K[vp] = reduction_4d_3d_J_lo[0]
            reduction_4d_3d_I_lo[0] = 0
            reduction_4d_3d_I_hi[0] = n
            for step in range(32):
                if reduction_4d_3d_I_lo[0] < reduction_4d_3d_I_hi[0]:
                    if indptr_j[(reduction_4d_3d_I_lo[0] + reduction_4d_3d_I_hi[0]) // 2 + 1] <= reduction_4d_3d_J_of_K[vp]:
                        reduction_4d_3d_I_lo[0] = (reduction_4d_3d_I_lo[0] + reduction_4d_3d_I_hi[0]) // 2 + 1
                    else:
                        reduction_4d_3d_I_hi[0] = (reduction_4d_3d_I_lo[0] + reduction_4d_3d_I_hi[0]) // 2
            reduction_4d_3d_I_of_K[vp] = reduction_4d_3d_I_lo[0]
    for k in range(nnz_k):
        with T.sblock("reduction_4d_3d_init"):
            vk = T.axis.spatial(nnz_k, k)
            T.reads(reduction_4d_3d_I_of_K[vk], indptr_j[reduction_4d_3d_I_of_K[vk]], reduction_4d_3d_J_of_K[vk], indptr_k[reduction_4d_3d_J_of_K[vk]])
            T.writes(Y[vk])
            Y[indptr_k[indptr_j[reduction_4d_3d_I_of_K[vk]] + (reduction_4d_3d_J_of_K[vk] - indptr_j[reduction_4d_3d_I_of_K[vk]])] + (vk - indptr_k[reduction_4d_3d_J_of_K[vk]])] = T.float32(0.0)
    for k in range(nnz_k):
        for l in range(indptr_l[k + 1] - indptr_l[k]):
            with T.sblock("reduction_4d_3d"):
                vk = T.axis.spatial(nnz_k, k)
                vl = T.axis.reduce(32768, l)
                T.reads(reduction_4d_3d_I_of_K[vk], indptr_j[reduction_4d_3d_I_of_K[vk]], reduction_4d_3d_J_of_K[vk], indptr_k[reduction_4d_3d_J_of_K[vk]], Y[vk], indptr_l[vk], X[vl + indptr_l[vk]])
                T.writes(Y[vk])
                Y[indptr_k[indptr_j[reduction_4d_3d_I_of_K[vk]] + (reduction_4d_3d_J_of_K[vk] - indptr_j[reduction_4d_3d_I_of_K[vk]])] + (vk - indptr_k[reduction_4d_3d_J_of_K[vk]])] = Y[indptr_k[indptr_j[reduction_4d_3d_I_of_K[vk]] + (reduction_4d_3d_J_of_K[vk] - indptr_j[reduction_4d_3d_I_of_K[vk]])] + (vk - indptr_k[reduction_4d_3d_J_of_K[vk]])] + X[indptr_l[indptr_k[indptr_j[reduction_4d_3d_I_of_K[vk]] + (reduction_4d_3d_J_of_K[vk] - indptr_j[reduction_4d_3d_I_of_K[vk]])] + (vk - indptr_k[reduction_4d_3d_J_of_K[vk]])] + vl]
