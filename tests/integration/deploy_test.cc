// The systemd units in deploy/systemd/ checked offline with `systemd-analyze verify` (their
// ExecStart pointed at the binaries built here): no error and no warning (systemd only warns
// about an unknown key, so any output counts as a failure).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/integration/process_util.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln {
namespace {

TEST(Deploy, SystemdUnitsVerify) {
  if (!std::filesystem::exists("/usr/bin/systemd-analyze")) GTEST_SKIP() << "no systemd-analyze";
  runtime::testing::ScratchDir dir;
  for (std::string unit : {"kiln-coordinator.service", "kiln-worker.service"}) {
    SCOPED_TRACE(unit);
    std::string text = testing::ReadText(std::string(KILN_SOURCE_DIR) + "/deploy/systemd/" + unit);
    ASSERT_FALSE(text.empty());
    text =
        std::regex_replace(text, std::regex("/usr/local/bin/kiln-coordinator"), COORDINATOR_PATH);
    text = std::regex_replace(text, std::regex("/usr/local/bin/kiln-worker"), WORKER_PATH);
    std::ofstream(dir.Sub(unit)) << text;
    auto [code, out] =
        testing::RunCommand({"/usr/bin/systemd-analyze", "verify", dir.Sub(unit)}, dir.Sub("out"));
    EXPECT_EQ(code, 0) << out;
    EXPECT_EQ(out, "") << "systemd-analyze had something to say";
  }
}

}  // namespace
}  // namespace kiln
