// The executor on a hand-built model: results against the formula, symbolic dims bound from
// the input's shape (one plan per shape, cached), views, memory reuse on a chain, runs into
// given outputs, input validation and a failing kernel.
#include "runtime/model/executor.h"

#include <gtest/gtest.h>

#include "executor_test_model.h"

namespace kiln::runtime::model {
namespace {

using testing::TempDir;

class ExecutorTest : public ::testing::Test {
 protected:
  Executor Load(bool fail = false) {
    testing::WriteChainArtifact(dir_ / "chain.kiln", dir_ / "cache", fail);
    return Executor(LoadArtifact(dir_ / "chain.kiln"), {.threads = 1, .cache_dir = dir_ / "cache"});
  }
  TempDir dir_;
};

TEST_F(ExecutorTest, RunsTheChainForEveryBoundSize) {
  Executor executor = Load();
  const float c[4] = {0.5f, -1.0f, 2.0f, 0.0f};
  for (int64_t n : {8, 6, 8, 40}) {
    ir::HostTensor x = ir::HostTensor::Random(ir::DataType::Float(32), {n}, 7);
    std::vector<ir::HostTensor> out = executor.Run({x});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), std::vector<int64_t>({n}));
    EXPECT_EQ(out[1].shape(), std::vector<int64_t>({2, n / 2}));
    for (int64_t i = 0; i < n; ++i) {
      double t3 = static_cast<float>(
          static_cast<float>(static_cast<float>(x.GetDouble(i) * 2 + 1) * 2 + 1) * 2 + 1);
      EXPECT_FLOAT_EQ(out[0].GetDouble(i), static_cast<float>(t3 + c[i % 4])) << "n=" << n;
      EXPECT_FLOAT_EQ(out[1].GetDouble(i), t3) << "n=" << n;
    }
  }
}

TEST_F(ExecutorTest, AModelCompiledAgainIntoTheSameDirectoryRunsItsNewKernels) {
  ir::HostTensor x(ir::DataType::Float(32), {4});
  Executor first = Load();
  EXPECT_FLOAT_EQ(first.Run({x})[1].GetDouble(0), 7.0f);  // ((0 * 2 + 1) * 2 + 1) * 2 + 1
  testing::WriteChainArtifact(dir_ / "chain.kiln", dir_ / "cache", false, "3.0f");
  Executor second(LoadArtifact(dir_ / "chain.kiln"), {.threads = 1, .cache_dir = dir_ / "cache"});
  EXPECT_FLOAT_EQ(second.Run({x})[1].GetDouble(0), 13.0f);  // ((0 * 3 + 1) * 3 + 1) * 3 + 1
  EXPECT_FLOAT_EQ(first.Run({x})[1].GetDouble(0), 7.0f);
}

// RunInto writes what Run returns into the tensors it is given, which keep their memory; a
// tensor that does not fit is refused naming the output.
TEST_F(ExecutorTest, RunIntoWritesTheOutputsItIsGiven) {
  Executor executor = Load();
  ir::HostTensor x = ir::HostTensor::Random(ir::DataType::Float(32), {8}, 3);
  std::vector<ir::HostTensor> expected = executor.Run({x});
  std::vector<ir::HostTensor> out = {ir::HostTensor(ir::DataType::Float(32), {8}),
                                     ir::HostTensor(ir::DataType::Float(32), {2, 4})};
  const void* memory[2] = {out[0].data(), out[1].data()};
  for (int run = 0; run < 2; ++run) {
    executor.RunInto({x}, out);
    for (size_t o = 0; o < 2; ++o) {
      EXPECT_EQ(out[o].data(), memory[o]);
      for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(out[o].GetDouble(i), expected[o].GetDouble(i));
    }
  }
  std::vector<ir::HostTensor> wrong = {ir::HostTensor(ir::DataType::Float(32), {8}),
                                       ir::HostTensor(ir::DataType::Float(32), {8})};
  try {
    executor.RunInto({x}, wrong);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(std::string(e.what()).find(
                  "output 1 (v) is float32[2, 4], the tensor given to run into float32[8]"),
              std::string::npos)
        << e.what();
  }
  std::vector<ir::HostTensor> one = {ir::HostTensor(ir::DataType::Float(32), {8})};
  EXPECT_THROW(executor.RunInto({x}, one), Error);
}

TEST_F(ExecutorTest, IntermediatesOfAChainShareMemory) {
  Executor executor = Load();
  PlanStats stats = executor.Plan({{1024}});
  // t1 and t3 never live at once: two buffers of 4 KiB, the least any plan can do.
  EXPECT_EQ(stats.arena_bytes, 2u * 4096);
  EXPECT_EQ(stats.lower_bound_bytes, stats.arena_bytes);
  EXPECT_EQ(stats.unshared_bytes, 3u * 4096);
  EXPECT_EQ(stats.output_bytes, 4096u * 2);
  EXPECT_EQ(stats.constant_bytes, 16u);
  EXPECT_EQ(stats.kernel_calls, 4);
  EXPECT_EQ(stats.views, 1);
}

TEST_F(ExecutorTest, RejectsInputsThatDoNotFit) {
  Executor executor = Load();
  auto message = [&](std::vector<ir::HostTensor> inputs) {
    try {
      executor.Run(inputs);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}).find("takes 1 inputs, 0 given"), std::string::npos);
  EXPECT_NE(message({ir::HostTensor(ir::DataType::Int(32), {8})}).find("input x is int32"),
            std::string::npos);
  EXPECT_NE(message({ir::HostTensor(ir::DataType::Float(32), {2, 4})}).find("rank 2"),
            std::string::npos);
  // An odd n makes the view [2, n // 2] smaller than its source.
  EXPECT_NE(message({ir::HostTensor(ir::DataType::Float(32), {7})}).find("element counts differ"),
            std::string::npos);
}

TEST_F(ExecutorTest, AFailingKernelIsAnErrorNamingIt) {
  Executor executor = Load(/*fail=*/true);
  try {
    executor.Run({ir::HostTensor(ir::DataType::Float(32), {8})});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(std::string(e.what()).find("kernel k_fail (task add4, step 3) failed with status 7"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::runtime::model
