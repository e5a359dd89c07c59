// The stage-III CSR kernels' TVMScript text.
#include "ir/sparse/csr_kernel_text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "support/error.h"

namespace kiln::ir::sparse {

namespace {

const char* OpName(CsrKernelOp op) { return op == CsrKernelOp::kSpmm ? "spmm" : "sddmm"; }

std::string HashHex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string CsrKernelText(const CsrKernelShape& p) {
  KILN_CHECK(p.rows > 0 && p.cols > 0, ErrorKind::kUnsupported,
             std::string("sparse ") + OpName(p.op) + ": a matrix of " + std::to_string(p.rows) +
                 " x " + std::to_string(p.cols) +
                 " has nothing to compute (expected at least one row and one column)");
  KILN_CHECK(p.feat > 0, ErrorKind::kUnsupported,
             std::string("sparse ") + OpName(p.op) + ": feature size " + std::to_string(p.feat) +
                 " (expected at least 1)");
  const std::string rows = std::to_string(p.rows), cols = std::to_string(p.cols);
  const std::string feat = std::to_string(p.feat);
  const std::string nnz = std::to_string(std::max<int64_t>(p.nnz, 1));
  const std::string rows1 = std::to_string(p.rows + 1);
  const std::string name = std::string("csr_") + OpName(p.op);
  // A multiply-add per (nonzero, feature); SDDMM scales each nonzero once more.
  const int64_t flops = 2 * p.nnz * p.feat + (p.op == CsrKernelOp::kSddmm ? p.nnz : 0);
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def " << name << "(a_indptr: T.Buffer((" << rows1 << ",), \"int32\"), "
    << "a_indices: T.Buffer((" << nnz << ",), \"int32\"), "
    << "a_data: T.Buffer((" << nnz << ",), \"float32\"), ";
  if (p.op == CsrKernelOp::kSpmm) {
    s << "b: T.Buffer((" << cols << ", " << feat << "), \"float32\"), "
      << "c: T.Buffer((" << rows << ", " << feat << "), \"float32\")):\n";
  } else {
    s << "x: T.Buffer((" << rows << ", " << feat << "), \"float32\"), "
      << "y: T.Buffer((" << cols << ", " << feat << "), \"float32\"), "
      << "out: T.Buffer((" << nnz << ",), \"float32\")):\n";
  }
  s << "    T.func_attr({\"global_symbol\": \"" << name << "\", \"tir.noalias\": True, "
    << "\"kiln.sparse_op\": \"" << OpName(p.op) << "\", \"kiln.sparse_format\": \"csr\", "
    << "\"kiln.sparse_structure\": \"" << HashHex(p.structure_hash) << "\", "
    << "\"kiln.sparse_rows\": " << p.rows << ", \"kiln.sparse_cols\": " << p.cols
    << ", \"kiln.sparse_nnz\": " << p.nnz << ", \"kiln.sparse_feat\": " << p.feat
    << ", \"kiln.sparse_row_offsets\": \"a_indptr\", \"kiln.sparse_flops\": " << flops << "})\n";
  const std::string row_start = "a_indptr[vi] + vj";
  if (p.op == CsrKernelOp::kSpmm) {
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

}  // namespace kiln::ir::sparse
