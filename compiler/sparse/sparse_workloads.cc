// Stage-III CSR SpMM and SDDMM written as TVMScript and parsed, their arguments and the
// expected output from the naive reference.
#include "compiler/sparse/sparse_workloads.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

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

namespace {

std::string HashHex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string CsrWorkloadText(const SparseProblem& p) {
  KILN_CHECK(p.rows > 0 && p.cols > 0, ErrorKind::kUnsupported,
             "sparse " + std::string(SparseOpName(p.op)) + ": a matrix of " +
                 std::to_string(p.rows) + " x " + std::to_string(p.cols) +
                 " has nothing to compute (expected at least one row and one column)");
  const std::string rows = std::to_string(p.rows), cols = std::to_string(p.cols);
  const std::string feat = std::to_string(p.feat);
  const std::string nnz = std::to_string(std::max<int64_t>(p.nnz, 1));
  const std::string rows1 = std::to_string(p.rows + 1);
  const std::string name = std::string("csr_") + SparseOpName(p.op);
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def " << name << "(a_indptr: T.Buffer((" << rows1 << ",), \"int32\"), "
    << "a_indices: T.Buffer((" << nnz << ",), \"int32\"), "
    << "a_data: T.Buffer((" << nnz << ",), \"float32\"), ";
  if (p.op == SparseOp::kSpmm) {
    s << "b: T.Buffer((" << cols << ", " << feat << "), \"float32\"), "
      << "c: T.Buffer((" << rows << ", " << feat << "), \"float32\")):\n";
  } else {
    s << "x: T.Buffer((" << rows << ", " << feat << "), \"float32\"), "
      << "y: T.Buffer((" << cols << ", " << feat << "), \"float32\"), "
      << "out: T.Buffer((" << nnz << ",), \"float32\")):\n";
  }
  s << "    T.func_attr({\"global_symbol\": \"" << name << "\", \"tir.noalias\": True, "
    << "\"kiln.sparse_op\": \"" << SparseOpName(p.op) << "\", \"kiln.sparse_format\": \"csr\", "
    << "\"kiln.sparse_structure\": \"" << HashHex(p.structure_hash) << "\", "
    << "\"kiln.sparse_rows\": " << p.rows << ", \"kiln.sparse_cols\": " << p.cols
    << ", \"kiln.sparse_nnz\": " << p.nnz << ", \"kiln.sparse_feat\": " << p.feat << "})\n";
  const std::string row_start = "a_indptr[vi] + vj";
  if (p.op == SparseOp::kSpmm) {
    s << "    for i in range(" << rows << "):\n"
      << "        for j in range(a_indptr[i + 1] - a_indptr[i]):\n"
      << "            for k in range(" << feat << "):\n"
      << "                with T.block(\"spmm\"):\n"
      << "                    vi = T.axis.spatial(" << rows << ", i)\n"
      << "                    vj = T.axis.reduce(" << nnz << ", j)\n"
      << "                    vk = T.axis.spatial(" << feat << ", k)\n"
      << "                    T.reads(c[vi, vk], a_indptr[vi], a_data[" << row_start
      << "], a_indices[" << row_start << "], b[0:" << cols << ", vk])\n"
      << "                    T.writes(c[vi, vk])\n"
      << "                    with T.init():\n"
      << "                        c[vi, vk] = T.float32(0)\n"
      << "                    c[vi, vk] = c[vi, vk] + a_data[" << row_start << "] * b[a_indices["
      << row_start << "], vk]\n";
  } else {
    s << "    for i in range(" << rows << "):\n"
      << "        for j in range(a_indptr[i + 1] - a_indptr[i]):\n"
      << "            for k in range(" << feat << "):\n"
      << "                with T.block(\"sddmm\"):\n"
      << "                    vi = T.axis.spatial(" << rows << ", i)\n"
      << "                    vj = T.axis.spatial(" << nnz << ", j)\n"
      << "                    vk = T.axis.reduce(" << feat << ", k)\n"
      << "                    T.reads(a_indptr[vi], a_indices[" << row_start << "], x[vi, vk], "
      << "y[0:" << cols << ", vk])\n"
      << "                    T.writes(out[" << row_start << "])\n"
      << "                    with T.init():\n"
      << "                        out[" << row_start << "] = T.float32(0)\n"
      << "                    out[" << row_start << "] = out[" << row_start << "] + x[vi, vk] * "
      << "y[a_indices[" << row_start << "], vk]\n"
      << "    for p in range(" << nnz << "):\n"
      << "        with T.block(\"sddmm_scale\"):\n"
      << "            vp = T.axis.spatial(" << nnz << ", p)\n"
      << "            T.reads(out[vp], a_data[vp])\n"
      << "            T.writes(out[vp])\n"
      << "            out[vp] = out[vp] * a_data[vp]\n";
  }
  return s.str();
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
