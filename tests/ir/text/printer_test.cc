// Printer and parser behaviour beyond the corpus: name uniquing, expression precedence,
// exact immediates, comments, both symbolic-shape syntaxes, the root block, region detection,
// function symbols, modules and the token-stream entry point.
#include "ir/text/printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/structural.h"
#include "ir/text/parser.h"

namespace kiln::ir {
namespace {

const DataType kF32 = DataType::Float(32);
const TirPrintOptions kTvm023{TirDialect::kTvm023};

// Both dialects print `f` so that it parses back to an equal function.
PrimFunc RoundTrip(const PrimFunc& f) {
  std::string old_printed = PrintPrimFunc(f, kTvm023);
  PrimFunc old_again = ParsePrimFunc(old_printed, "<printed tvm-0.23>");
  EXPECT_TRUE(StructuralEqual(f, old_again)) << old_printed;
  EXPECT_EQ(PrintPrimFunc(old_again, kTvm023), old_printed);
  std::string printed = PrintPrimFunc(f);
  PrimFunc again = ParsePrimFunc(printed, "<printed>");
  EXPECT_TRUE(StructuralEqual(f, again)) << printed;
  EXPECT_EQ(StructuralHash(f), StructuralHash(again));
  EXPECT_EQ(PrintPrimFunc(again), printed);
  return again;
}

Stmt RootOf(Stmt body, std::vector<Buffer> allocs) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->alloc_buffers = std::move(allocs);
  root->body = std::move(body);
  return BlockRealize({}, BoolImm(true), Block(std::move(root)));
}

TEST(Printer, DistinctObjectsWithOneNameGetSuffixes) {
  Buffer a = DeclBuffer("A", kF32, {8, 8});
  Buffer a2 = DeclBuffer("A", kF32, {8});
  Var i("i"), i2("i");
  Stmt store = BufferStore(a, BufferLoad(a2, {i2}), {i, i2});
  Stmt loops = For(i, 0, 8, ForKind::kSerial, For(i2, 0, 8, ForKind::kSerial, store));
  Var param("A", DataType::Handle());
  PrimFunc f = MakePrimFunc("f", {param}, {{param, a}}, RootOf(loops, {a2}),
                            {{"global_symbol", StringImm("f")}});
  std::string printed = PrintPrimFunc(f);
  EXPECT_NE(printed.find("    A_1 = T.sblock_alloc_buffer((8,))\n"), std::string::npos) << printed;
  EXPECT_NE(PrintPrimFunc(f, kTvm023).find("    A_1 = T.alloc_buffer((8,))\n"), std::string::npos);
  EXPECT_NE(printed.find("for i, i_1 in T.grid(8, 8):"), std::string::npos) << printed;
  EXPECT_NE(printed.find("A[i, i_1] = A_1[i_1]"), std::string::npos) << printed;
  RoundTrip(f);
}

TEST(Printer, ReservedAndInvalidNamesAreRewritten) {
  Buffer a = DeclBuffer("A", DataType::Int(32), {4});
  Var t("T"), dotted("a.b"), digit("1x"), empty("");
  Stmt body = For(t, 0, 2, ForKind::kSerial,
                  For(dotted, 0, 2, ForKind::kParallel,
                      For(digit, 0, 2, ForKind::kSerial,
                          For(empty, 0, 2, ForKind::kUnrolled,
                              BufferStore(a, t + dotted + digit + empty, {t})))));
  Var param("A", DataType::Handle());
  PrimFunc f = MakePrimFunc("g", {param}, {{param, a}}, body);
  std::string printed = PrintPrimFunc(f);
  EXPECT_NE(printed.find("@T.prim_func(private=True, s_tir=True)"), std::string::npos) << printed;
  EXPECT_NE(PrintPrimFunc(f, kTvm023).find("@T.prim_func(private=True)\n"), std::string::npos);
  EXPECT_NE(printed.find("A[T_1] = T_1 + a_b + v_1x + v"), std::string::npos) << printed;
  RoundTrip(f);
}

TEST(Printer, SiblingScopesReuseNames) {
  PrimFunc f = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0.0)
    for i in range(4):
        A[i] = A[i] + T.float32(1.0)
)");
  std::string printed = PrintPrimFunc(f);
  EXPECT_EQ(printed.find("i_1"), std::string::npos) << printed;
  RoundTrip(f);
}

