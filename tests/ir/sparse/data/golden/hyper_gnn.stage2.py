# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def hyper_gnn(x: T.handle, y: T.handle, indptr: T.handle, indices: T.handle, indptr_T: T.handle, indices_T: T.handle, n: T.int32, m: T.int32, nnz: T.int32, feat_size: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(n)
    F = T.dense_fixed(feat_size)
    J = T.sparse_variable(I, (m, nnz), (indptr, indices))
    J_detach = T.dense_fixed(m)
    I_T = T.sparse_variable(J_detach, (n, nnz), (indptr_T, indices_T))
    X = T.match_sparse_buffer(x, [I, F], "float32")
    Y = T.match_sparse_buffer(y, [I, F], "float32")
    # with T.sblock("root"):
    for i, f in T.grid(n, feat_size):
        with T.sblock("hyper_gnn_init"):
            vi, vf = T.axis.remap("SS", [i, f])
            T.reads()
            T.writes(Y[vi, vf])
            Y[vi, vf] = T.float32(0.0)
    for i, f in T.grid(n, feat_size):
        for j in range(indptr[i + 1] - indptr[i]):
            for i_t in range(indptr_T[indices[indptr[i] + j] + 1] - indptr_T[indices[indptr[i] + j]]):
                with T.sblock("hyper_gnn"):
                    vi, vf = T.axis.remap("SS", [i, f])
                    vj = T.axis.reduce(m, j)
                    vi_t = T.axis.reduce(n, i_t)
                    T.reads(Y[vi, vf], indptr[vi], indices[vj + indptr[vi]], indptr_T[indices[vj + indptr[vi]]], indices_T[vi_t + indptr_T[indices[vj + indptr[vi]]]], X[indices_T[vi_t + indptr_T[indices[vj + indptr[vi]]]], vf])
                    T.writes(Y[vi, vf])
                    Y[vi, vf] = Y[vi, vf] + X[indices_T[indptr_T[indices[indptr[vi] + vj]] + vi_t], vf]
