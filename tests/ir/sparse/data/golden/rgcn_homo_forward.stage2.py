# from tvm.script import tirx as T

@T.prim_func(s_tir=True)
def rgcn_homo_forward(etype: T.handle, w: T.handle, x: T.handle, y: T.handle, indptr: T.handle, indices: T.handle, m: T.int32, n: T.int32, r: T.int32, feat_size: T.int32, nnz: T.int32):
    T.func_attr({"global_symbol": "main", "sparse_tir_level": 1, "tirx.noalias": True})
    I = T.dense_fixed(m)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    J_detach = T.dense_fixed(n)
    R = T.dense_fixed(r)
    F_in = T.dense_fixed(feat_size)
    F_out = T.dense_fixed(feat_size)
    E = T.match_sparse_buffer(etype, [I, J], "int32")
    W = T.match_sparse_buffer(w, [R, F_out, F_in], "float32")
    X = T.match_sparse_buffer(x, [J_detach, F_in], "float32")
    Y = T.match_sparse_buffer(y, [I, F_out], "float32")
    # with T.sblock("root"):
    for i, fo in T.grid(m, feat_size):
        with T.sblock("rgcn-homo-forward_init"):
            vi, vfo = T.axis.remap("SS", [i, fo])
            T.reads()
            T.writes(Y[vi, vfo])
            Y[vi, vfo] = T.float32(0.0)
    for i, fo in T.grid(m, feat_size):
        for j, fi in T.grid(indptr[i + 1] - indptr[i], feat_size):
            with T.sblock("rgcn-homo-forward"):
                vi, vfo = T.axis.remap("SS", [i, fo])
                vj = T.axis.reduce(n, j)
                vfi = T.axis.reduce(feat_size, fi)
                T.reads(Y[vi, vfo], E[vi, vj], W[E[vi, vj], vfo, vfi], indptr[vi], indices[vj + indptr[vi]], X[indices[vj + indptr[vi]], vfi])
                T.writes(Y[vi, vfo])
                Y[vi, vfo] = Y[vi, vfo] + W[E[vi, vj], vfo, vfi] * X[indices[indptr[vi] + vj], vfi]
