// Several kernels in one shared library: each callable by its symbol beside the thread
// setter, and a kernel that cannot be generated reported, not thrown.
#include "compiler/kernel_library.h"

#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "ir/interpreter/interpreter.h"
#include "ir/text/parser.h"
#include "runtime/cpu_module.h"
#include "runtime/model/artifact.h"

namespace kiln::compiler {
namespace {

const char kKernels[] = R"(
@T.prim_func
def scale(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(3)

@T.prim_func
def shift(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] + T.float32(1)
)";

class KernelLibraryTest : public testing::CompilerTestBase {};

TEST_F(KernelLibraryTest, LinksEveryKernelIntoOneLibrary) {
  std::vector<ir::PrimFunc> funcs = ir::ParsePrimFuncs(kKernels);
  KernelLibraryOptions options;
  options.cache_dir = (dir_ / "cache").string();
  std::vector<KernelObject> objects =
      CompileKernelObjects(funcs, {"kiln_model_0_scale", "kiln_model_1_shift"}, options);
  ASSERT_EQ(objects.size(), 2u);
  for (const KernelObject& o : objects) ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(objects[1].signature.symbol, "kiln_model_1_shift");
  std::string library = (dir_ / "kernels.so").string();
  LinkKernelLibrary({objects[0].object_path, objects[1].object_path}, library, options);

  runtime::CpuModule module = runtime::CpuModule::Load(library, /*keep_loaded=*/true);
  codegen::PackedValue threads;
  threads.i = 1;
  EXPECT_EQ(module.GetKernel(runtime::model::kSetThreadsSymbol)(&threads, 1), 0);
  ir::HostTensor a = ir::HostTensor::Random(ir::DataType::Float(32), {16}, 3);
  for (size_t k = 0; k < 2; ++k) {
    ir::HostTensor expected(ir::DataType::Float(32), {16});
    ir::Interpret(funcs[k], {a, expected});
    ir::HostTensor actual(ir::DataType::Float(32), {16});
    codegen::PackedValue args[2];
    args[0].ptr = a.data();
    args[1].ptr = actual.data();
    ASSERT_EQ(module.GetKernel(objects[k].signature.symbol)(args, 2), 0);
    EXPECT_TRUE(ir::CompareTensors(expected, actual, 1e-6, 1e-6).ok) << funcs[k]->name;
  }
}

TEST_F(KernelLibraryTest, ALinkFailureNamesTheLibrary) {
  KernelLibraryOptions options;
  options.cache_dir = (dir_ / "cache").string();
  try {
    LinkKernelLibrary({(dir_ / "missing.o").string()}, (dir_ / "k.so").string(), options);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("k.so"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::compiler
