// CpuModule and PackArguments: load, look up, call a kernel in process; errors name the file,
// symbol and parameter.
#include "runtime/cpu_module.h"

#include <gtest/gtest.h>

#include "runtime/cpu_builder.h"
#include "runtime/kernel_args.h"
#include "runtime_test_util.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class CpuModuleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir();
    BuildResult r =
        BuildCSource(testing::VectorAddSource() + testing::KernelWithBody("fails", "  return 7;"),
                     {.cache_dir = dir_->Sub("cache")});
    ASSERT_TRUE(r.ok) << r.error;
    library_ = r.library_path;
  }
  static void TearDownTestSuite() { delete dir_; }
  static ScratchDir* dir_;
  static std::string library_;
};
ScratchDir* CpuModuleTest::dir_ = nullptr;
std::string CpuModuleTest::library_;

TEST_F(CpuModuleTest, CallsAKernelWithPackedArguments) {
  CpuModule module = CpuModule::Load(library_);
  KernelFunction kernel = module.GetKernel("vadd");
  ir::DataType f32 = ir::DataType::Float(32);
  std::vector<ir::ArgValue> args = {ir::HostTensor::Random(f32, {100}, 1),
                                    ir::HostTensor::Random(f32, {100}, 2),
                                    ir::HostTensor(f32, {100})};
  std::vector<codegen::PackedValue> packed = PackArguments(testing::VectorAddSignature(), args);
  ASSERT_EQ(packed.size(), 4u);
  EXPECT_EQ(packed[3].i, 100);
  CallKernel(kernel, testing::VectorAddSignature(), packed);
  const auto& a = std::get<ir::HostTensor>(args[0]);
  const auto& b = std::get<ir::HostTensor>(args[1]);
  const auto& c = std::get<ir::HostTensor>(args[2]);
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_FLOAT_EQ(c.GetDouble(i), static_cast<float>(a.GetDouble(i) + b.GetDouble(i)));
  }
}

TEST_F(CpuModuleTest, MovedModuleStaysLoaded) {
  CpuModule a = CpuModule::Load(library_);
  CpuModule b = std::move(a);
  EXPECT_EQ(b.path(), library_);
  EXPECT_NE(b.GetKernel("vadd"), nullptr);
}

TEST_F(CpuModuleTest, NonZeroReturnCodeIsARuntimeError) {
  CpuModule module = CpuModule::Load(library_);
  codegen::KernelSignature sig = testing::VectorAddSignature("fails");
  std::vector<codegen::PackedValue> packed(4);
  try {
    CallKernel(module.GetKernel("fails"), sig, packed);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(std::string(e.what()).find("fails returned code 7"), std::string::npos);
  }
}

TEST_F(CpuModuleTest, ErrorsNameTheFileAndTheSymbol) {
  CpuModule module = CpuModule::Load(library_);
  std::string missing = ErrorOf([&] { module.GetKernel("no_such_kernel"); });
  EXPECT_NE(missing.find("no_such_kernel"), std::string::npos) << missing;
  EXPECT_NE(missing.find(library_), std::string::npos) << missing;
  std::string no_file = ErrorOf([] { CpuModule::Load("/nonexistent/kiln.so"); });
  EXPECT_NE(no_file.find("/nonexistent/kiln.so"), std::string::npos) << no_file;
}

TEST(KernelArgsTest, MismatchesAreTypeErrorsNamingTheParameter) {
  ir::DataType f32 = ir::DataType::Float(32);
  codegen::KernelSignature sig = testing::VectorAddSignature();
  std::vector<ir::ArgValue> too_few = {ir::HostTensor(f32, {4})};
  EXPECT_NE(ErrorOf([&] { PackArguments(sig, too_few); }).find("expected 3 arguments"),
            std::string::npos);
  std::vector<ir::ArgValue> wrong_dtype = {ir::HostTensor(f32, {4}),
                                           ir::HostTensor(ir::DataType::Int(32), {4}),
                                           ir::HostTensor(f32, {4})};
  std::string e = ErrorOf([&] { PackArguments(sig, wrong_dtype); });
  EXPECT_NE(e.find("(B)"), std::string::npos) << e;
  EXPECT_NE(e.find("int32[4]"), std::string::npos) << e;
  std::vector<ir::ArgValue> scalar = {int64_t{4}, ir::HostTensor(f32, {4}),
                                      ir::HostTensor(f32, {4})};
  EXPECT_NE(ErrorOf([&] { PackArguments(sig, scalar); }).find("(A) expects a tensor"),
            std::string::npos);
  // A scalar slot takes the value itself.
  codegen::KernelSignature scal{"s",
                                {{codegen::SlotKind::kScalarInt, "n", ir::DataType::Int(32), 0, -1},
                                 {codegen::SlotKind::kScalarFloat, "x", f32, 1, -1}}};
  std::vector<ir::ArgValue> values = {int64_t{-5}, 2.5};
  auto packed = PackArguments(scal, values);
  EXPECT_EQ(packed[0].i, -5);
  EXPECT_EQ(packed[1].f, 2.5);
  std::vector<ir::ArgValue> swapped = {2.5, int64_t{-5}};
  EXPECT_THROW(PackArguments(scal, swapped), Error);
}

}  // namespace
}  // namespace kiln::runtime
