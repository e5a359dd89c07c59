// Randomized checks that simplification keeps meaning: thousands of random index expressions
// over variables with random ranges are simplified and evaluated (before and after) at random
// points of those ranges. The same points check GetConstIntBound and EvalSet.
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "ir/arith/analyzer.h"
#include "ir/arith/const_fold.h"
#include "ir/arith/expr_compare.h"
#include "ir/arith/int_set.h"
#include "tests/ir/arith/expr_text.h"

namespace kiln::ir::arith {
namespace {

using testing::ToText;
using Env = std::unordered_map<const VarNode*, int64_t>;

int64_t Eval(const Expr& e, const Env& env) {
  auto bin = [&](auto* op) { return std::make_pair(Eval(op->a, env), Eval(op->b, env)); };
  switch (e.kind()) {
    case NodeKind::kIntImm:
      return e.as<IntImmNode>()->value;
    case NodeKind::kVar:
      return env.at(static_cast<const VarNode*>(e.get()));
    case NodeKind::kAdd: {
      auto [a, b] = bin(e.as<AddNode>());
      return a + b;
    }
    case NodeKind::kSub: {
      auto [a, b] = bin(e.as<SubNode>());
      return a - b;
    }
    case NodeKind::kMul: {
      auto [a, b] = bin(e.as<MulNode>());
      return a * b;
    }
    case NodeKind::kDiv: {
      auto [a, b] = bin(e.as<DivNode>());
      return a / b;
    }
    case NodeKind::kMod: {
      auto [a, b] = bin(e.as<ModNode>());
      return a % b;
    }
    case NodeKind::kFloorDiv: {
      auto [a, b] = bin(e.as<FloorDivNode>());
      return FloorDivInt(a, b);
    }
    case NodeKind::kFloorMod: {
      auto [a, b] = bin(e.as<FloorModNode>());
      return FloorModInt(a, b);
    }
    case NodeKind::kMin: {
      auto [a, b] = bin(e.as<MinNode>());
      return std::min(a, b);
    }
    case NodeKind::kMax: {
      auto [a, b] = bin(e.as<MaxNode>());
      return std::max(a, b);
    }
    case NodeKind::kEQ: {
      auto [a, b] = bin(e.as<EQNode>());
      return a == b;
    }
    case NodeKind::kNE: {
      auto [a, b] = bin(e.as<NENode>());
      return a != b;
    }
    case NodeKind::kLT: {
      auto [a, b] = bin(e.as<LTNode>());
      return a < b;
    }
    case NodeKind::kLE: {
      auto [a, b] = bin(e.as<LENode>());
      return a <= b;
    }
    case NodeKind::kGT: {
      auto [a, b] = bin(e.as<GTNode>());
      return a > b;
    }
    case NodeKind::kGE: {
      auto [a, b] = bin(e.as<GENode>());
      return a >= b;
    }
    case NodeKind::kAnd: {
      auto [a, b] = bin(e.as<AndNode>());
      return a && b;
    }
    case NodeKind::kOr: {
      auto [a, b] = bin(e.as<OrNode>());
      return a || b;
    }
    case NodeKind::kNot:
      return !Eval(e.as<NotNode>()->a, env);
    case NodeKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      return Eval(op->condition, env) ? Eval(op->true_value, env) : Eval(op->false_value, env);
    }
    case NodeKind::kCast:
      return Eval(e.as<CastNode>()->value, env);
    default:
      throw Error(ErrorKind::kInternal, "test evaluator: unexpected " + ToText(e));
  }
}

struct VarSpec {
  Var var;
  int64_t lo, extent;
};

class Generator {
 public:
  Generator(std::mt19937_64& rng, const std::vector<VarSpec>& vars) : rng_(rng), vars_(vars) {}

  Expr Int(int depth) {
    if (depth == 0 || Pick(0, 9) < 2) {
      if (Pick(0, 3) == 0) return Expr(static_cast<int>(Pick(-10, 10)));
      return vars_[Pick(0, vars_.size() - 1)].var;
    }
    switch (Pick(0, 12)) {
      case 0:
      case 1:
        return Int(depth - 1) + Int(depth - 1);
      case 2:
        return Int(depth - 1) - Int(depth - 1);
      case 3:
      case 4:
        return Int(depth - 1) * Expr(static_cast<int>(Pick(-4, 4)));
      case 5:
        return FloorDiv(Int(depth - 1), Divisor());
      case 6:
        return FloorMod(Int(depth - 1), Divisor());
      case 7:
        return Pick(0, 1) ? Div(Int(depth - 1), Divisor()) : Mod(Int(depth - 1), Divisor());
      case 8:
        return Min(Int(depth - 1), Int(depth - 1));
      case 9:
        return Max(Int(depth - 1), Int(depth - 1));
      case 10:
        return Select(Bool(depth - 1), Int(depth - 1), Int(depth - 1));
      case 11:
        return Int(depth - 1) * Int(0);
      default: {
        // The split-then-fuse shape, by a constant or a symbolic divisor.
        Expr x = Int(depth - 1);
        Expr d = Pick(0, 1) ? Divisor() : Max(vars_[Pick(0, vars_.size() - 1)].var, 1);
        switch (Pick(0, 2)) {
          case 0:
            return FloorDiv(x, d) * d + FloorMod(x, d);
          case 1:
            return FloorDiv(x * d + Int(depth - 1), d);
          default:
            return FloorMod(Int(depth - 1) * d * 2 + x, d);
        }
      }
    }
  }

