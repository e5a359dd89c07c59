// The reference a model's sparse task is measured against. A GNN aggregation imported as CSR
// SpMM (ir/frontend/onnx/convert_gnn_spmm.h), or a masked attention imported as block-sparse
// attention (convert_block_attention.h), is a task whose call passes the matrix structure
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
// the default), for
//  - a CSR kernel (kiln.sparse_format "csr"): SparseReference over the matrix its indptr and
//    indices (parameters 0 and 1) give;
//  - a block-sparse attention kernel (format "bsr:b:b", a masked attention the ONNX front end
//    imported, ir/frontend/onnx/convert_block_attention.h): the naive attention's stage
//    (attention_workloads.h's AttentionKernelCases) over the mask its mask_indptr and
//    mask_indices (parameters 0 and 1; the softmax's parameter 0 only) give, with the scale of
//    its attribute kiln.attention_scale.
// Null for any other kernel, or when those parameters are not among `constant_index_args`.
// kiln::Error(kInvalidIR) naming the kernel when the constants are not the structure its
// attributes describe (shape, structure hash).
std::shared_ptr<const runtime::Reference> ModelTaskReference(
    const ir::PrimFunc& workload, const std::map<size_t, ir::HostTensor>& constant_index_args,
    uint64_t seed = 1, const std::string& cache_dir = "");

}  // namespace kiln::compiler::sparse
