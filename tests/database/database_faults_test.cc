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

TEST(DatabaseFaults, ADiskThatFillsUpFailsTheBatchAndKeepsWhatWasStored) {
  ScratchDir dir;
  std::string path = dir.Sub("t.db");
  {
    SqliteDatabase db(path);
    db.CommitWorkload({"aa", "matmul", "#"});
    std::vector<TuningRecord> before = Records(10);
    ASSERT_EQ(db.CommitRecords(before), 10);
  }
  // The child's files may grow to 256 KiB; its batch of 2 MB of traces cannot be written.
  int status = Wait(StartChild([&] {
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    rlimit limit{256 << 10, 256 << 10};
    setrlimit(RLIMIT_FSIZE, &limit);
    SqliteDatabase db(path);
    std::vector<TuningRecord> batch = Records(2000, 1000);
    try {
      db.CommitRecords(batch);
    } catch (const Error& e) {
      std::string what = e.what();
      std::fprintf(stderr, "the full disk's error: %s\n", what.c_str());
      bool names_file = what.find(path) != std::string::npos;
      bool says_why = what.find("the disk may be full") != std::string::npos;
      return e.kind() == ErrorKind::kIO && names_file && says_why ? 0 : 2;
    }
    return 1;  // stored past the limit: no fault happened
  }));
  EXPECT_EQ(status, 0) << "1: the batch was stored; 2: the error was not an I/O error naming "
                          "the file and the full disk; other: the child crashed";
  SqliteDatabase db(path);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
  EXPECT_EQ(db.CountRecords(), 10);  // the failed batch left nothing, the earlier ones stay
  std::vector<TuningRecord> after = Records(3);
  EXPECT_EQ(db.CommitRecords(after), 3);  // and the file takes records again
}

TEST(DatabaseFaults, AReadOnlyFileIsReadButRefusesWritesAndStaysWhole) {
  ScratchDir dir;
  std::string path = dir.Sub("t.db");
  {
    SqliteDatabase db(path);
    db.CommitWorkload({"aa", "matmul", "#"});
    std::vector<TuningRecord> before = Records(10);
    ASSERT_EQ(db.CommitRecords(before), 10);
  }
  // The file and its folder read-only; root writes regardless, so the child that opens it
  // runs as the unprivileged user when this test runs as root.
  chmod(dir.path().c_str(), 0555);
  chmod(path.c_str(), 0444);
  int status = Wait(StartChild([&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 3;
    try {
      SqliteDatabase db(path);
      if (!db.read_only() || db.CountRecords() != 10) return 4;
      if (db.TopK("aa", "llvm", "cpu-zen4", 3).size() != 3) return 4;
      std::vector<TuningRecord> batch = Records(5);
      db.CommitRecords(batch);
    } catch (const Error& e) {
      std::string what = e.what();
      std::fprintf(stderr, "the read-only file's error: %s\n", what.c_str());
      bool names_file = what.find(path) != std::string::npos;
      bool says_why = what.find("cannot be written") != std::string::npos;
      return e.kind() == ErrorKind::kIO && names_file && says_why ? 0 : 2;
    }
    return 1;
  }));
  chmod(dir.path().c_str(), 0700);
  chmod(path.c_str(), 0644);
  EXPECT_EQ(status, 0) << "1: the batch was stored; 2: the error did not name the file and "
                          "say it cannot be written; 3: could not drop privileges; 4: the "
                          "records could not be read; other: the child crashed";
  SqliteDatabase db(path);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
  EXPECT_EQ(db.CountRecords(), 10);
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
