# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def rgcn_homo_forward(etype: T.handle, w: T.handle, x: T.handle, y: T.handle, var_indptr: T.handle, var_indices: T.handle, m: T.int32, n: T.int32, r: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 0, "tirx.noalias": True})
    E = T.match_buffer(etype, (nnz,), "int32")
    W = T.match_buffer(w, (r * feat_size * feat_size,))
    X = T.match_buffer(x, (n * feat_size,))
    Y = T.match_buffer(y, (m * feat_size,))
    indptr = T.match_buffer(var_indptr, (m + 1,), "int32")
    indices = T.match_buffer(var_indices, (nnz,), "int32")
    # with T.sblock("root"):
    for i, fo in T.grid(m, feat_size):
        with T.sblock("rgcn-homo-forward_init"):
            vi, vfo = T.axis.remap("SS", [i, fo])
            T.reads()
            T.writes(Y[vfo + feat_size * vi])
            Y[vi * feat_size + vfo] = T.float32(0.0)
    for i, fo in T.grid(m, feat_size):
        for j, fi in T.grid(indptr[i + 1] - indptr[i], feat_size):
            with T.sblock("rgcn-homo-forward"):
                vi, vfo = T.axis.remap("SS", [i, fo])
                vj = T.axis.reduce(n, j)
                vfi = T.axis.reduce(feat_size, fi)
                T.reads(Y[vfo + feat_size * vi], indptr[vi], E[vj + indptr[vi]], W[vfi + feat_size * vfo + feat_size * feat_size * E[vj + indptr[vi]]], indices[vj + indptr[vi]], X[vfi + feat_size * indices[vj + indptr[vi]]])
                T.writes(Y[vfo + feat_size * vi])
                Y[vi * feat_size + vfo] = Y[vi * feat_size + vfo] + W[(E[indptr[vi] + vj] * feat_size + vfo) * feat_size + vfi] * X[indices[indptr[vi] + vj] * feat_size + vfi]
