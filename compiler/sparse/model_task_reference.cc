// A model's sparse task's reference from the structure its call passes as constants.
#include "compiler/sparse/model_task_reference.h"

#include <cstdio>
#include <iterator>

#include "compiler/sparse/attention_workloads.h"
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

std::string HashText(uint64_t h) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(h));
  return hash;
}

// A block-sparse attention kernel's reference: the naive attention (attention_reference.h)
// over the mask its call passes, its stage's case of AttentionKernelCases. The softmax gets
// only the mask's indptr, which is all it reads: its mask takes each block row's first block
// columns, and its scores are the naive ones over that mask.
std::shared_ptr<const runtime::Reference> AttentionTaskReference(
    const ir::PrimFunc& workload, const std::map<size_t, ir::HostTensor>& constant_index_args,
    uint64_t seed, const std::string& cache_dir) {
  const std::string op = StringAttr(workload, "kiln.sparse_op");
  size_t stage = 0;
  while (stage < std::size(kAttentionStages) &&
         op != AttentionKernelName(kAttentionStages[stage])) {
    ++stage;
  }
  if (stage == std::size(kAttentionStages)) return nullptr;
  const bool softmax = kAttentionStages[stage] == AttentionStage::kSoftmax;
  auto indptr = constant_index_args.find(0), indices = constant_index_args.find(1);
  if (indptr == constant_index_args.end()) return nullptr;
  if (!softmax && indices == constant_index_args.end()) return nullptr;
  const std::string where = "attention kernel " + workload->name + ": ";
  const int64_t seq_len = IntAttr(workload, "kiln.sparse_rows");
  const int64_t block = IntAttr(workload, "kiln.attention_block");
  KILN_CHECK(block >= 1 && seq_len % block == 0, ErrorKind::kInvalidIR,
             where + std::to_string(seq_len) + " tokens in blocks of " + std::to_string(block));
  const int64_t block_rows = seq_len / block;
  const int64_t blocks = IntAttr(workload, "kiln.sparse_nnz") / (block * block);
  KILN_CHECK(
      indptr->second.numel() == block_rows + 1 && (softmax || indices->second.numel() >= blocks),
      ErrorKind::kInvalidIR,
      where + "its constant mask indptr (" + std::to_string(indptr->second.numel()) +
          ") and indices do not hold the " + std::to_string(block_rows) + " block rows and " +
          std::to_string(blocks) + " blocks of its attributes");
  ir::sparse::CsrMatrix layout;
  layout.rows = layout.cols = block_rows;
  layout.indptr = Ints(indptr->second, block_rows + 1);
  if (softmax) {
    for (int64_t r = 0; r < block_rows; ++r) {
      for (int32_t c = 0; c < layout.indptr[r + 1] - layout.indptr[r]; ++c) {
        layout.indices.push_back(c);
      }
    }
  } else {
    layout.indices = Ints(indices->second, blocks);
  }
  layout.values.assign(layout.indices.size(), 1.0f);
  KILN_CHECK(static_cast<int64_t>(layout.indices.size()) == blocks, ErrorKind::kInvalidIR,
             where + "its constant mask indptr holds " + std::to_string(layout.indices.size()) +
                 " blocks, its attributes say " + std::to_string(blocks));
  std::string problem_text = layout.Check();
  KILN_CHECK(problem_text.empty(), ErrorKind::kInvalidIR,
             where + "its constant mask is no block layout: " + problem_text);
  AttentionProblem problem;
  problem.mask = MaskFromLayout(layout, block, "the mask of " + workload->name);
  if (!softmax) {
    const std::string hash = HashText(problem.mask.StructureHash());
    KILN_CHECK(StringAttr(workload, "kiln.sparse_structure") == hash, ErrorKind::kInvalidIR,
               where + "its constant mask hashes to " + hash + ", its attribute says " +
                   StringAttr(workload, "kiln.sparse_structure"));
  }
  problem.heads = IntAttr(workload, "kiln.attention_heads");
  problem.head_dim = IntAttr(workload, "kiln.sparse_feat");
  const std::string scale = StringAttr(workload, "kiln.attention_scale");
  KILN_CHECK(!scale.empty(), ErrorKind::kInvalidIR,
             where + "no attribute kiln.attention_scale (the SDDMM's scale)");
  problem.scale = std::stof(scale);
  return StoredReference(workload, seed, cache_dir, [&] {
    AttentionKernelCase c = std::move(AttentionKernelCases(problem, seed)[stage]);
    GivenCall call;
    call.args = std::move(c.args);
    call.output_param = c.output_param;
    call.expected = std::move(c.expected);
    call.source = "naive block-sparse attention over the model's mask (double accumulation), " + op;
    return call;
  });
}

}  // namespace

bool IsSparseKernel(const ir::PrimFunc& workload) {
  return workload.defined() && workload->attrs.count("kiln.sparse_op") != 0;
}

std::shared_ptr<const runtime::Reference> ModelTaskReference(
    const ir::PrimFunc& workload, const std::map<size_t, ir::HostTensor>& constant_index_args,
    uint64_t seed, const std::string& cache_dir) {
  if (!IsSparseKernel(workload)) return nullptr;
  if (StringAttr(workload, "kiln.sparse_format").rfind("bsr:", 0) == 0) {
    return AttentionTaskReference(workload, constant_index_args, seed, cache_dir);
  }
  if (StringAttr(workload, "kiln.sparse_format") != "csr") return nullptr;
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
  const std::string hash = HashText(a.StructureHash());
  KILN_CHECK(StringAttr(workload, "kiln.sparse_structure") == hash, ErrorKind::kInvalidIR,
             where + "its constant structure hashes to " + hash + ", its attribute says " +
                 StringAttr(workload, "kiln.sparse_structure"));
  return SparseReference(workload, ProblemOf(op, a, feat), a, seed, cache_dir);
}

}  // namespace kiln::compiler::sparse
