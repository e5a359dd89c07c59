// Block-sparse attention's three stage-III kernels parsed from the shared text
// (ir/sparse/attention_kernel_text.h), their seeded arguments, and the expected outputs from the
// naive reference.
#include "compiler/sparse/attention_workloads.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <optional>

#include "compiler/sparse/attention_reference.h"
#include "compiler/sparse/sparse_reference_store.h"
#include "ir/sparse/attention_kernel_text.h"
#include "ir/text/parser.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

using ir::DataType;
using ir::HostTensor;

float AttentionProblem::Scale() const {
  return scale != 0 ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
}

void CheckAttentionProblem(const AttentionProblem& p) {
  KILN_CHECK(p.heads >= 1 && p.head_dim >= 1, ErrorKind::kUnsupported,
             "block-sparse attention: " + std::to_string(p.heads) + " heads of dimension " +
                 std::to_string(p.head_dim) + " (expected at least 1 of each)");
  KILN_CHECK(p.mask.block >= 1 && p.mask.NumBlockRows() >= 1, ErrorKind::kUnsupported,
             "block-sparse attention: the mask has no block (build it with MaskFromLayout)");
  const int64_t limit = (int64_t{1} << 31) - 1;
  KILN_CHECK(
      p.heads * p.mask.SeqLen() * p.head_dim <= limit && p.heads * p.mask.TokenNnz() <= limit,
      ErrorKind::kUnsupported,
      "block-sparse attention: " + std::to_string(p.heads) + " heads over " +
          std::to_string(p.mask.SeqLen()) + " tokens exceed 32-bit offsets");
}

namespace {

ir::sparse::AttentionKernelShape ShapeOf(const AttentionProblem& p, AttentionStage stage,
                                         bool gpu) {
  ir::sparse::AttentionKernelShape s;
  s.stage = stage;
  s.heads = p.heads;
  s.head_dim = p.head_dim;
  s.block = p.mask.block;
  s.block_rows = p.mask.NumBlockRows();
  s.blocks = p.mask.Blocks();
  s.structure_hash = p.mask.StructureHash();
  s.scale = p.Scale();
  s.gpu = gpu;
  return s;
}

HostTensor IntTensor(const std::vector<int32_t>& values) {
  HostTensor t(DataType::Int(32), {static_cast<int64_t>(values.size())});
  std::memcpy(t.data(), values.data(), values.size() * sizeof(int32_t));
  return t;
}

HostTensor FloatTensor(const std::vector<float>& values, std::vector<int64_t> shape) {
  HostTensor t(DataType::Float(32), std::move(shape));
  KILN_CHECK(static_cast<int64_t>(values.size()) == t.numel(), ErrorKind::kInternal,
             "attention arguments: " + std::to_string(values.size()) + " values for a tensor of " +
                 std::to_string(t.numel()));
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

std::vector<float> Floats(const HostTensor& t) {
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + t.numel());
}

}  // namespace

double AttentionFlops(const AttentionProblem& problem, AttentionStage stage) {
  return ir::sparse::AttentionKernelFlops(ShapeOf(problem, stage, false));
}

std::string AttentionKernelText(const AttentionProblem& problem, AttentionStage stage, bool gpu) {
  CheckAttentionProblem(problem);
  return ir::sparse::AttentionKernelText(ShapeOf(problem, stage, gpu));
}

ir::PrimFunc AttentionWorkload(const AttentionProblem& problem, AttentionStage stage, bool gpu) {
  return ir::ParsePrimFunc(AttentionKernelText(problem, stage, gpu), "<attention workload>");
}

