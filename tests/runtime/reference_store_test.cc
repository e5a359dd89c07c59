// ReferenceStore: a small workload's reference is the interpreter's full run; a large one's
// is the trusted build, checked by the interpreter on a window; references are kept in
// memory and on disk, recomputed when the disk copy is damaged, and refused when no check
// is affordable.
#include "runtime/reference_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ir/interpreter/random_inputs.h"
#include "runtime/measure_result.h"
#include "runtime/sandbox_client.h"
#include "runtime_test_util.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

class ReferenceStoreTest : public ::testing::Test {
 protected:
  ReferenceOptions Options() {
    ReferenceOptions o;
    o.cache_dir = dir_.Sub("cache");
    o.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
    o.extra_env = {"OMP_NUM_THREADS=1"};
    o.run_time_limit_s = 30;
    return o;
  }
  ScratchDir dir_;
};

ir::PrimFunc Zoo(const std::string& name) { return ir::zoo::ZooLookup(name).build(); }

// The interpreter's full run on the reference's seed: what every parameter must hold.
std::vector<ir::HostTensor> Interpreted(const ir::PrimFunc& f, uint64_t seed) {
  return ir::RunWithRandomInputs(f, {}, seed);
}

TEST_F(ReferenceStoreTest, SmallWorkloadRunsTheInterpreterOnce) {
  ir::PrimFunc f = Zoo("matmul");
  ReferenceStore store(Options());
  std::shared_ptr<const Reference> ref = store.Get(f, {}, 5);
  EXPECT_EQ(ref->source.rfind("interpreter, full", 0), 0u) << ref->source;
  ASSERT_EQ(ref->params.size(), 3u);
  EXPECT_FALSE(ref->params[0].written);
  EXPECT_TRUE(ref->params[2].written);
  EXPECT_EQ(ref->params[2].name, "C");
  std::vector<ir::HostTensor> want = Interpreted(f, 5);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(ir::CompareTensors(want[i], ref->params[i].expected, 0, 0).ok) << i;
    EXPECT_EQ(ref->params[i].input.kind, ArgSpec::Kind::kTensorFile);
    EXPECT_TRUE(std::filesystem::exists(ref->params[i].input.path));
  }
  // The same store answers from memory; another seed is another reference.
  EXPECT_EQ(store.Get(f, {}, 5).get(), ref.get());
  EXPECT_NE(store.Get(f, {}, 6)->key, ref->key);

  // A new store (another process, later) finds it on disk.
  ReferenceStore again(Options());
  std::shared_ptr<const Reference> loaded = again.Get(f, {}, 5);
  EXPECT_TRUE(loaded->from_disk);
  EXPECT_EQ(loaded->source, ref->source);
  EXPECT_TRUE(ir::CompareTensors(want[2], loaded->params[2].expected, 0, 0).ok);
}

TEST_F(ReferenceStoreTest, LargeWorkloadUsesTheTrustedBuildCheckedOnAWindow) {
  ir::PrimFunc f = Zoo("dense_bias_relu");
  ReferenceOptions options = Options();
  options.interpreter_budget = 2000;  // far below the workload's 25k stores
  ReferenceStore store(options);
  std::shared_ptr<const Reference> ref = store.Get(f, {}, 3);
  EXPECT_NE(ref->source.find("trusted build"), std::string::npos) << ref->source;
  EXPECT_NE(ref->source.find("verified against the interpreter on relu["), std::string::npos)
      << ref->source;
  // The trusted build's outputs agree with the interpreter's full run everywhere.
  std::vector<ir::HostTensor> want = Interpreted(f, 3);
  MeasureResult check;
  CheckOutputs({want[3]}, {ref->params[3].expected}, check);
  EXPECT_TRUE(check.ok()) << check.message;
  EXPECT_TRUE(ir::CompareTensors(want[0], ref->params[0].expected, 0, 0).ok);
}

TEST_F(ReferenceStoreTest, SymbolicWorkloadWithDims) {
  ir::PrimFunc f = Zoo("matmul_symbolic_m");
  ReferenceStore store(Options());
  std::shared_ptr<const Reference> ref = store.Get(f, {{"m", 20}}, 1);
  EXPECT_EQ(ref->params[2].expected.shape(), (std::vector<int64_t>{20, 24}));
  EXPECT_NE(store.Get(f, {{"m", 21}}, 1)->key, ref->key);
}

TEST_F(ReferenceStoreTest, WorkloadTooExpensiveToCheckIsRefused) {
  ReferenceOptions options = Options();
  options.interpreter_budget = 10;
  options.interpreter_limit = 100;
  ReferenceStore store(options);
  try {
    store.Get(Zoo("matmul"), {}, 1);
    ADD_FAILURE() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("narrowest output window"), std::string::npos) << e.what();
  }
  // Without a window (a scalar output), the refusal says so.
  try {
    store.Get(Zoo("sum_all"), {}, 1);
    ADD_FAILURE() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no output of it can be checked on a window"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ReferenceStoreTest, DamagedDiskCopyIsComputedAgain) {
  ir::PrimFunc f = Zoo("matmul");
  std::string directory;
  {
    ReferenceStore store(Options());
    directory = store.Get(f, {}, 2)->directory;
  }
  std::ofstream(directory + "/meta.json") << "{ not json";
  ReferenceStore store(Options());
  std::shared_ptr<const Reference> ref = store.Get(f, {}, 2);
  EXPECT_FALSE(ref->from_disk);
  EXPECT_TRUE(ir::CompareTensors(Interpreted(f, 2)[2], ref->params[2].expected, 0, 0).ok);

  // A truncated tensor file is caught by its size.
  std::filesystem::resize_file(directory + "/out2.bin", 12);
  EXPECT_THROW(LoadReference(directory), Error);
}

}  // namespace
}  // namespace kiln::runtime
