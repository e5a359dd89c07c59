// Sparse formats: the spelling and its errors, the conversions (densified against the CSR
// matrix), and every format's SpMM kernels against the naive CSR reference, through the
// interpreter and through the real compiler with sampled schedules of the "sparse-cpu" space.
// A disabled test prints the formats' figure on rmat-14 (run it by hand).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "compiler/sparse/formats/format_conversion.h"
#include "compiler/sparse/formats/format_kernels.h"
#include "compiler/sparse/formats/format_workloads.h"
#include "compiler/sparse/formats/sparse_format.h"
#include "compiler/sparse/sparse_workloads.h"
#include "ir/interpreter/interpreter.h"
#include "ir/sparse/sparse_datasets.h"
#include "ir/sparse/sparse_reference.h"
#include "ir/text/printer.h"
#include "runtime/measurer.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "support/error.h"
#include "tests/compiler/sparse/test_matrices.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse {
namespace {

using testing::Banded;
using testing::RandomMatrix;

using ir::HostTensor;
using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

// The matrices every conversion and kernel is checked on: empty rows and a dense row with sizes
// no block divides, no nonzero at all, one row only, and a tall one.
std::vector<std::pair<std::string, CsrMatrix>> Matrices() {
  return {{"random_13x17_dense_row", RandomMatrix(13, 17, 0.25, 1, true)},
          {"no_nonzero_5x3", RandomMatrix(5, 3, 0.0, 2)},
          {"one_dense_row_1x9", RandomMatrix(1, 9, 0.0, 3, true)},
          {"tall_37x6", RandomMatrix(37, 6, 0.4, 4)}};
}

std::vector<SparseFormat> Formats() {
  return {BsrFormat(4, 4), BsrFormat(3, 5), BsrFormat(1, 1), EllFormat(17),
          HybFormat(1, 1), HybFormat(2, 3), HybFormat(3, 5), HybFormat(1, 2)};
}

void ExpectErrorContains(const std::string& text, const std::string& phrase) {
  try {
    ParseSparseFormat(text);
    ADD_FAILURE() << "'" << text << "' parsed; expected an error with '" << phrase << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + text + "'"), std::string::npos) << e.what();
  }
}

TEST(SparseFormat, SpellingsRoundTrip) {
  for (const char* text : {"csr", "bsr:4:4", "bsr:1:16", "ell:32", "hyb:1:1", "hyb:2:6",
                           "hyb:1024:16", "bsr:256:256", "ell:65536"}) {
    SparseFormat f = ParseSparseFormat(text);
    EXPECT_EQ(FormatSpelling(f), text);
    EXPECT_EQ(ParseSparseFormat(FormatSpelling(f)), f);
  }
  SparseFormat hyb = ParseSparseFormat("hyb:2:6");
  EXPECT_EQ(hyb.kind, FormatKind::kHyb);
  EXPECT_EQ(hyb.partitions, 2);
  EXPECT_EQ(hyb.WidestBucket(), 32);
  EXPECT_EQ(ParseSparseFormat("bsr:2:8"), BsrFormat(2, 8));
}

TEST(SparseFormat, ErrorsNameTheFieldAndTheLimit) {
  ExpectErrorContains("bsr:0:4", "block rows must be >= 1");
  ExpectErrorContains("bsr:4:0", "block cols must be >= 1");
  ExpectErrorContains("bsr:4:257", "block cols must be <= 256");
  ExpectErrorContains("bsr:4", "expected bsr:R:C");
  ExpectErrorContains("bsr:4:4:4", "expected bsr:R:C");
  ExpectErrorContains("ell:0", "ELL width must be >= 1");
  ExpectErrorContains("ell:x", "ELL width 'x' is not an integer");
  ExpectErrorContains("ell:", "ELL width '' is not an integer");
  ExpectErrorContains("ell:-3", "ELL width must be >= 1");
  ExpectErrorContains("ell", "expected ell:W");
  ExpectErrorContains("hyb:0:3", "column partitions must be >= 1");
  ExpectErrorContains("hyb:2:17", "buckets must be <= 16");
  ExpectErrorContains("hyb:2:0", "buckets must be >= 1");
  ExpectErrorContains("hyb:2", "expected hyb:P:B");
  ExpectErrorContains("csr:1", "expected csr");
  ExpectErrorContains("coo", "unknown format (expected csr, bsr:R:C, ell:W or hyb:P:B)");
  ExpectErrorContains("", "unknown format");
  EXPECT_THROW(BsrFormat(0, 2), Error);
}

