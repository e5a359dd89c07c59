// A format's kernels: conversion (timed), workloads, seeded arguments, expected outputs from
// the naive CSR SpMM, and references saved like sparse_reference_store.cc's.
#include "compiler/sparse/formats/format_kernels.h"

#include <chrono>
#include <cstring>

#include "compiler/sparse/formats/format_conversion.h"
#include "compiler/sparse/formats/format_workloads.h"
#include "compiler/sparse/sparse_reference_store.h"
#include "ir/sparse/sparse_reference.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

using ir::DataType;
using ir::HostTensor;
using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

namespace {

std::vector<float> Floats(const HostTensor& t) {
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + t.numel());
}

HostTensor FloatTensor(const std::vector<float>& values, std::vector<int64_t> shape) {
  HostTensor t(DataType::Float(32), std::move(shape));
  std::memcpy(t.data(), values.data(), std::min<size_t>(values.size(), t.numel()) * sizeof(float));
  return t;
}

HostTensor IntTensor(const std::vector<int32_t>& values, std::vector<int64_t> shape) {
  HostTensor t(DataType::Int(32), std::move(shape));
  std::memcpy(t.data(), values.data(),
              std::min<size_t>(values.size(), t.numel()) * sizeof(int32_t));
  return t;
}

// The seeded operands every format shares (the layout of CsrArguments).
struct SeededOperands {
  std::vector<float> csr_values;  // a.nnz() values
  std::vector<float> b;           // cols x feat
  std::vector<float> c_in;        // rows x feat
};

SeededOperands Seeded(const CsrMatrix& a, int64_t feat, uint64_t seed) {
  SeededOperands s;
  s.csr_values = Floats(
      HostTensor::Random(DataType::Float(32), {std::max<int64_t>(a.nnz(), 1)}, seed * 8 + 1));
  s.csr_values.resize(a.nnz());
  s.b = Floats(HostTensor::Random(DataType::Float(32), {a.cols, feat}, seed * 8 + 2));
  s.c_in = Floats(HostTensor::Random(DataType::Float(32), {a.rows, feat}, seed * 8 + 5));
  return s;
}

// The naive SpMM of the nonzeros `source` names (valued by csr_values), rows x feat.
std::vector<float> PartProduct(const CsrMatrix& a, const std::vector<int32_t>& source,
                               const std::vector<int32_t>& rows_of_slots,
                               const std::vector<float>& csr_values, const std::vector<float>& b,
                               int64_t feat) {
  std::vector<CooEntry> entries;
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] < 0) continue;
    entries.push_back({rows_of_slots[i], a.indices[source[i]], csr_values[source[i]]});
  }
  CsrMatrix part = ir::sparse::CsrFromEntries(a.rows, a.cols, std::move(entries));
  return ir::sparse::ReferenceSpmm(part, b, feat);
}

FormatKernelCase Case(const std::string& format, ir::PrimFunc workload, int64_t nnz, int64_t stored,
                      int64_t feat) {
  FormatKernelCase k;
  k.name = workload->name;
  k.format = format;
  k.workload = std::move(workload);
  k.nnz = nnz;
  k.stored = stored;
  k.flops = 2.0 * static_cast<double>(nnz) * static_cast<double>(feat);
  return k;
}

