# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def hyper_gnn(x: T.handle, y: T.handle, var_indptr: T.handle, var_indices: T.handle, var_indptr_T: T.handle, var_indices_T: T.handle, n: T.int32, m: T.int32, nnz: T.int32, feat_size: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    X = T.match_buffer(x, (n * feat_size,))
    Y = T.match_buffer(y, (n * feat_size,))
    indptr = T.match_buffer(var_indptr, (n + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    indptr_T = T.match_buffer(var_indptr_T, (m + 1,), "int32")
    indices_T = T.match_buffer(var_indices_T, (nnz,), "int32")
    # with T.sblock("root"):
    for i, f in T.grid(n, feat_size):
        with T.sblock("hyper_gnn_init"):
            vi, vf = T.axis.remap("SS", [i, f])
            T.reads()
            T.writes(Y[vf + feat_size * vi])
            Y[vi * feat_size + vf] = T.float32(0.0)
    for i, f in T.grid(n, feat_size):
        for j in range(indptr[i + 1] - indptr[i]):
            for i_t in range(indptr_T[indices[indptr[i] + j] + 1] - indptr_T[indices[indptr[i] + j]]):
                with T.sblock("hyper_gnn"):
                    vi, vf = T.axis.remap("SS", [i, f])
                    vj = T.axis.reduce(m, j)
                    vi_t = T.axis.reduce(n, i_t)
                    T.reads(Y[vf + feat_size * vi], indptr[vi], indices[vj + indptr[vi]], indptr_T[indices[vj + indptr[vi]]], indices_T[vi_t + indptr_T[indices[vj + indptr[vi]]]], X[vf + feat_size * indices_T[vi_t + indptr_T[indices[vj + indptr[vi]]]]])
                    T.writes(Y[vf + feat_size * vi])
                    Y[vi * feat_size + vf] = Y[vi * feat_size + vf] + X[indices_T[indptr_T[indices[indptr[vi] + vj]] + vi_t] * feat_size + vf]