TEST(SparseFormatConversion, EveryFormatKeepsTheMatrix) {
  for (const auto& [name, a] : Matrices()) {
    SCOPED_TRACE(name);
    const std::vector<double> want = Densify(a);
    for (auto [r, c] : {std::pair<int64_t, int64_t>{4, 4}, {3, 5}, {1, 1}, {2, 7}, {64, 64}}) {
      BsrMatrix m = ToBsr(a, r, c);
      EXPECT_EQ(Densify(m), want) << "bsr " << r << "x" << c;
      EXPECT_EQ(static_cast<int64_t>(m.indptr.size()), m.NumBlockRows() + 1);
      EXPECT_EQ(m.NumBlockRows(), (a.rows + r - 1) / r);
      EXPECT_EQ(GatherValues(m.source, a.values), m.values);
    }
    int64_t longest = 1;
    for (int64_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.RowLength(r));
    for (int64_t w : {longest, longest + 3}) {
      EllMatrix e = ToEll(a, w);
      EXPECT_EQ(Densify(e), want) << "ell " << w;
      EXPECT_EQ(e.StoredRows(), a.rows);
      EXPECT_EQ(e.Nnz(), a.nnz());
      EXPECT_FALSE(e.rows_repeat);
      for (int32_t col : e.indices) EXPECT_TRUE(col >= 0 && col < a.cols);
    }
    for (auto [p, b] : {std::pair<int64_t, int64_t>{1, 1}, {2, 3}, {3, 5}, {1, 2}, {40, 2}}) {
      HybMatrix h = ToHyb(a, p, b);
      EXPECT_EQ(Densify(h), want) << "hyb " << p << ":" << b;
      int64_t nnz = 0;
      for (const HybPart& part : h.parts) {
        const EllMatrix& e = part.ell;
        nnz += e.Nnz();
        EXPECT_EQ(e.width, int64_t{1} << part.bucket);
        EXPECT_GT(e.StoredRows(), 0) << "empty parts are left out";
        for (int64_t s = 0; s < e.StoredRows(); ++s) {
          EXPECT_NE(e.row_index[s], 1) << "row 1 is empty and must be skipped";
          for (int64_t j = 0; j < e.width; ++j) {
            const int32_t col = e.indices[s * e.width + j];
            EXPECT_TRUE(col >= part.col_begin && col < part.col_end)
                << "column " << col << " outside the partition";
          }
        }
      }
      EXPECT_EQ(nnz, a.nnz());
    }
  }
}

