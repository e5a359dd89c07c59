// Validation end to end: seeded faults on the bundled and generated models that replay and
// offload must both localise (and no alarm on a correct build), a compound error only offload
// sees, crashes and hangs reported per kernel, and the real GPU devices of this machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "validate/report.h"
#include "validate_test_util.h"

namespace kiln::validate {
namespace {

using testing::ExampleModel;
using testing::GeneratedModel;
using testing::PreparedModel;
using testing::PrepareFile;

// The distinct kernels of a carve in the order of their first call, with that call.
std::vector<std::pair<std::string, int64_t>> KernelsByFirstCall(const Carve& carve) {
  std::vector<std::pair<std::string, int64_t>> out;
  std::set<std::string> seen;
  for (const CarvedCall& c : carve.calls) {
    if (seen.insert(c.prim_func).second) out.push_back({c.prim_func, c.index});
  }
  return out;
}

size_t MaxOffloadRuns(size_t calls) {
  return static_cast<size_t>(std::ceil(std::log2(static_cast<double>(calls)))) + 1;
}

struct FaultCase {
  std::string label;
  std::string path;
  std::map<std::string, int64_t> dims;
  size_t faults;  // kernels given a fault, one at a time
};

class Localisation : public testing::ValidateTestBase,
                     public ::testing::WithParamInterface<FaultCase> {};

TEST_P(Localisation, ReplayAndOffloadNameEverySeededFaultAndACorrectBuildRaisesNone) {
  const FaultCase& c = GetParam();
  PreparedModel m = PrepareFile(c.path, c.dims);
  // The trusted build as the reference keeps the larger models quick; the device runs the
  // default CPU schedules, another kernel than the reference's.
  std::unique_ptr<TargetDevice> reference = Device("llvm", std::nullopt, true);
  std::unique_ptr<TargetDevice> correct = Device("llvm");
  ValidationReport clean = Validate(m.module, m.entry, m.name, m.inputs, *correct,
                                    Options("carve", Mode::kBoth, reference.get()));
  ASSERT_TRUE(clean.ok()) << SummaryText(clean);
  EXPECT_FALSE(clean.carve_reused);
  EXPECT_EQ(clean.offload->runs.size(), 1u);
  size_t calls = clean.carve.calls.size();
  ASSERT_GE(calls, 2u);

  std::vector<std::pair<std::string, int64_t>> kernels = KernelsByFirstCall(clean.carve);
  std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>{}(c.label)));
  std::shuffle(kernels.begin(), kernels.end(), rng);
  ASSERT_GE(kernels.size(), c.faults);
  for (size_t i = 0; i < c.faults; ++i) {
    const auto& [kernel, first_call] = kernels[i];
    runtime::FaultKind kind = i % 2 == 0 ? runtime::FaultKind::kWrong : runtime::FaultKind::kNan;
    SCOPED_TRACE(c.label + ": " + runtime::FaultKindName(kind) + " in " + kernel);
    std::unique_ptr<TargetDevice> faulty = Device("llvm", runtime::FaultSpec{kind, kernel});
    ValidationReport r = Validate(m.module, m.entry, m.name, m.inputs, *faulty,
                                  Options("carve", Mode::kBoth, reference.get()));
    EXPECT_TRUE(r.carve_reused);
    EXPECT_FALSE(r.ok());
    // Replay: every call of the faulty kernel fails, no other call does.
    for (const KernelFinding& f : r.replay->calls) {
      EXPECT_EQ(!f.ok(), f.prim_func == kernel)
          << "call " << f.call << " " << f.prim_func << ": " << f.status << " " << f.message;
      if (f.prim_func == kernel) {
        EXPECT_EQ(f.status, kind == runtime::FaultKind::kNan ? "non_finite" : "mismatch");
      }
    }
    // Offload: the kernel's first call, within ceil(log2 n) + 1 whole-model runs.
    ASSERT_TRUE(r.offload->first_bad_call.has_value()) << SummaryText(r);
    EXPECT_EQ(*r.offload->first_bad_call, first_call) << SummaryText(r);
    EXPECT_EQ(r.offload->first_bad_prim_func, kernel);
    EXPECT_LE(r.offload->runs.size(), MaxOffloadRuns(calls));
  }
}

