// Run delay of this process's threads from /proc/self/task/<tid>/schedstat.
#include "runtime/cpu_wait.h"

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace kiln::runtime {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<double> ProcessCpuWaitSeconds() {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return std::nullopt;
  unsigned long long total_ns = 0;
  bool any = false;
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    std::string path = std::string("/proc/self/task/") + entry->d_name + "/schedstat";
    std::FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) continue;  // the thread ended meanwhile
    // "<ns on a core> <ns waiting on a run queue> <time slices>"
    unsigned long long on_core = 0, waiting = 0;
    if (std::fscanf(file, "%llu %llu", &on_core, &waiting) == 2) {
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
