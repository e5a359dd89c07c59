// Run delay of this process's threads from /proc/self/task/<tid>/schedstat.
#include "runtime/cpu_wait.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace kiln::runtime {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "<ns on a core> <ns waiting on a run queue> <time slices>": the second.
bool ParseWaitNs(const char* text, unsigned long long* waiting) {
  unsigned long long on_core = 0;
  return std::sscanf(text, "%llu %llu", &on_core, waiting) == 2;
}

// The files PinThreadWaitFiles opened; set once, read-only after.
std::vector<int>& PinnedFiles() {
  static std::vector<int> files;
  return files;
}
bool pinned = false;

std::optional<double> PinnedWaitSeconds() {
  unsigned long long total_ns = 0;
  bool any = false;
  for (int fd : PinnedFiles()) {
    char text[128];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0) continue;  // the thread ended
    text[n] = '\0';
    unsigned long long waiting = 0;
    if (ParseWaitNs(text, &waiting)) {
      total_ns += waiting;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return static_cast<double>(total_ns) * 1e-9;
}

}  // namespace

void PinThreadWaitFiles() {
  if (pinned) return;
  pinned = true;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return;
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::string path = std::string("/proc/self/task/") + entry->d_name + "/schedstat";
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) PinnedFiles().push_back(fd);
  }
  closedir(tasks);
}

std::optional<double> ProcessCpuWaitSeconds() {
  if (pinned) return PinnedWaitSeconds();
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return std::nullopt;
  unsigned long long total_ns = 0;
  bool any = false;
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::string path = std::string("/proc/self/task/") + entry->d_name + "/schedstat";
    std::FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) continue;  // the thread ended meanwhile
    char text[128];
    unsigned long long waiting = 0;
    if (std::fgets(text, sizeof text, file) != nullptr && ParseWaitNs(text, &waiting)) {
      total_ns += waiting;
      any = true;
    }
    std::fclose(file);
  }
  closedir(tasks);
  if (!any) return std::nullopt;
  return static_cast<double>(total_ns) * 1e-9;
}

ContentionMeter::ContentionMeter() : wait_(ProcessCpuWaitSeconds()), start_(Now()) {}

double ContentionMeter::Contention() {
  std::optional<double> wait = ProcessCpuWaitSeconds();
  double now = Now();
  double contention = 0;
  // A thread that ended in the stretch takes its wait with it: never below 0.
  if (wait && wait_ && now > start_) {
    contention = std::max(0.0, (*wait - *wait_ - kWaitAllowanceSeconds) / (now - start_));
  }
  wait_ = wait;
  start_ = now;
  return contention;
}

}  // namespace kiln::runtime
