// Deployment files checked offline: the systemd units in deploy/systemd/ with
// `systemd-analyze verify` (their ExecStart pointed at the binaries built here; systemd only
// warns about an unknown key, so any output counts as a failure), and the Kubernetes
// manifests in deploy/k8s/ against the Kubernetes schemas with kubernetes-validate --strict
// (from PyPI, in the project's .venv; KILN_K8S_VALIDATE names another copy), which also
// rejects a manifest with a misspelt field, so the check is known to bite.
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

std::string K8sValidator() {
  if (const char* env = std::getenv("KILN_K8S_VALIDATE"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::string(KILN_SOURCE_DIR) + "/.venv/bin/kubernetes-validate";
}

TEST(Deploy, KubernetesManifestsValidate) {
  std::string validator = K8sValidator();
  if (!std::filesystem::exists(validator)) GTEST_SKIP() << "no " << validator;
  runtime::testing::ScratchDir dir;
  std::string k8s = std::string(KILN_SOURCE_DIR) + "/deploy/k8s/";
  for (std::string file : {"coordinator.yaml", "workers.yaml"}) {
    auto [code, out] =
        testing::RunCommand({validator, "--strict", "--no-warn", k8s + file}, dir.Sub("out"));
    EXPECT_EQ(code, 0) << file << ": " << out;
  }
  std::string bad = testing::ReadText(k8s + "coordinator.yaml");
  bad = std::regex_replace(bad, std::regex("containerPort"), "containerPorts");
  std::ofstream(dir.Sub("bad.yaml")) << bad;
  auto [code, out] = testing::RunCommand({validator, "--strict", "--no-warn", dir.Sub("bad.yaml")},
                                         dir.Sub("out"));
  EXPECT_NE(code, 0) << out;
}

}  // namespace
}  // namespace kiln
