// Dispatcher: batches go to idle workers of the target, each workload travels once per
// worker, a lost worker's candidates are reassigned and its late answers dropped, machinery
// failures are retried elsewhere then given up, batches fit the message a worker decodes, and
// every submitted id is answered once.
#include "coordinator/dispatcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"
#include "tests/search/test_funcs.h"

namespace kiln::coordinator {
namespace {

using schemas::MeasureBatchMsg;
using schemas::RegisterMsg;
using schemas::ResultsMsg;

std::vector<search::MeasureRequest> Requests(int count, uint64_t first_id = 1) {
  ir::PrimFunc workload = search::testing::MakeMatmul(16, 16, 16);
  std::vector<search::MeasureRequest> out;
  for (int i = 0; i < count; ++i) {
    search::Schedule sch(workload, 100 + i);
    auto loops = sch.GetLoops(sch.GetBlock("C"));
    auto tiles = sch.SamplePerfectTile(loops[0], 2, 16);
    sch.Split(loops[0], {tiles[0], tiles[1]});
    out.push_back({first_id + i, "matmul", workload, sch.func(), sch.trace(), {}});
  }
  return out;
}

RegisterMsg Worker(const std::string& id, const std::string& target = "llvm") {
  return {id, "cpu-test", target, true, true, 1, "test", "host"};
}

// An ok result per candidate of `batch`, as a worker would answer.
ResultsMsg Answer(const std::string& worker, const MeasureBatchMsg& batch,
                  const std::string& machinery_error = {}) {
  ResultsMsg r;
  r.batch_id = batch.batch_id;
  r.worker_id = worker;
  for (const auto& c : batch.candidates) {
    schemas::CandidateResultMsg x;
    x.id = c.id;
    x.result.median_seconds = 1e-3 * static_cast<double>(c.id);
    x.result.repeat_seconds = {x.result.median_seconds};
    x.machinery_error = machinery_error;
    r.results.push_back(x);
  }
  return r;
}

DispatcherOptions Options() {
  DispatcherOptions o;
  o.max_batch = 4;
  o.heartbeat_timeout_s = 5;
  o.candidate_deadline_s = 100;
  return o;
}

TEST(Dispatcher, SharesBatchesAmongMatchingWorkersAndSendsEachWorkloadOnce) {
  int sink_calls = 0;
  Dispatcher d(Options(), [&](const RegisterMsg& w, const auto& requests, const auto& responses) {
    ++sink_calls;
    EXPECT_EQ(requests.size(), responses.size());
    EXPECT_FALSE(w.worker_id.empty());
  });
  EXPECT_TRUE(d.OnRegister("a", Worker("wa"), 0).accepted);
  d.OnRegister("b", Worker("wb"), 0);
  d.OnRegister("c", Worker("wc", "cuda"), 0);  // another target: never used
  d.Submit(Requests(6));
  EXPECT_EQ(d.Pending(), 6u);

  auto batches = d.TakeBatches(1);
  ASSERT_EQ(batches.size(), 2u);
  std::map<std::string, MeasureBatchMsg> by_worker(batches.begin(), batches.end());
  EXPECT_FALSE(by_worker.count("c"));
  EXPECT_EQ(by_worker["a"].candidates.size(), 3u);
  EXPECT_EQ(by_worker["b"].candidates.size(), 3u);
  ASSERT_EQ(by_worker["a"].workloads.size(), 1u);
  // What travels is what was scheduled: the text parses back to the same function.
  const auto& c0 = by_worker["a"].candidates[0];
  EXPECT_EQ(c0.workload_hash, ir::StructuralHashHex(search::testing::MakeMatmul(16, 16, 16)));
  EXPECT_EQ(by_worker["a"].workloads[0].hash, c0.workload_hash);
  EXPECT_TRUE(
      ir::StructuralEqual(ir::ParsePrimFunc(c0.scheduled), Requests(6)[c0.id - 1].scheduled));
  EXPECT_EQ(d.InFlight(), 6u);
  EXPECT_TRUE(d.TakeBatches(2).empty());  // both busy

  EXPECT_TRUE(d.OnResults("a", Answer("wa", by_worker["a"]), 3));
  auto got = d.Collect(0);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].worker, "wa");
  EXPECT_EQ(sink_calls, 1);