// 3 + 5 + 5 + 2 + 6 = 21 faults, half wrong values and half NaN, over 5 models.
INSTANTIATE_TEST_SUITE_P(
    Models, Localisation,
    ::testing::Values(
        FaultCase{"mlp", ExampleModel("mlp"), {{"batch", 4}}, 3},
        FaultCase{"transformer_block", ExampleModel("transformer_block"), {{"seq_len", 8}}, 5},
        FaultCase{"cnn", ExampleModel("cnn"), {}, 5},
        FaultCase{"resnet_stage_8x8", GeneratedModel("resnet_stage_8x8"), {}, 2},
        FaultCase{"bert_layer", GeneratedModel("bert_layer"), {{"seq_len", 8}}, 6}),
    [](const ::testing::TestParamInfo<FaultCase>& info) { return info.param.label; });

// y = x W1 with W1 the identity, then z = y W2 with each column of W2 the difference of two
// neighbouring rows: z cancels almost all of y, so an error in y far inside y's tolerance is
// far outside z's.
constexpr char kCancellingModel[] = R"(# from tvm.script import relax as R
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 64), dtype="float32"), w1: R.Tensor((64, 64), dtype="float32"), w2: R.Tensor((64, 64), dtype="float32")) -> R.Tensor((1, 64), dtype="float32"):
        with R.dataflow():
            y = R.matmul(x, w1)
            z = R.matmul(y, w2)
            R.output(z)
        return z
)";

class ValidateTest : public testing::ValidateTestBase {};

TEST_F(ValidateTest, ACompoundErrorThatReplayMissesIsFoundByOffload) {
  PreparedModel m = testing::Prepare("cancel.relax", kCancellingModel);
  ir::HostTensor& x = m.inputs[0];
  ir::HostTensor& w1 = m.inputs[1];
  ir::HostTensor& w2 = m.inputs[2];
  for (int64_t i = 0; i < 64; ++i) x.SetDouble(i, 1 + 1e-3 * static_cast<double>(i) / 64);
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 64; ++j) {
      w1.SetDouble(i * 64 + j, i == j ? 1 : 0);
      w2.SetDouble(i * 64 + j, i == j ? 1 : i == (j + 1) % 64 ? -1 : 0);
    }
  }
  std::vector<std::pair<std::string, int64_t>> kernels;
  {
    std::unique_ptr<TargetDevice> correct = Device("llvm");
    ValidationReport clean =
        Validate(m.module, m.entry, m.name, m.inputs, *correct, Options("carve"));
    ASSERT_TRUE(clean.ok()) << SummaryText(clean);
    kernels = KernelsByFirstCall(clean.carve);
  }
  ASSERT_EQ(kernels.size(), 2u);
  const std::string first = kernels[0].first;  // y = x W1
  std::unique_ptr<TargetDevice> drifting =
      Device("llvm", runtime::FaultSpec{runtime::FaultKind::kDrift, first});
  ValidationReport r = Validate(m.module, m.entry, m.name, m.inputs, *drifting, Options("carve"));
  // Lockstep replay: each kernel alone is within its tolerance.
  EXPECT_EQ(r.replay->failed, 0) << SummaryText(r);
  EXPECT_GT(r.replay->calls[0].diff.max_abs_error, 0) << "the drift did not happen";
  // Offload: the second kernel, fed the drifted y, disagrees; the first is to blame.
  ASSERT_FALSE(r.offload->ok) << SummaryText(r);
  ASSERT_TRUE(r.offload->first_bad_call.has_value());
  EXPECT_EQ(*r.offload->first_bad_call, 0);
  EXPECT_EQ(r.offload->first_bad_prim_func, first);
  EXPECT_LE(r.offload->runs.size(), MaxOffloadRuns(2));
}

TEST_F(ValidateTest, CrashesAndHangsAreFindingsOfTheirKernelAndValidationGoesOn) {
  PreparedModel m = PrepareFile(ExampleModel("mlp"), {{"batch", 4}});
  for (runtime::FaultKind kind : {runtime::FaultKind::kCrash, runtime::FaultKind::kHang}) {
    std::unique_ptr<TargetDevice> device =
        Device("llvm", runtime::FaultSpec{kind, "fused_linear1_relu1"});
    ValidationReport r = Validate(m.module, m.entry, m.name, m.inputs, *device, Options("carve"));
    ASSERT_EQ(r.replay->calls.size(), 3u);
    EXPECT_TRUE(r.replay->calls[0].ok());
    EXPECT_EQ(r.replay->calls[1].status,
              kind == runtime::FaultKind::kCrash ? "runtime_error" : "timeout");
    EXPECT_NE(r.replay->calls[1].message.find("fault injected"), std::string::npos);
    EXPECT_TRUE(r.replay->calls[2].ok());
    ASSERT_TRUE(r.offload->first_bad_call.has_value());
    EXPECT_EQ(*r.offload->first_bad_call, 1);
    nlohmann::json summary = SummaryJson(r);
    EXPECT_FALSE(summary["ok"].get<bool>());
    ASSERT_EQ(summary["failed"].size(), 1u);
    EXPECT_EQ(summary["failed"][0]["task"], "fused_linear1_relu1");
    EXPECT_TRUE(summary["failed"][0]["max_abs_error"].is_null());
    EXPECT_EQ(summary["offload"]["first_bad_task"], "fused_linear1_relu1");
  }
}