TEST(Printer, ExpressionPrecedence) {
  Var a("a"), b("b"), c("c");
  Var p("p", DataType::Bool()), q("q", DataType::Bool()), r("r", DataType::Bool());
  EXPECT_EQ(PrintExpr((a + b) * c), "(a + b) * c");
  EXPECT_EQ(PrintExpr(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(PrintExpr(a - b - c), "a - b - c");
  EXPECT_EQ(PrintExpr(a * -1), "a * -1");
  EXPECT_EQ(PrintExpr(FloorDiv(a, b * c)), "a // (b * c)");
  EXPECT_EQ(PrintExpr(FloorMod(a + b, c)), "(a + b) % c");
  EXPECT_EQ(PrintExpr(Div(a, b)), "T.truncdiv(a, b)");
  EXPECT_EQ(PrintExpr(Mod(a, b)), "T.truncmod(a, b)");
  EXPECT_EQ(PrintExpr(Not(a < b)), "not a < b");
  EXPECT_EQ(PrintExpr(EQ(a < b, p)), "(a < b) == p");
  EXPECT_EQ(PrintExpr(And(Or(p, q), r)), "(p or q) and r");
  EXPECT_EQ(PrintExpr(Or(p, And(q, r))), "p or q and r");
  EXPECT_EQ(PrintExpr(IntImm(DataType::Int(64), 3)), "T.int64(3)");
  EXPECT_EQ(PrintExpr(BoolImm(true)), "True");
  EXPECT_EQ(PrintExpr(Cast(DataType::Float(16), a)), "T.Cast(\"float16\", a)");
  EXPECT_EQ(PrintExpr(Call(kF32, "exp", {FloatImm(kF32, 1.5)})), "T.exp(T.float32(1.5))");
  EXPECT_EQ(PrintExpr(Call(DataType::Int(32), "exp", {a})), "T.call_intrin(\"int32\", \"exp\", a)");
}

// Stores every immediate into a buffer, prints, parses, and compares the values bit for bit.
TEST(Printer, ImmediatesSurviveExactly) {
  const double kDoubles[] = {0.1,
                             1.0 / 3.0,
                             -0.0,
                             5e-324,
                             1e-310,
                             std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::max(),
                             123456789.123456789,
                             1e22,
                             static_cast<double>(0.1f),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
  const int64_t kInts[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                           -1, 0, 4294967296};
  Buffer fb = DeclBuffer("F", DataType::Float(64), {16});
  Buffer ib = DeclBuffer("I", DataType::Int(64), {8});
  Buffer ub = DeclBuffer("U", DataType::UInt(64), {1});
  Buffer sb = DeclBuffer("S", DataType::Int(32), {2});
  std::vector<Stmt> stores;
  int n = 0;
  for (double d : kDoubles)
    stores.push_back(BufferStore(fb, FloatImm(DataType::Float(64), d), {n++}));
  n = 0;
  for (int64_t v : kInts) stores.push_back(BufferStore(ib, IntImm(DataType::Int(64), v), {n++}));
  stores.push_back(BufferStore(ub, IntImm(DataType::UInt(64), -1), {0}));
  stores.push_back(
      BufferStore(sb, IntImm(DataType::Int(32), std::numeric_limits<int32_t>::min()), {0}));
  stores.push_back(BufferStore(sb, IntImm(DataType::Int(32), 3000000000LL), {1}));
  std::vector<Var> params;
  std::vector<std::pair<Var, Buffer>> map;
  for (const Buffer& b : {fb, ib, ub, sb}) {
    params.emplace_back(b->name, DataType::Handle());
    map.emplace_back(params.back(), b);
  }
  PrimFunc f = MakePrimFunc("imm", params, map, SeqStmt(stores));
  PrimFunc again = RoundTrip(f);
  const auto* seq = again->body.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  for (size_t k = 0; k < std::size(kDoubles); ++k) {
    const auto* imm = seq->seq[k].as<BufferStoreNode>()->value.as<FloatImmNode>();
    ASSERT_NE(imm, nullptr);
    if (std::isnan(kDoubles[k])) {
      EXPECT_TRUE(std::isnan(imm->value));
    } else {
      EXPECT_EQ(std::memcmp(&imm->value, &kDoubles[k], sizeof(double)), 0) << kDoubles[k];
    }
  }
}

TEST(Parser, CommentsAndBlankLinesAreIgnored) {
  PrimFunc plain = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] * T.float32(2.0)
)");
  PrimFunc commented = ParsePrimFunc(R"(# leading comment
# from tvm.script import tir as T

@T.prim_func  # decorator comment

def f(A: T.Buffer((4,),   # inside brackets
                  "float32")):
        # a comment indented differently
    for i in range(4):   # loop

        # between lines
        A[i] = (A[i] *
                T.float32(2.0))  # trailing
# final comment
)");
  EXPECT_TRUE(StructuralEqual(plain, commented));
  EXPECT_EQ(PrintPrimFunc(plain), PrintPrimFunc(commented));
}

TEST(Parser, BothSymbolicShapeSyntaxesAgree) {
  PrimFunc new_style = ParsePrimFunc(R"(@T.prim_func
def f(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4))
    B = T.match_buffer(b, (n,))
    for i in range(n):
        B[i] = A[i, 0]
)");
  PrimFunc old_style = ParsePrimFunc(R"(@T.prim_func
def f(a: T.handle, b: T.handle):
    n = T.var("int32")
    B = T.match_buffer(b, (n,), "float32")
    A = T.match_buffer(a, [n, 4], dtype="float32")
    for i in T.serial(0, n):
        B[i] = A[i, 0]
)");
  EXPECT_TRUE(StructuralEqual(new_style, old_style));
  PrimFunc subscript = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer[(4, 4), "float32"], B: T.Buffer((4, 4), "float32")):
    for i in range(4):
        B[i, 0] = A[i, 0]
)");
  EXPECT_NE(PrintPrimFunc(subscript).find("def f(A: T.Buffer((4, 4), \"float32\"), B:"),
            std::string::npos)
      << PrintPrimFunc(subscript);
  EXPECT_EQ(PrintPrimFunc(new_style), PrintPrimFunc(old_style));
  EXPECT_NE(PrintPrimFunc(new_style, kTvm023)
                .find("    n = T.int32()\n    A = T.match_buffer(a, (n, 4))\n"),
            std::string::npos)
      << PrintPrimFunc(new_style, kTvm023);
  // TVM 0.24+ names an int32 shape variable by a string at its first use.
  EXPECT_NE(PrintPrimFunc(new_style).find(
                "def f(A: T.Buffer((\"n\", 4), \"float32\"), B: T.Buffer((n,), \"float32\")):\n"
                "    n = T.int32()\n"),
            std::string::npos)
      << PrintPrimFunc(new_style);
  EXPECT_TRUE(StructuralEqual(ParsePrimFunc(PrintPrimFunc(new_style)), new_style));
  // The shape variable is one Var shared by both buffers.
  const Expr& n_a = new_style->buffer_map[0].second->shape[0];
  const Expr& n_b = new_style->buffer_map[1].second->shape[0];
  EXPECT_TRUE(n_a.same_as(n_b));
}