void BsrCases(const CsrMatrix& a, SparseOp op, const SparseFormat& f, int64_t feat, uint64_t seed,
              FormatKernelSet& set) {
  auto start = std::chrono::steady_clock::now();
  BsrMatrix m = ToBsr(a, f.block_rows, f.block_cols);
  set.conversion_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SeededOperands s = Seeded(a, feat, seed);
  const int64_t blocks = std::max<int64_t>(m.Blocks(), 1);
  const int64_t crows = m.NumBlockRows() * m.block_rows, bcols = m.NumBlockCols() * m.block_cols;
  if (op == SparseOp::kSddmm) {
    // X and Y as CsrArguments draws them; out in the blocks' layout, seeded garbage as input.
    std::vector<float> x =
        Floats(HostTensor::Random(DataType::Float(32), {a.rows, feat}, seed * 8 + 3));
    std::vector<float> y =
        Floats(HostTensor::Random(DataType::Float(32), {a.cols, feat}, seed * 8 + 4));
    const std::vector<int64_t> block_shape = {blocks, m.block_rows, m.block_cols};
    FormatKernelCase k = Case(FormatSpelling(f), ParseFormatWorkload(BsrSddmmText(m, feat)),
                              a.nnz(), m.Blocks() * m.block_rows * m.block_cols, feat);
    k.flops += static_cast<double>(a.nnz());
    k.args.push_back(IntTensor(m.indptr, {m.NumBlockRows() + 1}));
    k.args.push_back(IntTensor(m.indices, {blocks}));
    k.args.push_back(FloatTensor(GatherValues(m.source, s.csr_values), block_shape));
    k.args.push_back(FloatTensor(x, {crows, feat}));  // the rows past rows stay zero
    k.args.push_back(FloatTensor(y, {bcols, feat}));  // the rows past cols stay zero
    k.args.push_back(HostTensor::Random(DataType::Float(32), block_shape, seed * 8 + 6));
    CsrMatrix valued = a;
    valued.values = s.csr_values;
    k.expected = FloatTensor(GatherValues(m.source, ir::sparse::ReferenceSddmm(valued, x, y, feat)),
                             block_shape);
    k.output_param = 5;
    set.kernels.push_back(std::move(k));
    return;
  }
  FormatKernelCase k = Case(FormatSpelling(f), ParseFormatWorkload(BsrSpmmText(m, feat)), a.nnz(),
                            m.Blocks() * m.block_rows * m.block_cols, feat);
  k.args.push_back(IntTensor(m.indptr, {m.NumBlockRows() + 1}));
  k.args.push_back(IntTensor(m.indices, {blocks}));
  k.args.push_back(
      FloatTensor(GatherValues(m.source, s.csr_values), {blocks, m.block_rows, m.block_cols}));
  k.args.push_back(FloatTensor(s.b, {bcols, feat}));  // the rows past cols stay zero
  k.args.push_back(FloatTensor(s.c_in, {crows, feat}));
  CsrMatrix valued = a;
  valued.values = s.csr_values;
  k.expected = FloatTensor(ir::sparse::ReferenceSpmm(valued, s.b, feat), {crows, feat});
  k.output_param = 4;
  set.kernels.push_back(std::move(k));
}

void EllCases(const CsrMatrix& a, const SparseFormat& f, int64_t feat, uint64_t seed,
              FormatKernelSet& set) {
  auto start = std::chrono::steady_clock::now();
  EllMatrix m = ToEll(a, f.width);
  set.conversion_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SeededOperands s = Seeded(a, feat, seed);
  FormatKernelCase k = Case(FormatSpelling(f), ParseFormatWorkload(EllSpmmText(m, feat)), a.nnz(),
                            m.StoredRows() * m.width, feat);
  k.args.push_back(IntTensor(m.indices, {a.rows, m.width}));
  k.args.push_back(FloatTensor(GatherValues(m.source, s.csr_values), {a.rows, m.width}));
  k.args.push_back(FloatTensor(s.b, {a.cols, feat}));
  k.args.push_back(FloatTensor(s.c_in, {a.rows, feat}));
  CsrMatrix valued = a;
  valued.values = s.csr_values;
  k.expected = FloatTensor(ir::sparse::ReferenceSpmm(valued, s.b, feat), {a.rows, feat});
  k.output_param = 3;
  set.kernels.push_back(std::move(k));
}

void HybCases(const CsrMatrix& a, const SparseFormat& f, int64_t feat, uint64_t seed,
              FormatKernelSet& set) {
  auto start = std::chrono::steady_clock::now();
  HybMatrix h = ToHyb(a, f.partitions, f.buckets);
  set.conversion_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (h.parts.empty()) {
    // No nonzero: one part of one padded row still zeroes C.
    HybPart part;
    part.col_end = a.cols;
    part.ell.rows = a.rows;
    part.ell.cols = a.cols;
    part.ell.row_index = {0};
    part.ell.indices = {0};
    part.ell.values = {0.0f};
    part.ell.source = {-1};
    h.parts.push_back(std::move(part));
  }
  SeededOperands s = Seeded(a, feat, seed);
  for (size_t i = 0; i < h.parts.size(); ++i) {
    const EllMatrix& m = h.parts[i].ell;
    const bool first = i == 0;
    FormatKernelCase k =
        Case(FormatSpelling(f), ParseFormatWorkload(HybPartSpmmText(h, h.parts[i], first, feat)),
             m.Nnz(), m.StoredRows() * m.width, feat);
    const int64_t n = m.StoredRows();
    k.args.push_back(IntTensor(m.row_index, {n}));
    k.args.push_back(IntTensor(m.indices, {n, m.width}));
    k.args.push_back(FloatTensor(GatherValues(m.source, s.csr_values), {n, m.width}));
    k.args.push_back(FloatTensor(s.b, {a.cols, feat}));
    k.args.push_back(FloatTensor(s.c_in, {a.rows, feat}));
    std::vector<int32_t> slot_rows(m.source.size());
    for (size_t j = 0; j < slot_rows.size(); ++j) slot_rows[j] = m.row_index[j / m.width];
    std::vector<float> out = PartProduct(a, m.source, slot_rows, s.csr_values, s.b, feat);
    if (!first) {
      for (size_t j = 0; j < out.size(); ++j) out[j] += s.c_in[j];
    }
    k.expected = FloatTensor(out, {a.rows, feat});
    k.output_param = 4;
    set.kernels.push_back(std::move(k));
  }
}

