// Sandbox request/result JSON round trips, and validation of what is read back: truncated,
// corrupt or out-of-range files are kiln::Errors naming the file and field.
#include "runtime/sandbox_protocol.h"

#include <gtest/gtest.h>

#include <fstream>

#include "runtime_test_util.h"

namespace kiln::runtime {
namespace {

std::string ParseError(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    return e.what();
  }
  ADD_FAILURE() << "expected a parse error";
  return "";
}

SandboxResult SampleResult() {
  SandboxResult r;
  r.library_path = "/cache/abc.so";
  r.build_seconds = 0.25;
  r.build_cache_hit = true;
  r.repeat_seconds = {1e-3, 2e-3, 1.5e-3};
  r.median_seconds = 1.5e-3;
  r.number = 64;
  r.cutoff = Cutoff::kNextRun;
  r.kernel_seconds = 0.75;
  r.outputs.push_back({2, ir::DataType::Float(16), {3, 4}, "/tmp/x/param2.bin"});
  return r;
}

TEST(SandboxProtocolTest, RequestRoundTrip) {
  SandboxRequest q;
  q.phase = SandboxPhase::kRunOnce;
  q.source_path = "/tmp/k.c";
  q.build.flags = {"-O2", "-shared", "-fPIC"};
  q.build.time_limit_s = 5;
  q.signature = testing::VectorAddSignature();
  q.args = {ArgSpec::Random(ir::DataType::Float(32), {8}, 17, -2, 3), ArgSpec::Int(-4),
            ArgSpec::Float(0.5)};
  q.args.push_back(ArgSpec::Random(ir::DataType::Int(8), {2, 2}, 0xffffffffffffffffULL));
  q.timing = {.number = 5,
              .repeat = 3,
              .min_repeat_ms = 7.5,
              .flush_cache = true,
              .warmup = 2,
              .cutoff_seconds = 0.25};
  q.dump_outputs = true;
  q.output_dir = "/tmp/out";
  SandboxRequest back = RequestFromJson(RequestToJson(q), "request.json");
  EXPECT_EQ(back.phase, SandboxPhase::kRunOnce);
  EXPECT_EQ(back.source_path, q.source_path);
  EXPECT_EQ(back.build.flags, q.build.flags);
  EXPECT_EQ(back.build.time_limit_s, 5);
  ASSERT_EQ(back.signature.slots.size(), 4u);
  EXPECT_EQ(back.signature.symbol, "vadd");
  EXPECT_EQ(back.signature.slots[3].kind, codegen::SlotKind::kShapeVar);
  EXPECT_EQ(back.signature.slots[3].dim, 0);
  EXPECT_EQ(back.signature.slots[1].dtype, ir::DataType::Float(32));
  ASSERT_EQ(back.args.size(), 4u);
  EXPECT_EQ(back.args[0].seed, 17u);
  EXPECT_EQ(back.args[0].low, -2);
  EXPECT_EQ(back.args[0].shape, std::vector<int64_t>{8});
  EXPECT_EQ(back.args[1].int_value, -4);
  EXPECT_EQ(back.args[2].float_value, 0.5);
  EXPECT_EQ(back.args[3].seed, 0xffffffffffffffffULL);
  EXPECT_EQ(back.timing.repeat, 3);
  EXPECT_EQ(back.timing.min_repeat_ms, 7.5);
  EXPECT_TRUE(back.timing.flush_cache);
  EXPECT_EQ(back.timing.cutoff_seconds, 0.25);
  EXPECT_TRUE(back.dump_outputs);
  // Seeded inputs materialize identically on both sides.
  auto a = MaterializeArgs(q.args), b = MaterializeArgs(back.args);
  EXPECT_TRUE(
      ir::CompareTensors(std::get<ir::HostTensor>(a[0]), std::get<ir::HostTensor>(b[0]), 0, 0).ok);
}

TEST(SandboxProtocolTest, ResultRoundTrip) {
  SandboxResult back = ResultFromJson(ResultToJson(SampleResult()), "result.json");
  EXPECT_EQ(back.error_kind, MeasureErrorKind::kOk);
  EXPECT_EQ(back.repeat_seconds, SampleResult().repeat_seconds);
  EXPECT_EQ(back.median_seconds, 1.5e-3);
  EXPECT_EQ(back.number, 64);
  EXPECT_TRUE(back.build_cache_hit);
  EXPECT_EQ(back.cutoff, Cutoff::kNextRun);
  EXPECT_EQ(back.kernel_seconds, 0.75);
  ASSERT_EQ(back.outputs.size(), 1u);
  EXPECT_EQ(back.outputs[0].dtype, ir::DataType::Float(16));
  EXPECT_EQ(back.outputs[0].shape, (std::vector<int64_t>{3, 4}));
}

TEST(SandboxProtocolTest, TruncatedResultIsAClearError) {
  std::string text = ResultToJson(SampleResult());
  for (size_t cut : {size_t{0}, size_t{1}, text.size() / 3, text.size() - 2}) {
    std::string e = ParseError([&] { ResultFromJson(text.substr(0, cut), "/tmp/r/result.json"); });
    EXPECT_NE(e.find("/tmp/r/result.json"), std::string::npos) << e;
    EXPECT_NE(e.find("truncated or corrupt"), std::string::npos) << e;
  }
  std::string bad_bytes = text;
  bad_bytes[text.size() / 2] = '\x01';
  ParseError([&] { ResultFromJson(bad_bytes, "result.json"); });
}

TEST(SandboxProtocolTest, InvalidFieldsAreNamed) {
  auto edit = [](const std::string& from, const std::string& to) {
    std::string text = ResultToJson(SampleResult());
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  EXPECT_NE(ParseError([&] {
              ResultFromJson(
                  edit("\"version\": " + std::to_string(kSandboxProtocolVersion), "\"version\": 9"),
                  "r");
            }).find("r.version: protocol version 9"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"status\": \"ok\"", "\"status\": \"meh\""), "r");
            }).find("r.status: unknown status 'meh'"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"number\": 64", "\"number\": -1"), "r");
            }).find("r.number"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"kernel_seconds\": 0.75", "\"kernel_seconds\": -1"), "r");
            }).find("r.kernel_seconds: expected a non-negative number"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"cutoff\": \"next_run\"", "\"cutoff\": \"maybe\""), "r");
            }).find("r.cutoff: unknown value 'maybe'"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"median_seconds\"", "\"median_secs\""), "r");
            }).find("r.median_seconds: missing"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"float16\"", "\"float7\""), "r");
            }).find("r.outputs[0].dtype: unknown dtype 'float7'"),
            std::string::npos);
  EXPECT_NE(ParseError([&] {
              ResultFromJson(edit("\"outputs\": [", "\"outputs\": {"), "r");
            }).find("not valid JSON"),
            std::string::npos);
  ParseError([] { ResultFromJson("[1, 2]", "r"); });
}

