// `tune sparse spmm|sddmm MATRIX --feat K`: one sparse operation tuned for one matrix's
// structure, in a format (csr, bsr, ell, hyb, or auto) on this CPU or a GPU target
// (compiler/sparse/sparse_tuning.h), beside SuiteSparse:GraphBLAS and Eigen on the same
// operands and thread count (CPU only). The matrix is a Matrix Market or METIS file or a
// bundled data set's name. Figures: the untuned (stage-III kernels as written) and best
// latencies, GFLOP/s, and each library's latency over Kiln's. `tune sparse attention MASK
// --heads H --head-dim D`: block-sparse attention's three kernels tuned for a mask, beside the
// dense masked attention (compiler/sparse/attention_tuning.h, bench/attention_comparison.h).
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "bench/attention_comparison.h"
#include "bench/sparse_comparison.h"
#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "cli/commands/embedded_service.h"
#include "compiler/sparse/attention_tuning.h"
#include "compiler/sparse/formats/format_search.h"
#include "compiler/sparse/formats/sparse_format.h"
#include "compiler/sparse/matrix_input.h"
#include "compiler/sparse/sparse_tuning.h"
#include "compiler/sparse/sparse_workloads.h"
#include "ir/host_tensor.h"
#include "worker/device_key.h"

namespace kiln::cli {

namespace {

using compiler::sparse::SparseOp;
using nlohmann::json;

struct SparseOptions {
  std::string op;
  std::string matrix;
  int64_t feat = 0;
  std::string format = "csr";
  std::string target = "llvm";
  int64_t trials = 64;
  int threads = 0;
  uint64_t seed = 1;
  double min_repeat_ms = 50;
  bool baselines = true;
  std::string db;
  bool no_db = false;
  bool show_c = false;
  bool json = false;
  // attention: the mask is `matrix`; H heads of dimension D; the block size of a .mtx pattern.
  int64_t heads = 0;
  int64_t head_dim = 0;
  int64_t block = 0;
};

json Seconds(double s) { return s > 0 ? json(s) : json(nullptr); }

// The tuning options every sparse op takes from the command line.
compiler::sparse::SparseTuneOptions TuneOptionsOf(const SparseOptions& o) {
  compiler::sparse::SparseTuneOptions options;
  options.trials = o.trials;
  options.threads = o.threads;
  options.seed = o.seed;
  options.min_repeat_ms = o.min_repeat_ms;
  options.target = o.target;
  if (!o.no_db) options.database_path = EmbeddedDatabasePath(o.db);
  return options;
}

// `tune sparse attention MASK --heads H --head-dim D`: block-sparse attention's three kernels
// (compiler/sparse/attention_tuning.h) tuned for the mask, beside the dense masked attention.
int RunAttention(const SparseOptions& o) {
  compiler::sparse::AttentionProblem problem;
  try {
    KILN_CHECK(o.heads > 0 && o.head_dim > 0, ErrorKind::kParse,
               "tune sparse attention: --heads and --head-dim are required (positive numbers)");
    problem.mask = compiler::sparse::LoadAttentionMask(o.matrix, o.block);
    problem.heads = o.heads;
    problem.head_dim = o.head_dim;
    compiler::sparse::CheckAttentionProblem(problem);
  } catch (const Error& e) {
    throw InputError{e};
  }
  const compiler::sparse::AttentionMask& m = problem.mask;
  const compiler::sparse::SparseTuneOptions options = TuneOptionsOf(o);
  if (!o.json) {
    std::cerr << "tune sparse: attention on " << o.matrix << " (" << m.SeqLen() << " tokens, "
              << m.Blocks() << " blocks of " << m.block << "; " << m.description << "), " << o.heads
              << " heads of " << o.head_dim << ", " << o.trials << " trials\n";
  }
  const bench::AttentionComparison comparison =
      bench::CompareAttention(problem, options, o.baselines);
  const compiler::sparse::AttentionTuneResult& a = comparison.kiln;
  const compiler::sparse::SparseTuneResult& r = a.tuned;
  double flops = 0;
  for (const auto& k : a.kernels) flops += k.flops;
  const double gflops = r.best_seconds > 0 ? flops / r.best_seconds / 1e9 : 0;
  if (o.json) {
    json kernels = json::array();
    for (const auto& k : a.kernels) {
      kernels.push_back({{"name", k.name},
                         {"untuned_latency_s", Seconds(k.untuned_seconds)},
                         {"best_latency_s", Seconds(k.best_seconds)},
                         {"gflops", k.best_seconds > 0 ? k.flops / k.best_seconds / 1e9 : 0.0}});
    }
    json out = {
        {"op", "attention"},
        {"matrix", o.matrix},
        {"matrix_description", m.description},
        {"rows", m.SeqLen()},
        {"cols", m.SeqLen()},
        {"nnz", m.TokenNnz()},
        {"block", m.block},
        {"blocks", m.Blocks()},
        {"heads", o.heads},
        {"head_dim", o.head_dim},
        {"feat", o.head_dim},
        {"format", r.format},
        {"kernels", r.kernels},
        {"target", o.target},
        {"structure_hash", m.StructureHash()},
        {"device_key", worker::DetectCpuDeviceKey()},
        {"threads", o.threads},
        {"correct", r.correct},
        {"tolerance", "rtol 1e-4, atol 1e-5 against the naive block-sparse attention"},
        {"max_rel_error", r.max_rel_error},
        {"max_abs_error", r.max_abs_error},
        {"untuned_latency_s", Seconds(r.untuned_seconds)},
        {"best_latency_s", Seconds(r.best_seconds)},
        {"tuned_over_untuned", r.best_seconds > 0 && r.untuned_seconds > 0
                                   ? json(r.untuned_seconds / r.best_seconds)
                                   : json(nullptr)},
        {"gflops", gflops},
        {"per_kernel", kernels},
        {"trials", r.trials},
        {"database", options.database_path.empty() ? json(nullptr) : json(options.database_path)},
        {"seeded_from_database", r.seeded},
        {"records_stored", r.records_stored},
        {"tuning_s", r.tuning_seconds},
        {"trace", r.best_trace.empty() ? json(nullptr) : json::parse(r.best_trace)},
        {"failure", r.failure.empty() ? json(nullptr) : json(r.failure)},
        {"dense_latency_s", Seconds(comparison.dense_seconds)},
        {"dense_max_rel_error",
         comparison.dense_ran ? json(comparison.dense_max_rel_error) : json(nullptr)},
        {"vs_dense", comparison.VsDense() > 0 ? json(comparison.VsDense()) : json(nullptr)},
    };
    if (!comparison.dense_error.empty()) out["dense_error"] = comparison.dense_error;
    std::cout << out.dump() << "\n";
    return r.correct ? 0 : 1;
  }
  std::ostream& os = std::cout;
  if (o.show_c && !r.best_source.empty()) {
    os << "== the best kernels, generated C ==\n" << r.best_source << "\n";
  }
  if (!r.correct) {
    os << "result       no correct kernel: " << r.failure << "\n";
    return 1;
  }
  os << "correctness  ok against the naive block-sparse attention: max rel error "
     << r.max_rel_error << ", max abs error " << r.max_abs_error << "\n";
  for (const auto& k : a.kernels) {
    os << "  " << k.name << std::string(20 - std::min<size_t>(18, k.name.size()), ' ') << "untuned "
       << k.untuned_seconds * 1e3 << " ms, tuned " << k.best_seconds * 1e3 << " ms\n";
  }
  os << "untuned      " << r.untuned_seconds * 1e3 << " ms (the three kernels as written)\n"
     << "tuned        " << r.best_seconds * 1e3 << " ms, " << gflops << " GFLOP/s, "
     << r.untuned_seconds / r.best_seconds << "x the untuned, after " << r.trials << " trials in "
     << r.tuning_seconds << " s\n";
  if (comparison.dense_ran) {
    os << "dense        " << comparison.dense_seconds * 1e3
       << " ms (OpenBLAS sgemm, masked softmax): Kiln is " << comparison.VsDense()
       << "x its speed\n";
  } else if (!comparison.dense_error.empty()) {
    os << "dense: " << comparison.dense_error << "\n";
  }
  return 0;
}

int Run(const SparseOptions& o) {
  if (o.op == "attention") return RunAttention(o);
  if (o.feat <= 0) {
    throw InputError{Error(ErrorKind::kParse, "tune sparse " + o.op + ": --feat is required")};
  }
  SparseOp op;
  compiler::sparse::MatrixInput input;
  try {
    op = compiler::sparse::ParseSparseOp(o.op);
    std::optional<compiler::sparse::FormatKind> searched_kind;
    if (!compiler::sparse::IsFormatSearch(o.format, &searched_kind)) {
      compiler::sparse::ParseSparseFormat(o.format);
    }
    input = compiler::sparse::LoadMatrixInput(o.matrix);
  } catch (const Error& e) {
    throw InputError{e};
  }
  const ir::sparse::CsrMatrix& a = input.matrix;
  compiler::sparse::SparseTuneOptions options = TuneOptionsOf(o);
  options.format = o.format;
  if (!o.json) {
    std::cerr << "tune sparse: " << o.op << " on " << o.matrix << " (" << a.rows << " x " << a.cols
              << ", " << a.nnz() << " nonzeros; " << input.description << "), feat " << o.feat
              << ", " << o.trials << " trials\n";
  }
  std::vector<std::string> libraries;
  // The libraries run on this CPU: beside a GPU target's kernels (here, CPU emulations of a
  // GPU) their times say nothing.
  if (o.baselines && o.target == "llvm") libraries = {"graphblas", "eigen"};
  bench::SparseComparison comparison = bench::CompareSparse(a, op, o.feat, options, libraries);
  const compiler::sparse::SparseTuneResult& r = comparison.kiln;
  std::optional<compiler::sparse::FormatKind> searched_kind;
  const bool searched = compiler::sparse::IsFormatSearch(o.format, &searched_kind);
  const double flops = r.problem.Flops();
  const double gflops = r.best_seconds > 0 ? flops / r.best_seconds / 1e9 : 0;

  if (o.json) {
    json out = {
        {"op", o.op},
        {"matrix", o.matrix},
        {"matrix_description", input.description},
        {"rows", a.rows},
        {"cols", a.cols},
        {"nnz", a.nnz()},
        {"feat", o.feat},
        {"format", r.format},
        {"kernels", r.kernels},
        {"conversion_s", r.conversion_seconds},
        {"target", o.target},
        {"structure_hash", r.problem.structure_hash},
        {"device_key", worker::DetectCpuDeviceKey()},
        {"threads", o.threads},
        {"correct", r.correct},
        {"tolerance", "rtol 1e-4, atol 1e-5 against the naive CSR kernel"},
        {"max_rel_error", r.max_rel_error},
        {"max_abs_error", r.max_abs_error},
        {"untuned_latency_s", Seconds(r.untuned_seconds)},
        {"best_latency_s", Seconds(r.best_seconds)},
        {"tuned_over_untuned",
         r.best_seconds > 0 ? json(r.untuned_seconds / r.best_seconds) : json(nullptr)},
        {"gflops", gflops},
        {"trials", r.trials},
        {"database", options.database_path.empty() ? json(nullptr) : json(options.database_path)},
        {"seeded_from_database", r.seeded},
        {"records_stored", r.records_stored},
        {"tuning_s", r.tuning_seconds},
        {"trace", r.best_trace.empty() ? json(nullptr) : json::parse(r.best_trace)},
        {"failure", r.failure.empty() ? json(nullptr) : json(r.failure)},
    };
    if (searched) {
      json tried = json::object();
      for (const auto& [format, seconds] : r.formats_tried) tried[format] = Seconds(seconds);
      out["formats_tried"] = tried;
      out["formats_in_space"] = r.formats_in_space;
    }
    for (const bench::LibraryTiming& b : comparison.libraries) {
      out[b.library + "_latency_s"] = Seconds(b.seconds);
      double ratio = comparison.Ratio(b.library);
      out["vs_" + b.library] = ratio > 0 ? json(ratio) : json(nullptr);
      if (!b.error.empty()) out[b.library + "_error"] = b.error;
    }
    if (!o.baselines) out["graphblas_latency_s"] = out["vs_graphblas"] = nullptr;
    std::cout << out.dump() << "\n";
    return r.correct ? 0 : 1;
  }
  std::ostream& os = std::cout;
  if (o.show_c && !r.best_source.empty()) {
    os << "== the best kernel, generated C ==\n" << r.best_source << "\n";
  }
  os << "format       " << r.format << " (" << r.kernels
     << (r.kernels == 1 ? " kernel" : " kernels") << "; conversion from CSR "
     << r.conversion_seconds * 1e3 << " ms, not in the latencies)\n";
  if (searched) {
    os << "  searched   " << r.formats_tried.size() << " drawn of " << r.formats_in_space
       << " formats that suit the matrix\n";
    for (const auto& [format, seconds] : r.formats_tried) {
      os << "  tried      " << format << ": "
         << (seconds > 0
                 ? std::to_string(seconds * 1e3) + " ms"
                 : std::string("not tuned (its parts did not fit the trials) or no correct kernel"))
         << "\n";
    }
  }
  if (!r.correct) {
    os << "result       no correct kernel: " << r.failure << "\n";
    return 1;
  }
  os << "correctness  ok against the naive CSR kernel: max rel error " << r.max_rel_error
     << ", max abs error " << r.max_abs_error << "\n"
     << "untuned      " << r.untuned_seconds * 1e3 << " ms (the stage-III kernel as written)\n"
     << "tuned        " << r.best_seconds * 1e3 << " ms, " << gflops << " GFLOP/s, "
     << r.untuned_seconds / r.best_seconds << "x the untuned, after " << r.trials << " trials in "
     << r.tuning_seconds << " s\n";
  if (!options.database_path.empty()) {
    os << "database     " << options.database_path << ": " << r.records_stored
       << " records stored, " << r.seeded << " earlier ones of this structure seeded the search\n";
  }
  for (const bench::LibraryTiming& b : comparison.libraries) {
    if (b.seconds > 0) {
      os << b.library << std::string(13 - std::min<size_t>(12, b.library.size()), ' ')
         << b.seconds * 1e3 << " ms: Kiln is " << comparison.Ratio(b.library) << "x its speed\n";
    } else {
      os << b.library << ": " << b.error << "\n";
    }
  }
  return 0;
}

}  // namespace

Command RegisterSparseCommand(CLI::App& parent) {
  auto o = std::make_shared<SparseOptions>();
  CLI::App* app = parent.add_subcommand(
      "sparse",
      "Tune a sparse kernel (SpMM or SDDMM) for one matrix on this CPU and compare it with "
      "SuiteSparse:GraphBLAS and Eigen, or block-sparse attention beside dense attention");
  app->add_option("op", o->op,
                  "spmm (C = A * B), sddmm (A's values times X * Y' at A's "
                  "nonzeros), or attention (block-sparse attention: SDDMM, softmax, SpMM)")
      ->required()
      ->check(CLI::IsMember({"spmm", "sddmm", "attention"}));
  app->add_option("matrix", o->matrix,
                  "a Matrix Market (.mtx) or METIS (.graph) file, or a bundled data set's name; "
                  "attention: bigbird-L-b or a .mtx of the block pattern (with --block)")
      ->required();
  app->add_option("--feat", o->feat, "the dense operands' feature size K (spmm, sddmm)")
      ->check(CLI::PositiveNumber);
  app->add_option("--heads", o->heads, "attention: the number of heads H")
      ->check(CLI::PositiveNumber);
  app->add_option("--head-dim", o->head_dim, "attention: the head dimension D")
      ->check(CLI::PositiveNumber);
  app->add_option("--block", o->block,
                  "attention: the block size of a .mtx block pattern (bigbird-L-b names it)")
      ->check(CLI::PositiveNumber);
  app->add_option("--format", o->format,
                  "csr, bsr:R:C (R x C blocks), ell:W (rows padded to W), hyb:P:B (P column "
                  "partitions, ELL buckets of widths 1..2^(B-1)); or a search: bsr, ell or hyb "
                  "(that kind's parameters searched), auto (every kind): a draw of the formats "
                  "that suit the matrix, each tuned briefly, the fastest two with the rest")
      ->capture_default_str();
  app->add_option("--target", o->target,
                  "llvm (this CPU), or this machine's vulkan, opencl or cuda device (the "
                  "libraries run on the CPU)")
      ->capture_default_str();
  app->add_option("--trials", o->trials, "candidates to measure")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app->add_option("--threads", o->threads, "threads of the kernel and the libraries (0: all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app->add_option("--seed", o->seed, "seed of the search and the operands")->capture_default_str();
  app->add_option("--min-repeat-ms", o->min_repeat_ms,
                  "grow the runs per timed repeat until one lasts this long")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app->add_flag("!--no-baselines", o->baselines, "do not time GraphBLAS and Eigen");
  app->add_option("--db", o->db,
                  "the tuning database every measurement is stored in (default: $KILN_DB, else "
                  "the one `tune run` uses); its records of the same structure seed the search");
  app->add_flag("--no-db", o->no_db, "store nothing and start from no earlier record");
  app->add_flag("--show-c", o->show_c, "print the best kernel's generated C");
  app->add_flag("--json", o->json, "print one JSON object on the last line of stdout");
  return {app, [o] { return ExitTwoOnInputError([o] { return Run(*o); }); }};
}

}  // namespace kiln::cli