std::vector<AttentionKernelCase> AttentionKernelCases(const AttentionProblem& p, uint64_t seed,
                                                      bool gpu) {
  CheckAttentionProblem(p);
  const AttentionMask& m = p.mask;
  const int64_t HL = p.heads * m.SeqLen(), D = p.head_dim, b = m.block;
  const std::vector<int64_t> score_shape = {p.heads, std::max<int64_t>(m.Blocks(), 1), b, b};
  const HostTensor q = HostTensor::Random(DataType::Float(32), {HL, D}, seed * 8 + 1);
  const HostTensor k = HostTensor::Random(DataType::Float(32), {HL, D}, seed * 8 + 2);
  const HostTensor v = HostTensor::Random(DataType::Float(32), {HL, D}, seed * 8 + 3);
  const NaiveAttention naive =
      NaiveBlockSparseAttention(m, p.heads, D, p.Scale(), Floats(q), Floats(k), Floats(v));
  const HostTensor indptr = IntTensor(m.layout.indptr), indices = IntTensor(m.layout.indices);
  std::vector<AttentionKernelCase> cases;

  AttentionKernelCase sddmm;
  sddmm.stage = AttentionStage::kSddmm;
  sddmm.workload = AttentionWorkload(p, sddmm.stage, gpu);
  sddmm.args = {indptr, indices, q, k,
                HostTensor::Random(DataType::Float(32), score_shape, seed * 8 + 5)};
  sddmm.output_param = 4;
  sddmm.expected = FloatTensor(naive.scores, score_shape);
  sddmm.flops = AttentionFlops(p, sddmm.stage);
  cases.push_back(std::move(sddmm));

  AttentionKernelCase softmax;
  softmax.stage = AttentionStage::kSoftmax;
  softmax.workload = AttentionWorkload(p, softmax.stage, gpu);
  softmax.args = {indptr, FloatTensor(naive.scores, score_shape),
                  HostTensor::Random(DataType::Float(32), score_shape, seed * 8 + 5)};
  softmax.output_param = 2;
  softmax.expected = FloatTensor(naive.probs, score_shape);
  softmax.flops = AttentionFlops(p, softmax.stage);
  cases.push_back(std::move(softmax));

  AttentionKernelCase spmm;
  spmm.stage = AttentionStage::kSpmm;
  spmm.workload = AttentionWorkload(p, spmm.stage, gpu);
  spmm.args = {indptr, indices, FloatTensor(naive.probs, score_shape), v,
               HostTensor::Random(DataType::Float(32), {HL, D}, seed * 8 + 5)};
  spmm.output_param = 4;
  spmm.expected = FloatTensor(naive.out, {HL, D});
  spmm.flops = AttentionFlops(p, spmm.stage);
  cases.push_back(std::move(spmm));
  return cases;
}

std::vector<SparseKernel> AttentionKernels(const AttentionProblem& problem, uint64_t seed,
                                           const std::string& cache_dir, bool gpu) {
  CheckAttentionProblem(problem);
  // The naive attention runs only when a reference is not stored yet (once for all three).
  std::optional<std::vector<AttentionKernelCase>> cases;
  std::vector<SparseKernel> kernels;
  for (size_t i = 0; i < std::size(kAttentionStages); ++i) {
    const AttentionStage stage = kAttentionStages[i];
    SparseKernel k;
    k.name = AttentionKernelName(stage);
    k.format =
        "bsr:" + std::to_string(problem.mask.block) + ":" + std::to_string(problem.mask.block);
    k.workload = AttentionWorkload(problem, stage, gpu);
    k.reference = StoredReference(k.workload, seed, cache_dir, [&] {
      if (!cases) cases = AttentionKernelCases(problem, seed, gpu);
      const AttentionKernelCase& c = (*cases)[i];
      GivenCall call;
      call.args = c.args;
      call.output_param = c.output_param;
      call.expected = c.expected;
      call.source = std::string("naive block-sparse attention (double accumulation), ") + k.name;
      return call;
    });
    k.nnz = problem.heads * problem.mask.TokenNnz();
    k.stored = k.nnz;
    k.flops = AttentionFlops(problem, stage);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace kiln::compiler::sparse