  d.Submit(Requests(2, 100));
  auto second = d.TakeBatches(4);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].first, "a");
  EXPECT_TRUE(second[0].second.workloads.empty());  // already sent to this worker
  EXPECT_EQ(d.Workers(4).size(), 3u);
}

TEST(Dispatcher, ALostWorkersCandidatesAreReassignedAndItsLateAnswerDropped) {
  std::vector<uint64_t> stored;
  Dispatcher d(Options(), [&](const RegisterMsg&, const auto&, const auto& responses) {
    for (const auto& r : responses) stored.push_back(r.id);
  });
  d.OnRegister("a", Worker("wa"), 0);
  d.OnRegister("b", Worker("wb"), 0);
  d.Submit(Requests(4));
  auto batches = d.TakeBatches(0);
  ASSERT_EQ(batches.size(), 2u);
  std::map<std::string, MeasureBatchMsg> by_worker(batches.begin(), batches.end());
  // b answers and keeps beating; a falls silent.
  d.OnResults("b", Answer("wb", by_worker["b"]), 1);
  d.OnHeartbeat("b", {"wb", 0}, 4);
  auto after = d.TakeBatches(6);  // a silent for 6 s > 5 s: lost
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].first, "b");
  EXPECT_EQ(after[0].second.candidates.size(), by_worker["a"].candidates.size());
  EXPECT_EQ(d.reassigned(), static_cast<int64_t>(by_worker["a"].candidates.size()));
  // a wakes up and answers what it no longer owns: dropped.
  d.OnResults("a", Answer("wa", by_worker["a"]), 7);
  EXPECT_EQ(d.duplicates_dropped(), static_cast<int64_t>(by_worker["a"].candidates.size()));
  d.OnResults("b", Answer("wb", after[0].second), 8);
  std::vector<uint64_t> answered;
  for (const auto& r : d.Collect(0)) answered.push_back(r.id);
  std::sort(answered.begin(), answered.end());
  EXPECT_EQ(answered, (std::vector<uint64_t>{1, 2, 3, 4}));
  std::sort(stored.begin(), stored.end());
  EXPECT_EQ(stored, answered);
  EXPECT_EQ(d.Pending(), 0u);
}

TEST(Dispatcher, ADeadlinePassedIsReassigned) {
  DispatcherOptions o = Options();
  o.candidate_deadline_s = 1;
  o.heartbeat_timeout_s = 1000;
  Dispatcher d(o);
  d.OnRegister("a", Worker("wa"), 0);
  d.Submit(Requests(1));
  ASSERT_EQ(d.TakeBatches(0).size(), 1u);
  EXPECT_TRUE(d.TakeBatches(0.5).empty());
  auto again = d.TakeBatches(2);  // past its deadline: queued again, a is idle again
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].second.candidates[0].id, 1u);
}

TEST(Dispatcher, MachineryErrorsAreRetriedThenGivenUp) {
  DispatcherOptions o = Options();
  o.max_attempts = 2;
  Dispatcher d(o);
  d.OnRegister("a", Worker("wa"), 0);
  d.Submit(Requests(1));
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto batches = d.TakeBatches(attempt);
    ASSERT_EQ(batches.size(), 1u);
    d.OnResults("a", Answer("wa", batches[0].second, "no compiler"), attempt);
  }
  auto got = d.Collect(0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].machinery_error, "no compiler");
  EXPECT_EQ(d.Pending(), 0u);
}

// A reference of one float32 tensor of `elements` (its input written to `path`, its expected
// value zeros): what a sparse task's candidates carry to the worker.
std::shared_ptr<const runtime::Reference> ReferenceOf(int64_t elements, const std::string& path) {
  std::ofstream(path, std::ios::binary) << std::string(static_cast<size_t>(elements) * 4, '\0');
  auto reference = std::make_shared<runtime::Reference>();
  runtime::ReferenceParam param;
  param.name = "x";
  param.input.kind = runtime::ArgSpec::Kind::kTensorFile;
  param.input.shape = {elements};
  param.input.path = path;
  param.written = true;
  param.expected = ir::HostTensor(ir::DataType::Float(32), {elements});
  reference->params.push_back(param);
  return reference;
}

