// SparseTIR's spelling in the TVMScript parser and printer: every script of SparseTIR's test
// suite kept under data/sparsetir/ parses, prints, and parses back to an equal function (and
// prints to the same text again); distinct sparse functions hash apart; malformed sparse
// declarations and iterations are parse errors that name the line, the axis or buffer and what
// was expected.
#include <gtest/gtest.h>

#include <set>

#include "ir/sparse/transform/lower_sparse_buffer.h"
#include "ir/sparse/transform/lower_sparse_iter.h"
#include "ir/structural.h"
#include "ir/text/printer.h"
#include "tests/ir/sparse/sparse_test_util.h"

namespace kiln::ir::sparse {
namespace {

using testing::LoadScript;
using testing::ScriptPath;

std::vector<std::string> ScriptNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(
           kiln::testing::SourcePath("tests/ir/sparse/data/sparsetir"))) {
    if (entry.path().extension() == ".py") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(SparseText, EveryScriptRoundTrips) {
  std::vector<std::string> names = ScriptNames();
  ASSERT_GE(names.size(), 10u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    PrimFunc f = LoadScript(name);
    EXPECT_FALSE(f->sp_axes.empty());
    EXPECT_FALSE(f->sp_buffers.empty());
    std::string text = PrintPrimFunc(f);
    PrimFunc g = ParsePrimFunc(text, name + " (printed)");
    EXPECT_TRUE(StructuralEqual(f, g)) << text;
    EXPECT_EQ(StructuralHash(f), StructuralHash(g));
    EXPECT_EQ(PrintPrimFunc(g), text);
    // The older dialect reads back too.
    TirPrintOptions old;
    old.dialect = TirDialect::kTvm023;
    EXPECT_TRUE(StructuralEqual(f, ParsePrimFunc(PrintPrimFunc(f, old))));
  }
}

TEST(SparseText, CsrmmPrintsAsSparseTirWritesIt) {
  std::string text = PrintPrimFunc(LoadScript("csrmm"), {TirDialect::kTvm023, true});
  EXPECT_NE(text.find("def csrmm(a: T.handle, b: T.handle, c: T.handle, indptr: T.handle, "
                      "indices: T.handle, m: T.int32, n: T.int32, feat_size: T.int32, "
                      "nnz: T.int32):"),
            std::string::npos)
      << text;
  for (const char* line :
       {"I = T.dense_fixed(m)", "J = T.sparse_variable(I, (n, nnz), (indptr, indices))",
        "A = T.match_sparse_buffer(a, [I, J], \"float32\")",
        "with T.sp_iter([I, J, K], \"SRS\", \"csrmm\") as [i, j, k]:",
        "C[i, k] = C[i, k] + A[i, j] * B[j, k]"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  EXPECT_EQ(text.find("match_buffer(indptr"), std::string::npos) << text;
}

TEST(SparseText, DistinctScriptsHashApart) {
  std::set<uint64_t> hashes;
  std::vector<std::string> names = ScriptNames();
  for (const std::string& name : names) hashes.insert(StructuralHash(LoadScript(name)));
  EXPECT_EQ(hashes.size(), names.size());
  // Same body, other axis kinds: csr_reduce (sparse_variable) and segment_reduce (dense_variable).
  EXPECT_NE(StructuralHash(LoadScript("csr_reduce")), StructuralHash(LoadScript("segment_reduce")));
  // The same text with one axis unsorted, or another iteration kind, is another function.
  std::string text = kiln::testing::ReadTextFile(ScriptPath("csrmm"));
  PrimFunc base = ParsePrimFunc(text);
  std::string unsorted = text;
  unsorted.replace(unsorted.find("\"int32\")"), 8, "\"int32\", sorted=False)");
  PrimFunc g = ParsePrimFunc(unsorted);
  EXPECT_FALSE(g->sp_axes[1]->sorted);
  EXPECT_FALSE(StructuralEqual(base, g));
  EXPECT_NE(StructuralHash(base), StructuralHash(g));
  std::string kinds = text;
  kinds.replace(kinds.find("\"SRS\""), 5, "\"SSS\"");
  EXPECT_NE(StructuralHash(base), StructuralHash(ParsePrimFunc(kinds)));
}

// A small deterministic fuzz: each script with one line dropped, or one line repeated, either
// fails with kiln::Error or parses to a function that prints and parses back to itself, and
// that the lowering passes take or reject with kiln::Error.
TEST(SparseText, DamagedScriptsFailCleanlyOrRoundTrip) {
  int parsed = 0, failed = 0;
  for (std::string name :
       {"csrmm", "bsrmm", "ellmm", "sparse_softmax", "fused_sddmm", "square_sum", "csr2bsr"}) {
    std::string text = kiln::testing::ReadTextFile(ScriptPath(name));
    std::vector<std::string> lines;
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    for (size_t drop = 0; drop < lines.size(); ++drop) {
      for (int repeat = 0; repeat < 2; ++repeat) {
        std::string damaged;
        for (size_t i = 0; i < lines.size(); ++i) {
          if (i != drop || repeat) damaged += lines[i] + "\n";
          if (i == drop && repeat) damaged += lines[i] + "\n";
        }
        PrimFunc f;
        try {
          f = ParsePrimFunc(damaged, name);
        } catch (const Error&) {
          ++failed;
          continue;
        }
        ++parsed;
        std::string printed = PrintPrimFunc(f);
        PrimFunc g = ParsePrimFunc(printed, name + " (printed)");
        EXPECT_TRUE(StructuralEqual(f, g)) << name << " line " << drop << "\n" << printed;
        EXPECT_EQ(PrintPrimFunc(g), printed);
        // The passes take it too, or say why not; what they make prints and reads back.
        try {
          PrimFunc lowered = LowerSparseBuffer(LowerSparseIter(f));
          EXPECT_TRUE(StructuralEqual(lowered, ParsePrimFunc(PrintPrimFunc(lowered))))
              << name << " line " << drop;
        } catch (const Error&) {
        }
      }
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(failed, 0);
}

TEST(SparseText, IndptrMayBeAMatchedBuffer) {
  // The brief form: indptr and indices matched with T.match_buffer, named by the axis.
  const char* text = R"(
@T.prim_func
def f(a: T.handle, b: T.handle, p: T.handle, q: T.handle, m: T.int32, n: T.int32, nnz: T.int32):
    indptr = T.match_buffer(p, (m + 1,), "int32")
    indices = T.match_buffer(q, (nnz,), "int32", scope="global", align=64)
    I = T.dense_fixed(m)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    A = T.match_sparse_buffer(a, [I, J], "float32")
    B = T.match_sparse_buffer(b, [I], "float32")
    with T.sp_iter([I, J], "SR", "row_sum") as [i, j]:
        with T.init():
            B[i] = T.float32(0)
        B[i] = B[i] + A[i, j]
)";
  PrimFunc f = ParsePrimFunc(text);
  ASSERT_EQ(f->sp_axes.size(), 2u);
  EXPECT_EQ(f->sp_axes[1]->indices->align, 64);
  std::string printed = PrintPrimFunc(f);
  EXPECT_NE(printed.find("T.match_buffer(q"), std::string::npos) << printed;
  EXPECT_TRUE(StructuralEqual(f, ParsePrimFunc(printed))) << printed;
}

// The parse error of `text`, which must fail.
std::string ParseError(const std::string& text) {
  try {
    ParsePrimFunc(text, "bad.py");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "parsed:\n" << text;
  return "";
}

std::string Csr(const std::string& decls, const std::string& body) {
  return "@T.prim_func\n"
         "def f(a: T.handle, b: T.handle, indptr: T.handle, indices: T.handle, m: T.int32,\n"
         "      n: T.int32, nnz: T.int32):\n"
         "    I = T.dense_fixed(m)\n" +
         decls + "    A = T.match_sparse_buffer(a, (I, J), \"float32\")\n" +
         "    B = T.match_sparse_buffer(b, (I,), \"float32\")\n" + body;
}

const char* kJ = "    J = T.sparse_variable(I, (n, nnz), (indptr, indices), \"int32\")\n";

TEST(SparseText, UnknownAxisInSpIter) {
  std::string msg = ParseError(Csr(kJ,
                                   "    with T.sp_iter([I, K], \"SR\", \"s\") as [i, k]:\n"
                                   "        B[i] = B[i] + A[i, k]\n"));
  EXPECT_NE(msg.find("bad.py:8:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'K' is not an axis"), std::string::npos) << msg;
}

TEST(SparseText, SpIterArity) {
  std::string kinds = ParseError(Csr(kJ,
                                     "    with T.sp_iter([I, J], \"S\", \"s\") as [i, j]:\n"
                                     "        B[i] = B[i] + A[i, j]\n"));
  EXPECT_NE(kinds.find("iterates 2 axes but has 1 kinds"), std::string::npos) << kinds;
  std::string names = ParseError(Csr(kJ,
                                     "    with T.sp_iter([I, J], \"SR\", \"s\") as [i]:\n"
                                     "        B[i] = B[i] + A[i, 0]\n"));
  EXPECT_NE(names.find("iterates 2 axes but binds 1 names"), std::string::npos) << names;
}

TEST(SparseText, BufferAccessArity) {
  std::string msg = ParseError(Csr(kJ,
                                   "    with T.sp_iter([I, J], \"SR\", \"s\") as [i, j]:\n"
                                   "        B[i] = B[i] + A[i, j, j]\n"));
  EXPECT_NE(msg.find("buffer 'A' has 2 dimensions, got 3 indices"), std::string::npos) << msg;
}

TEST(SparseText, DenseVariableWithoutIndptr) {
  std::string msg = ParseError(Csr("    J = T.dense_variable(I, (n, nnz))\n",
                                   "    with T.sp_iter([I, J], \"SR\", \"s\") as [i, j]:\n"
                                   "        B[i] = B[i] + A[i, j]\n"));
  EXPECT_NE(msg.find("bad.py:5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("T.dense_variable of 'J' needs its indptr"), std::string::npos) << msg;
}

TEST(SparseText, BadDeclarations) {
  // A parent that is not an axis.
  std::string parent = ParseError(Csr("    J = T.sparse_variable(m, (n, nnz), (indptr, indices))\n",
                                      "    B[0] = T.float32(0)\n"));
  EXPECT_NE(parent.find("expected the parent axis of 'J'"), std::string::npos) << parent;
  // indptr that is neither a handle parameter nor a buffer.
  std::string indptr = ParseError(
      Csr("    J = T.sparse_variable(I, (n, nnz), (n, indices))\n", "    B[0] = T.float32(0)\n"));
  EXPECT_NE(indptr.find("expected the indptr of 'J'"), std::string::npos) << indptr;
  // A sparse buffer over something that is not an axis.
  std::string axes = ParseError(
      "@T.prim_func\ndef f(a: T.handle, m: T.int32):\n    I = T.dense_fixed(m)\n"
      "    A = T.match_sparse_buffer(a, (I, m), \"float32\")\n");
  EXPECT_NE(axes.find("an axis of sparse buffer 'A'"), std::string::npos) << axes;
  // An unknown argument.
  std::string kw =
      ParseError("@T.prim_func\ndef f(m: T.int32):\n    I = T.dense_fixed(m, bad=1)\n");
  EXPECT_NE(kw.find("unknown argument 'bad' of T.dense_fixed"), std::string::npos) << kw;
}

}  // namespace
}  // namespace kiln::ir::sparse
