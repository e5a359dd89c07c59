// The reference a sparse kernel is measured against: its real structure (indptr, indices) and
// seeded random values as inputs, the naive CSR kernel's result as the expected output. The
// seeded random inputs of dense tasks cannot stand in for it (random indices are no matrix), and
// the interpreter is too slow for a benchmark's matrices, so the reference travels with the
// task (runtime::MeasureCandidate::reference, and to remote workers as given parameters).
// Saved once under the cache directory, keyed by the workload's structural hash (which covers
// the structure's hash, shapes and feature size) and the seed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/sparse/sparse_workloads.h"
#include "runtime/reference_store.h"

namespace kiln::compiler::sparse {

// One call of a kernel with given values: every parameter's input (in parameter order), which
// parameter it writes and that parameter's value after a correct call, and how it was made.
struct GivenCall {
  std::vector<ir::HostTensor> args;
  size_t output_param = 0;
  ir::HostTensor expected;
  std::string source;  // "naive CSR spmm (double accumulation)", ...
};

// The reference of `workload` for inputs drawn from `seed`: loaded from `cache_dir`/references/
// (empty: runtime::DefaultCacheDir()) when an earlier run stored it, else made by `make`,
// stored there and loaded back file-backed (every candidate's run reads the same files).
std::shared_ptr<const runtime::Reference> StoredReference(const ir::PrimFunc& workload,
                                                          uint64_t seed,
                                                          const std::string& cache_dir,
                                                          const std::function<GivenCall()>& make);

// The reference of `workload` (CsrWorkload(problem)) for matrix `a`, inputs drawn from `seed`.
std::shared_ptr<const runtime::Reference> SparseReference(const ir::PrimFunc& workload,
                                                          const SparseProblem& problem,
                                                          const ir::sparse::CsrMatrix& a,
                                                          uint64_t seed,
                                                          const std::string& cache_dir = "");

}  // namespace kiln::compiler::sparse
