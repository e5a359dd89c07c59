// Key files: a generated pair round-trips through its files, the secret file is owner-only,
// an existing key is never overwritten, malformed files are errors naming file and line, and
// the allow-list is the authorized/ folder's .pub files.
#include "schemas/curve_keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "support/error.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::schemas {
namespace {

using ::testing::HasSubstr;

TEST(CurveKeys, GeneratedPairRoundTripsThroughItsFiles) {
  runtime::testing::ScratchDir dir;
  CurveKeyPair pair = GenerateCurveKeyPair();
  EXPECT_EQ(pair.public_key.size(), 40u);
  EXPECT_EQ(pair.secret_key.size(), 40u);
  WriteCurveKeyPair(dir.path().string(), "worker", pair);
  CurveKeyPair back = ReadCurveKeyFile(dir.Sub("worker.key"));
  EXPECT_EQ(back.public_key, pair.public_key);
  EXPECT_EQ(back.secret_key, pair.secret_key);
  CurveKeyPair pub = ReadCurveKeyFile(dir.Sub("worker.pub"));
  EXPECT_EQ(pub.public_key, pair.public_key);
  EXPECT_TRUE(pub.secret_key.empty());
  struct stat st {};
  ASSERT_EQ(stat(dir.Sub("worker.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  try {
    WriteCurveKeyPair(dir.path().string(), "worker", GenerateCurveKeyPair());
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("exists"));
  }
}

TEST(CurveKeys, MalformedFilesNameTheLine) {
  runtime::testing::ScratchDir dir;
  std::ofstream(dir.Sub("bad.key")) << "# a comment\npublic tooshort\n";
  try {
    ReadCurveKeyFile(dir.Sub("bad.key"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_THAT(e.what(), HasSubstr("bad.key:2"));
  }
  EXPECT_THROW(ReadCurveKeyFile(dir.Sub("missing.key")), Error);
}

TEST(CurveKeys, AllowListIsTheAuthorizedFolder) {
  runtime::testing::ScratchDir dir;
  EXPECT_TRUE(ReadAuthorizedKeys(dir.path().string()).empty());
  CurveKeyPair a = GenerateCurveKeyPair();
  CurveKeyPair b = GenerateCurveKeyPair();
  WriteCurveKeyPair(dir.Sub("authorized"), "a", a);
  WriteCurveKeyPair(dir.Sub("authorized"), "b", b);
  std::vector<std::string> keys = ReadAuthorizedKeys(dir.path().string());
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> expected = {a.public_key, b.public_key};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(keys, expected);  // the .key files beside them are not read as allowed keys
}

}  // namespace
}  // namespace kiln::schemas
