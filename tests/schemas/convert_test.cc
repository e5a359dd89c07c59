// Encode/Decode: round trips of every message kind, the pinned protocol version, and the
// edge cases a network peer can send (random bytes, truncation, another version, unaligned
// buffers, size and nesting limits, field values a later layer would trip on).
#include "schemas/convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/error.h"

namespace kiln::schemas {
namespace {

using ::testing::HasSubstr;

MeasureBatchMsg Batch() {
  MeasureBatchMsg m;
  m.batch_id = 42;
  m.settings.target = "llvm";
  m.settings.timing.number = 5;
  m.settings.timing.repeat = 3;
  m.settings.timing.min_repeat_ms = 20;
  m.settings.timing.flush_cache = true;
  m.settings.num_threads = 2;
  m.workloads = {{"ab12", "matmul", "@T.prim_func\ndef main(): pass\n"}};
  m.candidates = {{7, "ab12", "@T.prim_func ...", "[[], []]", {{"n", 64}, {"m", 3}}},
                  {8, "ab12", "x", "[]", {}}};
  // A validation's call: a tensor in (two float32), one out, and a scalar.
  CandidateMsg call{9, "ab12", "y", "[]", {}};
  call.given = {{"A", false, ir::DataType::Float(32), {2}, std::string(8, '\x01'), false, ""},
                {"B",
                 false,
                 ir::DataType::Float(32),
                 {2},
                 std::string(8, '\0'),
                 true,
                 std::string(8, '\x02')},
                {"n", true, ir::DataType::Int(64), {}, "", false, "", 2, 0}};
  call.return_outputs = true;
  m.candidates.push_back(call);
  return m;
}

ResultsMsg Results() {
  ResultsMsg m;
  m.batch_id = 42;
  m.worker_id = "w-1";
  runtime::MeasureResult ok;
  ok.repeat_seconds = {1e-3, 2e-3, 1.5e-3};
  ok.median_seconds = 1.5e-3;
  ok.build_seconds = 0.7;
  ok.number = 10;
  ok.contention = 0.42;
  ok.correctness_checked = true;
  ok.max_abs_error = 1e-6;
  ok.reference = "interpreter, full";
  runtime::MeasureResult bad;
  bad.error_kind = runtime::MeasureErrorKind::kTimeout;
  bad.message = "ran past 30 s";
  m.results = {{7, ok, ""}, {8, bad, ""}, {9, {}, "no compiler"}};
  m.results[0].outputs = {{1, ir::DataType::Float(32), {2}, std::string(8, '\x02')}};
  return m;
}

std::vector<Message> AllKinds() {
  return {RegisterMsg{"w-1", "cpu-zen4", "llvm", true, true, 2, "AMD EPYC, 2 cores", "host", 64, 2},
          RegisterMsg{"w-2",
                      "cuda-h100",
                      "cuda",
                      true,
                      true,
                      4,
                      "NVIDIA H100 80GB HBM3",
                      "gpu-host",
                      0,
                      0,
                      1024,
                      49152,
                      32,
                      {"fp16", "fp64", "int64"}},
          RegisteredMsg{true, "", 500},
          HeartbeatMsg{"w-1", 3},
          Batch(),
          Results(),
          SubmitMsg{"model.onnx", std::string("\0\1binary\xff", 9), "llvm", "cpu-zen4", 64,
                    "{\"seed\": 1}"},
          SubmittedMsg{17},
          JobEventMsg{17,
                      "running",
                      10,
                      64,
                      {{0, "matmul", 10, 48, 1e-3, 2, 4e6, 5e-3, true}},
                      "",
                      "m",
                      "llvm",
                      1.5,
                      "Hh5R3x7e..."},
          CancelMsg{17},
          QueryMsg{QueryMsg::Kind::kWatch, 17},
          WorkerListMsg{{{"w-1", "cpu-zen4", "llvm", "busy", 4, 0.2, "hw"}}},
          JobListMsg{{JobEventMsg{1, "done", 2, 2, {}, "", "a", "llvm"}}},
          ErrorMsg{"parse", "bad"}};
}

bool SameResults(const ResultsMsg& a, const ResultsMsg& b) {
  if (a.batch_id != b.batch_id || a.worker_id != b.worker_id) return false;
  if (a.results.size() != b.results.size()) return false;
  for (size_t i = 0; i < a.results.size(); ++i) {
    const auto& x = a.results[i].result;
    const auto& y = b.results[i].result;
    if (a.results[i].id != b.results[i].id || x.error_kind != y.error_kind ||
        x.message != y.message || x.repeat_seconds != y.repeat_seconds ||
        x.median_seconds != y.median_seconds || x.build_seconds != y.build_seconds ||
        x.number != y.number || x.contention != y.contention ||
        x.correctness_checked != y.correctness_checked || x.max_abs_error != y.max_abs_error ||
        x.reference != y.reference ||
        a.results[i].machinery_error != b.results[i].machinery_error ||
        a.results[i].outputs != b.results[i].outputs) {
      return false;
    }
  }
  return true;
}

TEST(WireConvert, ProtocolVersionIsPinned) {
  // A change of the wire format is a new version: old workers are refused, not misread.
  EXPECT_EQ(ProtocolVersion(), 1u);
}

TEST(WireConvert, EveryKindRoundTrips) {
  for (const Message& message : AllKinds()) {
    SCOPED_TRACE(MessageName(message));
    std::string bytes = Encode(message);
    EXPECT_EQ(bytes.size() % 8, 0u);
    Message back = Decode(bytes);
    ASSERT_EQ(back.index(), message.index());
    if (const auto* r = std::get_if<ResultsMsg>(&message)) {
      EXPECT_TRUE(SameResults(*r, std::get<ResultsMsg>(back)));
    } else {
      std::visit(
          [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (!std::is_same_v<T, ResultsMsg>) {
              EXPECT_TRUE(m == std::get<T>(back));
            }
          },
          message);
    }
  }
}

TEST(WireConvert, ReadsFromAnUnalignedBuffer) {
  std::string bytes = Encode(Batch());
  std::vector<char> storage(bytes.size() + 1);
  std::memcpy(storage.data() + 1, bytes.data(), bytes.size());
  EXPECT_EQ(std::get<MeasureBatchMsg>(Decode(storage.data() + 1, bytes.size())), Batch());
}

TEST(WireConvert, AnotherVersionIsRefusedNamingBoth) {
  try {
    Decode(Encode(HeartbeatMsg{"w", 0}, 99));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_THAT(e.what(), HasSubstr("protocol version 99, this build speaks 1"));
  }
}

TEST(WireConvert, TruncatedAndEmptyFramesAreParseErrors) {
  std::string bytes = Encode(Batch());
  for (size_t size : {size_t{0}, size_t{3}, size_t{8}, size_t{16}, bytes.size() / 2,
                      bytes.size() - 8, bytes.size() - 1}) {
    SCOPED_TRACE(size);
    try {
      Decode(bytes.data(), size);
      FAIL() << "decoded a frame cut to " << size << " bytes";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), HasSubstr("wire message"));
    }
  }
}

