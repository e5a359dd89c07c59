// Block-sparse attention's three stage-III kernels written as TVMScript.
#include "ir/sparse/attention_kernel_text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::ir::sparse {

const char* AttentionKernelName(AttentionStage stage) {
  switch (stage) {
    case AttentionStage::kSddmm:
      return "attention_sddmm";
    case AttentionStage::kSoftmax:
      return "attention_softmax";
    case AttentionStage::kSpmm:
      return "attention_spmm";
  }
  return "attention";
}

uint64_t AttentionStructureHash(const CsrMatrix& layout, int64_t block) {
  StableHasher h;
  h.String("kiln-attention-mask");
  h.Int(static_cast<int64_t>(layout.StructureHash()));
  h.Int(block);
  return h.value();
}

double AttentionKernelFlops(const AttentionKernelShape& p) {
  const double nnz = static_cast<double>(p.heads * p.blocks * p.block * p.block);
  const double d = static_cast<double>(p.head_dim);
  switch (p.stage) {
    case AttentionStage::kSddmm:
      return nnz * (2 * d + 1);  // the dot products and the scaling
    case AttentionStage::kSoftmax:
      return nnz * 7;  // max; subtract, exp, add; subtract, exp, divide
    case AttentionStage::kSpmm:
      return nnz * 2 * d;
  }
  return 0;
}

std::string AttentionScaleLiteral(float scale) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(scale));
  return buf;
}

