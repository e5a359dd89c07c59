// The library variant of matmul tasks (matmul_task.h, epilogue.h, task_steps.h,
// library_choice.h): which functions match and how, and the variant (a library call, then the
// default-scheduled epilogue kernel) run by the executor against the reference interpreter on
// random inputs, for a dense with transposed weights, a batched matmul with a broadcast batch
// dim, and a dense with bias and GELU, through both oneDNN and OpenBLAS.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "compiler/epilogue.h"
#include "compiler/kernel_library.h"
#include "compiler/library_choice.h"
#include "compiler/matmul_task.h"
#include "compiler/task_steps.h"
#include "ir/functor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/text/parser.h"
#include "runtime/model/library_matmul.h"
#include "support/error.h"

namespace kiln::compiler {
namespace {

// x[6, 20] x w[12, 20]^T + b: the MLP's linear (T_matmul_NT then T_add).
constexpr char kDenseNT[] = R"(
@T.prim_func
def dense_nt(x: T.Buffer((T.int64(6), T.int64(20)), "float32"), w: T.Buffer((T.int64(12), T.int64(20)), "float32"), b: T.Buffer((T.int64(12),), "float32"), out: T.Buffer((T.int64(6), T.int64(12)), "float32")):
    T.func_attr({"tirx.noalias": True})
    prod = T.alloc_buffer((T.int64(6), T.int64(12)))
    for i, j, k in T.grid(T.int64(6), T.int64(12), T.int64(20)):
        with T.block("mm"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(x[v_i, v_k], w[v_j, v_k])
            T.writes(prod[v_i, v_j])
            with T.init():
                prod[v_i, v_j] = T.float32(0.0)
            prod[v_i, v_j] = prod[v_i, v_j] + x[v_i, v_k] * w[v_j, v_k]
    for i, j in T.grid(T.int64(6), T.int64(12)):
        with T.block("bias"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(prod[v_i, v_j], b[v_j])
            T.writes(out[v_i, v_j])
            out[v_i, v_j] = prod[v_i, v_j] + b[v_j]
)";

// a[2, 1, 5, 7] (its second batch dim broadcast) x b[3, 7, 4] -> c[2, 3, 5, 4], A transposed
// in memory as [.., k, i] to cover trans_a too.
constexpr char kBatched[] = R"(
@T.prim_func
def batched(a: T.Buffer((T.int64(2), T.int64(1), T.int64(7), T.int64(5)), "float32"), b: T.Buffer((T.int64(3), T.int64(7), T.int64(4)), "float32"), c: T.Buffer((T.int64(2), T.int64(3), T.int64(5), T.int64(4)), "float32")):
    T.func_attr({"tirx.noalias": True})
    for b0, b1, i, j, k in T.grid(T.int64(2), T.int64(3), T.int64(5), T.int64(4), T.int64(7)):
        with T.block("mm"):
            v_b0, v_b1, v_i, v_j, v_k = T.axis.remap("SSSSR", [b0, b1, i, j, k])
            T.reads(a[v_b0, T.int64(0), v_k, v_i], b[v_b1, v_k, v_j])
            T.writes(c[v_b0, v_b1, v_i, v_j])
            with T.init():
                c[v_b0, v_b1, v_i, v_j] = T.float32(0.0)
            c[v_b0, v_b1, v_i, v_j] = c[v_b0, v_b1, v_i, v_j] + a[v_b0, T.int64(0), v_k, v_i] * b[v_b1, v_k, v_j]
)";

// x[1, 8, 16] x w[16, 32] + b, then GELU through erf (BERT's intermediate dense).
constexpr char kDenseGelu[] = R"(
@T.prim_func
def dense_gelu(x: T.Buffer((T.int64(1), T.int64(8), T.int64(16)), "float32"), w: T.Buffer((T.int64(16), T.int64(32)), "float32"), bias: T.Buffer((T.int64(32),), "float32"), out: T.Buffer((T.int64(1), T.int64(8), T.int64(32)), "float32")):
    T.func_attr({"tirx.noalias": True})
    mm = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(32)))
    biased = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(32)))
    scaled = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(32)))
    erfed = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(32)))
    for b0, i, j, k in T.grid(T.int64(1), T.int64(8), T.int64(32), T.int64(16)):
        with T.block("mm"):
            v_b0, v_i, v_j, v_k = T.axis.remap("SSSR", [b0, i, j, k])
            T.reads(x[v_b0, v_i, v_k], w[v_k, v_j])
            T.writes(mm[v_b0, v_i, v_j])
            with T.init():
                mm[v_b0, v_i, v_j] = T.float32(0.0)
            mm[v_b0, v_i, v_j] = mm[v_b0, v_i, v_j] + x[v_b0, v_i, v_k] * w[v_k, v_j]
    for a0, a1, a2 in T.grid(T.int64(1), T.int64(8), T.int64(32)):
        with T.block("add"):
            v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
            T.reads(mm[v0, v1, v2], bias[v2])
            T.writes(biased[v0, v1, v2])
            biased[v0, v1, v2] = mm[v0, v1, v2] + bias[v2]
    for a0, a1, a2 in T.grid(T.int64(1), T.int64(8), T.int64(32)):
        with T.block("divide"):
            v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
            T.reads(biased[v0, v1, v2])
            T.writes(scaled[v0, v1, v2])
            scaled[v0, v1, v2] = biased[v0, v1, v2] / T.float32(1.4142135)
    for a0, a1, a2 in T.grid(T.int64(1), T.int64(8), T.int64(32)):
        with T.block("erf"):
            v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
            T.reads(scaled[v0, v1, v2])
            T.writes(erfed[v0, v1, v2])
            erfed[v0, v1, v2] = T.erf(scaled[v0, v1, v2])
    for a0, a1, a2 in T.grid(T.int64(1), T.int64(8), T.int64(32)):
        with T.block("gelu"):
            v0, v1, v2 = T.axis.remap("SSS", [a0, a1, a2])
            T.reads(biased[v0, v1, v2], erfed[v0, v1, v2])
            T.writes(out[v0, v1, v2])
            out[v0, v1, v2] = biased[v0, v1, v2] * (erfed[v0, v1, v2] + T.float32(1.0)) * T.float32(0.5)
)";

