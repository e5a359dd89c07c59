// The model's entry function: --func when given, else the only public Relax function (TVM's
// relax.frontend.nn exports `forward`), else main; otherwise an error that lists the functions.
#include "ir/model/model_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ir/relax/text/parser.h"
#include "support/error.h"

namespace kiln::ir::model {
namespace {

std::string Function(const std::string& name, bool is_private = false) {
  return std::string("    @R.function") + (is_private ? "(private=True)" : "") + "\n    def " +
         name + "(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n" +
         "        y: R.Tensor((2,), \"float32\") = R.add(x, x)\n        return y\n";
}

ir::relax::IRModule Module(const std::string& functions) {
  return ir::relax::ParseModule("@I.ir_module\nclass Module:\n" + functions, "m.relax");
}

std::string ErrorOf(const ir::relax::IRModule& m, const std::string& requested) {
  try {
    ChooseEntryFunction(m, requested, "m.relax");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(EntryFunction, TheOnlyPublicFunction) {
  EXPECT_EQ(ChooseEntryFunction(Module(Function("forward")), "", "m.relax"), "forward");
  EXPECT_EQ(ChooseEntryFunction(Module(Function("helper", true) + Function("forward")), "", "m"),
            "forward");
}

TEST(EntryFunction, MainAmongSeveral) {
  EXPECT_EQ(ChooseEntryFunction(Module(Function("prefill") + Function("main")), "", "m"), "main");
}

TEST(EntryFunction, RequestedByName) {
  ir::relax::IRModule m = Module(Function("prefill") + Function("decode"));
  EXPECT_EQ(ChooseEntryFunction(m, "decode", "m.relax"), "decode");
  EXPECT_EQ(
      ChooseEntryFunction(Module(Function("helper", true) + Function("forward")), "helper", "m"),
      "helper");
}

TEST(EntryFunction, AmbiguousOrMissingListsTheFunctions) {
  ir::relax::IRModule m = Module(Function("prefill") + Function("decode") + Function("h", true));
  EXPECT_EQ(ErrorOf(m, ""),
            "m.relax: 2 public Relax functions and none named main: name the model's entry with "
            "--func NAME (the module's Relax functions: prefill, decode, h (private))");
  EXPECT_EQ(ErrorOf(m, "main"),
            "m.relax: --func main: the module has no Relax function 'main' (its Relax "
            "functions: prefill, decode, h (private))");
  EXPECT_EQ(ErrorOf(Module(Function("h", true)), ""),
            "m.relax: no public Relax function: name the model's entry with --func NAME (the "
            "module's Relax functions: h (private))");
}

TEST(LoadModel, ChoosesTheEntryOfARelaxFile) {
  auto path = std::filesystem::temp_directory_path() /
              ("kiln_model_input_test_" + std::to_string(::getpid()) + ".relax");
  {
    std::ofstream out(path);
    out << "@I.ir_module\nclass Module:\n" << Function("forward");
  }
  ModelInput input = LoadModel(path.string());
  EXPECT_EQ(input.format, "relax");
  EXPECT_EQ(input.entry, "forward");
  EXPECT_THROW(LoadModel(path.string(), {}, "main"), Error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kiln::ir::model
