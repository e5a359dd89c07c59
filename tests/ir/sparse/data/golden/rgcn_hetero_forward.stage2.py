# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def rgcn_hetero_forward(a: T.handle, w: T.handle, x: T.handle, y: T.handle, indptr_i: T.handle, indices_i: T.handle, indptr_j: T.handle, indices_j: T.handle, m: T.int32, n: T.int32, num_rels: T.int32, feat_size: T.int32, nnz_i: T.int32, nnz_j: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    R = T.dense_fixed(num_rels)
    I = T.sparse_variable(R, (m, nnz_i), (indptr_i, indices_i))
    J = T.sparse_variable(I, (n, nnz_j), (indptr_j, indices_j))
    I_detach = T.dense_fixed(m)
    J_detach = T.dense_fixed(n)
    F_in = T.dense_fixed(feat_size)
    F_out = T.dense_fixed(feat_size)
    A = T.match_sparse_buffer(a, [R, I, J], "float32")
    W = T.match_sparse_buffer(w, [R, F_out, F_in], "float32")
    X = T.match_sparse_buffer(x, [J_detach, F_in], "float32")
    Y = T.match_sparse_buffer(y, [I_detach, F_out], "float32")
    # with T.sblock("root"):
    for fo, r in T.grid(feat_size, num_rels):
        for i in range(indptr_i[r + 1] - indptr_i[r]):
            with T.sblock("rgcn-hetero-forward_init"):
                vfo, vr = T.axis.remap("SS", [fo, r])
                vi = T.axis.spatial(m, i)
                T.reads(indptr_i[vr], indices_i[vi + indptr_i[vr]])
                T.writes(Y[indices_i[vi + indptr_i[vr]], vfo])
                Y[indices_i[indptr_i[vr] + vi], vfo] = T.float32(0.0)
    for fo, r in T.grid(feat_size, num_rels):
        for i in range(indptr_i[r + 1] - indptr_i[r]):
            for j, fi in T.grid(indptr_j[indptr_i[r] + i + 1] - indptr_j[indptr_i[r] + i], feat_size):
                with T.sblock("rgcn-hetero-forward"):
                    vfo, vr = T.axis.remap("SS", [fo, r])
                    vi = T.axis.spatial(m, i)
                    vj = T.axis.reduce(n, j)
                    vfi = T.axis.reduce(feat_size, fi)
                    T.reads(indptr_i[vr], indices_i[vi + indptr_i[vr]], Y[indices_i[vi + indptr_i[vr]], vfo], A[vr, vi, vj], W[vr, vfo, vfi], indptr_j[vi + indptr_i[vr]], indices_j[vj + indptr_j[vi + indptr_i[vr]]], X[indices_j[vj + indptr_j[vi + indptr_i[vr]]], vfi])
                    T.writes(Y[indices_i[vi + indptr_i[vr]], vfo])
                    Y[indices_i[indptr_i[vr] + vi], vfo] = Y[indices_i[indptr_i[vr] + vi], vfo] + A[vr, vi, vj] * W[vr, vfo, vfi] * X[indices_j[indptr_j[indptr_i[vr] + vi] + vj], vfi]
