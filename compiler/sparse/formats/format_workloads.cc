// The TVMScript text of the BSR, ELL and hyb part SpMM kernels.
#include "compiler/sparse/formats/format_workloads.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "ir/text/parser.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

namespace {

std::string HashHex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string S(int64_t v) { return std::to_string(v); }

void CheckShape(int64_t rows, int64_t cols, int64_t feat, const char* kernel) {
  KILN_CHECK(rows > 0 && cols > 0, ErrorKind::kUnsupported,
             std::string(kernel) + ": a matrix of " + S(rows) + " x " + S(cols) +
                 " has nothing to compute (expected at least one row and one column)");
  KILN_CHECK(feat > 0, ErrorKind::kUnsupported,
             std::string(kernel) + ": feature size " + S(feat) + " (expected >= 1)");
}

// The T.func_attr line shared by every kernel (4-space indent), `extra` appended inside.
std::string Attrs(const std::string& name, const std::string& format, uint64_t structure,
                  int64_t rows, int64_t cols, int64_t nnz, int64_t feat,
                  const std::string& extra = "", const char* op = "spmm") {
  std::ostringstream s;
  s << "    T.func_attr({\"global_symbol\": \"" << name << "\", \"tir.noalias\": True, "
    << "\"kiln.sparse_op\": \"" << op << "\", \"kiln.sparse_format\": \"" << format << "\", "
    << "\"kiln.sparse_structure\": \"" << HashHex(structure) << "\", "
    << "\"kiln.sparse_rows\": " << rows << ", \"kiln.sparse_cols\": " << cols
    << ", \"kiln.sparse_nnz\": " << nnz << ", \"kiln.sparse_feat\": " << feat << extra << "})\n";
  return s.str();
}

// A zeroing nest over c[rows, feat].
std::string InitNest(const std::string& block, int64_t rows, int64_t feat) {
  std::ostringstream s;
  s << "    for i, k in T.grid(" << rows << ", " << feat << "):\n"
    << "        with T.block(\"" << block << "\"):\n"
    << "            vi, vk = T.axis.remap(\"SS\", [i, k])\n"
    << "            T.reads()\n"
    << "            T.writes(c[vi, vk])\n"
    << "            c[vi, vk] = T.float32(0)\n";
  return s.str();
}

}  // namespace

