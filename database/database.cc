// Job state names: stable strings shared by the database, the wire and `tune status --json`.
#include "database/database.h"

namespace kiln::database {

std::string_view JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

std::optional<JobState> ParseJobState(std::string_view name) {
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kFailed,
                         JobState::kCancelled}) {
    if (JobStateName(state) == name) return state;
  }
  return std::nullopt;
}

bool IsFinished(JobState state) {
  return state == JobState::kDone || state == JobState::kFailed || state == JobState::kCancelled;
}

}  // namespace kiln::database
