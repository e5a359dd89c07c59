// bench_sparse: Kiln's tuned sparse kernels against SuiteSparse:GraphBLAS (the bar) and Eigen at
// the same thread count, on the bundled matrices (ir/sparse/sparse_datasets.h: meshes, a gene
// network, R-MAT graphs of two sizes, a block-sparse attention mask) or any file given with
// --matrix, for SpMM and SDDMM at several feature sizes. Per row: Kiln's best latency and
// GFLOP/s, its tuning time, the chosen format, each library's latency and its ratio to Kiln's
// (above 1: Kiln is faster); per op, the geometric mean of the ratios. Every kernel is checked
// against the naive CSR kernel before its time counts. --json: one JSON object on the last line.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "bench/sparse_comparison.h"
#include "compiler/sparse/matrix_input.h"
#include "ir/sparse/sparse_datasets.h"
#include "support/error.h"

namespace {

using kiln::bench::SparseComparison;
using kiln::compiler::sparse::SparseOp;
using nlohmann::json;

struct Options {
  std::vector<std::string> matrices;
  std::vector<int64_t> feats = {32, 64, 128, 256, 512};
  std::vector<std::string> ops = {"spmm", "sddmm"};
  int64_t trials = 32;
  int threads = 1;
  uint64_t seed = 1;
  double min_repeat_ms = 50;
  bool json = false;
};

std::vector<std::string> DefaultMatrices() {
  std::vector<std::string> names;
  for (const kiln::ir::sparse::SparseDataset& d : kiln::ir::sparse::ListSparseDatasets()) {
    if (kiln::ir::sparse::SparseDatasetAvailable(d)) names.push_back(d.name);
  }
  return names;
}

double Geomean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"bench_sparse: tuned sparse kernels against GraphBLAS and Eigen"};
  app.add_option("--matrix", o.matrices,
                 "a .mtx or .graph file or a data set's name (repeatable; default: every bundled "
                 "data set present)");
  app.add_option("--feat", o.feats, "feature sizes")->capture_default_str();
  app.add_option("--op", o.ops, "spmm, sddmm")->capture_default_str();
  app.add_option("--trials", o.trials, "candidates per kernel")->capture_default_str();
  app.add_option("--threads", o.threads, "threads of every kernel and library")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "search and operand seed")->capture_default_str();
  app.add_option("--min-repeat-ms", o.min_repeat_ms, "least duration of a timed repeat")
      ->capture_default_str();
  app.add_flag("--json", o.json, "one JSON object on the last line of stdout");
  CLI11_PARSE(app, argc, argv);
  if (o.matrices.empty()) o.matrices = DefaultMatrices();

  int wrong = 0;
  try {
    json rows = json::array();
    std::map<std::string, std::map<std::string, std::vector<double>>> ratios;  // op -> lib -> r
    std::printf("%-18s %-6s %5s %-6s %10s %8s %9s %10s %7s %10s %7s\n", "matrix", "op", "K",
                "format", "kiln ms", "GFLOP/s", "tuning s", "graphblas", "ratio", "eigen", "ratio");
    for (const std::string& name : o.matrices) {
      kiln::compiler::sparse::MatrixInput input = kiln::compiler::sparse::LoadMatrixInput(name);
      for (const std::string& op_name : o.ops) {
        SparseOp op = kiln::compiler::sparse::ParseSparseOp(op_name);
        for (int64_t feat : o.feats) {
          kiln::compiler::sparse::SparseTuneOptions options;
          options.trials = o.trials;
          options.threads = o.threads;
          options.seed = o.seed;
          options.min_repeat_ms = o.min_repeat_ms;
          SparseComparison c =
              kiln::bench::CompareSparse(input.matrix, op, feat, options, {"graphblas", "eigen"});
          const auto& k = c.kiln;
          double gflops = k.best_seconds > 0 ? k.problem.Flops() / k.best_seconds / 1e9 : 0;
          json row = {{"matrix", name},
                      {"rows", input.matrix.rows},
                      {"nnz", input.matrix.nnz()},
                      {"op", op_name},
                      {"feat", feat},
                      {"format", k.format},
                      {"correct", k.correct},
                      {"kiln_s", k.best_seconds},
                      {"untuned_s", k.untuned_seconds},
                      {"gflops", gflops},
                      {"tuning_s", k.tuning_seconds},
                      {"trials", k.trials}};
          if (!k.correct) {
            row["failure"] = k.failure;
            ++wrong;
          }
          double gb = 0, eigen = 0;
          for (const kiln::bench::LibraryTiming& l : c.libraries) {
            row[l.library + "_s"] = l.seconds;
            double r = c.Ratio(l.library);
            row["vs_" + l.library] = r;
            if (r > 0) ratios[op_name][l.library].push_back(r);
            (l.library == "graphblas" ? gb : eigen) = l.seconds;
          }
          rows.push_back(row);
          std::printf("%-18s %-6s %5lld %-6s %10.4f %8.2f %9.1f %10.4f %7.2f %10.4f %7.2f%s\n",
                      name.c_str(), op_name.c_str(), static_cast<long long>(feat), k.format.c_str(),
                      k.best_seconds * 1e3, gflops, k.tuning_seconds, gb * 1e3,
                      c.Ratio("graphblas"), eigen * 1e3, c.Ratio("eigen"),
                      k.correct ? "" : "  WRONG");
          std::fflush(stdout);
        }
      }
    }
    json summary = json::object();
    for (const auto& [op, libs] : ratios) {
      for (const auto& [lib, values] : libs) {
        double g = Geomean(values);
        summary[op]["geomean_vs_" + lib] = g;
        std::printf("%s: geomean of %s / Kiln over %zu rows: %.3f\n", op.c_str(), lib.c_str(),
                    values.size(), g);
      }
    }
    if (o.json) {
      std::cout << json{{"bench", "sparse"},
                        {"threads", o.threads},
                        {"trials", o.trials},
                        {"summary", summary},
                        {"rows", rows}}
                       .dump()
                << "\n";
    }
  } catch (const kiln::Error& e) {
    std::cerr << "bench_sparse: " << e.what() << "\n";
    return 1;
  }
  // A row whose kernel was not correct fails the run (its figures are not figures).
  if (wrong > 0) std::cerr << "bench_sparse: " << wrong << " rows without a correct kernel\n";
  return wrong > 0 ? 1 : 0;
}
