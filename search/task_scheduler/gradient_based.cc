// Gradient-based task scheduling.
#include "search/task_scheduler/gradient_based.h"

#include <cmath>
#include <limits>

namespace kiln::search {

GradientBasedScheduler::GradientBasedScheduler(const TaskSchedulerOptions& options)
    : options_(options), rng_(options.seed) {}

double GradientBasedScheduler::Gradient(const TaskProgress& task) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::vector<double>& history = task.best_history;
  if (history.empty() || !std::isfinite(history.back())) return kInf;
  size_t n = history.size();
  double best = history.back();
  size_t w = static_cast<size_t>(std::max(1, options_.window));
  double backward = 0;
  if (n > w && std::isfinite(history[n - 1 - w])) {
    backward = (history[n - 1 - w] - best) / static_cast<double>(w);
  }
  double forward = best / static_cast<double>(n);
  return task.weight * (options_.alpha * backward + (1 - options_.alpha) * forward);
}

std::optional<size_t> GradientBasedScheduler::Next(const std::vector<TaskProgress>& tasks) {
  std::vector<size_t> alive;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (TaskAlive(tasks[i])) alive.push_back(i);
  }
  if (alive.empty()) return std::nullopt;
  // Round robin first: every live task gets a round before gradients mean anything (a task
  // whose first round is still being measured waits for the others to get theirs).
  for (size_t i : alive) {
    if (tasks[i].best_history.empty() && tasks[i].rounds_in_flight == 0) return i;
  }
  for (size_t i : alive) {
    const TaskProgress& t = tasks[i];
    bool behind = !t.best_history.empty() && t.untuned_seconds > 0 &&
                  t.best_history.back() > t.untuned_seconds;
    if (behind && t.rounds_in_flight == 0 &&
        static_cast<int64_t>(t.best_history.size()) <= options_.catch_up_rounds) {
      return i;
    }
  }
  std::vector<size_t> best;
  double best_gradient = -std::numeric_limits<double>::infinity();
  for (size_t i : alive) {
    double g = Gradient(tasks[i]);
    if (g > best_gradient) {
      best_gradient = g;
      best = {i};
    } else if (g == best_gradient) {
      best.push_back(i);
    }
  }
  if (best.size() == 1) return best[0];
  return best[static_cast<size_t>(rng_.UniformInt(0, static_cast<int64_t>(best.size())))];
}

}  // namespace kiln::search
