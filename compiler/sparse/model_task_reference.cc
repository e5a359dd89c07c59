// A model's sparse task's reference from the structure its call passes as constants.
#include "compiler/sparse/model_task_reference.h"

#include <cstdio>

#include "compiler/sparse/sparse_reference_store.h"
#include "compiler/sparse/sparse_workloads.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

namespace {

std::string StringAttr(const ir::PrimFunc& f, const std::string& name) {
  auto it = f->attrs.find(name);
  if (it == f->attrs.end()) return "";
  const auto* s = it->second.as<ir::StringImmNode>();
  return s == nullptr ? "" : s->value;
}

int64_t IntAttr(const ir::PrimFunc& f, const std::string& name) {
  auto it = f->attrs.find(name);
  std::optional<int64_t> v = it == f->attrs.end() ? std::nullopt : ir::AsConstInt(it->second);
  KILN_CHECK(v.has_value(), ErrorKind::kInvalidIR,
             "sparse kernel " + f->name + ": no integer attribute " + name);
  return *v;
}

std::vector<int32_t> Ints(const ir::HostTensor& t, int64_t count) {
  std::vector<int32_t> out;
  for (int64_t i = 0; i < count && i < t.numel(); ++i) {
    out.push_back(static_cast<int32_t>(t.GetInt(i)));
  }
  return out;
}

}  // namespace

bool IsSparseKernel(const ir::PrimFunc& workload) {
  return workload.defined() && workload->attrs.count("kiln.sparse_op") != 0;
}

std::shared_ptr<const runtime::Reference> ModelTaskReference(
    const ir::PrimFunc& workload, const std::map<size_t, ir::HostTensor>& constant_index_args,
    uint64_t seed, const std::string& cache_dir) {
  if (!IsSparseKernel(workload) || StringAttr(workload, "kiln.sparse_format") != "csr") {
    return nullptr;
  }
  auto indptr = constant_index_args.find(0), indices = constant_index_args.find(1);
  if (indptr == constant_index_args.end() || indices == constant_index_args.end()) return nullptr;
  const SparseOp op = ParseSparseOp(StringAttr(workload, "kiln.sparse_op"));
  ir::sparse::CsrMatrix a;
  a.rows = IntAttr(workload, "kiln.sparse_rows");
  a.cols = IntAttr(workload, "kiln.sparse_cols");
  const int64_t nnz = IntAttr(workload, "kiln.sparse_nnz");
  const int64_t feat = IntAttr(workload, "kiln.sparse_feat");
  const std::string where = "sparse kernel " + workload->name + ": ";
  KILN_CHECK(
      indptr->second.numel() == a.rows + 1 && indices->second.numel() >= nnz, ErrorKind::kInvalidIR,
      where + "its constant indptr (" + std::to_string(indptr->second.numel()) + ") and indices (" +
          std::to_string(indices->second.numel()) + ") do not hold the " + std::to_string(a.rows) +
          " rows and " + std::to_string(nnz) + " nonzeros of its attributes");
  a.indptr = Ints(indptr->second, a.rows + 1);
  a.indices = Ints(indices->second, nnz);
  a.values.assign(static_cast<size_t>(nnz), 0.0f);
  std::string problem = a.Check();
  KILN_CHECK(problem.empty(), ErrorKind::kInvalidIR,
             where + "its constant structure is no CSR matrix: " + problem);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(a.StructureHash()));
  KILN_CHECK(StringAttr(workload, "kiln.sparse_structure") == hash, ErrorKind::kInvalidIR,
             where + "its constant structure hashes to " + hash + ", its attribute says " +
                 StringAttr(workload, "kiln.sparse_structure"));
  return SparseReference(workload, ProblemOf(op, a, feat), a, seed, cache_dir);
}

}  // namespace kiln::compiler::sparse
