// The compiled graph's JSON: a round trip, dims, and the validation a loader relies on.
#include <gtest/gtest.h>

#include "executor_test_model.h"
#include "runtime/model/graph.h"
#include "support/error.h"

namespace kiln::runtime::model {
namespace {

using nlohmann::json;

std::string Message(const json& j, uint64_t constants = 16) {
  try {
    GraphFromJson(j, constants);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(GraphTest, RoundTrips) {
  json j = GraphToJson(testing::ChainGraph());
  Graph g = GraphFromJson(j, 16);
  EXPECT_EQ(GraphToJson(g), j);
  EXPECT_EQ(g.values[6].shape[1].ToString(), "(n // 2)");
}

TEST(GraphTest, EvaluatesDims) {
  DimExpr e;
  e.op = DimExpr::Op::kFloorMod;
  e.operands = {DimExpr::Const(-7), DimExpr::Var("n")};
  EXPECT_EQ(EvaluateDim(e, {{"n", 3}}), 2);
  e.op = DimExpr::Op::kFloorDiv;
  EXPECT_EQ(EvaluateDim(e, {{"n", 3}}), -3);
  EXPECT_THROW(EvaluateDim(e, {{"n", 0}}), Error);
  EXPECT_THROW(EvaluateDim(e, {}), Error);
  e.op = DimExpr::Op::kMul;
  e.operands = {DimExpr::Const(int64_t{1} << 62), DimExpr::Var("n")};
  EXPECT_THROW(EvaluateDim(e, {{"n", 4}}), Error);
}

TEST(GraphTest, RejectsWhatAnExecutorCouldNotRun) {
  json good = GraphToJson(testing::ChainGraph());
  auto with = [&](const std::function<void(json&)>& edit) {
    json j = good;
    edit(j);
    return Message(j);
  };
  EXPECT_NE(Message(json::array()).find("an object expected"), std::string::npos);
  EXPECT_NE(with([](json& j) { j.erase("steps"); }).find("field 'steps' missing"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["steps"][0]["kernel"] = 9; }).find("steps[0].kernel"),
            std::string::npos);
  EXPECT_NE(with([](json& j) {
              std::swap(j["steps"][0], j["steps"][1]);
            }).find("used before a step writes it"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["steps"][1]["outputs"][0] = 2; }).find("written by two steps"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["values"][6]["source"] = 6; }).find("values[6].source"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["values"][0]["shape"][0] = "m"; }).find("dim 'm'"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["values"][0]["dtype"] = "float32x4"; }).find("dtype"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["constants"][0]["offset"] = 8; }).find("outside constants.bin"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["values"][1]["shape"][0] = 5; }).find("20 bytes"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["kernels"][0]["slots"][2]["dim"] = 3; }).find("rank-1"),
            std::string::npos);
  EXPECT_NE(with([](json& j) {
              j["kernels"][0]["slots"][0]["dtype"] = "int32";
            }).find("the kernel takes int32"),
            std::string::npos);
  json deep = "n";
  for (int i = 0; i < 100; ++i) deep = json::array({"+", deep, 1});
  EXPECT_NE(with([&](json& j) { j["values"][2]["shape"][0] = deep; }).find("nested too deeply"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["outputs"] = json::array(); }).find("returns nothing"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::runtime::model