// A frame found by the fuzzer: a job list that claims hundreds of millions of empty structs in
// a few bytes (Cap'n Proto's traversal limit does not count them). It is a parse error naming
// the list, not a 3 GB allocation.
TEST(WireConvert, AListClaimingMillionsOfEmptyElementsIsRefused) {
  const unsigned char frame[] = {
      0x00, 0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
      0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x98, 0x00, 0x04, 0x00, 0x00,
      0x00, 0x00, 0x03, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00,
      0x07, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x11, 0x00,
      0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00,
      0x64, 0x6f, 0x6e, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x6c, 0x6c, 0x76, 0x6d, 0x00, 0x00, 0x00, 0x00};
  try {
    Decode(frame, sizeof(frame));
    FAIL() << "decoded a frame whose list claims millions of elements";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_THAT(e.what(), HasSubstr("elements, at most"));
  }
}

TEST(WireConvert, RandomBytesNeverCrash) {
  std::mt19937_64 rng(7);
  std::vector<std::string> frames;
  for (const Message& m : AllKinds()) frames.push_back(Encode(m));
  int decoded = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes.resize(8 * (1 + rng() % 40));
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      // Flip a few bytes of a real frame: reaches deeper than pure noise.
      bytes = frames[rng() % frames.size()];
      for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
    }
    try {
      Decode(bytes);
      ++decoded;
    } catch (const Error& e) {
      EXPECT_TRUE(e.kind() == ErrorKind::kParse || e.kind() == ErrorKind::kUnsupported) << e.what();
    }
  }
  EXPECT_LT(decoded, 3000);
}