TEST_F(ValidateTest, ReplayAloneAndOffloadAloneAgainstTheInterpreter) {
  PreparedModel m = PrepareFile(ExampleModel("mlp"), {{"batch", 4}});
  std::unique_ptr<TargetDevice> device = Device("llvm");
  ValidationReport replay =
      Validate(m.module, m.entry, m.name, m.inputs, *device, Options("carve", Mode::kReplay));
  EXPECT_TRUE(replay.ok());
  EXPECT_EQ(replay.reference, "interpreter");
  ASSERT_TRUE(replay.replay.has_value());
  EXPECT_FALSE(replay.offload.has_value());
  for (const KernelFinding& f : replay.replay->calls) {
    EXPECT_EQ(f.schedule, "default cpu schedule") << f.prim_func;
    EXPECT_GT(f.device_seconds, 0) << f.prim_func;
  }
  ValidationReport offload =
      Validate(m.module, m.entry, m.name, m.inputs, *device, Options("carve", Mode::kOffload));
  EXPECT_TRUE(offload.carve_reused);
  EXPECT_TRUE(offload.ok());
  EXPECT_FALSE(offload.replay.has_value());
  ASSERT_TRUE(offload.offload.has_value());
  EXPECT_EQ(offload.offload->runs.size(), 1u);
}

TEST_F(ValidateTest, OneDeviceServesModelsWhoseKernelsShareNamesButNotShapes) {
  // The transformer block at two lengths: the same PrimFunc names, other shapes.
  std::unique_ptr<TargetDevice> device = Device("llvm");
  std::unique_ptr<TargetDevice> reference = Device("llvm", std::nullopt, true);
  for (int64_t seq : {8, 16}) {
    PreparedModel m = PrepareFile(ExampleModel("transformer_block"), {{"seq_len", seq}});
    ValidationReport r =
        Validate(m.module, m.entry, m.name, m.inputs, *device,
                 Options("carve" + std::to_string(seq), Mode::kReplay, reference.get()));
    EXPECT_TRUE(r.ok()) << "seq_len " << seq << ": " << SummaryText(r);
  }
}

// The real devices of this machine (lavapipe, PoCL): every bundled model agrees with the
// interpreter, and a wrong kernel is found on them too.
class OnDevice : public testing::ValidateTestBase,
                 public ::testing::WithParamInterface<std::string> {};

TEST_P(OnDevice, EveryBundledModelAgreesWithTheInterpreterAndAFaultIsFound) {
  std::unique_ptr<TargetDevice> device;
  try {
    device = Device(GetParam());
  } catch (const Error& e) {
    GTEST_SKIP() << "skipped: no " << GetParam() << " device: " << e.what();
  }
  struct Case {
    std::string name;
    std::map<std::string, int64_t> dims;
  };
  for (const Case& c : {Case{"mlp", {{"batch", 4}}}, Case{"cnn", {}},
                        Case{"transformer_block", {{"seq_len", 8}}}}) {
    SCOPED_TRACE(c.name);
    PreparedModel m = PrepareFile(ExampleModel(c.name), c.dims);
    ValidationReport r = Validate(m.module, m.entry, m.name, m.inputs, *device, Options(c.name));
    EXPECT_TRUE(r.ok()) << SummaryText(r);
    for (const KernelFinding& f : r.replay->calls) {
      EXPECT_EQ(f.schedule, "default gpu schedule") << f.prim_func;
    }
  }
  PreparedModel m = PrepareFile(ExampleModel("transformer_block"), {{"seq_len", 8}});
  std::unique_ptr<TargetDevice> faulty =
      Device(GetParam(), runtime::FaultSpec{runtime::FaultKind::kWrong, "softmax"});
  ValidationReport r =
      Validate(m.module, m.entry, m.name, m.inputs, *faulty, Options("transformer_block"));
  EXPECT_TRUE(r.carve_reused);
  ASSERT_TRUE(r.offload->first_bad_call.has_value()) << SummaryText(r);
  EXPECT_EQ(r.offload->first_bad_prim_func, "softmax");
  for (const KernelFinding& f : r.replay->calls) {
    EXPECT_EQ(!f.ok(), f.prim_func == "softmax") << f.prim_func << ": " << f.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, OnDevice, ::testing::Values("vulkan", "opencl"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln::validate
