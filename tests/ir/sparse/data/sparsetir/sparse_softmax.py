# From uwsampl/SparseTIR, tests/python/sparsetir/sparse_tir_scripts.py (Apache-2.0).
from tvm.script import tir as T


@T.prim_func
def sparse_softmax(
    a: T.handle,
    b: T.handle,
    indptr: T.handle,
    indices: T.handle,
    n: T.int32,
    nnz: T.int32,
):
    T.func_attr({"global_symbol": "main", "tir.noalias": True, "sparse_tir_level": 2})
    I = T.dense_fixed(n)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices), "int32")
    A = T.match_sparse_buffer(a, (I, J), "float32")
    B = T.match_sparse_buffer(b, (I, J), "float32")
    TMP = T.alloc_sparse_buffer((I,), "float32", "global")
    TMP1 = T.alloc_sparse_buffer((I,), "float32", "global")
    with T.sp_iter([I], "S", "sparse_softmax") as [i]:
        with T.sp_iter([J], "R", "computer_max") as [j]:
            with T.init():
                TMP[i] = T.min_value("float32")
            TMP[i] = T.max(TMP[i], A[i, j])
        with T.sp_iter([J], "R", "exp_and_sum") as [j]:
            with T.init():
                TMP1[i] = T.float32(0)
            TMP1[i] = TMP1[i] + T.exp(A[i, j] - TMP[i], dtype="float32")
        with T.sp_iter([J], "S", "div") as [j]:
            B[i, j] = T.exp(A[i, j], dtype="float32") / TMP1[i]
