// A sparse workload's reference: made from the naive CSR kernel, saved, and loaded back
// file-backed so that every candidate's run reads the same input files.
#include "compiler/sparse/sparse_reference_store.h"

#include <cstdio>
#include <filesystem>

#include "ir/structural.h"
#include "runtime/cpu_builder.h"
#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::compiler::sparse {

namespace fs = std::filesystem;

std::shared_ptr<const runtime::Reference> StoredReference(const ir::PrimFunc& workload,
                                                          uint64_t seed,
                                                          const std::string& cache_dir,
                                                          const std::function<GivenCall()>& make) {
  StableHasher h;
  h.String("kiln-sparse-reference-v2");
  h.Int(static_cast<int64_t>(ir::StructuralHash(workload)));
  h.Int(static_cast<int64_t>(seed));
  const uint64_t key = h.value();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  const std::string dir = (fs::path(cache_dir.empty() ? runtime::DefaultCacheDir() : cache_dir) /
                           "references" / (std::string("sparse-") + hex))
                              .string();
  const std::string hash = ir::StructuralHashHex(workload);

  std::error_code ec;
  if (fs::exists(fs::path(dir) / "meta.json", ec)) {
    try {
      std::shared_ptr<runtime::Reference> loaded = runtime::LoadReference(dir);
      if (loaded->workload_hash == hash && loaded->seed == seed) {
        loaded->key = key;
        return loaded;
      }
    } catch (const Error&) {
      // Unusable: made again below.
    }
    fs::remove_all(dir, ec);
  }

  GivenCall call = make();
  KILN_CHECK(call.args.size() == workload->params.size() && call.output_param < call.args.size(),
             ErrorKind::kInternal,
             workload->name + ": a given call of " + std::to_string(call.args.size()) +
                 " arguments for " + std::to_string(workload->params.size()) + " parameters");
  runtime::Reference reference;
  reference.key = key;
  reference.workload_hash = hash;
  reference.seed = seed;
  reference.source = call.source;
  for (size_t i = 0; i < call.args.size(); ++i) {
    runtime::ReferenceParam p;
    p.name = (*workload->BufferOf(workload->params[i]))->name;
    p.written = i == call.output_param;
    p.expected = p.written ? call.expected : call.args[i];
    p.input = runtime::ArgSpec::Tensor(std::move(call.args[i]));
    reference.params.push_back(std::move(p));
  }
  runtime::SaveReference(reference, dir);
  std::shared_ptr<runtime::Reference> loaded = runtime::LoadReference(dir);
  loaded->key = key;
  return loaded;
}

std::shared_ptr<const runtime::Reference> SparseReference(const ir::PrimFunc& workload,
                                                          const SparseProblem& problem,
                                                          const ir::sparse::CsrMatrix& a,
                                                          uint64_t seed,
                                                          const std::string& cache_dir) {
  return StoredReference(workload, seed, cache_dir, [&] {
    GivenCall call;
    call.args = CsrArguments(problem, a, seed);
    call.expected = CsrExpectedOutput(problem, a, call.args);
    call.output_param = CsrOutputParam(problem.op);
    call.source = "naive CSR " + std::string(SparseOpName(problem.op)) + " (double accumulation)";
    return call;
  });
}

}  // namespace kiln::compiler::sparse
