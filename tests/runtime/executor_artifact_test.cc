// The artifact on disk: what is written, and every refusal on load (another device or
// target, a newer format, truncated, corrupted or missing files).
#include <gtest/gtest.h>

#include <fstream>

#include "executor_test_model.h"
#include "runtime/file_util.h"
#include "runtime/model/artifact.h"

namespace kiln::runtime::model {
namespace {

using testing::TempDir;

class ArtifactTest : public ::testing::Test {
 protected:
  ArtifactTest() { testing::WriteChainArtifact(Dir(), dir_ / "cache"); }
  std::string Dir() const { return dir_ / "chain.kiln"; }
  std::string File(const std::string& name) const { return Dir() + "/" + name; }
  std::string Read(const std::string& name) const { return ReadWholeFile(File(name)); }
  void Write(const std::string& name, const std::string& bytes) const {
    std::ofstream(File(name), std::ios::binary | std::ios::trunc) << bytes;
  }
  // The load's error, checked to be of `kind`.
  std::string LoadError(ErrorKind kind, const LoadOptions& options = {}) const {
    try {
      LoadArtifact(Dir(), options);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      return e.what();
    }
    return "no error";
  }
  TempDir dir_;
};

TEST_F(ArtifactTest, FormatVersionIsPinned) { EXPECT_EQ(kArtifactFormatVersion, 3); }

TEST_F(ArtifactTest, LoadsWhatWasWritten) {
  Artifact a = LoadArtifact(Dir(), {.target = "llvm", .device_key = "cpu-test"});
  EXPECT_EQ(a.manifest.format_version, kArtifactFormatVersion);
  EXPECT_EQ(a.manifest.kiln_version, kKilnVersion);
  ASSERT_EQ(a.manifest.tasks.size(), 2u);
  EXPECT_EQ(a.manifest.tasks[0].record_id, 5);
  EXPECT_FALSE(a.manifest.tasks[1].record_id.has_value());
  EXPECT_NE(Read(kManifestFile).find("\"record\": \"untuned\""), std::string::npos);
  EXPECT_EQ(GraphToJson(a.graph), GraphToJson(testing::ChainGraph()));
  EXPECT_EQ(a.constants.numel(), 16);
}

TEST_F(ArtifactTest, RefusesAnotherDeviceOrTarget) {
  std::string device = LoadError(ErrorKind::kUnsupported, {.device_key = "cpu-zen9"});
  EXPECT_NE(device.find("compiled for device 'cpu-test', this machine is 'cpu-zen9'"),
            std::string::npos)
      << device;
  std::string target = LoadError(ErrorKind::kUnsupported, {.target = "cuda"});
  EXPECT_NE(target.find("compiled for target 'llvm', not 'cuda'"), std::string::npos) << target;
}

TEST_F(ArtifactTest, RefusesANewerFormat) {
  nlohmann::json m = nlohmann::json::parse(Read(kManifestFile));
  m["format_version"] = kArtifactFormatVersion + 1;
  Write(kManifestFile, m.dump());
  std::string message = LoadError(ErrorKind::kUnsupported);
  EXPECT_NE(message.find("format version 4, newer than the version 3 this build"),
            std::string::npos)
      << message;
}

TEST_F(ArtifactTest, TruncatedOrCorruptedFilesAreErrors) {
  std::string constants = Read(kConstantsFile);
  Write(kConstantsFile, constants.substr(0, 10));
  EXPECT_NE(LoadError(ErrorKind::kParse).find("constants.bin: 10 bytes, the manifest says 16"),
            std::string::npos);
  Write(kConstantsFile, constants);
  std::string library = Read(kKernelsFile);
  library[library.size() / 2] ^= 0x20;
  Write(kKernelsFile, library);
  EXPECT_NE(LoadError(ErrorKind::kParse).find("kernels.so: checksum mismatch"), std::string::npos);
  std::string manifest = Read(kManifestFile);
  Write(kManifestFile, manifest.substr(0, manifest.size() / 2));
  EXPECT_NE(LoadError(ErrorKind::kParse).find("manifest.json: not valid JSON"), std::string::npos);
  std::filesystem::remove(File(kGraphFile));
  Write(kManifestFile, manifest);
  EXPECT_NE(LoadError(ErrorKind::kIO).find("graph.json: missing"), std::string::npos);
}

TEST_F(ArtifactTest, EveryTruncationOfTheManifestIsAnError) {
  std::string manifest = Read(kManifestFile);
  std::string graph = Read(kGraphFile);
  std::string constants = Read(kConstantsFile);
  std::string library = Read(kKernelsFile);
  for (size_t n = 0; n < manifest.size(); n += 7) {
    EXPECT_THROW(ParseArtifact(manifest.substr(0, n), graph, constants, library, {}, "m"), Error);
  }
  for (size_t n = 0; n < graph.size(); n += 97) {
    EXPECT_THROW(ParseArtifact(manifest, graph.substr(0, n), constants, library, {}, "m"), Error);
  }
}

}  // namespace
}  // namespace kiln::runtime::model