class LibraryVariantTest : public ::testing::Test {
 protected:
  LibraryVariantTest() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-libvar-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    dir_ = pattern;
  }
  ~LibraryVariantTest() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static ir::relax::transform::ExtractedTask TaskOf(const ir::PrimFunc& f) {
    ir::relax::transform::ExtractedTask task;
    task.name = f->name;
    task.func = f;
    task.weight = 1;
    for (const auto& [var, buffer] : f->buffer_map) {
      task.params.push_back({
          buffer->name,
          buffer->dtype,
          buffer->shape,
          true,
      });
    }
    return task;
  }

  // The library variant of `text` through `function` against the interpreter.
  void CheckAgainstInterpreter(const char* text, const std::string& function) {
    ir::PrimFunc f = ir::ParsePrimFunc(text);
    std::string why;
    std::optional<MatmulTask> m = MatchMatmulTask(f, &why);
    ASSERT_TRUE(m.has_value()) << why;
    std::vector<ir::PrimFunc> funcs;
    if (m->output_param < 0) funcs.push_back(ScheduleEpilogue(MakeEpilogue(f, *m)));
    KernelLibraryOptions build;
    build.cache_dir = (dir_ / "cache").string();
    std::vector<KernelObject> objects =
        CompileKernelObjects(funcs, std::vector<std::string>(funcs.size(), "epilogue"), build);
    std::vector<std::string> paths;
    std::vector<runtime::model::GraphKernel> kernels = {MatmulLibraryKernel(function, f->name, *m)};
    TaskLowering how;
    how.library = 0;
    how.matmul = *m;
    for (const KernelObject& o : objects) {
      ASSERT_TRUE(o.ok) << o.error;
      paths.push_back(o.object_path);
      kernels.push_back({"epilogue", f->name, o.signature.slots, {}, {}});
      how.kernel = 1;
    }
    std::string library = (dir_ / (function + std::to_string(++libraries_) + ".so")).string();
    LinkKernelLibrary(paths, library, build);

    ir::relax::transform::ExtractedTask task = TaskOf(f);
    std::vector<ir::HostTensor> inputs;
    std::vector<ir::ArgValue> args;
    for (size_t p = 0; p < task.params.size(); ++p) {
      std::vector<int64_t> shape;
      for (const ir::Expr& d : task.params[p].shape) shape.push_back(*ir::AsConstInt(d));
      bool output = p + 1 == task.params.size();
      ir::HostTensor t = output ? ir::HostTensor(ir::DataType::Float(32), shape)
                                : ir::HostTensor::Random(ir::DataType::Float(32), shape, 7 + p);
      if (!output) inputs.push_back(t.Clone());
      args.push_back(t);
    }
    ir::Interpret(f, args);
    ir::HostTensor expected = std::get<ir::HostTensor>(args.back());
    for (int threads : {1, 2}) {
      std::vector<ir::HostTensor> actual =
          RunTaskVariant(task, m->written_params, how, kernels, library, inputs, threads);
      ASSERT_EQ(actual.size(), 1u);
      ir::TensorComparison c = ir::CompareTensors(expected, actual[0], 1e-4, 1e-5);
      EXPECT_TRUE(c.ok) << f->name << " by " << function << " on " << threads
                        << " threads: " << c.message;
    }
  }

  std::filesystem::path dir_;
  int libraries_ = 0;
};