// Batches stay within the message a worker decodes: candidates whose references would not fit
// together go in the next batch, and one that alone would not fit is answered at once with why,
// never sent to be dropped (and resent) by the worker.
TEST(Dispatcher, BatchesFitTheMessageLimitAndAnOversizedCandidateIsGivenUpAtOnce) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kiln-dispatcher-" + std::to_string(::getpid())))
          .string();
  DispatcherOptions o = Options();
  o.max_message_bytes = 100 << 10;  // batches of at most 87.5 KiB
  Dispatcher d(o);
  d.OnRegister("a", Worker("wa"), 0);
  std::vector<search::MeasureRequest> small = Requests(4);
  for (auto& r : small) r.reference = ReferenceOf(4096, path + "-small");  // 32 KiB each
  d.Submit(small);
  auto first = d.TakeBatches(0);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].second.candidates.size(), 2u);  // a third would pass 87.5 KiB
  EXPECT_LT(schemas::Encode(first[0].second).size(), o.max_message_bytes);
  d.OnResults("a", Answer("wa", first[0].second), 1);
  auto second = d.TakeBatches(1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].second.candidates.size(), 2u);
  d.OnResults("a", Answer("wa", second[0].second), 2);
  EXPECT_EQ(d.Collect(0).size(), 4u);

  std::vector<search::MeasureRequest> big = Requests(1, 10);
  big[0].reference = ReferenceOf(16384, path + "-big");  // 128 KiB
  d.Submit(big);
  EXPECT_TRUE(d.TakeBatches(3).empty());
  auto got = d.Collect(0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_THAT(got[0].machinery_error,
              ::testing::HasSubstr("not sent: its inputs and expected outputs take"));
  EXPECT_THAT(got[0].machinery_error,
              ::testing::HasSubstr("past the 100 KiB a message to a worker carries"));
  EXPECT_EQ(d.Pending(), 0u);
  std::filesystem::remove(path + "-small");
  std::filesystem::remove(path + "-big");
}

TEST(Dispatcher, UnknownWorkersAreToldToRegister) {
  Dispatcher d(Options());
  EXPECT_FALSE(d.OnHeartbeat("x", {"wx", 0}, 0));
  EXPECT_FALSE(d.OnResults("x", ResultsMsg{1, "wx", {}}, 0));
  d.Submit(Requests(1));
  EXPECT_TRUE(d.TakeBatches(0).empty());  // nobody to measure: it waits
  EXPECT_EQ(d.Queued(), 1u);
  EXPECT_TRUE(d.Collect(0.01).empty());
}

TEST(Dispatcher, AWorkerThatRegistersAgainGetsItsCandidatesBack) {
  Dispatcher d(Options());
  d.OnRegister("a", Worker("wa"), 0);
  d.Submit(Requests(2));
  ASSERT_EQ(d.TakeBatches(0).size(), 1u);
  // The worker restarted: new socket identity, same worker id.
  d.OnRegister("a2", Worker("wa"), 1);
  auto batches = d.TakeBatches(1);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].first, "a2");
  EXPECT_EQ(batches[0].second.candidates.size(), 2u);
  EXPECT_EQ(batches[0].second.workloads.size(), 1u);  // a new process has nothing cached
}

TEST(Dispatcher, AWorkerHoldingNoBatchGetsItsCandidatesBackWithoutCountingTheDispatch) {
  DispatcherOptions o = Options();
  o.max_attempts = 1;  // were the lost dispatch counted, the candidate would be given up
  Dispatcher d(o);
  d.OnRegister("a", Worker("wa"), 0);
  d.Submit(Requests(1));
  auto first = d.TakeBatches(0);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first[0].second.workloads.size(), 1u);
  // Sent too recently to have arrived, or the worker says it is measuring: still its own.
  EXPECT_TRUE(d.OnHeartbeat("a", {"wa", 0}, 3));
  EXPECT_TRUE(d.OnHeartbeat("a", {"wa", 1}, 6));
  EXPECT_EQ(d.InFlight(), 1u);
  EXPECT_EQ(d.reassigned(), 0);
  // Sent 7 s ago (> 5 s) and the worker holds nothing: the batch went missing.
  EXPECT_TRUE(d.OnHeartbeat("a", {"wa", 0}, 7));
  EXPECT_EQ(d.InFlight(), 0u);
  EXPECT_EQ(d.Queued(), 1u);
  EXPECT_EQ(d.reassigned(), 1);
  auto again = d.TakeBatches(7);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].first, "a");
  ASSERT_EQ(again[0].second.candidates.size(), 1u);
  EXPECT_EQ(again[0].second.candidates[0].id, 1u);
  EXPECT_EQ(again[0].second.workloads.size(), 1u);  // the lost batch carried it
  EXPECT_TRUE(d.Collect(0).empty());                // not given up
  d.OnResults("a", Answer("wa", again[0].second), 8);
  auto got = d.Collect(0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].worker, "wa");
  EXPECT_TRUE(got[0].machinery_error.empty());
}

