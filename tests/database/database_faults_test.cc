// The tuning database under faults, on real files and real processes: a disk that fills up in
// the middle of a batch (a file size limit, as a full disk answers writes) fails that batch
// with an error naming the file and keeps every record stored before; a file that cannot be
// written is read but refuses a batch with an error saying so, changing nothing; two
// processes writing at once lose nothing. Damaged files are `tune db check`'s
// (tests/integration/db_command_test).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "database/sqlite_database.h"
#include "support/error.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::database {
namespace {

using runtime::testing::ScratchDir;

// `n` records of one workload, each with a trace of about `trace_bytes`.
std::vector<TuningRecord> Records(int n, size_t trace_bytes = 16) {
  std::vector<TuningRecord> records;
  for (int i = 0; i < n; ++i) {
    TuningRecord r;
    r.workload_hash = "aa";
    r.target = "llvm";
    r.device = "cpu-zen4";
    r.trace_json = "[[\"" + std::string(trace_bytes, 'x') + "\"], []]";
    r.result.median_seconds = 1e-6 * (i + 1);
    r.result.repeat_seconds = {r.result.median_seconds};
    r.result.correctness_checked = true;
    r.worker = "w";
    records.push_back(std::move(r));
  }
  return records;
}

// Starts `body` in a child process, whose exit status is its return value (98 if it threw).
pid_t StartChild(const std::function<int()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    int code = 98;
    try {
      code = body();
    } catch (...) {
    }
    _exit(code);
  }
  return pid;
}

// The child's exit status (-1 if it did not exit).
int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A child's exit status for `db.CommitRecords(batch)`: 0 when it fails with an I/O error that
// names the file and says `why`, 2 for another error, 1 when the batch was stored.
int CommitFails(SqliteDatabase& db, std::vector<TuningRecord> batch, const std::string& path,
                const std::string& why) {
  try {
    db.CommitRecords(batch);
  } catch (const Error& e) {
    std::string what = e.what();
    std::fprintf(stderr, "the error: %s\n", what.c_str());
    bool names_file = what.find(path) != std::string::npos;
    bool says_why = what.find(why) != std::string::npos;
    return e.kind() == ErrorKind::kIO && names_file && says_why ? 0 : 2;
  }
  return 1;
}

// A database in `dir` holding 10 records of one workload; its path.
std::string StoreTen(const ScratchDir& dir) {
  std::string path = dir.Sub("t.db");
  SqliteDatabase db(path);
  db.CommitWorkload({"aa", "matmul", "#"});
  std::vector<TuningRecord> before = Records(10);
  EXPECT_EQ(db.CommitRecords(before), 10);
  return path;
}

// The file holds the 10 records stored before the fault, is sound, and takes records again.
void ExpectTheTenStoredBefore(const std::string& path) {
  SqliteDatabase db(path);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
  EXPECT_EQ(db.CountRecords(), 10);
  std::vector<TuningRecord> after = Records(3);
  EXPECT_EQ(db.CommitRecords(after), 3);
}

TEST(DatabaseFaults, ADiskThatFillsUpFailsTheBatchAndKeepsWhatWasStored) {
  ScratchDir dir;
  std::string path = StoreTen(dir);
  // The child's files may grow to 256 KiB; its batch of 2 MB of traces cannot be written.
  int status = Wait(StartChild([&] {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    rlimit limit{256 << 10, 256 << 10};
    setrlimit(RLIMIT_FSIZE, &limit);
    SqliteDatabase db(path);
    return CommitFails(db, Records(2000, 1000), path, "the disk may be full");
  }));
  EXPECT_EQ(status, 0) << "1: the batch was stored; 2: the error was not an I/O error naming "
                          "the file and the full disk; other: the child crashed";
  ExpectTheTenStoredBefore(path);  // the failed batch left nothing
}

TEST(DatabaseFaults, AReadOnlyFileIsReadButRefusesWritesAndStaysWhole) {
  ScratchDir dir;
  std::string path = StoreTen(dir);
  // The file and its folder read-only; root writes regardless, so the child that opens it
  // runs as the unprivileged user when this test runs as root.
  chmod(dir.path().c_str(), 0555);
  chmod(path.c_str(), 0444);
  int status = Wait(StartChild([&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 3;
    SqliteDatabase db(path);
    if (!db.read_only() || db.CountRecords() != 10) return 4;
    if (db.TopK("aa", "llvm", "cpu-zen4", 3).size() != 3) return 4;
    return CommitFails(db, Records(5), path, "cannot be written");
  }));
  chmod(dir.path().c_str(), 0700);
  chmod(path.c_str(), 0644);
  EXPECT_EQ(status, 0) << "1: the batch was stored; 2: the error did not name the file and "
                          "say it cannot be written; 3: could not drop privileges; 4: the "
                          "records could not be read; other: the child crashed or could "
                          "not open the file";
  ExpectTheTenStoredBefore(path);
}

TEST(DatabaseFaults, TwoProcessesWritingAtOnceLoseNothing) {
  ScratchDir dir;
  std::string path = dir.Sub("t.db");
  {
    SqliteDatabase db(path);
    db.CommitWorkload({"aa", "matmul", "#"});
  }
  auto write = [&] {
    SqliteDatabase db(path);
    for (int batch = 0; batch < 30; ++batch) {
      std::vector<TuningRecord> records = Records(10, 200);
      if (db.CommitRecords(records) != 10) return 1;
    }
    return 0;
  };
  pid_t child = StartChild(write);
  int here = write();
  int status = Wait(child);
  EXPECT_EQ(here, 0);
  EXPECT_EQ(status, 0);
  SqliteDatabase db(path);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
  EXPECT_EQ(db.CountRecords(), 600);
}

}  // namespace
}  // namespace kiln::database