TEST(Parser, RootBlockIsAddedOnlyAroundBlocks) {
  PrimFunc with_blocks = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(1.0)
)");
  const auto* root = with_blocks->body.as<BlockRealizeNode>();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->block_node()->name, "root");
  EXPECT_TRUE(root->block_node()->reads.empty());
  EXPECT_TRUE(root->block_node()->writes.empty());
  const auto* loop = root->block_node()->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  const BlockNode* block = loop->body.as<BlockRealizeNode>()->block_node();
  ASSERT_EQ(block->writes.size(), 1u);  // detected from the body
  EXPECT_TRUE(block->reads.empty());

  PrimFunc lowered = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(1.0)
)");
  EXPECT_NE(lowered->body.as<ForNode>(), nullptr);

  PrimFunc explicit_root = ParsePrimFunc(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    with T.block("root"):
        for i in range(4):
            with T.block("A"):
                vi = T.axis.spatial(4, i)
                T.reads()
                T.writes(A[vi])
                A[vi] = T.float32(1.0)
)");
  EXPECT_TRUE(StructuralEqual(with_blocks, explicit_root));
  EXPECT_NE(PrintPrimFunc(explicit_root, kTvm023).find("    # with T.block(\"root\"):\n"),
            std::string::npos);
  EXPECT_NE(PrintPrimFunc(explicit_root).find("    # with T.sblock(\"root\"):\n"),
            std::string::npos);
}