TEST(SparseFormatConversion, HybBucketsRowsAsSparseTirDoes) {
  // Row 0: 9 nonzeros, row 2: 3, row 3: 1; one partition, buckets 1, 2, 4.
  std::vector<CooEntry> e;
  for (int64_t c = 0; c < 9; ++c) e.push_back({0, c, 1.0 + c});
  for (int64_t c : {1, 4, 8}) e.push_back({2, c, 2.0});
  e.push_back({3, 5, 3.0});
  CsrMatrix a = ir::sparse::CsrFromEntries(4, 9, std::move(e));
  HybMatrix h = ToHyb(a, 1, 3);
  ASSERT_EQ(h.parts.size(), 2u);
  EXPECT_EQ(h.parts[0].ell.width, 1);
  EXPECT_EQ(h.parts[0].ell.row_index, std::vector<int32_t>({3}));
  EXPECT_FALSE(h.parts[0].ell.rows_repeat);
  // Row 2 (3 nonzeros) pads to 4; row 0 (9, longer than the widest bucket) splits into 3 rows.
  const EllMatrix& wide = h.parts[1].ell;
  EXPECT_EQ(wide.width, 4);
  EXPECT_EQ(wide.row_index, std::vector<int32_t>({0, 0, 0, 2}));
  EXPECT_TRUE(wide.rows_repeat);
  EXPECT_EQ(wide.source[8], 8);   // the third piece of row 0: nonzero 8 ...
  EXPECT_EQ(wide.source[9], -1);  // ... then padding, with the row's last column
  EXPECT_EQ(wide.indices[9], 8);
  EXPECT_EQ(wide.values[9], 0.0f);
  EXPECT_EQ(wide.source[12], 9);  // row 2's first nonzero, CSR position 9
  EXPECT_EQ(Densify(h), Densify(a));
  // Two partitions of 5 and 4 columns: row 0 has 5 + 4.
  HybMatrix two = ToHyb(a, 2, 3);
  EXPECT_EQ(Densify(two), Densify(a));
  for (const HybPart& part : two.parts)
    EXPECT_EQ(part.col_end - part.col_begin, part.partition == 0 ? 5 : 4);
}

TEST(SparseFormatConversion, EllNarrowerThanARowIsRefused) {
  CsrMatrix a = RandomMatrix(6, 10, 0.2, 5, true);
  try {
    ToEll(a, 4);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("row 0 has 10 nonzeros, more than the ELL width 4"),
              std::string::npos)
        << e.what();
  }
}

std::vector<float> FloatsOf(const HostTensor& t) {
  const auto* d = static_cast<const float*>(t.data());
  return std::vector<float>(d, d + t.numel());
}

