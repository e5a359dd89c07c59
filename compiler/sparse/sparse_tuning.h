// TuneSparse: one sparse operation tuned for one matrix, end to end: the stage-III kernels of
// the chosen format for the matrix's structure (formats/format_kernels.h; CSR is one kernel,
// hyb one per part), their references from the naive kernel (sparse_reference_store.h), the
// kernels as written timed as the untuned figure, the evolutionary search over the
// "sparse-cpu" design space (or "sparse-gpu" on a GPU target) with the XGBoost cost model, each
// kernel a task, and every kernel's best measured again for the reported error and time.
// SpMM runs on the matrix with its empty rows padded (PadEmptyRows): what the kernel takes.
// `tune sparse` and bench/bench_sparse drive it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/sparse/sparse_workloads.h"
#include "ir/function.h"

namespace kiln::compiler::sparse {

struct SparseTuneOptions {
  int64_t trials = 64;         // candidates measured (the kernel as written not counted)
  int threads = 0;             // threads of the kernel; 0: every core
  uint64_t seed = 1;           // search and input seed
  double min_repeat_ms = 50;   // a timed repeat lasts at least this long
  std::string cache_dir = {};  // builds and references; empty: runtime::DefaultCacheDir()
  // The codegen target: "llvm" (this CPU, the "sparse-cpu" space) or a GPU's ("vulkan",
  // "opencl", "cuda": the measurer of its device kind and the "sparse-gpu" space; the untuned
  // figure is then the default GPU schedule, search/space/thread_binding.h).
  std::string target = "llvm";
  // The format the kernels read (formats/sparse_format.h: "csr", "bsr:R:C", "ell:W",
  // "hyb:P:B"), or a format search (formats/format_search.h): "auto" over every kind, "bsr",
  // "ell" or "hyb" over that kind's parameters. A search draws `formats_drawn` formats of the
  // matrix's space, tunes each with a share of half the trials, then the fastest two with the
  // rest, and reports the fastest correct one; a format whose kernels (a hyb's parts) need more
  // trials than its share is left out, so the trials stay within `trials`.
  std::string format = "csr";
  int formats_drawn = 6;
  // The tuning database (SQLite) every measurement is stored in, as a record of the workload
  // (whose hash covers the structure and feature size) on the device's key; its best records
  // of the same workload seed the search. Empty: none.
  std::string database_path = {};
};

struct SparseTuneResult {
  SparseProblem problem;
  std::string format = "csr";     // the format the tuned kernels read, with its parameters
  int64_t kernels = 1;            // kernels of the format (hyb: one per part), run in order
  double conversion_seconds = 0;  // CSR to the format, once, not in the latencies
  // Each format tuned and its best latency (0: failed or not possible); a search's draw.
  std::vector<std::pair<std::string, double>> formats_tried;
  int64_t formats_in_space = 1;  // the formats a search drew from
  bool correct = false;          // the best kernel, measured again, matched the reference
  // Of the best kernel against the naive reference; correct means allclose with float32's
  // tolerance (rtol 1e-4, atol 1e-5), and the relative error counts elements above atol.
  double max_rel_error = 0;
  double max_abs_error = 0;
  double untuned_seconds = 0;  // the stage-III kernel as written (GPU: its default schedule;
                               // 0 where that failed on the device)
  double best_seconds = 0;     // the best candidate (0 when none was correct)
  // The same two per kernel, in the kernels' order (0: failed or not correct).
  std::vector<double> untuned_each, best_each;
  int64_t trials = 0;
  int64_t seeded = 0;          // records of the same workload found in the database
  int64_t records_stored = 0;  // measurements committed to the database
  double tuning_seconds = 0;   // wall clock of the search and its measurements
  std::string best_trace;      // its trace, JSON
  ir::PrimFunc best_scheduled;
  std::string best_source;  // the best kernel's generated C
  std::string failure;      // why no candidate was correct, if none was
};

SparseTuneResult TuneSparse(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                            const SparseTuneOptions& options);

struct SparseKernel;  // formats/format_kernels.h
// The tuning of TuneSparse over kernels given (run in order, each a task with its own
// reference, `trials` shared among them): what TuneSparse runs for one format, and what
// attention_tuning.h runs for attention's kernels. `problem` and `format` are left to the
// caller.
SparseTuneResult TuneSparseKernels(const std::vector<SparseKernel>& kernels,
                                   const SparseTuneOptions& options, int64_t trials);

}  // namespace kiln::compiler::sparse
