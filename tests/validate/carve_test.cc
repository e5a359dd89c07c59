// The carve: what it records per call, that tensors are stored once, that a saved carve loads
// back the same and a damaged one is refused naming what is wrong, the size cap and the samples
// beyond it, the first non-finite call, and the tolerances' parsing.
#include "validate/carve.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "validate/report.h"
#include "validate_test_util.h"

namespace kiln::validate {
namespace {

using testing::ExampleModel;
using testing::PreparedModel;
using testing::PrepareFile;

class CarveTest : public testing::ValidateTestBase {};

TEST_F(CarveTest, EveryCallIsRecordedWithItsTaskBindingAndTensorsStoredOnce) {
  PreparedModel m = PrepareFile(ExampleModel("transformer_block"), {{"seq_len", 8}});
  TensorStore store((dir_ / "carve").string(), 1ull << 30);
  Carve carve = CarveModel(m.module, m.entry, "block", m.inputs, store);
  ASSERT_GE(carve.calls.size(), 10u);
  std::map<std::string, std::string> task_of = TaskNamesOfPrimFuncs(m.module, m.entry);
  for (size_t i = 0; i < carve.calls.size(); ++i) {
    const CarvedCall& c = carve.calls[i];
    EXPECT_EQ(c.index, static_cast<int64_t>(i));
    EXPECT_EQ(c.task, task_of.at(c.prim_func));
    EXPECT_FALSE(c.binding.empty());
    EXPECT_EQ(c.function, m.entry);
    ASSERT_FALSE(c.outputs.empty());
    for (const TensorRef& r : c.outputs) {
      EXPECT_TRUE(std::filesystem::exists(store.PathOf(r))) << r.digest;
    }
  }
  // The model's output is the last call's output, stored once.
  ASSERT_EQ(carve.outputs.size(), 1u);
  EXPECT_EQ(carve.outputs[0].digest, carve.calls.back().outputs[0].digest);
  EXPECT_LT(carve.stored_bytes, carve.referenced_bytes);
  int64_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "carve" / "tensors")) {
    files += e.is_regular_file();
  }
  EXPECT_EQ(files, carve.stored_tensors);
  // A call's stored output is what the reference computes from its stored inputs.
  EXPECT_EQ(TensorStore::Digest(store.Get(carve.calls[0].outputs[0])),
            carve.calls[0].outputs[0].digest);

  SaveCarve(carve, (dir_ / "carve").string());
  Carve loaded = LoadCarve((dir_ / "carve").string());
  EXPECT_EQ(loaded.model, "block");
  EXPECT_EQ(loaded.reference, "interpreter");
  ASSERT_EQ(loaded.calls.size(), carve.calls.size());
  for (size_t i = 0; i < carve.calls.size(); ++i) {
    EXPECT_EQ(loaded.calls[i].prim_func, carve.calls[i].prim_func);
    EXPECT_EQ(loaded.calls[i].bound, carve.calls[i].bound);
    ASSERT_EQ(loaded.calls[i].inputs.size(), carve.calls[i].inputs.size());
    for (size_t k = 0; k < carve.calls[i].inputs.size(); ++k) {
      EXPECT_EQ(loaded.calls[i].inputs[k].tensor.digest, carve.calls[i].inputs[k].tensor.digest);
    }
  }
}

