// Leads, waits and budgets of task families.
#include "search/task_scheduler/family_plan.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "support/error.h"

namespace kiln::search {

FamilyPlan PlanFamilies(const std::vector<std::string>& family, const std::vector<double>& flop,
                        double follower_share) {
  KILN_CHECK(family.size() == flop.size(), ErrorKind::kInternal,
             "family plan: one family and one flop count per task expected");
  KILN_CHECK(
      follower_share >= 0 && follower_share <= 1, ErrorKind::kParse,
      "family follower share: a number in [0, 1] expected, got " + std::to_string(follower_share));
  size_t n = family.size();
  FamilyPlan plan;
  plan.parent.assign(n, std::nullopt);
  plan.lead.resize(n);
  for (size_t i = 0; i < n; ++i) plan.lead[i] = i;
  plan.nearest.assign(n, {});
  plan.share.assign(n, 1.0);
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < n; ++i) {
    if (!family[i].empty()) members[family[i]].push_back(i);
  }
  // Work on a log scale: seq 16 is as near 32 as 128 is to 256.
  auto log_work = [&](size_t i) { return std::log2(std::max(flop[i], 1.0)); };
  for (auto& [name, tasks] : members) {
    std::stable_sort(tasks.begin(), tasks.end(),
                     [&](size_t a, size_t b) { return flop[a] < flop[b]; });
    for (size_t i : tasks) {
      for (size_t j : tasks) {
        if (j != i) plan.nearest[i].push_back(j);
      }
      std::stable_sort(plan.nearest[i].begin(), plan.nearest[i].end(), [&](size_t a, size_t b) {
        return std::abs(log_work(a) - log_work(i)) < std::abs(log_work(b) - log_work(i));
      });
    }
    if (follower_share <= 0 || tasks.size() < 2) continue;
    size_t lead = tasks.size() / 2;
    for (size_t k = 0; k < tasks.size(); ++k) {
      if (k == lead) continue;
      plan.parent[tasks[k]] = tasks[k < lead ? k + 1 : k - 1];
      plan.lead[tasks[k]] = tasks[lead];
      plan.share[tasks[k]] = follower_share;
      plan.staged = true;
    }
  }
  return plan;
}

int64_t LeadTrials(const FamilyPlan& plan, int64_t global) {
  double units = 0, leads = 0;
  for (size_t i = 0; i < plan.share.size(); ++i) {
    units += plan.share[i];
    if (!plan.parent[i]) leads += plan.share[i];
  }
  if (units <= 0) return global;
  return std::llround(static_cast<double>(global) * leads / units);
}

int64_t FollowerTrials(const FamilyPlan& plan, size_t task, int64_t lead_trials) {
  // Rounded down: the followers of every lead together stay within the budget left.
  auto trials = static_cast<int64_t>(plan.share[task] * static_cast<double>(lead_trials));
  return std::max<int64_t>(1, trials);
}

}  // namespace kiln::search
