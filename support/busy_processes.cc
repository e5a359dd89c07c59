// Spinning children, killed and reaped on destruction.
#include "support/busy_processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "support/error.h"

namespace kiln {

BusyProcesses::BusyProcesses(int count) {
  for (int i = 0; i < count; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
      volatile unsigned long long spin = 0;
      while (true) spin = spin + 1;
    }
    if (pid < 0) {
      int error = errno;
      Stop();
      throw Error(ErrorKind::kIO, std::string("busy processes: fork failed: ") + strerror(error));
    }
    children_.push_back(pid);
  }
}

BusyProcesses::~BusyProcesses() { Stop(); }

void BusyProcesses::Stop() {
  for (pid_t pid : children_) kill(pid, SIGKILL);
  for (pid_t pid : children_) waitpid(pid, nullptr, 0);
  children_.clear();
}

}  // namespace kiln