TEST_F(LibraryVariantTest, DenseWithTransposedWeightsMatches) {
  std::optional<MatmulTask> m = MatchMatmulTask(ir::ParsePrimFunc(kDenseNT));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->a_param, 0);
  EXPECT_EQ(m->b_param, 1);
  EXPECT_FALSE(m->trans_a);
  EXPECT_TRUE(m->trans_b);
  EXPECT_EQ(m->output_param, -1);
  EXPECT_EQ(m->written_params, std::vector<int>({3}));
  // The product's dims: M from x's dim 0, N from w's dim 0.
  ASSERT_EQ(m->product_dims.size(), 2u);
  EXPECT_EQ(m->product_dims[0].param, 0);
  EXPECT_EQ(m->product_dims[0].dim, 0);
  EXPECT_EQ(m->product_dims[1].param, 1);
  EXPECT_EQ(m->product_dims[1].dim, 0);
  for (const char* f : {runtime::model::kDnnlSgemm, runtime::model::kCblasSgemm}) {
    CheckAgainstInterpreter(kDenseNT, f);
  }
}

TEST_F(LibraryVariantTest, BatchedMatmulWithBroadcastMatches) {
  std::optional<MatmulTask> m = MatchMatmulTask(ir::ParsePrimFunc(kBatched));
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->trans_a);
  EXPECT_FALSE(m->trans_b);
  EXPECT_EQ(m->output_param, 2);  // the matmul is the whole task: no epilogue
  for (const char* f : {runtime::model::kDnnlSgemm, runtime::model::kCblasSgemm}) {
    CheckAgainstInterpreter(kBatched, f);
  }
}

TEST_F(LibraryVariantTest, DenseWithBiasAndGeluMatches) {
  ir::PrimFunc f = ir::ParsePrimFunc(kDenseGelu);
  std::optional<MatmulTask> m = MatchMatmulTask(f);
  ASSERT_TRUE(m.has_value());
  // The epilogue reads the product as its last parameter; its intermediates are inlined and
  // what is left is one parallel loop nest.
  ir::PrimFunc epilogue = ScheduleEpilogue(MakeEpilogue(f, *m));
  EXPECT_EQ(epilogue->params.size(), f->params.size() + 1);
  struct Loops : ir::IRVisitor {
    using IRVisitor::VisitStmt_;
    void VisitStmt_(const ir::ForNode* op) override {
      kinds.push_back(op->for_kind);
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const ir::BlockNode* op) override {
      blocks += op->name != "root";
      IRVisitor::VisitStmt_(op);
    }
    std::vector<ir::ForKind> kinds;
    int blocks = 0;
  } loops;
  loops.VisitStmt(epilogue->body);
  // 8 x 32 = 256 elements: 16 iterations of 16 vector lanes (too few to go parallel), one
  // block left.
  EXPECT_EQ(loops.kinds,
            std::vector<ir::ForKind>({ir::ForKind::kSerial, ir::ForKind::kVectorized}));
  EXPECT_EQ(loops.blocks, 1);
  // The lanes run over the last axis, so the bias is a contiguous load and erf the vector
  // form: no scalar fallback.
  std::string code = codegen::EmitC(codegen::Lower(epilogue), "epilogue").code;
  EXPECT_NE(code.find("kiln_erf_float32x16("), std::string::npos) << code;
  for (const char* fn : {runtime::model::kDnnlSgemm, runtime::model::kCblasSgemm}) {
    CheckAgainstInterpreter(kDenseGelu, fn);
  }
}

TEST_F(LibraryVariantTest, OtherBlocksDoNotMatch) {
  // An elementwise function has no reduction block.
  constexpr char kAdd[] = R"(
@T.prim_func
def add(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32")):
    for i in range(T.int64(4)):
        with T.block("add"):
            v = T.axis.spatial(T.int64(4), i)
            T.reads(a[v])
            T.writes(b[v])
            b[v] = a[v] + T.float32(1.0)
)";
  std::string why;
  EXPECT_FALSE(MatchMatmulTask(ir::ParsePrimFunc(kAdd), &why).has_value());
  EXPECT_NE(why, "");
  // A reduction that is not a product of two loads (a row sum).
  constexpr char kSum[] = R"(
@T.prim_func
def rowsum(a: T.Buffer((T.int64(4), T.int64(3)), "float32"), b: T.Buffer((T.int64(4),), "float32")):
    for i, k in T.grid(T.int64(4), T.int64(3)):
        with T.block("sum"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(a[v_i, v_k])
            T.writes(b[v_i])
            with T.init():
                b[v_i] = T.float32(0.0)
            b[v_i] = b[v_i] + a[v_i, v_k]
)";
  EXPECT_FALSE(MatchMatmulTask(ir::ParsePrimFunc(kSum), &why).has_value());
}

}  // namespace
}  // namespace kiln::compiler