TEST(Parser, DetectedRegionsEqualWrittenOnes) {
  PrimFunc detected = ParsePrimFunc(R"(@T.prim_func
def mm(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  PrimFunc written = ParsePrimFunc(R"(@T.prim_func
def mm(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  EXPECT_TRUE(StructuralEqual(detected, written)) << PrintPrimFunc(detected);
}

TEST(Parser, FunctionSymbols) {
  PrimFunc pub = ParsePrimFunc("@T.prim_func\ndef f():\n    T.evaluate(0)\n");
  ASSERT_TRUE(pub->attrs.count("global_symbol"));
  EXPECT_EQ(pub->attrs.at("global_symbol").as<StringImmNode>()->value, "f");
  EXPECT_EQ(PrintPrimFunc(pub).find("func_attr"), std::string::npos);
  PrimFunc priv = ParsePrimFunc("@T.prim_func(private=True)\ndef f():\n    T.evaluate(0)\n");
  EXPECT_FALSE(priv->attrs.count("global_symbol"));
  PrimFunc renamed = ParsePrimFunc(
      "@T.prim_func\ndef f():\n    T.func_attr({\"global_symbol\": \"g\"})\n    T.evaluate(0)\n");
  EXPECT_NE(PrintPrimFunc(renamed).find("T.func_attr({\"global_symbol\": \"g\"})"),
            std::string::npos);
  RoundTrip(renamed);
}

TEST(Parser, ModulesHoldSeveralFunctions) {
  const char* text = R"(@I.ir_module
class Module:
    @T.prim_func
    def a():
        T.evaluate(0)

    @T.prim_func(private=True)
    def b():
        T.evaluate(1)
@T.prim_func
def c():
    T.evaluate(2)
)";
  std::vector<PrimFunc> funcs = ParsePrimFuncs(text);
  ASSERT_EQ(funcs.size(), 3u);
  EXPECT_EQ(funcs[0]->name, "a");
  EXPECT_EQ(funcs[1]->name, "b");
  EXPECT_EQ(funcs[2]->name, "c");
  EXPECT_THROW(ParsePrimFunc(text), Error);
}

TEST(Parser, EntryPointOnATokenStream) {
  SourceText source("junk here\n@T.prim_func\ndef f():\n    T.evaluate(0)\nmore", "mixed.txt");
  std::vector<Token> tokens = Tokenize(source);
  size_t pos = 0;
  while (!tokens[pos].IsOp("@")) ++pos;
  PrimFunc f = ParsePrimFuncAt(source, tokens, &pos);
  EXPECT_EQ(f->name, "f");
  EXPECT_TRUE(tokens[pos].IsName("more"));
}

TEST(Printer, StatementsAndLetScopes) {
  Var x("x"), y("y");
  Buffer a = DeclBuffer("A", DataType::Int(32), {4});
  // A let that is not last in its sequence keeps its scope with `with`.
  Stmt s = SeqStmt({LetStmt(x, 1, BufferStore(a, x, {0})), LetStmt(y, 2, BufferStore(a, y, {1}))});
  EXPECT_EQ(PrintStmt(s),
            "with T.LetStmt(1) as x:\n    A[0] = x\ny: T.let[T.int32] = 2\nA[1] = y\n");
  EXPECT_EQ(PrintStmt(s, kTvm023),
            "with T.LetStmt(1) as x:\n    A[0] = x\ny: T.int32 = 2\nA[1] = y\n");
  Var param("A", DataType::Handle());
  RoundTrip(MakePrimFunc("lets", {param}, {{param, a}}, s));
}

}  // namespace
}  // namespace kiln::ir
