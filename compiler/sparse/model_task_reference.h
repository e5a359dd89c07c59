// The reference a model's sparse task is measured against. A GNN aggregation imported as CSR
// SpMM (ir/frontend/onnx/convert_gnn_spmm.h) is a task whose call passes the matrix structure
// as constants (ir::model::ModelTask::constant_index_args); the seeded random inputs of dense
// tasks would index out of range, so the task gets SparseReference over that structure, as
// `tune sparse` gives its kernels (sparse_reference_store.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "ir/function.h"
#include "ir/host_tensor.h"
#include "runtime/reference_store.h"

namespace kiln::compiler::sparse {

// True for a stage-III sparse kernel: a function with the attribute kiln.sparse_op.
bool IsSparseKernel(const ir::PrimFunc& workload);

// The reference of `workload` for inputs drawn from `seed`, stored under `cache_dir` (empty:
// the default): null when `workload` is not a CSR kernel (kiln.sparse_format "csr") or its
// indptr and indices (parameters 0 and 1) are not among `constant_index_args`.
// kiln::Error(kInvalidIR) naming the kernel when the constants are not the matrix its
// attributes describe (shape, structure hash).
std::shared_ptr<const runtime::Reference> ModelTaskReference(
    const ir::PrimFunc& workload, const std::map<size_t, ir::HostTensor>& constant_index_args,
    uint64_t seed = 1, const std::string& cache_dir = "");

}  // namespace kiln::compiler::sparse
