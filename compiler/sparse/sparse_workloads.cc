// Stage-III CSR SpMM and SDDMM (ir/sparse/csr_kernel_text.h) parsed, their arguments and the
// expected output from the naive reference.
#include "compiler/sparse/sparse_workloads.h"

#include <algorithm>
#include <cstring>

#include "ir/sparse/csr_kernel_text.h"
#include "ir/sparse/sparse_reference.h"
#include "ir/text/parser.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

using ir::DataType;
using ir::HostTensor;
using ir::sparse::CsrMatrix;

const char* SparseOpName(SparseOp op) { return op == SparseOp::kSpmm ? "spmm" : "sddmm"; }

SparseOp ParseSparseOp(const std::string& name) {
  if (name == "spmm") return SparseOp::kSpmm;
  if (name == "sddmm") return SparseOp::kSddmm;
  throw Error(ErrorKind::kParse, "sparse op '" + name + "': expected spmm or sddmm");
}

double SparseProblem::Flops() const {
  double mul_add = 2.0 * static_cast<double>(nnz) * static_cast<double>(feat);
  return op == SparseOp::kSpmm ? mul_add : mul_add + static_cast<double>(nnz);
}

SparseProblem ProblemOf(SparseOp op, const CsrMatrix& a, int64_t feat) {
  KILN_CHECK(feat > 0, ErrorKind::kParse,
             "feature size " + std::to_string(feat) + ": expected a positive number");
  std::string problem = a.Check();
  KILN_CHECK(problem.empty(), ErrorKind::kType, "sparse matrix: " + problem);
  if (op == SparseOp::kSpmm) {
    for (int64_t r = 0; r < a.rows; ++r) {
      KILN_CHECK(a.RowLength(r) > 0, ErrorKind::kType,
                 "sparse spmm: row " + std::to_string(r) +
                     " has no nonzero; the kernel takes a matrix with none empty (PadEmptyRows)");
    }
  }
  return {op, a.rows, a.cols, a.nnz(), feat, a.StructureHash()};
}

CsrMatrix PadEmptyRows(const CsrMatrix& a) {
  if (a.cols == 0) return a;
  CsrMatrix out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.indptr.reserve(a.indptr.size());
  out.indptr.push_back(0);
  for (int64_t r = 0; r < a.rows; ++r) {
    if (a.RowLength(r) == 0) {
      out.indices.push_back(0);
      out.values.push_back(0.0f);
    } else {
      out.indices.insert(out.indices.end(), a.indices.begin() + a.indptr[r],
                         a.indices.begin() + a.indptr[r + 1]);
      out.values.insert(out.values.end(), a.values.begin() + a.indptr[r],
                        a.values.begin() + a.indptr[r + 1]);
    }
    out.indptr.push_back(static_cast<int32_t>(out.indices.size()));
  }
  return out;
}

std::string CsrWorkloadText(const SparseProblem& p) {
  return ir::sparse::CsrKernelText(
      {p.op == SparseOp::kSpmm ? ir::sparse::CsrKernelOp::kSpmm : ir::sparse::CsrKernelOp::kSddmm,
       p.rows, p.cols, p.nnz, p.feat, p.structure_hash});
}

ir::PrimFunc CsrWorkload(const SparseProblem& problem) {
  return ir::ParsePrimFunc(CsrWorkloadText(problem), "<sparse workload>");
}

namespace {

HostTensor Int32Tensor(const std::vector<int32_t>& values, int64_t min_size) {
  HostTensor t(DataType::Int(32),
               {std::max<int64_t>(static_cast<int64_t>(values.size()), min_size)});
  if (!values.empty()) std::memcpy(t.data(), values.data(), values.size() * sizeof(int32_t));
  return t;
}

std::vector<float> Floats(const HostTensor& t, int64_t count) {
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + count);
}

}  // namespace

std::vector<HostTensor> CsrArguments(const SparseProblem& p, const CsrMatrix& a, uint64_t seed) {
  KILN_CHECK(a.StructureHash() == p.structure_hash, ErrorKind::kType,
             "sparse arguments: the matrix is not the one the workload was made for");
  const int64_t nnz = std::max<int64_t>(p.nnz, 1);
  std::vector<HostTensor> args;
  args.push_back(Int32Tensor(a.indptr, p.rows + 1));
  args.push_back(Int32Tensor(a.indices, 1));
  args.push_back(HostTensor::Random(DataType::Float(32), {nnz}, seed * 8 + 1));
  if (p.op == SparseOp::kSpmm) {
    args.push_back(HostTensor::Random(DataType::Float(32), {p.cols, p.feat}, seed * 8 + 2));
    args.push_back(HostTensor(DataType::Float(32), {p.rows, p.feat}));
  } else {
    args.push_back(HostTensor::Random(DataType::Float(32), {p.rows, p.feat}, seed * 8 + 3));
    args.push_back(HostTensor::Random(DataType::Float(32), {p.cols, p.feat}, seed * 8 + 4));
    args.push_back(HostTensor(DataType::Float(32), {nnz}));
  }
  return args;
}

HostTensor CsrExpectedOutput(const SparseProblem& p, const CsrMatrix& a,
                             const std::vector<HostTensor>& args) {
  CsrMatrix valued = a;
  valued.values = Floats(args[2], p.nnz);
  std::vector<float> result;
  if (p.op == SparseOp::kSpmm) {
    result = ir::sparse::ReferenceSpmm(valued, Floats(args[3], p.cols * p.feat), p.feat);
  } else {
    result = ir::sparse::ReferenceSddmm(valued, Floats(args[3], p.rows * p.feat),
                                        Floats(args[4], p.cols * p.feat), p.feat);
  }
  HostTensor out = args[CsrOutputParam(p.op)].Clone();
  if (!result.empty()) std::memcpy(out.data(), result.data(), result.size() * sizeof(float));
  return out;
}

}  // namespace kiln::compiler::sparse