// The CSR kernel takes SpMM's matrix with its empty rows padded (sparse_workloads.h).
void CsrCases(const CsrMatrix& given, SparseOp op, int64_t feat, uint64_t seed,
              FormatKernelSet& set) {
  const CsrMatrix a = op == SparseOp::kSpmm ? PadEmptyRows(given) : given;
  SparseProblem p = ProblemOf(op, a, feat);
  FormatKernelCase k = Case("csr", CsrWorkload(p), given.nnz(), a.nnz(), feat);
  k.flops = p.Flops();
  k.args = CsrArguments(p, a, seed);
  k.expected = CsrExpectedOutput(p, a, k.args);
  k.output_param = CsrOutputParam(op);
  set.kernels.push_back(std::move(k));
}

std::shared_ptr<const runtime::Reference> FormatReference(FormatKernelCase& k, uint64_t seed,
                                                          const std::string& cache_dir) {
  return StoredReference(k.workload, seed, cache_dir, [&] {
    GivenCall call;
    call.args = k.args;
    call.output_param = k.output_param;
    call.expected = k.expected;
    const char* op = k.name.find("sddmm") != std::string::npos ? "sddmm" : "spmm";
    call.source = std::string("naive CSR ") + op + " (double accumulation) of the nonzeros " +
                  k.name + " stores, " + k.format;
    return call;
  });
}

}  // namespace

FormatKernelSet FormatKernelCases(const CsrMatrix& a, SparseOp op, int64_t feat,
                                  const SparseFormat& format, uint64_t seed) {
  std::string problem = a.Check();
  KILN_CHECK(problem.empty(), ErrorKind::kType, "FormatKernelCases: " + problem);
  KILN_CHECK(feat > 0, ErrorKind::kUnsupported,
             "FormatKernelCases: feature size " + std::to_string(feat) + " (expected >= 1)");
  FormatKernelSet set;
  if (format.kind == FormatKind::kCsr) {
    CsrCases(a, op, feat, seed, set);
    return set;
  }
  KILN_CHECK(op == SparseOp::kSpmm || format.kind == FormatKind::kBsr, ErrorKind::kUnsupported,
             std::string("sparse ") + SparseOpName(op) + " in " + FormatSpelling(format) +
                 ": sddmm has kernels in csr and bsr only");
  switch (format.kind) {
    case FormatKind::kBsr:
      BsrCases(a, op, format, feat, seed, set);
      break;
    case FormatKind::kEll:
      EllCases(a, format, feat, seed, set);
      break;
    case FormatKind::kHyb:
      HybCases(a, format, feat, seed, set);
      break;
    case FormatKind::kCsr:
      break;
  }
  return set;
}

std::vector<SparseKernel> FormatKernels(const CsrMatrix& a, SparseOp op, int64_t feat,
                                        const SparseFormat& format, uint64_t seed,
                                        const std::string& cache_dir) {
  std::vector<SparseKernel> out;
  if (format.kind == FormatKind::kCsr) {
    const CsrMatrix padded = op == SparseOp::kSpmm ? PadEmptyRows(a) : a;
    SparseProblem p = ProblemOf(op, padded, feat);
    SparseKernel k;
    k.workload = CsrWorkload(p);
    k.name = k.workload->name;
    k.format = "csr";
    k.reference = SparseReference(k.workload, p, padded, seed, cache_dir);
    k.nnz = a.nnz();
    k.stored = padded.nnz();
    k.flops = p.Flops();
    out.push_back(std::move(k));
    return out;
  }
  FormatKernelSet set = FormatKernelCases(a, op, feat, format, seed);
  for (FormatKernelCase& c : set.kernels) {
    SparseKernel k;
    k.name = c.name;
    k.format = c.format;
    k.workload = c.workload;
    k.reference = FormatReference(c, seed, cache_dir);
    k.nnz = c.nnz;
    k.stored = c.stored;
    k.flops = c.flops;
    k.conversion_seconds = out.empty() ? set.conversion_seconds : 0;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace kiln::compiler::sparse