TEST(Dispatcher, AMachineryErrorSendsTheWorkloadAgain) {
  Dispatcher d(Options());
  d.OnRegister("a", Worker("wa"), 0);
  d.Submit(Requests(1));
  auto first = d.TakeBatches(0);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first[0].second.workloads.size(), 1u);
  d.OnResults("a", Answer("wa", first[0].second, "workload unknown"), 1);
  auto retry = d.TakeBatches(1);
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_EQ(retry[0].first, "a");
  ASSERT_EQ(retry[0].second.workloads.size(), 1u);
  EXPECT_EQ(retry[0].second.workloads[0].hash, retry[0].second.candidates[0].workload_hash);
  // Answered without error: the worker has it now, and the next batch goes without it.
  d.OnResults("a", Answer("wa", retry[0].second), 2);
  ASSERT_EQ(d.Collect(0).size(), 1u);
  d.Submit(Requests(1, 10));
  auto next = d.TakeBatches(3);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_TRUE(next[0].second.workloads.empty());
}

TEST(Dispatcher, AWorkerNotHeardFromForHalfTheTimeoutGetsNoNewBatch) {
  Dispatcher d(Options());  // heartbeat timeout 5 s
  d.OnRegister("a", Worker("wa"), 0);
  d.OnRegister("b", Worker("wb"), 0);
  d.OnHeartbeat("a", {"wa", 0}, 2);
  d.Submit(Requests(2));
  // At 3 s b has been silent 3 s (> 2.5 s): only a gets a batch; b is not lost yet.
  auto batches = d.TakeBatches(3);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].first, "a");
  EXPECT_EQ(batches[0].second.candidates.size(), 1u);  // shared with b, which is still live
  EXPECT_EQ(d.Queued(), 1u);
  EXPECT_EQ(d.Workers(3).size(), 2u);
  // Heard again: it gets the rest.
  d.OnHeartbeat("b", {"wb", 0}, 4);
  auto later = d.TakeBatches(4);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].first, "b");
  EXPECT_EQ(d.Queued(), 0u);
}

TEST(Dispatcher, CandidatesLostWhenEveryWorkerIsCutOffDoNotCountButOneLostWorkerDoes) {
  DispatcherOptions o = Options();
  o.max_attempts = 1;
  {
    // Every worker falls silent at once: their candidates wait for the next worker.
    Dispatcher d(o);
    d.OnRegister("a", Worker("wa"), 0);
    d.OnRegister("b", Worker("wb"), 0);
    d.Submit(Requests(2));
    ASSERT_EQ(d.TakeBatches(0).size(), 2u);
    EXPECT_TRUE(d.TakeBatches(6).empty());  // both silent 6 s > 5 s: lost
    EXPECT_TRUE(d.Collect(0).empty());      // nothing given up
    EXPECT_EQ(d.Queued(), 2u);
    EXPECT_EQ(d.Pending(), 2u);
    d.OnRegister("c", Worker("wc"), 7);
    auto batches = d.TakeBatches(7);
    ASSERT_EQ(batches.size(), 1u);
    EXPECT_EQ(batches[0].first, "c");
    EXPECT_EQ(batches[0].second.candidates.size(), 2u);
  }
  {
    // One worker falls silent while another beats: its candidate's dispatch counts.
    Dispatcher d(o);
    d.OnRegister("a", Worker("wa"), 0);
    d.OnRegister("b", Worker("wb"), 0);
    d.Submit(Requests(2));
    auto batches = d.TakeBatches(0);
    ASSERT_EQ(batches.size(), 2u);
    std::map<std::string, MeasureBatchMsg> by_worker(batches.begin(), batches.end());
    d.OnResults("b", Answer("wb", by_worker["b"]), 1);
    d.OnHeartbeat("b", {"wb", 0}, 4);
    EXPECT_TRUE(d.TakeBatches(6).empty());  // a lost, its candidate given up
    auto got = d.Collect(0);
    ASSERT_EQ(got.size(), 2u);
    std::map<uint64_t, search::MeasureResponse> by_id;
    for (auto& r : got) by_id[r.id] = r;
    uint64_t lost_id = by_worker["a"].candidates[0].id;
    EXPECT_EQ(by_id[lost_id].worker, "coordinator");
    EXPECT_THAT(by_id[lost_id].machinery_error, ::testing::HasSubstr("given up"));
    EXPECT_EQ(d.Pending(), 0u);
  }
}

