// Tuner: the tuning loop of a job, as a library. It creates a search strategy per task over
// its design space, lets the task scheduler pick which task gets the next round, hands each
// round to an AsyncMeasurer and feeds the results back to the strategy (and through it the
// cost model). Rounds are pipelined: the next round is searched while the measurer builds
// and times the last quarter of the previous one (TunerOptions::round_tail_fraction), so the
// search uses nearly every result and the cores do not wait for it.
// `tune run` drives it over the local measurer; the coordinator drives the same loop over
// remote workers. A candidate whose measurement failed in the machinery is not charged to
// the candidate nor stored as its result.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/measure/async_measurer.h"
#include "search/strategy/cost_model.h"
#include "search/strategy/evolutionary_search.h"
#include "search/strategy/replay_trace.h"
#include "search/strategy/search_strategy.h"
#include "search/task_scheduler/family_plan.h"
#include "search/task_scheduler/task_scheduler.h"

namespace kiln::search {

struct TuneTask {
  std::string name = {};
  ir::PrimFunc workload = {};
  double weight = 1;                         // calls per model run
  double flop = 0;                           // per call, for GFLOP/s
  std::map<std::string, int64_t> dims = {};  // values of symbolic dims, if any
  std::vector<MeasuredTrace> seeds = {};     // measured traces from earlier jobs
  // Tasks of one family are one operator at several shapes (a model's shape buckets): they are
  // tuned in the order and with the budgets of a FamilyPlan (family_plan.h), each task's search
  // handed the best traces of its nearest members (trace_transfer.h), and `hints`, best traces
  // of the family stored by earlier jobs, from the start. Empty: no family.
  std::string family = {};
  std::vector<Trace> hints = {};
  // Given inputs and expected outputs every candidate is checked against, instead of the
  // seeded random inputs and the interpreter's outputs: a sparse task's real structure
  // (compiler/sparse/sparse_reference_store.h). Null: the seeded reference.
  std::shared_ptr<const runtime::Reference> reference = nullptr;
  // Why this task cannot be searched here (its report's failure, no candidate and no untuned
  // measurement): a sparse kernel whose structure is a run-time input, which random inputs
  // would index out of range. Empty: it can.
  std::string untunable = {};
};

struct TunerOptions {
  int64_t max_trials_global = 1000;
  int64_t max_trials_per_task = 0;  // 0: only the global budget
  // Candidates per measurement round; 0: 64, or fewer when the budget is small for the
  // number of tasks (two rounds per task of at least 8, else one round per task; a family
  // follower counts as its share of a task).
  int trials_per_round = 64;
  // A family follower's budget against its lead's (family_plan.h): 0.15 tunes a family of five
  // shapes in 1.6 buckets' trials; on the transformer block's five lengths that took 0.48-0.52
  // of five separate tunings' wall time for models near theirs or faster (bench/README.md).
  // 0: no staging, every member tuned at once with a whole budget.
  double family_follower_share = 0.15;
  std::string strategy = "evolutionary";  // or "random" (replay-trace)
  EvolutionaryOptions evolutionary = {};
  ReplayTraceOptions replay = {};
  std::string task_scheduler = "gradient";  // or "round-robin"
  TaskSchedulerOptions scheduler = {};
  std::string target = "llvm";
  int num_cores = 1;
  int vector_bytes = 64;
  uint64_t seed = 1;
  bool measure_untuned = true;  // time each workload as written, for comparison
  // On a CPU target, each task's first round measures the default schedule's variants
  // (search/space/default_schedule.h): the search starts from the kernel an untuned model
  // would run, and its best is never worse than that.
  bool seed_default_schedules = true;
  // Per task: rounds submitted and not yet released (below). 1 searches each round with the
  // results of the one before, as MetaSchedule does; 2 searched a round ahead with the cost
  // model a round behind, and on a 1024^3 matmul the guided search then needed 0.43 of
  // random search's 1000 trials to reach its best, against 0.32 with 1 (bench/README.md).
  int max_rounds_in_flight = 1;
  // A round is released once no more than this fraction of it is left to measure: its
  // results so far go to the strategy, and the next round is searched while the rest are
  // measured, so that the cores do not wait for the search. 0: only when it is done.
  double round_tail_fraction = 0.25;
};

// The design space of a task (sketches, postprocessors, mutators) for its context.
using SpaceFactory = std::function<DesignSpace(const TuneContext&)>;

struct TaskReport {
  std::string name;
  uint64_t workload_hash = 0;
  double flop = 0;
  double weight = 1;
  int64_t trials = 0;       // measured (or in the machinery, failed) candidates
  double best_seconds = 0;  // 0 while no candidate measured correctly
  std::optional<Trace> best_trace;
  double untuned_seconds = 0;  // 0 when not measured or failed
  std::string untuned_error;
  // The best of the task's seeds (measured before this run); 0 when none. The run starts
  // from it: best_seconds is never worse.
  double seeded_seconds = 0;
  // The family member this task waited for and started from (family_plan.h); empty if none.
  std::string starts_from;
  bool done = false;    // no more trials will be spent on it
  std::string failure;  // why it stopped early, if it did
  // Measurement outcomes other than ok, by kind: the result kinds, "unchecked", "machinery",
  // and "abandoned" (a timeout of the early cutoff, runtime/timing.h: far slower than the best).
  std::map<std::string, int64_t> errors;
  // The first failed measurement's kind and message ("compile: ..."), so that a task with no
  // correct candidate says why.
  std::string first_error;
  // (trials measured, best seconds) each time the best improved.
  std::vector<std::pair<int64_t, double>> curve;
  SearchStats search;
};

struct TuneReport {
  std::vector<TaskReport> tasks;
  int64_t total_trials = 0;
  double wall_seconds = 0;
  double search_seconds = 0;              // spent in the strategies (overlapping measurement)
  std::map<std::string, int64_t> errors;  // over all tasks, "machinery" included
  RejectionCounts rejected;               // search draws thrown away, by reason
  bool finished = false;
};

class Tuner {
 public:
  // `model` (not owned; may be null: no model) is shared by the tasks' evolutionary searches.
  Tuner(std::vector<TuneTask> tasks, TunerOptions options, AsyncMeasurer& measurer,
        SpaceFactory space, CostModel* model);
  ~Tuner();

  // Tunes until the budgets are spent or no task has candidates left; `progress` is called
  // after every batch of results (and once at the end, with finished set).
  TuneReport Run(const std::function<void(const TuneReport&)>& progress = {});

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A strategy by name ("evolutionary" or "random"); kiln::Error(kParse) otherwise.
std::unique_ptr<SearchStrategy> CreateSearchStrategy(const std::string& name,
                                                     const TuneContext& context, DesignSpace space,
                                                     CostModel* model, const TunerOptions& options,
                                                     std::vector<MeasuredTrace> seeds = {});

}  // namespace kiln::search