  Expr Bool(int depth) {
    Expr a = Int(depth), b = Int(depth);
    Expr c;
    switch (Pick(0, 5)) {
      case 0:
        c = a < b;
        break;
      case 1:
        c = a <= b;
        break;
      case 2:
        c = a > b;
        break;
      case 3:
        c = a >= b;
        break;
      case 4:
        c = a == b;
        break;
      default:
        c = a != b;
        break;
    }
    if (depth > 0 && Pick(0, 4) == 0) {
      Expr d = Bool(depth - 1);
      switch (Pick(0, 2)) {
        case 0:
          return c && d;
        case 1:
          return c || d;
        default:
          return !c;
      }
    }
    return c;
  }

  int64_t Pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

 private:
  Expr Divisor() { return Expr(static_cast<int>(Pick(0, 3) == 0 ? Pick(1, 3) * 8 : Pick(1, 9))); }

  std::mt19937_64& rng_;
  const std::vector<VarSpec>& vars_;
};

constexpr int kRounds = 100;
constexpr int kPerRound = 50;
constexpr int kTrials = 8;

TEST(SimplifyPropertyTest, SimplifyKeepsMeaningAndBoundsHold) {
  std::mt19937_64 rng(20261122);
  int checked = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<VarSpec> vars;
    Analyzer analyzer;
    Generator gen(rng, vars);
    for (int v = 0; v < 4; ++v) {
      VarSpec spec{Var("v" + std::to_string(v)), gen.Pick(-20, 20), gen.Pick(1, 40)};
      if (gen.Pick(0, 2) == 0) spec.lo = 0;
      // Some variables stay unknown to the analyzer: rules must hold without bounds too.
      if (gen.Pick(0, 4) != 0) {
        analyzer.Bind(spec.var, Range{static_cast<int>(spec.lo), static_cast<int>(spec.extent)});
      }
      vars.push_back(spec);
    }
    for (int n = 0; n < kPerRound; ++n) {
      const bool boolean = gen.Pick(0, 3) == 0;
      Expr e = boolean ? gen.Bool(3) : gen.Int(4);
      Expr s = analyzer.Simplify(e);
      Expr again = analyzer.Simplify(s);
      EXPECT_TRUE(ExprDeepEqual(again, s))
          << "not idempotent: " << ToText(s) << "  ->  " << ToText(again);
      ConstIntBound bound = analyzer.GetConstIntBound(e);
      VarIntervals dom{
          {vars[0].var.get(), IntervalSet::FromRange(Range{static_cast<int>(vars[0].lo),
                                                           static_cast<int>(vars[0].extent)})}};
      IntervalSet set = boolean ? IntervalSet{} : EvalSet(e, dom, analyzer);
      for (int trial = 0; trial < kTrials; ++trial) {
        Env env;
        for (const VarSpec& spec : vars) {
          env[spec.var.get()] = gen.Pick(spec.lo, spec.lo + spec.extent - 1);
        }
        int64_t want = Eval(e, env);
        ASSERT_EQ(Eval(s, env), want) << ToText(e) << "  ->  " << ToText(s);
        ASSERT_LE(bound.min_value, want) << ToText(e);
        ASSERT_GE(bound.max_value, want) << ToText(e);
        if (set.min.defined()) {
          ASSERT_LE(Eval(set.min, env), want) << ToText(e) << " min " << ToText(set.min);
        }
        if (set.max.defined()) {
          ASSERT_GE(Eval(set.max, env), want) << ToText(e) << " max " << ToText(set.max);
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, kRounds * kPerRound * kTrials);
}

}  // namespace
}  // namespace kiln::ir::arith

namespace kiln::ir::arith {
namespace {

// Under an assumed condition, simplification must keep meaning at every point where the
// condition holds (points are drawn, and those outside the condition skipped).
TEST(SimplifyPropertyTest, ConstraintsKeepMeaningWhereTheyHold) {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<VarSpec> vars;
    Analyzer analyzer;
    Generator gen(rng, vars);
    for (int v = 0; v < 3; ++v) {
      VarSpec spec{Var("c" + std::to_string(v)), gen.Pick(-10, 10), gen.Pick(1, 30)};
      analyzer.Bind(spec.var, Range{static_cast<int>(spec.lo), static_cast<int>(spec.extent)});
      vars.push_back(spec);
    }
    for (int n = 0; n < 40; ++n) {
      Expr condition = gen.Bool(1);
      Expr e = gen.Pick(0, 1) ? gen.Bool(2) : gen.Int(3);
      analyzer.EnterConstraint(condition);
      Expr s = analyzer.Simplify(e);
      analyzer.ExitConstraint();
      for (int trial = 0; trial < 20; ++trial) {
        Env env;
        for (const VarSpec& spec : vars) {
          env[spec.var.get()] = gen.Pick(spec.lo, spec.lo + spec.extent - 1);
        }
        if (!Eval(condition, env)) continue;
        ASSERT_EQ(Eval(s, env), Eval(e, env))
            << "assuming " << ToText(condition) << ": " << ToText(e) << "  ->  " << ToText(s);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace kiln::ir::arith