TEST(Dispatcher, OnlyTheBatchACandidateLastWentOutInIsAnswered) {
  DispatcherOptions o = Options();
  o.candidate_deadline_s = 1;
  o.heartbeat_timeout_s = 1000;
  Dispatcher d(o);
  d.OnRegister("a", Worker("wa"), 0);
  d.Submit(Requests(1));
  auto first = d.TakeBatches(0);
  ASSERT_EQ(first.size(), 1u);
  // Past its deadline it goes out again, to the same worker, in another batch.
  auto second = d.TakeBatches(2);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].first, "a");
  EXPECT_NE(second[0].second.batch_id, first[0].second.batch_id);
  // The answer to the first batch comes late: dropped, the candidate still waits for the second.
  EXPECT_TRUE(d.OnResults("a", Answer("wa", first[0].second), 3));
  EXPECT_EQ(d.duplicates_dropped(), 1);
  EXPECT_TRUE(d.Collect(0).empty());
  EXPECT_EQ(d.InFlight(), 1u);
  d.OnResults("a", Answer("wa", second[0].second), 4);
  ASSERT_EQ(d.Collect(0).size(), 1u);
  EXPECT_EQ(d.Pending(), 0u);
}

TEST(Dispatcher, BatchIdsOfARestartedCoordinatorStartElsewhere) {
  // Two coordinators (one restarted) number their batches from different points, so that an
  // answer to the first one's batch is not taken for the second one's.
  Dispatcher before(Options());
  before.OnRegister("a", Worker("wa"), 0);
  before.Submit(Requests(1));
  auto old_batch = before.TakeBatches(0);
  ASSERT_EQ(old_batch.size(), 1u);

  Dispatcher after(Options());
  after.OnRegister("a", Worker("wa"), 10);
  after.Submit(Requests(1));
  auto new_batch = after.TakeBatches(10);
  ASSERT_EQ(new_batch.size(), 1u);
  EXPECT_NE(new_batch[0].second.batch_id, old_batch[0].second.batch_id);
  EXPECT_NE(new_batch[0].second.batch_id, 0u);

  after.OnResults("a", Answer("wa", old_batch[0].second), 11);
  EXPECT_EQ(after.duplicates_dropped(), 1);
  EXPECT_TRUE(after.Collect(0).empty());
  after.OnResults("a", Answer("wa", new_batch[0].second), 12);
  EXPECT_EQ(after.Collect(0).size(), 1u);
}

TEST(Dispatcher, AWorkerThatRegistersAgainKeepsOneEntry) {
  Dispatcher d(Options());
  d.OnRegister("a", Worker("wa"), 0);
  d.OnRegister("b", Worker("wb"), 0);
  // wa reconnects twice while live, then is declared lost and reconnects again.
  d.OnRegister("a2", Worker("wa"), 1);
  d.OnRegister("a3", Worker("wa"), 2);
  d.OnHeartbeat("b", {"wb", 0}, 7);
  d.TakeBatches(8);  // a3 silent 6 s > 5 s: lost
  ASSERT_EQ(d.Workers(8).size(), 2u);
  d.OnRegister("a4", Worker("wa"), 9);
  auto workers = d.Workers(9);
  ASSERT_EQ(workers.size(), 2u);
  std::map<std::string, schemas::WorkerInfoMsg> by_id;
  for (const auto& w : workers) by_id[w.worker_id] = w;
  ASSERT_EQ(by_id.count("wa"), 1u);
  EXPECT_EQ(by_id["wa"].state, "idle");
  EXPECT_EQ(d.MatchingWorkers("llvm", "").size(), 2u);
  // The earlier connections are forgotten: they are told to register.
  EXPECT_FALSE(d.OnHeartbeat("a", {"wa", 0}, 9));
  EXPECT_FALSE(d.OnHeartbeat("a3", {"wa", 0}, 9));
  EXPECT_TRUE(d.OnHeartbeat("a4", {"wa", 0}, 9));
}

}  // namespace
}  // namespace kiln::coordinator