TEST(SandboxProtocolTest, RequestNeedsExactlyOneKernelSource) {
  SandboxRequest q;
  q.signature = testing::VectorAddSignature();
  EXPECT_NE(ParseError([&] {
              RequestFromJson(RequestToJson(q), "q");
            }).find("exactly one of source_path and library_path"),
            std::string::npos);
  q.library_path = "/x.so";
  q.phase = SandboxPhase::kBuild;
  ParseError([&] { RequestFromJson(RequestToJson(q), "q"); });
}

TEST(SandboxProtocolTest, TensorFilesRoundTripAndSizeIsChecked) {
  testing::ScratchDir dir;
  ir::HostTensor t = ir::HostTensor::Random(ir::DataType::Float(64), {3, 5}, 9);
  WriteTensorFile(t, dir.Sub("t.bin"));
  ir::HostTensor back = ReadTensorFile(dir.Sub("t.bin"), t.dtype(), t.shape());
  EXPECT_TRUE(ir::CompareTensors(t, back, 0, 0).ok);
  try {
    ReadTensorFile(dir.Sub("t.bin"), t.dtype(), {3, 6});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("holds 120 bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ReadTensorFile(dir.Sub("missing.bin"), t.dtype(), t.shape()), Error);
}

}  // namespace
}  // namespace kiln::runtime
