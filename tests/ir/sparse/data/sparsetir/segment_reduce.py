# From uwsampl/SparseTIR, tests/python/sparsetir/sparse_tir_scripts.py (Apache-2.0).
from tvm.script import tir as T


@T.prim_func
def segment_reduce(
    a: T.handle,
    b: T.handle,
    indptr: T.handle,
    n: T.int32,
    nnz: T.int32,
) -> None:
    T.func_attr({"global_symbol": "main", "tir.noalias": True, "sparse_tir_level": 2})
    I = T.dense_fixed(n)
    J = T.dense_variable(I, (100, nnz), indptr, "int32")
    A = T.match_sparse_buffer(a, (I, J), "float32")
    B = T.match_sparse_buffer(b, (I,), "float32")
    with T.sp_iter([I, J], "SR", "segment_reduce") as [i, j]:
        with T.init():
            B[i] = 0.0
        B[i] = B[i] + A[i, j]
