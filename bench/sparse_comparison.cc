// Tuning one sparse kernel, then timing the libraries on the operands it ran on.
#include "bench/sparse_comparison.h"

#include <thread>

#include "bench/sparse_baselines.h"
#include "compiler/sparse/sparse_workloads.h"
#include "support/error.h"

namespace kiln::bench {

namespace {

using compiler::sparse::SparseOp;

std::vector<float> Floats(const ir::HostTensor& t) {
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + t.numel());
}

LibraryTiming TimeLibrary(const std::string& library, SparseOp op,
                          const ir::sparse::CsrMatrix& matrix, int64_t feat, int threads,
                          uint64_t seed) {
  LibraryTiming out;
  out.library = library;
  const bool graphblas = library == "graphblas";
  if (!graphblas && library != "eigen") {
    out.error = "unknown library (expected graphblas or eigen)";
    return out;
  }
  if (graphblas ? !GraphBlasAvailable() : !EigenAvailable()) {
    out.error = library + " is not built in";
    return out;
  }
  ir::sparse::CsrMatrix valued =
      op == SparseOp::kSpmm ? compiler::sparse::PadEmptyRows(matrix) : matrix;
  compiler::sparse::SparseProblem p = compiler::sparse::ProblemOf(op, valued, feat);
  std::vector<ir::HostTensor> args = compiler::sparse::CsrArguments(p, valued, seed);
  valued.values = Floats(args[2]);
  valued.values.resize(valued.indices.size());
  SparseTimingOptions timing;
  timing.threads =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    SparseBaselineResult r =
        op == SparseOp::kSpmm
            ? (graphblas ? GraphBlasSpmm(valued, Floats(args[3]), feat, timing)
                         : EigenSpmm(valued, Floats(args[3]), feat, timing))
            : (graphblas ? GraphBlasSddmm(valued, Floats(args[3]), Floats(args[4]), feat, timing)
                         : EigenSddmm(valued, Floats(args[3]), Floats(args[4]), feat, timing));
    out.seconds = r.median_seconds;
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace

double SparseComparison::Ratio(const std::string& library) const {
  for (const LibraryTiming& l : libraries) {
    if (l.library == library && l.seconds > 0 && kiln.best_seconds > 0) {
      return l.seconds / kiln.best_seconds;
    }
  }
  return 0;
}

SparseComparison CompareSparse(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                               const compiler::sparse::SparseTuneOptions& options,
                               const std::vector<std::string>& libraries) {
  SparseComparison out;
  out.kiln = compiler::sparse::TuneSparse(matrix, op, feat, options);
  for (const std::string& library : libraries) {
    out.libraries.push_back(TimeLibrary(library, op, matrix, feat, options.threads, options.seed));
  }
  return out;
}

}  // namespace kiln::bench
