# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def fused_reduction_4d_2d(x: T.handle, y: T.handle, var_indptr_j: T.handle, var_indptr_k: T.handle, var_indptr_l: T.handle, n: T.int32, nnz_j: T.int32, nnz_k: T.int32, nnz_l: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    X = T.match_buffer(x, (nnz_l,))
    Y = T.match_buffer(y, (nnz_j,))
    indptr_j = T.match_buffer(var_indptr_j, (n + 1,), "int32")
    indptr_k = T.match_buffer(var_indptr_k, (nnz_j + 1,), "int32")
    indptr_l = T.match_buffer(var_indptr_l, (nnz_k + 1,), "int32")
    # with T.sblock("root"):
    reduction_4d_2d_I_of_J = T.sblock_alloc_buffer((nnz_j,), "int32")
    for p in range(nnz_j):
        with T.sblock("reduction_4d_2d_fuse_search"):
            vp = T.axis.spatial(nnz_j, p)
            T.reads(indptr_j[0:0 + (n + 1)])
            T.writes(reduction_4d_2d_I_of_J[vp])
            reduction_4d_2d_I_lo = T.sblock_alloc_buffer((1,), "int32", scope="local")
            reduction_4d_2d_I_hi = T.sblock_alloc_buffer((1,), "int32", scope="local")
            reduction_4d_2d_I_lo[0] = 0
            reduction_4d_2d_I_hi[0] = n
            for step in range(32):
                if reduction_4d_2d_I_lo[0] < reduction_4d_2d_I_hi[0]:
                    if indptr_j[(reduction_4d_2d_I_lo[0] + reduction_4d_2d_I_hi[0]) // 2 + 1] <= vp:
                        reduction_4d_2d_I_lo[0] = (reduction_4d_2d_I_lo[0] + reduction_4d_2d_I_hi[0]) // 2 + 1
                    else:
                        reduction_4d_2d_I_hi[0] = (reduction_4d_2d_I_lo[0] + reduction_4d_2d_I_hi[0]) // 2
            reduction_4d_2d_I_of_J[vp] = reduction_4d_2d_I_lo[0]
    for j in range(nnz_j):
        with T.sblock("reduction_4d_2d_init"):
            vj = T.axis.spatial(nnz_j, j)
            T.reads(reduction_4d_2d_I_of_J[vj], indptr_j[reduction_4d_2d_I_of_J[vj]])
            T.writes(Y[vj])
            Y[indptr_j[reduction_4d_2d_I_of_J[vj]] + (vj - indptr_j[reduction_4d_2d_I_of_J[vj]])] = T.float32(0.0)
    for j in range(nnz_j):
        for k in range(indptr_k[j + 1] - indptr_k[j]):
            for l in range(indptr_l[indptr_k[j] + k + 1] - indptr_l[indptr_k[j] + k]):
                with T.sblock("reduction_4d_2d"):
                    vj = T.axis.spatial(nnz_j, j)
                    vk = T.axis.reduce(32768, k)
                    vl = T.axis.reduce(32768, l)
                    T.reads(reduction_4d_2d_I_of_J[vj], indptr_j[reduction_4d_2d_I_of_J[vj]], Y[vj], indptr_k[vj], indptr_l[vk + indptr_k[vj]], X[vl + indptr_l[vk + indptr_k[vj]]])
                    T.writes(Y[vj])
                    Y[indptr_j[reduction_4d_2d_I_of_J[vj]] + (vj - indptr_j[reduction_4d_2d_I_of_J[vj]])] = Y[indptr_j[reduction_4d_2d_I_of_J[vj]] + (vj - indptr_j[reduction_4d_2d_I_of_J[vj]])] + X[indptr_l[indptr_k[indptr_j[reduction_4d_2d_I_of_J[vj]] + (vj - indptr_j[reduction_4d_2d_I_of_J[vj]])] + vk] + vl]
