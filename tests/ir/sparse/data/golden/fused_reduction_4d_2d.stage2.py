# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def fused_reduction_4d_2d(x: T.handle, y: T.handle, indptr_j: T.handle, indptr_k: T.handle, indptr_l: T.handle, n: T.int32, nnz_j: T.int32, nnz_k: T.int32, nnz_l: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(n)
    J = T.dense_variable(I, (32768, nnz_j), indptr_j)
    K = T.dense_variable(J, (32768, nnz_k), indptr_k)
    L = T.dense_variable(K, (32768, nnz_l), indptr_l)
    X = T.match_sparse_buffer(x, [I, J, K, L], "float32")
    Y = T.match_sparse_buffer(y, [I, J], "float32")
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
            T.writes(Y[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]]])
            Y[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]]] = T.float32(0.0)
    for j in range(nnz_j):
        for k in range(indptr_k[j + 1] - indptr_k[j]):
            for l in range(indptr_l[indptr_k[j] + k + 1] - indptr_l[indptr_k[j] + k]):
                with T.sblock("reduction_4d_2d"):
                    vj = T.axis.spatial(nnz_j, j)
                    vk = T.axis.reduce(32768, k)
                    vl = T.axis.reduce(32768, l)
                    T.reads(reduction_4d_2d_I_of_J[vj], indptr_j[reduction_4d_2d_I_of_J[vj]], Y[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]]], X[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]], vk, vl])
                    T.writes(Y[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]]])
                    Y[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]]] = Y[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]]] + X[reduction_4d_2d_I_of_J[vj], vj - indptr_j[reduction_4d_2d_I_of_J[vj]], vk, vl]