TEST(WireConvert, SizeAndTraversalLimits) {
  std::string bytes = Encode(Batch());
  EXPECT_THROW(Decode(bytes, {.max_bytes = 64}), Error);
  try {
    Decode(bytes, {.traversal_limit_words = 8});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
  }
}

TEST(WireConvert, FieldsLaterLayersRelyOnAreChecked) {
  auto expect_parse = [](const Message& m, const std::string& phrase) {
    try {
      Decode(Encode(m));
      ADD_FAILURE() << "accepted " << MessageName(m);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), HasSubstr(phrase));
    }
  };
  expect_parse(RegisterMsg{"", "cpu", "llvm", true, true, 1, "", ""}, "workerId is empty");
  expect_parse(RegisterMsg{"w", "cpu", "llvm", true, true, 0, "", ""}, "concurrency 0");
  expect_parse(RegisterMsg{"w", "cpu", "llvm", true, true, 1, "", "", 48}, "vectorBytes 48");
  expect_parse(RegisterMsg{"w", "cpu", "llvm", true, true, 1, "", "", 64, 1 << 20}, "numCores");
  expect_parse(RegisterMsg{"w", "cuda-h100", "cuda", true, true, 1, "", "", 0, 0, 1024, 49152, 48},
               "warpSize 48");
  expect_parse(RegisterMsg{"w", "cuda-h100", "cuda", true, true, 1, "", "", 0, 0, 1 << 20},
               "maxThreadsPerBlock");
  expect_parse(
      RegisterMsg{"w", "cuda-h100", "cuda", true, true, 1, "", "", 0, 0, 1024, 0, 32, {"fp16", ""}},
      "feature name of 0 characters");
  MeasureBatchMsg batch = Batch();
  batch.settings.timing.repeat = 0;
  expect_parse(batch, "out of range");
  batch = Batch();
  batch.settings.run_time_limit_s = -1;
  expect_parse(batch, "time limits");
  batch = Batch();
  batch.candidates[0].workload_hash.clear();
  expect_parse(batch, "candidate 7 has no workloadHash");
  ResultsMsg results = Results();
  results.results[0].result.median_seconds = 0;
  expect_parse(results, "candidate 7 is ok but");
  results = Results();
  results.results[0].result.contention = -1;
  expect_parse(results, "contention -1");
  expect_parse(SubmitMsg{"m", "", "llvm", "", 1, "{}"}, "modelBytes is empty");
  // Given values and returned tensors: their bytes must be what dtype and shape take.
  batch = Batch();
  batch.candidates[2].given[0].input.pop_back();
  expect_parse(batch, "candidate 9 given param 0: 8 bytes expected for its input and 0");
  batch = Batch();
  batch.candidates[2].given[1].expected.clear();
  expect_parse(batch, "candidate 9 given param 1: 8 bytes expected for its input and 8");
  batch = Batch();
  batch.candidates[2].given[1].shape = {-2};
  expect_parse(batch, "dim -2");
  results = Results();
  results.results[0].outputs[0].data += "x";
  expect_parse(results, "candidate 7 output 0: 8 bytes expected, got 9");
}

// The fuzzer's seeds are real frames of every kind; this test writes them when
// KILN_UPDATE_GOLDEN=1 and otherwise checks that they still decode.
TEST(WireConvert, FuzzSeedCorpusDecodes) {
  std::filesystem::path dir =
      std::filesystem::path(KILN_SOURCE_DIR) / "fuzz/corpus/wire_message_fuzzer";
  std::vector<Message> kinds = AllKinds();
  if (const char* update = std::getenv("KILN_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::filesystem::create_directories(dir);
    for (const Message& m : kinds) {
      std::ofstream(dir / (std::string(MessageName(m)) + ".bin"), std::ios::binary) << Encode(m);
    }
    FAIL() << "KILN_UPDATE_GOLDEN=1: rewrote the seeds in " << dir << "; run again without it";
  }
  for (const Message& m : kinds) {
    std::ifstream in(dir / (std::string(MessageName(m)) + ".bin"), std::ios::binary);
    ASSERT_TRUE(in) << "missing seed " << MessageName(m) << " (KILN_UPDATE_GOLDEN=1 writes it)";
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(Decode(bytes).index(), m.index());
  }
}

}  // namespace
}  // namespace kiln::schemas
