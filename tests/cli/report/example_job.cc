// WriteExampleJob: the job, workloads and records of example_job.h.
#include "tests/cli/report/example_job.h"

#include <fstream>
#include <sstream>

namespace kiln::cli::testing {
namespace {

std::string ReadMatmul() {
  std::ifstream in(std::string(KILN_SOURCE_DIR) + "/examples/tir/matmul.tir");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

database::TuningRecord Record(const std::string& hash, int64_t job, int64_t candidate,
                              double created, double seconds, bool ok = true) {
  database::TuningRecord r;
  r.workload_hash = hash;
  r.target = "llvm";
  r.device = "cpu-test";
  r.trace_json = "[[],[]]";
  r.worker = "test";
  r.created_unix = created;
  r.job_id = job;
  r.candidate_id = candidate;
  if (ok) {
    r.result.median_seconds = seconds;
    r.result.repeat_seconds = {seconds};
  } else {
    r.result.error_kind = runtime::MeasureErrorKind::kBuildError;
    r.result.message = "gcc: error";
  }
  return r;
}

database::JobTask Task(int index, const std::string& name, const std::string& hash, int64_t weight,
                       int64_t trials_total) {
  database::JobTask t;
  t.index = index;
  t.name = name;
  t.workload_hash = hash;
  t.weight = weight;
  t.trials_total = trials_total;
  return t;
}

}  // namespace

int64_t WriteExampleJob(database::Database& db) {
  db.CommitWorkload({"00000000000000aa", "matmul", ReadMatmul()});
  db.CommitWorkload({"00000000000000bb", "softmax <fused>", "not TensorIR"});
  db.CommitWorkload({"00000000000000cc", "other", "not TensorIR"});

  database::Job job;
  job.model = "examples/models/<model>.onnx";
  job.target = "llvm";
  job.device = "cpu-test";
  job.trials_total = 8;
  job.state = database::JobState::kDone;
  job.tasks = {Task(0, "matmul", "00000000000000aa", 2, 3),
               Task(1, "softmax <fused>", "00000000000000bb", 1, 4)};
  int64_t id = db.CreateJob(job);
  database::Job other;
  other.model = "other.onnx";
  other.target = "llvm";
  other.tasks = {Task(0, "matmul", "00000000000000aa", 1, 1)};
  int64_t other_id = db.CreateJob(other);

  // Written out of time order, as workers report them.
  std::vector<database::TuningRecord> records = {
      Record("00000000000000aa", id, 5, 104, 5e-4),
      Record("00000000000000aa", id, 1, 100, 1e-3),
      Record("00000000000000bb", id, 2, 101, 0, /*ok=*/false),
      Record("00000000000000aa", id, 3, 102, 2e-3),
      Record("00000000000000bb", id, 4, 103, 5e-6),
      Record("00000000000000cc", id, 6, 103.5, 1e-9),        // no task of the job
      Record("00000000000000aa", other_id, 1, 102.5, 1e-9),  // another job
  };
  db.CommitRecords(records);
  db.SetTaskProgress(id, 0, 3, 5e-4);
  db.SetTaskProgress(id, 1, 2, 5e-6);
  return id;
}

}  // namespace kiln::cli::testing