namespace {

std::string S(int64_t v) { return std::to_string(v); }

std::string HashHex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The names every kernel's text shares.
struct Names {
  std::string L, b, H, D, HL, blocks, row_extent_bound;
  std::string block_row;  // the token row's block row, from vt
  std::string pos;        // the stored block of the row's nonzero vj
  std::string score;      // S[h, pos, r, c] of (vt, vj), in buffer `s`
  std::string extent;     // the row's nonzeros, from the loop variable t
  // The same by whole blocks: block jb of the row, column vc of the block.
  std::string block_pos, block_score, block_extent;
};

Names NamesOf(const AttentionKernelShape& p) {
  Names n;
  const int64_t L = p.block_rows * p.block, b = p.block;
  const int64_t blocks = std::max<int64_t>(p.blocks, 1);
  n.L = S(L);
  n.b = S(b);
  n.H = S(p.heads);
  n.D = S(p.head_dim);
  n.HL = S(p.heads * L);
  n.blocks = S(blocks);
  n.row_extent_bound = S(blocks * b);
  n.block_row = "vt % " + n.L + " // " + n.b;
  n.pos = "mask_indptr[" + n.block_row + "] + vj // " + n.b;
  n.score = "[vt // " + n.L + ", " + n.pos + ", vt % " + n.b + ", vj % " + n.b + "]";
  const std::string row = "t % " + n.L + " // " + n.b;
  n.extent = "(mask_indptr[" + row + " + 1] - mask_indptr[" + row + "]) * " + n.b;
  n.block_pos = "mask_indptr[" + n.block_row + "] + vjb";
  n.block_score = "[vt // " + n.L + ", " + n.block_pos + ", vt % " + n.b + ", vc]";
  n.block_extent = "mask_indptr[" + row + " + 1] - mask_indptr[" + row + "]";
  return n;
}

std::string Header(const AttentionKernelShape& p, const std::string& params) {
  const std::string name = AttentionKernelName(p.stage);
  const int64_t L = p.block_rows * p.block;
  std::ostringstream s;
  s << "@T.prim_func\n"
    << "def " << name << "(" << params << "):\n"
    << "    T.func_attr({\"global_symbol\": \"" << name << "\", \"tir.noalias\": True, "
    << "\"kiln.sparse_op\": \"" << name << "\", \"kiln.sparse_format\": \"bsr:" << p.block << ":"
    << p.block << "\", \"kiln.sparse_structure\": \"" << HashHex(p.structure_hash)
    << "\", \"kiln.sparse_rows\": " << L << ", \"kiln.sparse_cols\": " << L
    << ", \"kiln.sparse_nnz\": " << p.blocks * p.block * p.block
    << ", \"kiln.sparse_feat\": " << p.head_dim << ", \"kiln.attention_heads\": " << p.heads
    << ", \"kiln.attention_block\": " << p.block << ", \"kiln.attention_scale\": \""
    << AttentionScaleLiteral(p.scale)
    << "\", \"kiln.sparse_flops\": " << static_cast<int64_t>(AttentionKernelFlops(p)) << "})\n";
  return s.str();
}

std::string Buf(const std::string& name, const std::string& shape, const char* dtype) {
  return name + ": T.Buffer((" + shape + "), \"" + dtype + "\")";
}

// On a GPU the nonzero loop is one loop over the row's blocks times b, so that "sparse-gpu"
// gives each nonzero a thread; on the CPU it is (block of the row, column of the block), which
// spares a division and a remainder per nonzero and reads the block's key index once per block.
std::string SddmmText(const AttentionKernelShape& p) {
  const bool gpu = p.gpu;
  const Names n = NamesOf(p);
  const std::string sblocks = n.H + ", " + n.blocks + ", " + n.b + ", " + n.b;
  const std::string out = "s" + (gpu ? n.score : n.block_score);
  const std::string pos = gpu ? n.pos : n.block_pos;
  const std::string col = gpu ? "vj % " + n.b : "vc";
  const std::string key_row =
      "vt // " + n.L + " * " + n.L + " + mask_indices[" + pos + "] * " + n.b + " + " + col;
  std::ostringstream s;
  s << Header(p, Buf("mask_indptr", S(p.block_rows + 1) + ",", "int32") + ", " +
                     Buf("mask_indices", n.blocks + ",", "int32") + ", " +
                     Buf("q", n.HL + ", " + n.D, "float32") + ", " +
                     Buf("k", n.HL + ", " + n.D, "float32") + ", " + Buf("s", sblocks, "float32"))
    << "    for t in range(" << n.HL << "):\n";
  const std::string pad = gpu ? "" : "    ";
  if (gpu) {
    s << "        for j in range(" << n.extent << "):\n";
  } else {
    s << "        for jb in range(" << n.block_extent << "):\n"
      << "            for c in range(" << n.b << "):\n";
  }
  s << pad << "            for d in range(" << n.D << "):\n"
    << pad << "                with T.block(\"attention_sddmm\"):\n"
    << pad << "                    vt = T.axis.spatial(" << n.HL << ", t)\n";
  if (gpu) {
    s << "                    vj = T.axis.spatial(" << n.row_extent_bound << ", j)\n";
  } else {
    s << "                        vjb = T.axis.spatial(" << n.blocks << ", jb)\n"
      << "                        vc = T.axis.spatial(" << n.b << ", c)\n";
  }
  s << pad << "                    vd = T.axis.reduce(" << n.D << ", d)\n"
    << pad << "                    T.reads(mask_indptr[" << n.block_row << "], mask_indices[" << pos
    << "], q[vt, vd], k[0:" << n.HL << ", vd])\n"
    << pad << "                    T.writes(" << out << ")\n"
    << pad << "                    with T.init():\n"
    << pad << "                        " << out << " = T.float32(0)\n"
    << pad << "                    " << out << " = " << out << " + q[vt, vd] * k[" << key_row
    << ", vd]\n"
    << "    for h, p, r, c in T.grid(" << sblocks << "):\n"
    << "        with T.block(\"attention_scale\"):\n"
    << "            vh, vp, vr, vc = T.axis.remap(\"SSSS\", [h, p, r, c])\n"
    << "            T.reads(s[vh, vp, vr, vc])\n"
    << "            T.writes(s[vh, vp, vr, vc])\n"
    << "            s[vh, vp, vr, vc] = s[vh, vp, vr, vc] * T.float32("
    << AttentionScaleLiteral(p.scale) << ")\n";
  return s.str();
}

// One of the softmax's row nests: a block over (row, nonzero), spatial or a reduction over
// the nonzeros, in the shape the target's sparse space schedules best:
//  - CPU: loops (row, block of the row, column of the block), the columns a constant innermost
//    loop: "sparse-cpu" keeps a reduction's whole and innermost and splits and vectorizes a
//    spatial one (the exp and the division). A reduction's init is a block of its own
//    ("<block>_init", over the rows) before it: a T.init would be guarded by both the block
//    and the column being the first, and the C emitter prints a column loop as a SIMD max or
//    sum only when nothing in it but the accumulation is conditional (codegen/passes/simd_fold.h);
//  - GPU: loops (row, nonzero of the row) and, for a reduction, a third, spatial loop of
//    extent 1 (its output is [H * L, 1]): SpMM's shape with one feature, which "sparse-gpu"
//    schedules as SpMM's rows (one owner thread per row, a register accumulator). Without it,
//    "sparse-gpu" would bind the reduction's nonzero loop to threads, which verify_gpu_code
//    refuses.
// `score` and the other expressions use the nonzero's S element as n.score (GPU) or
// n.block_score (CPU) names it.
std::string RowNest(const Names& n, bool gpu, const std::string& block, bool reduce,
                    const std::string& reads, const std::string& writes, const std::string& init,
                    const std::string& body) {
  const bool third = gpu ? reduce : true;
  const std::string pad = third ? "    " : "";
  std::ostringstream s;
  std::string init_stmt = init;
  if (!gpu && !init.empty()) {
    // The init's output is `writes` with the row's column 0: [vt, 0].
    s << "    for t in range(" << n.HL << "):\n"
      << "        with T.block(\"" << block << "_init\"):\n"
      << "            vt = T.axis.spatial(" << n.HL << ", t)\n"
      << "            T.reads()\n"
      << "            T.writes(" << writes << ")\n"
      << "            " << init << "\n";
    init_stmt.clear();
  }
  s << "    for t in range(" << n.HL << "):\n";
  if (gpu) {
    s << "        for j in range(" << n.extent << "):\n";
    if (reduce) s << "            for u in range(1):\n";
  } else {
    s << "        for jb in range(" << n.block_extent << "):\n"
      << "            for c in range(" << n.b << "):\n";
  }
  const char* kind = reduce ? "reduce" : "spatial";
  s << pad << "            with T.block(\"" << block << "\"):\n"
    << pad << "                vt = T.axis.spatial(" << n.HL << ", t)\n";
  if (gpu) {
    s << pad << "                vj = T.axis." << kind << "(" << n.row_extent_bound << ", j)\n";
    if (reduce) s << pad << "                vu = T.axis.spatial(1, u)\n";
  } else {
    s << pad << "                vjb = T.axis." << kind << "(" << n.blocks << ", jb)\n"
      << pad << "                vc = T.axis." << kind << "(" << n.b << ", c)\n";
  }
  s << pad << "                T.reads(mask_indptr[" << n.block_row << "], " << reads << ")\n"
    << pad << "                T.writes(" << writes << ")\n";
  if (!init_stmt.empty()) {
    s << pad << "                with T.init():\n"
      << pad << "                    " << init_stmt << "\n";
  }
  s << pad << "                " << body << "\n";
  return s.str();
}

// Three passes over each row: its max, the sum of exp(s - max), and exp(s - max) / sum
// written to P (exp computed twice rather than P written and read back once more).
std::string SoftmaxText(const AttentionKernelShape& p) {
  const bool gpu = p.gpu;
  const Names n = NamesOf(p);
  const std::string sblocks = n.H + ", " + n.blocks + ", " + n.b + ", " + n.b;
  const std::string& score = gpu ? n.score : n.block_score;
  const std::string in = "s" + score, out = "prob" + score;
  const std::string acc = gpu ? "[vt, vu]" : "[vt, 0]";
  const std::string max = "row_max" + acc, sum = "row_sum" + acc;
  const std::string shifted = "T.exp(" + in + " - row_max[vt, 0])";
  std::ostringstream s;
  s << Header(p, Buf("mask_indptr", S(p.block_rows + 1) + ",", "int32") + ", " +
                     Buf("s", sblocks, "float32") + ", " + Buf("prob", sblocks, "float32"))
    << "    row_max = T.alloc_buffer((" << n.HL << ", 1))\n"
    << "    row_sum = T.alloc_buffer((" << n.HL << ", 1))\n"
    << RowNest(n, gpu, "softmax_max", true, in, max, max + " = T.float32(-3.4028234663852886e+38)",
               max + " = T.max(" + max + ", " + in + ")")
    << RowNest(n, gpu, "softmax_sum", true, in + ", row_max[vt, 0]", sum, sum + " = T.float32(0)",
               sum + " = " + sum + " + " + shifted)
    << RowNest(n, gpu, "softmax_norm", false, in + ", row_max[vt, 0], row_sum[vt, 0]", out, "",
               out + " = " + shifted + " / row_sum[vt, 0]");
  return s.str();
}

std::string SpmmText(const AttentionKernelShape& p) {
  const Names n = NamesOf(p);
  const std::string sblocks = n.H + ", " + n.blocks + ", " + n.b + ", " + n.b;
  const std::string prob = "prob" + n.score;
  const std::string value_row =
      "vt // " + n.L + " * " + n.L + " + mask_indices[" + n.pos + "] * " + n.b + " + vj % " + n.b;
  std::ostringstream s;
  s << Header(p, Buf("mask_indptr", S(p.block_rows + 1) + ",", "int32") + ", " +
                     Buf("mask_indices", n.blocks + ",", "int32") + ", " +
                     Buf("prob", sblocks, "float32") + ", " +
                     Buf("v", n.HL + ", " + n.D, "float32") + ", " +
                     Buf("o", n.HL + ", " + n.D, "float32"))
    << "    for t in range(" << n.HL << "):\n"
    << "        for j in range(" << n.extent << "):\n"
    << "            for d in range(" << n.D << "):\n"
    << "                with T.block(\"attention_spmm\"):\n"
    << "                    vt = T.axis.spatial(" << n.HL << ", t)\n"
    << "                    vj = T.axis.reduce(" << n.row_extent_bound << ", j)\n"
    << "                    vd = T.axis.spatial(" << n.D << ", d)\n"
    << "                    T.reads(mask_indptr[" << n.block_row << "], mask_indices[" << n.pos
    << "], " << prob << ", v[0:" << n.HL << ", vd])\n"
    << "                    T.writes(o[vt, vd])\n"
    << "                    with T.init():\n"
    << "                        o[vt, vd] = T.float32(0)\n"
    << "                    o[vt, vd] = o[vt, vd] + " << prob << " * v[" << value_row << ", vd]\n";
  return s.str();
}

}  // namespace

std::string AttentionKernelText(const AttentionKernelShape& shape) {
  KILN_CHECK(shape.heads >= 1 && shape.head_dim >= 1 && shape.block >= 1 && shape.block_rows >= 1,
             ErrorKind::kUnsupported,
             std::string("block-sparse attention kernel ") + AttentionKernelName(shape.stage) +
                 ": " + std::to_string(shape.heads) + " heads of dimension " +
                 std::to_string(shape.head_dim) + " over " + std::to_string(shape.block_rows) +
                 " block rows of " + std::to_string(shape.block) +
                 " tokens (expected at least 1 of each)");
  switch (shape.stage) {
    case AttentionStage::kSddmm:
      return SddmmText(shape);
    case AttentionStage::kSoftmax:
      return SoftmaxText(shape);
    case AttentionStage::kSpmm:
      return SpmmText(shape);
  }
  return "";
}

}  // namespace kiln::ir::sparse
