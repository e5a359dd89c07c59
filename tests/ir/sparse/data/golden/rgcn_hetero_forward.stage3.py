# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def rgcn_hetero_forward(a: T.handle, w: T.handle, x: T.handle, y: T.handle, var_indptr_i: T.handle, var_indices_i: T.handle, var_indptr_j: T.handle, var_indices_j: T.handle, m: T.int32, n: T.int32, num_rels: T.int32, feat_size: T.int32, nnz_i: T.int32, nnz_j: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    A = T.match_buffer(a, (nnz_j,))
    W = T.match_buffer(w, (num_rels * feat_size * feat_size,))
    X = T.match_buffer(x, (n * feat_size,))
    Y = T.match_buffer(y, (m * feat_size,))
    indptr_i = T.match_buffer(var_indptr_i, (num_rels + 1,), "int32")
    indices_i = T.match_buffer(var_indices_i, (nnz_i,), "int32")
    indptr_j = T.match_buffer(var_indptr_j, (nnz_i + 1,), "int32")
    indices_j = T.match_buffer(var_indices_j, (nnz_j,), "int32")
    # with T.sblock("root"):
    for fo, r in T.grid(feat_size, num_rels):
        for i in range(indptr_i[r + 1] - indptr_i[r]):
            with T.sblock("rgcn-hetero-forward_init"):
                vfo, vr = T.axis.remap("SS", [fo, r])
                vi = T.axis.spatial(m, i)
                T.reads(indptr_i[vr], indices_i[vi + indptr_i[vr]])
                T.writes(Y[vfo + feat_size * indices_i[vi + indptr_i[vr]]])
                Y[indices_i[indptr_i[vr] + vi] * feat_size + vfo] = T.float32(0.0)
    for fo, r in T.grid(feat_size, num_rels):
        for i in range(indptr_i[r + 1] - indptr_i[r]):
            for j, fi in T.grid(indptr_j[indptr_i[r] + i + 1] - indptr_j[indptr_i[r] + i], feat_size):
                with T.sblock("rgcn-hetero-forward"):
                    vfo, vr = T.axis.remap("SS", [fo, r])
                    vi = T.axis.spatial(m, i)
                    vj = T.axis.reduce(n, j)
                    vfi = T.axis.reduce(feat_size, fi)
                    T.reads(indptr_i[vr], indices_i[vi + indptr_i[vr]], Y[vfo + feat_size * indices_i[vi + indptr_i[vr]]], indptr_j[vi + indptr_i[vr]], A[vj + indptr_j[vi + indptr_i[vr]]], W[vfi + feat_size * vfo + feat_size * feat_size * vr], indices_j[vj + indptr_j[vi + indptr_i[vr]]], X[vfi + feat_size * indices_j[vj + indptr_j[vi + indptr_i[vr]]]])
                    T.writes(Y[vfo + feat_size * indices_i[vi + indptr_i[vr]]])
                    Y[indices_i[indptr_i[vr] + vi] * feat_size + vfo] = Y[indices_i[indptr_i[vr] + vi] * feat_size + vfo] + A[indptr_j[indptr_i[vr] + vi] + vj] * W[(vr * feat_size + vfo) * feat_size + vfi] * X[indices_j[indptr_j[indptr_i[vr] + vi] + vj] * feat_size + vfi]
