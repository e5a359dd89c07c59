// The kernels of a sparse task in a given format: for each, the stage-III workload, its
// arguments (the converted structure, seeded values) and the expected output from the naive
// CSR reference, and the runtime::Reference a measurer checks it against. FormatKernels is the
// one entry a driver calls; FormatKernelCases gives the same without saving references (tests,
// the interpreter).
//
// Values follow sparse_workloads.h's CsrArguments for the same seed: the nonzeros' values are
// HostTensor::Random({max(nnz, 1)}, seed * 8 + 1) in CSR order (gathered into the format's
// slots), B is HostTensor::Random({cols, feat}, seed * 8 + 2); so one valued CsrMatrix gives
// every kernel's expected output through the naive CSR SpMM. C's input is
// HostTensor::Random({rows, feat}, seed * 8 + 5) (rounded up to whole blocks for BSR), not
// zeros, so that a kernel that neither zeroes nor adds correctly is caught:
//  - csr, bsr, ell, and hyb's first part: expected C = A_part * B (the kernel zeroes C first);
//  - hyb's other parts: expected C = C_in + A_part * B (they accumulate).
// A_part is the matrix's nonzeros the kernel stores (all of them but for hyb).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/sparse/formats/sparse_format.h"
#include "compiler/sparse/sparse_workloads.h"
#include "ir/function.h"
#include "ir/host_tensor.h"
#include "runtime/reference_store.h"

namespace kiln::compiler::sparse {

// One kernel of a format, with what a check of it needs.
struct FormatKernelCase {
  std::string name;    // the kernel's name ("bsr_spmm", "hyb_spmm_p0_w8")
  std::string format;  // the format's spelling
  ir::PrimFunc workload;
  std::vector<ir::HostTensor> args;  // in parameter order; the output holds C's input
  ir::HostTensor expected;           // the output's value after one correct call
  size_t output_param = 0;
  int64_t nnz = 0;     // nonzeros of the matrix the kernel multiplies
  int64_t stored = 0;  // slots it multiplies, padding included
  double flops = 0;    // 2 * nnz * feat: the useful work
};

struct FormatKernelSet {
  std::vector<FormatKernelCase> kernels;  // in the order they must run (hyb: the first zeroes C)
  double conversion_seconds = 0;          // CSR to the format (0 for csr)
};

// SDDMM (bsr only besides csr): X and Y as CsrArguments draws them (seed * 8 + 3, + 4, rounded
// up to whole blocks with zero rows), out in the stored blocks' layout with seeded input
// (seed * 8 + 6), expected the naive CSR SDDMM gathered into the slots (0 in filled zeros).
// kiln::Error(kUnsupported) for SDDMM in ell or hyb (not built yet), and the
// conversions' errors (an ELL too narrow for a row, ...).
FormatKernelSet FormatKernelCases(const ir::sparse::CsrMatrix& a, SparseOp op, int64_t feat,
                                  const SparseFormat& format, uint64_t seed);

// One kernel a driver tunes: a task of its own.
struct SparseKernel {
  std::string name;
  std::string format;
  ir::PrimFunc workload;
  std::shared_ptr<const runtime::Reference> reference;
  int64_t nnz = 0, stored = 0;
  double flops = 0;
  // The conversion to the format, timed apart from the kernels: the whole conversion on the
  // format's first kernel, 0 on the others.
  double conversion_seconds = 0;
};

// The kernels of `op` on `a` in `format`, each with its reference stored under
// `cache_dir`/references/ (empty: runtime::DefaultCacheDir()) and loaded from there when an
// earlier run made it. csr gives sparse_workloads.h's kernel and sparse_reference_store.h's
// reference, on the matrix with its empty rows padded for SpMM (PadEmptyRows, what the CSR
// kernel takes: its seeded values then follow the padded matrix's nonzeros).
std::vector<SparseKernel> FormatKernels(const ir::sparse::CsrMatrix& a, SparseOp op, int64_t feat,
                                        const SparseFormat& format, uint64_t seed,
                                        const std::string& cache_dir = "");

}  // namespace kiln::compiler::sparse
