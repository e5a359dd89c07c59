// Tests of the golden-file helper: a match passes, a difference names the file and line, and
// an update run rewrites the file and still fails.
#include "tests/testing/golden.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace kiln::testing {
namespace {

class GoldenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kiln_golden_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(GoldenFileTest, MatchingTextPasses) {
  Write("a.txt", "one\ntwo\n");
  EXPECT_EQ(CheckGoldenFile(dir_ / "a.txt", "one\ntwo\n", GoldenMode::kCompare), "");
}

TEST_F(GoldenFileTest, DifferenceNamesFileAndFirstLine) {
  Write("a.txt", "one\ntwo\nthree\n");
  std::string message = CheckGoldenFile(dir_ / "a.txt", "one\nTWO\nthree\n", GoldenMode::kCompare);
  EXPECT_NE(message.find("a.txt"), std::string::npos) << message;
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
  EXPECT_NE(message.find("expected: two"), std::string::npos) << message;
  EXPECT_NE(message.find("actual:   TWO"), std::string::npos) << message;
  EXPECT_EQ(ReadTextFile(dir_ / "a.txt"), "one\ntwo\nthree\n");  // compare mode never writes
}

TEST_F(GoldenFileTest, ExtraTrailingLineIsADifference) {
  Write("a.txt", "one\n");
  std::string message = CheckGoldenFile(dir_ / "a.txt", "one\ntwo\n", GoldenMode::kCompare);
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
  EXPECT_NE(message.find("<end of text>"), std::string::npos) << message;
}

TEST_F(GoldenFileTest, MissingFileFailsInCompareMode) {
  std::string message = CheckGoldenFile(dir_ / "none.txt", "x", GoldenMode::kCompare);
  EXPECT_NE(message.find("missing golden file"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "none.txt"));
}

TEST_F(GoldenFileTest, UpdateRewritesAndFails) {
  Write("a.txt", "old\n");
  std::string message = CheckGoldenFile(dir_ / "a.txt", "new\n", GoldenMode::kUpdate);
  EXPECT_NE(message.find("rewritten"), std::string::npos) << message;
  EXPECT_EQ(ReadTextFile(dir_ / "a.txt"), "new\n");
  // Once rewritten, a compare run passes.
  EXPECT_EQ(CheckGoldenFile(dir_ / "a.txt", "new\n", GoldenMode::kCompare), "");
}

TEST_F(GoldenFileTest, UpdateCreatesMissingFileAndFolders) {
  std::filesystem::path path = dir_ / "sub" / "dir" / "b.txt";
  std::string message = CheckGoldenFile(path, "made\n", GoldenMode::kUpdate);
  EXPECT_NE(message.find("created"), std::string::npos) << message;
  EXPECT_EQ(ReadTextFile(path), "made\n");
}

TEST_F(GoldenFileTest, UpdateOfAMatchingFileStillFails) {
  Write("a.txt", "same\n");
  std::string message = CheckGoldenFile(dir_ / "a.txt", "same\n", GoldenMode::kUpdate);
  EXPECT_NE(message.find("already matches"), std::string::npos) << message;
}

TEST(SourcePath, IsInsideTheSourceTree) {
  EXPECT_TRUE(std::filesystem::exists(SourcePath("tests/testing/golden.h")));
}

}  // namespace
}  // namespace kiln::testing
