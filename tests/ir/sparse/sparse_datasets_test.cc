// The sparse benchmark's data sets: every listed name loads into a valid matrix of the expected
// shape (files from deploy/install-deps.sh's unpacked packages; generated ones anywhere), a
// missing file names its path and the install step, an unknown name lists the known ones.
#include "ir/sparse/sparse_datasets.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "support/error.h"

namespace kiln::ir::sparse {
namespace {

TEST(SparseDatasetsTest, EveryDataSetLoads) {
  // name -> (rows, nnz)
  const std::map<std::string, std::pair<int64_t, int64_t>> expected = {
      {"metis-4elt", {7434, 2 * 43031}},
      {"metis-copter2", {55476, 2 * 352238}},
      {"metis-mdual", {258569, 2 * 513132}},
      {"wormnet", {2445, 2 * 78736}},
      {"lund_a", {147, 2 * 1298 - 147}},
      {"pores_1", {30, 180}},
      {"rmat-14", {1 << 14, -1}},
      {"rmat-17", {1 << 17, -1}},
      {"bigbird-4096-64", {4096, -1}},
  };
  std::vector<SparseDataset> all = ListSparseDatasets();
  ASSERT_EQ(all.size(), expected.size());
  std::vector<std::string> missing;
  for (const SparseDataset& d : all) {
    ASSERT_TRUE(expected.count(d.name)) << d.name;
    if (!SparseDatasetAvailable(d)) {
      missing.push_back(d.name);
      continue;
    }
    CsrMatrix m = LoadSparseDataset(d.name);
    EXPECT_EQ(m.Check(), "") << d.name;
    auto [rows, nnz] = expected.at(d.name);
    EXPECT_EQ(m.rows, rows) << d.name;
    EXPECT_EQ(m.cols, rows) << d.name;
    if (nnz >= 0) {
      EXPECT_EQ(m.nnz(), nnz) << d.name;
    }
    EXPECT_GT(m.nnz(), m.rows) << d.name;
    if (d.kind == "rmat" || d.kind == "attention-mask") {
      EXPECT_TRUE(d.file.empty()) << d.name;
    }
  }
  if (!missing.empty()) {
    std::string names;
    for (const std::string& n : missing) names += " " + n;
    GTEST_SKIP() << "skipped:" << names << ": no files under " << SparseDataDir()
                 << " (deploy/install-deps.sh unpacks them); the others loaded";
  }
}

TEST(SparseDatasetsTest, GeneratedDataSetsAreStable) {
  CsrMatrix a = LoadSparseDataset("rmat-14", "/nonexistent");  // needs no file
  CsrMatrix b = LoadSparseDataset("rmat-14", "/nonexistent");
  EXPECT_EQ(a.StructureHash(), b.StructureHash());
  CsrMatrix mask = LoadSparseDataset("bigbird-4096-64", "/nonexistent");
  EXPECT_EQ(mask.RowLength(0), 4096);
}

TEST(SparseDatasetsTest, MissingFilesAndUnknownNamesAreClearErrors) {
  std::filesystem::path empty = std::filesystem::path(testing::TempDir()) / "kiln-no-sparse-data";
  std::filesystem::create_directories(empty);
  try {
    LoadSparseDataset("metis-4elt", empty.string());
    ADD_FAILURE() << "metis-4elt loaded from an empty folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    std::string what = e.what();
    EXPECT_NE(what.find((empty / "libmetis-doc/4elt.graph").string() + " is missing"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("deploy/install-deps.sh unpacks Debian's libmetis-doc there"),
              std::string::npos)
        << what;
  }
  try {
    LoadSparseDataset("cora");
    ADD_FAILURE() << "an unknown name loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("sparse data set 'cora' is not known; the data sets are "
                                         "metis-4elt, metis-copter2"),
              std::string::npos)
        << e.what();
  }
  // $KILN_SPARSE_DATA moves the folder.
  const char* before = std::getenv("KILN_SPARSE_DATA");
  std::string saved = before ? before : "";
  setenv("KILN_SPARSE_DATA", empty.c_str(), 1);
  EXPECT_EQ(SparseDataDir(), empty.string());
  EXPECT_FALSE(SparseDatasetAvailable(ListSparseDatasets()[0]));
  if (before) {
    setenv("KILN_SPARSE_DATA", saved.c_str(), 1);
  } else {
    unsetenv("KILN_SPARSE_DATA");
  }
}

}  // namespace
}  // namespace kiln::ir::sparse
