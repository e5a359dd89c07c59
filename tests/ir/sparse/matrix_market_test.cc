// The Matrix Market reader and the CSR form: every field and symmetry, duplicates summed,
// empty rows and empty matrices, each malformed input refused with its file and line, and real
// files written by other tools (R's Matrix package, shipped in Debian's r-cran-matrix, unpacked
// by deploy/install-deps.sh), including the package's own deliberately wrong file.
#include "ir/sparse/matrix_market.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "support/error.h"

namespace kiln::ir::sparse {
namespace {

std::string ErrorOf(std::string_view text) {
  try {
    ParseMatrixMarket(text, "m.mtx");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CsrMatrixTest, EntriesAreSortedAndDuplicatesSummed) {
  int64_t duplicates = 0;
  CsrMatrix m =
      CsrFromEntries(3, 4, {{2, 3, 1}, {0, 2, 2}, {0, 1, 3}, {2, 3, 4}, {0, 2, 0.5}}, &duplicates);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(duplicates, 2);
  EXPECT_EQ(m.indptr, (std::vector<int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(m.indices, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(m.values, (std::vector<float>{3, 2.5f, 5}));
  EXPECT_EQ(m.RowLength(1), 0);
  // The structure hash ignores values and sees the pattern.
  CsrMatrix same_pattern = m;
  same_pattern.values[0] = 7;
  EXPECT_EQ(same_pattern.StructureHash(), m.StructureHash());
  CsrMatrix other = CsrFromEntries(3, 4, {{2, 3, 1}, {0, 2, 2}, {0, 0, 3}});
  EXPECT_NE(other.StructureHash(), m.StructureHash());
  CsrMatrix wider = CsrFromEntries(3, 5, {{2, 3, 1}, {0, 2, 2}, {0, 1, 3}});
  EXPECT_NE(wider.StructureHash(), m.StructureHash());
}

TEST(CsrMatrixTest, CheckNamesTheBrokenInvariant) {
  CsrMatrix m = CsrFromEntries(2, 3, {{0, 0, 1}, {0, 2, 1}, {1, 1, 1}});
  m.indices[1] = 0;
  EXPECT_EQ(m.Check(), "row 0: column 0 after column 0");
  m.indices[1] = 5;
  EXPECT_EQ(m.Check(), "row 0: column 5 out of range 0..2");
  m.indptr.pop_back();
  EXPECT_EQ(m.Check(), "indptr has 2 entries, expected rows + 1 = 3");
}

TEST(MatrixMarketTest, ReadsRealIntegerAndPatternGeneralMatrices) {
  MatrixMarketInfo info;
  CsrMatrix m = ParseMatrixMarket(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "\n"
      "3 3 4\n"
      "1 1 1.5\n"
      "3 2 -2e1\n"
      "1 3 4\n"
      "1 1 0.5\r\n",
      "m.mtx", &info);
  EXPECT_EQ(m.Check(), "");
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.symmetry, "general");
  EXPECT_EQ(info.entries, 4);
  EXPECT_EQ(info.duplicates, 1);
  EXPECT_EQ(m.indptr, (std::vector<int32_t>{0, 2, 2, 3}));
  EXPECT_EQ(m.indices, (std::vector<int32_t>{0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<float>{2, 4, -20}));

  m = ParseMatrixMarket("%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 -7\n", "i");
  EXPECT_EQ(m.values, (std::vector<float>{-7}));
  m = ParseMatrixMarket("%%matrixmarket MATRIX Coordinate Pattern General\n2 3 2\n1 3\n2 1\n", "p");
  EXPECT_EQ(m.indices, (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(m.values, (std::vector<float>{1, 1}));
}

TEST(MatrixMarketTest, SymmetricFilesAreMirrored) {
  CsrMatrix m = ParseMatrixMarket(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 1 2\n3 2 3\n", "s");
  EXPECT_EQ(m.nnz(), 5);
  EXPECT_EQ(m.indptr, (std::vector<int32_t>{0, 2, 4, 5}));
  EXPECT_EQ(m.indices, (std::vector<int32_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(m.values, (std::vector<float>{1, 2, 2, 3, 3}));
  m = ParseMatrixMarket("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 5\n",
                        "k");
  EXPECT_EQ(m.values, (std::vector<float>{-5, 5}));
  EXPECT_NE(ErrorOf("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 5\n")
                .find("m.mtx:3: a skew-symmetric matrix stores no diagonal entry (1, 1)"),
            std::string::npos);
}

TEST(MatrixMarketTest, EmptyMatricesEmptyRowsAndOneDenseRowWork) {
  CsrMatrix empty =
      ParseMatrixMarket("%%MatrixMarket matrix coordinate real general\n4 5 0\n", "e");
  EXPECT_EQ(empty.Check(), "");
  EXPECT_EQ(empty.nnz(), 0);
  EXPECT_EQ(empty.indptr, (std::vector<int32_t>(5, 0)));
  std::string dense = "%%MatrixMarket matrix coordinate pattern general\n3 64 64\n";
  for (int j = 64; j >= 1; --j) dense += "2 " + std::to_string(j) + "\n";
  CsrMatrix row = ParseMatrixMarket(dense, "d");
  EXPECT_EQ(row.Check(), "");
  EXPECT_EQ(row.RowLength(0), 0);
  EXPECT_EQ(row.RowLength(1), 64);
  EXPECT_EQ(row.RowLength(2), 0);
  CsrMatrix none = ParseMatrixMarket("%%MatrixMarket matrix coordinate real general\n0 0 0\n", "z");
  EXPECT_EQ(none.indptr, (std::vector<int32_t>{0}));
}

TEST(MatrixMarketTest, MalformedInputIsRefusedWithItsLine) {
  const std::string head = "%%MatrixMarket matrix coordinate real general\n";
  struct Case {
    std::string text;
    std::string message;
  } cases[] = {
      {"", "m.mtx:0: the file is empty"},
      {"3 3 1\n1 1 1\n", "m.mtx:1: expected the banner"},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
       "m.mtx:1: the array (dense) format is not read"},
      {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
       "m.mtx:1: complex matrices are not read"},
      {"%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", "hermitian matrices"},
      {"%%MatrixMarket matrix coordinate real upper\n1 1 0\n",
       "symmetry 'upper': expected general, symmetric or skew-symmetric"},
      {"%%MatrixMarket vector coordinate real general\n1 1 0\n", "object 'vector'"},
      {head, "the size line 'rows cols entries' is missing"},
      {head + "3 3\n", "m.mtx:2: expected the size line 'rows cols entries', found '3 3'"},
      {head + "3 x 1\n1 1 1\n", "m.mtx:2: columns: 'x' is not an integer"},
      {head + "-3 3 1\n", "m.mtx:2: the size line has a negative number"},
      {head + "2 2 5\n", "m.mtx:2: 5 entries do not fit a 2 x 2 matrix"},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n",
       "a symmetric matrix must be square, this one is 2 x 3"},
      {head + "3 3 2\n1 1 1\n4 1 1\n", "m.mtx:4: row index 4 is out of range 1..3"},
      {head + "3 3 1\n\n% c\n1 0 1\n", "m.mtx:5: column index 0 is out of range 1..3"},
      {head + "3 3 1\n1 1\n", "m.mtx:3: expected 'row col value', found '1 1'"},
      {head + "3 3 1\n1 1 one\n", "m.mtx:3: value: 'one' is not a number"},
      {head + "3 3 1\n1 1 nan\n", "m.mtx:3: value: 'nan' is not a finite number"},
      {head + "3 3 1\n1 1 1e999\n", "is not a finite number"},
      {head + "3 3 1\n1.5 1 1\n", "m.mtx:3: row index: '1.5' is not an integer"},
      {head + "3 3 1\n1 1 1\n2 2 2\n", "m.mtx:4: more entries than the 1 the size line declares"},
      {head + "3 3 3\n1 1 1\n2 2 2\n",
       "m.mtx: the size line declares 3 entries, the file ends after 2 (line 4)"},
      {"%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n",
       "value: '2.5' is not an integer"},
      {head + "3000000000 2 1\n1 1 1\n", "dimensions within 32-bit indices"},
  };
  for (const Case& c : cases) {
    std::string error = ErrorOf(c.text);
    EXPECT_NE(error.find(c.message), std::string::npos) << "input:\n"
                                                        << c.text << "\ngot: " << error;
  }
}

// R's Matrix package ships these (Debian: r-cran-matrix); install-deps unpacks them.
std::filesystem::path RMatrixDir() {
  const char* dir = std::getenv("KILN_SPARSE_DATA");
  return std::filesystem::path(dir ? dir : KILN_SPARSE_DATA_DIR) / "r-cran-matrix";
}

TEST(MatrixMarketTest, ReadsTheFilesRsMatrixPackageShips) {
  std::filesystem::path dir = RMatrixDir();
  if (!std::filesystem::exists(dir / "pores_1.mtx")) {
    GTEST_SKIP() << "skipped: no " << dir.string()
                 << " (deploy/install-deps.sh unpacks Debian's r-cran-matrix there)";
  }
  MatrixMarketInfo info;
  CsrMatrix pores = ReadMatrixMarket((dir / "pores_1.mtx").string(), &info);
  EXPECT_EQ(pores.Check(), "");
  EXPECT_EQ(pores.rows, 30);
  EXPECT_EQ(pores.nnz(), 180);
  EXPECT_EQ(info.field, "real");
  CsrMatrix lund = ReadMatrixMarket((dir / "lund_a.mtx").string(), &info);
  EXPECT_EQ(lund.Check(), "");
  EXPECT_EQ(info.symmetry, "symmetric");
  EXPECT_EQ(lund.rows, 147);
  EXPECT_EQ(info.entries, 1298);
  EXPECT_EQ(lund.nnz(), 2 * 1298 - 147);  // mirrored off the diagonal; all 147 on it
  CsrMatrix jgl = ReadMatrixMarket((dir / "jgl009.mtx").string(), &info);
  EXPECT_EQ(info.field, "pattern");
  EXPECT_EQ(jgl.nnz(), 50);
  // The package's own wrong.mtx has a 0 row index.
  try {
    ReadMatrixMarket((dir / "wrong.mtx").string());
    ADD_FAILURE() << "wrong.mtx was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrong.mtx:3: row index 0 is out of range 1..2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::sparse
