// ONNX backend node tests through import, the tuning pipeline and the reference executor, in
// two suites: Debian's libonnx-testdata (/usr/share/libonnx-testdata/data/node/test_*, ONNX 1.12,
// opsets up to 17) and the node cases of the onnx package in the project's virtual environment
// (opsets up to the newest, written into the build folder by make_onnx_node_cases.py before this
// test runs). Every test whose ops all have a converter must pass, unless the suite's list
// (testdata/onnx_node_expected.txt, testdata/onnx_package_node_expected.txt) names it with the
// reason it does not (an attribute, op version or dtype Kiln does not handle, or a known fault
// of the test data); a listed test must then not pass (a listed test that passes must leave the
// list). A test with an op Kiln has no converter for must be reported unsupported, never fail.
// Prints pass / fail / unsupported counts per op. A third test runs the front end's models at
// opsets 18 to 28 against onnx.reference's outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "cli/commands/onnx_backend_test.h"
#include "ir/frontend/onnx/import.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;

const char* kDebianNodeTests = "/usr/share/libonnx-testdata/data/node";

// test name -> reason, from "test_name: reason" lines ('#' starts a comment).
std::map<std::string, std::string> ReadExpectedUnsupported(const std::string& list) {
  std::map<std::string, std::string> listed;
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/cli/testdata/" + list);
  EXPECT_TRUE(in.good()) << "cannot read tests/cli/testdata/" << list;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    listed[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return listed;
}

std::vector<OnnxTestResult> RunAll(const std::vector<std::string>& dirs) {
  // Two workers: the interpreter is single-threaded and CI machines have two cores.
  std::vector<OnnxTestResult> results(dirs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < dirs.size(); i = next++) results[i] = RunOnnxBackendTest(dirs[i]);
  };
  std::future<void> other = std::async(std::launch::async, worker);
  worker();
  other.get();
  return results;
}

void CheckSuite(const std::string& node_dir, const std::string& list) {
  std::vector<std::string> dirs;
  for (const auto& entry : fs::directory_iterator(node_dir)) {
    if (entry.is_directory()) dirs.push_back(entry.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<std::string> supported_list = ir::frontend::onnx::SupportedOnnxOps();
  std::set<std::string> supported(supported_list.begin(), supported_list.end());
  std::map<std::string, std::string> listed = ReadExpectedUnsupported(list);

  std::vector<OnnxTestResult> results = RunAll(dirs);
  struct Counts {
    int pass = 0, fail = 0, unsupported = 0;
  };
  std::map<std::string, Counts> per_op;
  Counts total;
  std::set<std::string> seen;
  for (const OnnxTestResult& r : results) {
    std::string name = fs::path(r.dir).filename().string();
    seen.insert(name);
    bool all_supported = !r.op_types.empty();
    for (const std::string& op : r.op_types) {
      all_supported &= supported.count(op) > 0;
      Counts& c = per_op[op];
      (r.status == "pass" ? c.pass : r.status == "fail" ? c.fail : c.unsupported)++;
    }
    (r.status == "pass" ? total.pass : r.status == "fail" ? total.fail : total.unsupported)++;
    auto it = listed.find(name);
    if (it != listed.end()) {
      EXPECT_NE(r.status, "pass") << name << " is listed (" << it->second
                                  << ") but passes: remove it from the list";
    } else if (all_supported) {
      EXPECT_EQ(r.status, "pass") << name << ": " << r.reason
                                  << "\n(if this is expected, list it: " << name << ": "
                                  << r.reason.substr(0, r.reason.find('\n')) << ")";
    } else {
      EXPECT_EQ(r.status, "unsupported") << name << ": " << r.reason;
    }
  }
  for (const auto& [name, reason] : listed) {
    EXPECT_TRUE(seen.count(name)) << name << " is listed but is not a node test";
  }

  std::cout << std::left << std::setw(28) << "op" << std::right << std::setw(6) << "pass"
            << std::setw(6) << "fail" << std::setw(13) << "unsupported\n";
  for (const auto& [op, c] : per_op) {
    std::cout << std::left << std::setw(28) << op << std::right << std::setw(6) << c.pass
              << std::setw(6) << c.fail << std::setw(12) << c.unsupported << "\n";
  }
  std::cout << results.size() << " node tests: " << total.pass << " pass, " << total.fail
            << " fail, " << total.unsupported << " unsupported\n";
  for (const OnnxTestResult& r : results) {
    if (r.status == "unsupported") {
      std::cout << "unsupported " << fs::path(r.dir).filename().string() << ": " << r.reason
                << "\n";
    }
  }
}

TEST(OnnxNodeSuite, SupportedOpsPass) {
  if (!fs::is_directory(kDebianNodeTests)) {
    GTEST_FAIL() << kDebianNodeTests
                 << " is missing: deploy/install-deps.sh installs libonnx-testdata";
  }
  CheckSuite(kDebianNodeTests, "onnx_node_expected.txt");
}

// The onnx package's cases, at the opsets current exporters write.
TEST(OnnxNodeSuite, OnnxPackageCasesPass) {
  const std::string dir = std::string(KILN_ONNX_CASES_DIR) + "/node";
  if (!fs::exists(std::string(KILN_ONNX_CASES_DIR) + "/stamp")) {
    GTEST_FAIL() << dir << " is missing: ctest runs onnx_node_cases (make_onnx_node_cases.py "
                 << "with the virtual environment deploy/install-deps.sh makes) first";
  }
  CheckSuite(dir, "onnx_package_node_expected.txt");
}

// The front end's models at opsets 18 to 28 (several of the newer op versions in one graph)
// against onnx.reference's outputs.
TEST(OnnxNodeSuite, NewerOpsetModelsMatchTheReference) {
  const std::string dir = std::string(KILN_ONNX_CASES_DIR) + "/reference";
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " is missing: ctest runs onnx_node_cases first";
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    OnnxTestResult r = RunOnnxBackendTest(entry.path().string());
    EXPECT_EQ(r.status, "pass") << entry.path().filename().string() << ": " << r.reason;
    ++cases;
  }
  EXPECT_GE(cases, 4);
}

}  // namespace
}  // namespace kiln::cli
