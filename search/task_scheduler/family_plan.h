// FamilyPlan: the order and budgets in which a family of tasks (one operator at several
// shapes, as a model's shape buckets give it) is tuned. The member of median work leads. The
// leads and the tasks of no family are tuned first, sharing their part of the job's budget as
// the task scheduler sees fit. Every other member then waits for its neighbour one step nearer
// the lead to finish, starts from that neighbour's best traces carried to its shape
// (trace_transfer.h), and spends a share of the trials its lead got on them and their
// mutations: seq 64 leads, 32 and 128 start from it, 16 from 32 and 256 from 128. Tuning
// each shape from scratch spends most trials finding what its neighbour already found.
// A pure policy over names and work (no measurement), so the tuner and a test drive it alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::search {

struct FamilyPlan {
  // Per task: the member whose search it waits for; none for a lead or a task of no family.
  std::vector<std::optional<size_t>> parent;
  // Per task: its family's lead (itself for a lead or a task of no family).
  std::vector<size_t> lead;
  // Per task: the other members of its family, nearest in work first (the order in which
  // their best traces are worth carrying over).
  std::vector<std::vector<size_t>> nearest;
  // Per task: its budget as a share of a lead's (1 for leads and tasks of no family).
  std::vector<double> share;
  bool staged = false;  // some family has a follower: budgets and waits apply
};

// `family` per task (empty: none) and `flop` per task (the work of one call, which orders a
// family's shapes). `follower_share` in [0, 1]: a follower's budget against its lead's; 0
// stages nothing (every member tuned at once with a whole budget, sharing best traces).
FamilyPlan PlanFamilies(const std::vector<std::string>& family, const std::vector<double>& flop,
                        double follower_share);

// The trials of `global` that the leads and the tasks of no family share: theirs of the sum
// of the shares.
int64_t LeadTrials(const FamilyPlan& plan, int64_t global);

// A follower's budget: its share of the trials its lead got, rounded down, at least 1.
int64_t FollowerTrials(const FamilyPlan& plan, size_t task, int64_t lead_trials);

}  // namespace kiln::search