// allclose(rtol 1e-4, atol 1e-5), what the measurer checks.
::testing::AssertionResult AllClose(const HostTensor& got, const HostTensor& want) {
  std::vector<float> g = FloatsOf(got), w = FloatsOf(want);
  if (g.size() != w.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < g.size(); ++i) {
    if (!(std::fabs(g[i] - w[i]) <= 1e-5 + 1e-4 * std::fabs(w[i]))) {
      return ::testing::AssertionFailure() << "element " << i << ": " << g[i] << " vs " << w[i];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(SparseFormatKernels, InterpretedKernelsMatchTheNaiveReference) {
  for (const auto& [name, a] : Matrices()) {
    std::vector<std::pair<SparseOp, SparseFormat>> cases = {{SparseOp::kSpmm, CsrFormat()},
                                                            {SparseOp::kSddmm, CsrFormat()}};
    for (const SparseFormat& f : Formats()) {
      cases.push_back({SparseOp::kSpmm, f});
      if (f.kind == FormatKind::kBsr) cases.push_back({SparseOp::kSddmm, f});
    }
    for (const auto& [op, f] : cases) {
      SCOPED_TRACE(name + " " + SparseOpName(op) + " " + FormatSpelling(f));
      FormatKernelSet set = FormatKernelCases(a, op, 8, f, 7);
      ASSERT_FALSE(set.kernels.empty());
      for (FormatKernelCase& k : set.kernels) {
        std::vector<HostTensor> args;
        for (const HostTensor& t : k.args) args.push_back(t.Clone());
        std::vector<ir::ArgValue> values(args.begin(), args.end());
        ir::Interpret(k.workload, values);
        EXPECT_TRUE(AllClose(std::get<HostTensor>(values[k.output_param]), k.expected)) << k.name;
      }
    }
  }
}

// Run in order on one C, hyb's parts compute A * B (the first zeroes C, the others add).
TEST(SparseFormatKernels, HybPartsTogetherComputeTheProduct) {
  CsrMatrix a = RandomMatrix(29, 23, 0.3, 9, true);
  for (const SparseFormat& f : {HybFormat(1, 4), HybFormat(2, 3), HybFormat(4, 4)}) {
    SCOPED_TRACE(FormatSpelling(f));
    FormatKernelSet set = FormatKernelCases(a, SparseOp::kSpmm, 5, f, 3);
    ASSERT_GT(set.kernels.size(), 1u);
    std::set<std::string> names;
    HostTensor c = set.kernels[0].args[4].Clone();  // seeded garbage: the first part zeroes it
    for (FormatKernelCase& k : set.kernels) {
      EXPECT_TRUE(names.insert(k.name).second) << "two kernels named " << k.name;
      std::vector<ir::ArgValue> values;
      for (size_t i = 0; i < 4; ++i) values.push_back(k.args[i].Clone());
      values.push_back(c);
      ir::Interpret(k.workload, values);
      c = std::get<HostTensor>(values[4]);
    }
    CsrMatrix valued = a;
    std::vector<float> v =
        FloatsOf(HostTensor::Random(ir::DataType::Float(32), {a.nnz()}, 3 * 8 + 1));
    valued.values = v;
    std::vector<float> b = FloatsOf(set.kernels[0].args[3]);
    HostTensor want = c.Clone();
    std::vector<float> product = ir::sparse::ReferenceSpmm(valued, b, 5);
    std::memcpy(want.data(), product.data(), product.size() * sizeof(float));
    EXPECT_TRUE(AllClose(c, want));
  }
}

TEST(SparseFormatKernels, AttributesCarryTheFormatAndTheStructure) {
  CsrMatrix a = RandomMatrix(13, 17, 0.25, 1, true);
  CsrMatrix other = RandomMatrix(13, 17, 0.25, 2, true);
  auto attr = [](const ir::PrimFunc& f, const std::string& key) {
    auto it = f->attrs.find(key);
    return it == f->attrs.end() ? std::string("<none>") : ir::PrintExpr(it->second);
  };
  FormatKernelSet bsr = FormatKernelCases(a, SparseOp::kSpmm, 8, BsrFormat(4, 4), 1);
  EXPECT_EQ(attr(bsr.kernels[0].workload, "kiln.sparse_format"), "\"bsr:4:4\"");
  EXPECT_EQ(attr(bsr.kernels[0].workload, "kiln.sparse_nnz"), std::to_string(a.nnz()));
  FormatKernelSet bsr2 = FormatKernelCases(other, SparseOp::kSpmm, 8, BsrFormat(4, 4), 1);
  EXPECT_NE(attr(bsr.kernels[0].workload, "kiln.sparse_structure"),
            attr(bsr2.kernels[0].workload, "kiln.sparse_structure"));
  // hyb:1:2 on a matrix with a row of 17: the widest part's rows repeat, marked.
  FormatKernelSet hyb = FormatKernelCases(a, SparseOp::kSpmm, 8, HybFormat(1, 2), 1);
  bool repeat = false;
  for (const FormatKernelCase& k : hyb.kernels) {
    repeat |= attr(k.workload, "kiln.sparse_rows_repeat") != "<none>";
  }
  EXPECT_TRUE(repeat);
  FormatKernelSet sddmm = FormatKernelCases(a, SparseOp::kSddmm, 8, BsrFormat(4, 4), 1);
  EXPECT_EQ(attr(sddmm.kernels[0].workload, "kiln.sparse_op"), "\"sddmm\"");
  try {
    FormatKernelCases(a, SparseOp::kSddmm, 8, HybFormat(2, 3), 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("sddmm in hyb:2:3"), std::string::npos) << e.what();
  }
}

TEST(SparseFormatKernels, FormatKernelsGivesOneTaskPerKernelWithItsReference) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = RandomMatrix(13, 17, 0.25, 1, true);
  std::vector<SparseKernel> csr =
      FormatKernels(a, SparseOp::kSpmm, 8, CsrFormat(), 1, dir.path().string());
  ASSERT_EQ(csr.size(), 1u);
  EXPECT_EQ(csr[0].name, "csr_spmm");
  std::vector<SparseKernel> hyb =
      FormatKernels(a, SparseOp::kSpmm, 8, HybFormat(2, 3), 1, dir.path().string());
  ASSERT_GT(hyb.size(), 1u);
  int64_t nnz = 0;
  for (const SparseKernel& k : hyb) {
    ASSERT_NE(k.reference, nullptr);
    EXPECT_EQ(k.reference->params.size(), k.workload->params.size());
    EXPECT_EQ(k.format, "hyb:2:3");
    nnz += k.nnz;
  }
  EXPECT_EQ(nnz, a.nnz());
  EXPECT_GE(hyb[0].conversion_seconds, 0);
  EXPECT_EQ(hyb[1].conversion_seconds, 0);
  // A second call finds the references on disk.
  std::vector<SparseKernel> again =
      FormatKernels(a, SparseOp::kSpmm, 8, HybFormat(2, 3), 1, dir.path().string());
  EXPECT_TRUE(again[0].reference->from_disk);
}

bool HasParallelLoop(const ir::PrimFunc& f) {
  return ir::PrintPrimFunc(f).find("T.parallel") != std::string::npos;
}

// Every kernel of every format, with sampled schedules of every sketch of the sparse space,
// builds, runs (on every core) and matches the naive reference.
TEST(SparseFormatKernels, SampledSchedulesMatchTheReference) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = RandomMatrix(70, 61, 0.08, 11, true);
  runtime::MeasureOptions o;
  o.cache_dir = dir.path().string();
  o.timing.min_repeat_ms = 1;
  auto measurer = runtime::CreateMeasurer("cpu", o);
  int measured = 0, repeat_kernels = 0;
  const std::vector<std::pair<SparseOp, SparseFormat>> cases = {
      {SparseOp::kSpmm, BsrFormat(4, 4)},  {SparseOp::kSpmm, BsrFormat(3, 5)},
      {SparseOp::kSpmm, EllFormat(61)},    {SparseOp::kSpmm, HybFormat(2, 3)},
      {SparseOp::kSddmm, BsrFormat(4, 4)}, {SparseOp::kSddmm, BsrFormat(3, 5)}};
  for (const auto& [op, f] : cases) {
    for (const SparseKernel& k : FormatKernels(a, op, 32, f, 3, dir.path().string())) {
      SCOPED_TRACE(FormatSpelling(f) + " " + k.name);
      search::TuneContext context;
      context.workload = k.workload;
      context.num_cores = 2;
      search::DesignSpace space = search::MakeDesignSpace("sparse-cpu");
      space.Initialize(context);
      std::vector<search::Schedule> sketches = space.Sketches(context);
      // One sketch with the nonzero (block, slot) loop unrolled, one without.
      ASSERT_EQ(sketches.size(), 2u);
      const bool repeat = k.workload->attrs.count("kiln.sparse_rows_repeat") > 0;
      repeat_kernels += repeat;
      for (const search::Schedule& sketch : sketches) {
        if (k.name == "ell_spmm" || k.name == "bsr_spmm") {
          // The slot (block column) loop is the nonzero loop: a row's tile accumulates in
          // registers.
          EXPECT_NE(sketch.trace().ToJSON().dump().find("CacheWrite"), std::string::npos);
        }
        search::RandomEngine rng(5 + measured);
        std::optional<search::Candidate> c =
            search::SampleCandidate(k.workload, sketch.trace(), space.postprocs, rng, nullptr);
        ASSERT_TRUE(c.has_value());
        if (repeat) {
          EXPECT_FALSE(HasParallelLoop(c->scheduled)) << ir::PrintPrimFunc(c->scheduled);
        }
        runtime::MeasureResult r = measurer->Measure({k.workload, c->scheduled, {}, k.reference});
        EXPECT_TRUE(r.ok() && r.correctness_checked) << r.message;
        ++measured;
      }
    }
  }
  EXPECT_GT(repeat_kernels, 0) << "the matrix should have a row longer than hyb:2:3's bucket";
  EXPECT_GE(measured, 8);
}

}  // namespace
}  // namespace kiln::compiler::sparse