TEST_F(CarveTest, ADamagedCarveIsRefusedNamingTheFileAndField) {
  PreparedModel m = PrepareFile(ExampleModel("mlp"), {{"batch", 4}});
  std::string dir = (dir_ / "carve").string();
  TensorStore store(dir, 1ull << 30);
  Carve carve = CarveModel(m.module, m.entry, "mlp", m.inputs, store);
  SaveCarve(carve, dir);
  std::string json_path = dir + "/carve.json";
  std::string good = ReadFile(json_path);

  auto expect_refused = [&](const std::string& text, const std::string& names) {
    std::ofstream(json_path) << text;
    try {
      LoadCarve(dir);
      ADD_FAILURE() << "accepted: " << text.substr(0, 80);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(json_path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  expect_refused("{not json", "not JSON");
  nlohmann::json j = nlohmann::json::parse(good);
  j["calls"][1]["index"] = 7;
  expect_refused(j.dump(), "calls[1]");
  j = nlohmann::json::parse(good);
  j["calls"][0]["outputs"][0]["digest"] = "xyz";
  expect_refused(j.dump(), "digest");
  j = nlohmann::json::parse(good);
  j["version"] = 99;
  expect_refused(j.dump(), "carve format 99");
  std::ofstream(json_path) << good;

  // A changed tensor file is refused, naming it.
  std::string tensor = store.PathOf(carve.calls[0].outputs[0]);
  {
    std::fstream f(tensor, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.put('\x7f');
  }
  try {
    store.Get(carve.calls[0].outputs[0]);
    ADD_FAILURE() << "a changed tensor was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(tensor), std::string::npos) << e.what();
  }
}

TEST_F(CarveTest, TensorsAboveTheCapAreKeptByDigestAndTheirCallsAreNotReplayedButOffloaded) {
  PreparedModel m = PrepareFile(ExampleModel("mlp"), {{"batch", 4}});
  std::unique_ptr<TargetDevice> device = Device("llvm");
  ValidateOptions options = Options("carve", Mode::kBoth);
  options.carve_cap_bytes = 4096;  // the 4 x 64 activations fit, the weights do not
  ValidationReport r = Validate(m.module, m.entry, m.name, m.inputs, *device, options);
  bool any_unstored = false;
  for (const CarvedCall& c : r.carve.calls) {
    for (const CallArg& a : c.inputs) any_unstored |= a.is_tensor && !a.tensor.stored;
  }
  ASSERT_TRUE(any_unstored);
  for (const KernelFinding& f : r.replay->calls) {
    EXPECT_EQ(f.status, "not_replayed") << f.prim_func;
    EXPECT_NE(f.message.find("size cap"), std::string::npos) << f.message;
  }
  EXPECT_FALSE(r.ok());
  // Offload needs no stored inputs: it runs the model; what was stored is compared.
  EXPECT_TRUE(r.offload->ok) << SummaryText(r);
}

TEST_F(CarveTest, OutputsBeyondTheCapAreComparedOnTheirSample) {
  PreparedModel m = PrepareFile(ExampleModel("mlp"), {{"batch", 4}});
  ValidateOptions options = Options("carve", Mode::kOffload);
  options.carve_cap_bytes = 64;  // every activation is beyond it: only digests and samples
  std::unique_ptr<TargetDevice> correct = Device("llvm");
  ValidationReport clean = Validate(m.module, m.entry, m.name, m.inputs, *correct, options);
  for (const CarvedCall& c : clean.carve.calls) {
    for (const TensorRef& r : c.outputs) {
      ASSERT_FALSE(r.stored);
      EXPECT_TRUE(std::filesystem::exists(dir_ / "carve" / "tensors" / (r.digest + ".sample.bin")));
    }
  }
  EXPECT_TRUE(clean.ok()) << SummaryText(clean);
  // A wrong kernel is still found: its outputs against their samples.
  std::unique_ptr<TargetDevice> faulty =
      Device("llvm", runtime::FaultSpec{runtime::FaultKind::kWrong, "fused_linear1_relu1"});
  ValidationReport r = Validate(m.module, m.entry, m.name, m.inputs, *faulty, options);
  EXPECT_TRUE(r.carve_reused);
  ASSERT_TRUE(r.offload->first_bad_call.has_value()) << SummaryText(r);
  EXPECT_EQ(*r.offload->first_bad_call, 1);
  EXPECT_NE(r.offload->runs.front().what.find("(sampled)"), std::string::npos)
      << r.offload->runs.front().what;
}

constexpr char kLogModel[] = R"(# from tvm.script import relax as R
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.matmul(a, R.permute_dims(a, axes=[1, 0]))
            c = R.log(b)
            R.output(c)
        return c
)";

TEST_F(CarveTest, TheFirstCallWithANonFiniteOutputIsNamed) {
  PreparedModel m = testing::Prepare("log.relax", kLogModel);
  TensorStore store((dir_ / "carve").string(), 1ull << 30);
  Carve carve = CarveModel(m.module, m.entry, "log", m.inputs, store);
  ASSERT_TRUE(carve.first_non_finite.has_value());
  // The log of a negative entry of a * a^T: the call that takes the log, not the ones before.
  const CarvedCall& bad = carve.calls.at(*carve.first_non_finite);
  EXPECT_NE(bad.prim_func.find("log"), std::string::npos) << bad.prim_func;
}

TEST(TolerancesTest, PerDtypeOverridesAreParsedAndMalformedOnesNamed) {
  Tolerances t;
  Tolerances::Parse({"float32=1e-3", "float16=0.05"}, "--rtol", t.rtol);
  EXPECT_DOUBLE_EQ(t.rtol.at("float32"), 1e-3);
  EXPECT_DOUBLE_EQ(t.For(ir::HostTensor(ir::DataType::Float(32), {4})).rtol, 1e-3);
  EXPECT_DOUBLE_EQ(t.For(ir::HostTensor(ir::DataType::Int(32), {4})).rtol, 0);
  for (std::string bad : {"float32", "=1", "floaty=1", "float32=-1", "float32=1x"}) {
    try {
      Tolerances::Parse({bad}, "--rtol", t.rtol);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--rtol " + bad), std::string::npos) << e.what();
    }
  }
  // The diff's statistics.
  ir::HostTensor e(ir::DataType::Float(32), {2, 2}), a(ir::DataType::Float(32), {2, 2});
  for (int i = 0; i < 4; ++i) e.SetDouble(i, i + 1), a.SetDouble(i, i + 1);
  a.SetDouble(3, 4.5);
  TensorDiff d = Diff(e, a, {1e-4, 1e-5});
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.mismatches, 1);
  EXPECT_EQ(d.first_bad_index, "[1, 1]");
  EXPECT_DOUBLE_EQ(d.max_abs_error, 0.5);
  EXPECT_NEAR(d.nmse, 0.25 / 30, 1e-12);
  a.SetDouble(3, std::nan(""));
  EXPECT_TRUE(Diff(e, a, {1e-4, 1e-5}).non_finite);
}

}  // namespace
}  // namespace kiln::validate