std::string BsrSpmmText(const BsrMatrix& m, int64_t feat) {
  CheckShape(m.rows, m.cols, feat, "bsr_spmm");
  const int64_t br = m.NumBlockRows(), bc = m.NumBlockCols();
  const int64_t R = m.block_rows, C = m.block_cols;
  const std::string blocks = S(std::max<int64_t>(m.Blocks(), 1));
  const std::string brows = S(br), crows = S(br * R), bcols = S(bc * C), f = S(feat);
  const std::string format = "bsr:" + S(R) + ":" + S(C);
  int64_t nnz = 0;
  for (int32_t s : m.source) nnz += s >= 0;
  const std::string block = "bsr_indptr[vi] + vj // " + S(C);
  const std::string col = "vj % " + S(C);
  const std::string crow = "c[vi * " + S(R) + " + vr, vk]";
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def bsr_spmm(bsr_indptr: T.Buffer((" << br + 1 << ",), \"int32\"), "
    << "bsr_indices: T.Buffer((" << blocks << ",), \"int32\"), "
    << "bsr_data: T.Buffer((" << blocks << ", " << R << ", " << C << "), \"float32\"), "
    << "b: T.Buffer((" << bcols << ", " << f << "), \"float32\"), "
    << "c: T.Buffer((" << crows << ", " << f << "), \"float32\")):\n"
    << Attrs("bsr_spmm", format, m.StructureHash(), m.rows, m.cols, nnz, feat)
    << "    for i in range(" << brows << "):\n"
    << "        for r in range(" << R << "):\n"
    << "            for j in range((bsr_indptr[i + 1] - bsr_indptr[i]) * " << C << "):\n"
    << "                for k in range(" << f << "):\n"
    << "                    with T.block(\"bsr_spmm\"):\n"
    << "                        vi = T.axis.spatial(" << brows << ", i)\n"
    << "                        vr = T.axis.spatial(" << R << ", r)\n"
    << "                        vj = T.axis.reduce(" << S(std::max<int64_t>(m.Blocks(), 1) * C)
    << ", j)\n"
    << "                        vk = T.axis.spatial(" << f << ", k)\n"
    << "                        T.reads(bsr_indptr[vi], bsr_indices[" << block << "], bsr_data["
    << block << ", vr, " << col << "], b[0:" << bcols << ", vk])\n"
    << "                        T.writes(" << crow << ")\n"
    << "                        with T.init():\n"
    << "                            " << crow << " = T.float32(0)\n"
    << "                        " << crow << " = " << crow << " + bsr_data[" << block << ", vr, "
    << col << "] * b[bsr_indices[" << block << "] * " << C << " + " << col << ", vk]\n";
  return s.str();
}

std::string BsrSddmmText(const BsrMatrix& m, int64_t feat) {
  CheckShape(m.rows, m.cols, feat, "bsr_sddmm");
  const int64_t br = m.NumBlockRows(), bc = m.NumBlockCols();
  const int64_t R = m.block_rows, C = m.block_cols;
  const std::string blocks = S(std::max<int64_t>(m.Blocks(), 1));
  const std::string brows = S(br), xrows = S(br * R), yrows = S(bc * C), f = S(feat);
  const std::string format = "bsr:" + S(R) + ":" + S(C);
  int64_t nnz = 0;
  for (int32_t s : m.source) nnz += s >= 0;
  const std::string pos = "bsr_indptr[vi] + vj";
  const std::string out = "out[" + pos + ", vr, vc]";
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def bsr_sddmm(bsr_indptr: T.Buffer((" << br + 1 << ",), \"int32\"), "
    << "bsr_indices: T.Buffer((" << blocks << ",), \"int32\"), "
    << "bsr_data: T.Buffer((" << blocks << ", " << R << ", " << C << "), \"float32\"), "
    << "x: T.Buffer((" << xrows << ", " << f << "), \"float32\"), "
    << "y: T.Buffer((" << yrows << ", " << f << "), \"float32\"), "
    << "out: T.Buffer((" << blocks << ", " << R << ", " << C << "), \"float32\")):\n"
    << Attrs("bsr_sddmm", format, m.StructureHash(), m.rows, m.cols, nnz, feat, "", "sddmm")
    << "    for i in range(" << brows << "):\n"
    << "        for j in range(bsr_indptr[i + 1] - bsr_indptr[i]):\n"
    << "            for r, cc, k in T.grid(" << R << ", " << C << ", " << f << "):\n"
    << "                with T.block(\"bsr_sddmm\"):\n"
    << "                    vi = T.axis.spatial(" << brows << ", i)\n"
    << "                    vj = T.axis.spatial(" << blocks << ", j)\n"
    << "                    vr = T.axis.spatial(" << R << ", r)\n"
    << "                    vc = T.axis.spatial(" << C << ", cc)\n"
    << "                    vk = T.axis.reduce(" << f << ", k)\n"
    << "                    T.reads(bsr_indptr[vi], bsr_indices[" << pos << "], x[vi * " << R
    << " + vr, vk], y[0:" << yrows << ", vk])\n"
    << "                    T.writes(" << out << ")\n"
    << "                    with T.init():\n"
    << "                        " << out << " = T.float32(0)\n"
    << "                    " << out << " = " << out << " + x[vi * " << R
    << " + vr, vk] * y[bsr_indices[" << pos << "] * " << C << " + vc, vk]\n"
    << "    for p, r, cc in T.grid(" << blocks << ", " << R << ", " << C << "):\n"
    << "        with T.block(\"bsr_sddmm_scale\"):\n"
    << "            vp, vr, vc = T.axis.remap(\"SSS\", [p, r, cc])\n"
    << "            T.reads(out[vp, vr, vc], bsr_data[vp, vr, vc])\n"
    << "            T.writes(out[vp, vr, vc])\n"
    << "            out[vp, vr, vc] = out[vp, vr, vc] * bsr_data[vp, vr, vc]\n";
  return s.str();
}

std::string EllSpmmText(const EllMatrix& m, int64_t feat) {
  CheckShape(m.rows, m.cols, feat, "ell_spmm");
  const std::string rows = S(m.rows), cols = S(m.cols), w = S(m.width), f = S(feat);
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def ell_spmm(ell_indices: T.Buffer((" << rows << ", " << w << "), \"int32\"), "
    << "ell_data: T.Buffer((" << rows << ", " << w << "), \"float32\"), "
    << "b: T.Buffer((" << cols << ", " << f << "), \"float32\"), "
    << "c: T.Buffer((" << rows << ", " << f << "), \"float32\")):\n"
    << Attrs("ell_spmm", "ell:" + w, m.StructureHash(), m.rows, m.cols, m.Nnz(), feat)
    << "    for i, j, k in T.grid(" << rows << ", " << w << ", " << f << "):\n"
    << "        with T.block(\"ell_spmm\"):\n"
    << "            vi, vj, vk = T.axis.remap(\"SRS\", [i, j, k])\n"
    << "            T.reads(ell_data[vi, vj], ell_indices[vi, vj], b[0:" << cols << ", vk])\n"
    << "            T.writes(c[vi, vk])\n"
    << "            with T.init():\n"
    << "                c[vi, vk] = T.float32(0)\n"
    << "            c[vi, vk] = c[vi, vk] + ell_data[vi, vj] * b[ell_indices[vi, vj], vk]\n";
  return s.str();
}

std::string HybPartSpmmText(const HybMatrix& hyb, const HybPart& part, bool first_part,
                            int64_t feat) {
  const EllMatrix& m = part.ell;
  const std::string name = "hyb_spmm_p" + S(part.partition) + "_w" + S(m.width);
  CheckShape(hyb.rows, hyb.cols, feat, name.c_str());
  const std::string n = S(std::max<int64_t>(m.StoredRows(), 1)), w = S(m.width);
  const std::string rows = S(hyb.rows), cols = S(hyb.cols), f = S(feat);
  const std::string format = "hyb:" + S(hyb.partitions) + ":" + S(hyb.buckets);
  std::string extra = ", \"kiln.sparse_part\": \"partition " + S(part.partition) + " columns [" +
                      S(part.col_begin) + ", " + S(part.col_end) + "), width " + w +
                      (first_part ? ", zeroes C" : ", adds to C") + "\"";
  if (m.rows_repeat) extra += ", \"kiln.sparse_rows_repeat\": 1";
  const std::string crow = "c[row_index[vi], vk]";
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def " << name << "(row_index: T.Buffer((" << n << ",), \"int32\"), "
    << "part_indices: T.Buffer((" << n << ", " << w << "), \"int32\"), "
    << "part_data: T.Buffer((" << n << ", " << w << "), \"float32\"), "
    << "b: T.Buffer((" << cols << ", " << f << "), \"float32\"), "
    << "c: T.Buffer((" << rows << ", " << f << "), \"float32\")):\n"
    << Attrs(name, format, m.StructureHash(), hyb.rows, hyb.cols, m.Nnz(), feat, extra);
  if (first_part) s << InitNest("hyb_init", hyb.rows, feat);
  s << "    for i, j, k in T.grid(" << n << ", " << w << ", " << f << "):\n"
    << "        with T.block(\"hyb_spmm\"):\n"
    << "            vi, vj, vk = T.axis.remap(\"SRS\", [i, j, k])\n"
    << "            T.reads(" << crow << ", row_index[vi], part_data[vi, vj], "
    << "part_indices[vi, vj], b[0:" << cols << ", vk])\n"
    << "            T.writes(" << crow << ")\n"
    << "            " << crow << " = " << crow
    << " + part_data[vi, vj] * b[part_indices[vi, vj], vk]\n";
  return s.str();
}

ir::PrimFunc ParseFormatWorkload(const std::string& text) {
  return ir::ParsePrimFunc(text, "<sparse format workload>");
}

}  // namespace kiln::compiler::sparse
