// Tuner: setup per task, the pipelined round loop, and the report.
#include "search/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "ir/structural.h"
#include "runtime/timing_gate.h"
#include "search/space/default_schedule.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::search {
namespace {

// "the design space gave no valid candidate (draws rejected: verify-gpu-code 512, replay 3)".
std::string NoCandidateReason(const SearchStats& stats) {
  std::vector<std::pair<std::string, int64_t>> counts(stats.rejected.begin(), stats.rejected.end());
  std::sort(counts.begin(), counts.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = "the design space gave no valid candidate";
  if (counts.empty()) return out;
  out += " (draws rejected:";
  for (size_t i = 0; i < counts.size() && i < 4; ++i) {
    out += (i == 0 ? " " : ", ") + counts[i].first + " " + std::to_string(counts[i].second);
  }
  return out + ")";
}

}  // namespace

std::unique_ptr<SearchStrategy> CreateSearchStrategy(const std::string& name,
                                                     const TuneContext& context, DesignSpace space,
                                                     CostModel* model, const TunerOptions& options,
                                                     std::vector<MeasuredTrace> seeds) {
  if (name == "evolutionary") {
    return std::make_unique<EvolutionarySearch>(context, std::move(space), model,
                                                options.evolutionary, std::move(seeds));
  }
  if (name == "random") {
    return std::make_unique<ReplayTraceStrategy>(context, std::move(space), options.replay);
  }
  throw Error(ErrorKind::kParse, "search strategy '" + name + "': expected evolutionary or random");
}

struct Tuner::State {
  struct Round {
    size_t task = 0;
    std::vector<SearchCandidate> candidates;
    std::vector<double> seconds;
    std::vector<bool> answered;  // per candidate: its result is in
    std::vector<bool> notified;  // per candidate: the strategy has heard of it
    size_t outstanding = 0;
    bool released = false;  // no longer counted in flight: the next round may be searched
  };
  struct Flight {
    size_t task = 0;
    int64_t round = -1;  // -1: the untuned workload
    size_t index = 0;
  };

  std::vector<TuneTask> tasks;
  TunerOptions options;
  AsyncMeasurer& measurer;
  SpaceFactory space;
  CostModel* model;

  std::vector<TuneContext> contexts;
  std::vector<std::unique_ptr<SearchStrategy>> strategies;
  std::vector<TaskProgress> progress;
  // Per task: the structural hash of the default schedule's first variant where it is measured
  // in the first round as a hint (its result is the untuned figure); 0 elsewhere.
  std::vector<uint64_t> untuned_hash;
  std::vector<int> rounds_in_flight;             // per task: rounds submitted and not yet released
  std::vector<int> rounds_open;                  // per task: rounds submitted and not yet finished
  std::vector<std::map<size_t, double>> shared;  // per task: family member -> best handed
  FamilyPlan families;
  // Staged families: the trials the leads (and the tasks of no family) share, and how many of
  // them went out; per task, whether a follower's budget has been set (once it stops waiting).
  int64_t lead_trials = std::numeric_limits<int64_t>::max();
  int64_t lead_submitted = 0;
  std::vector<bool> released;
  std::unique_ptr<TaskScheduler> scheduler;
  TuneReport report;
  std::unordered_map<int64_t, Round> rounds;
  std::unordered_map<uint64_t, Flight> flights;
  uint64_t next_id = 1;
  int64_t next_round = 0;
  int64_t submitted = 0;

  State(std::vector<TuneTask> t, TunerOptions o, AsyncMeasurer& m, SpaceFactory s, CostModel* c)
      : tasks(std::move(t)), options(std::move(o)), measurer(m), space(std::move(s)), model(c) {}

  void Setup();
  void SubmitUntuned();
  // The default CPU schedule of `workload` (search/space/default_schedule.h), or the workload.
  ir::PrimFunc DefaultCpuKernel(const ir::PrimFunc& workload) const;
  // The default schedule's variants (none where none applies).
  std::vector<Candidate> DefaultCpuCandidates(const ir::PrimFunc& workload) const;
  bool SubmitRound();
  void Receive(const std::vector<MeasureResponse>& responses);
  // Gives the strategy the round's results that are in and it has not heard of yet.
  void NotifyAnswered(Round& round);
  // Stops counting the round in flight (its results so far to the strategy) once no more than
  // options.round_tail_fraction of it is outstanding, and ends it when nothing is.
  void Advance(int64_t round_id);
  void Stop(size_t task, const std::string& why);
  // Hands `task`'s search the best traces of its nearest family members found since it was
  // last handed them.
  void ShareFamilyBest(size_t task);
  // True while `task` waits for its family parent to finish (family_plan.h); once it does
  // not, a follower's budget is set.
  bool Waiting(size_t task);
  void Refresh(double wall);
};

void Tuner::State::Stop(size_t task, const std::string& why) {
  progress[task].exhausted = true;
  if (!why.empty() && report.tasks[task].failure.empty()) {
    report.tasks[task].failure = why;
    KILN_LOG_WARN("task {}: {}", tasks[task].name, why);
  }
}

void Tuner::State::Setup() {
  scheduler = CreateTaskScheduler(options.task_scheduler, options.scheduler);
  KILN_CHECK(options.trials_per_round >= 0, ErrorKind::kParse,
             "trials per round: a positive number (or 0: chosen from the budget) expected");
  KILN_CHECK(
      options.max_rounds_in_flight >= 1, ErrorKind::kParse,
      "rounds in flight: at least 1 expected, got " + std::to_string(options.max_rounds_in_flight));
  KILN_CHECK(options.round_tail_fraction >= 0 && options.round_tail_fraction < 1, ErrorKind::kParse,
             "round tail fraction: a number in [0, 1) expected, got " +
                 std::to_string(options.round_tail_fraction));
  std::vector<std::string> family_names;
  std::vector<double> flops;
  for (const TuneTask& task : tasks) {
    family_names.push_back(task.family);
    flops.push_back(task.flop);
  }
  families = PlanFamilies(family_names, flops, options.family_follower_share);
  if (options.trials_per_round == 0) {
    // Every task should get a round, and a second to build on the first, within the budget.
    double units = 0;
    for (double s : families.share) units += s;
    units = std::max(1.0, units);
    auto budget = static_cast<double>(options.max_trials_global);
    auto share = static_cast<int64_t>(budget / (2 * units));
    // A budget too small for two rounds of 8 per task is shared out in one round each.
    if (share < 8) share = std::max<int64_t>(1, static_cast<int64_t>(budget / units));
    options.trials_per_round = static_cast<int>(std::min<int64_t>(share, 64));
  }
  if (families.staged) lead_trials = LeadTrials(families, options.max_trials_global);
  released.assign(tasks.size(), false);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TuneTask& task = tasks[i];
    TaskReport r;
    r.name = task.name;
    r.workload_hash = ir::StructuralHash(task.workload);
    r.flop = task.flop;
    r.weight = task.weight;
    // A seed is a measured trace of this workload: the run starts from the best of them.
    for (const MeasuredTrace& seed : task.seeds) {
      if (seed.run_seconds > 0 && (r.best_seconds <= 0 || seed.run_seconds < r.best_seconds)) {
        r.best_seconds = seed.run_seconds;
        r.best_trace = seed.trace;
      }
    }
    r.seeded_seconds = r.best_seconds;
    if (families.parent[i]) r.starts_from = tasks[*families.parent[i]].name;
    if (r.best_seconds > 0) r.curve.emplace_back(0, r.best_seconds);
    report.tasks.push_back(std::move(r));
    TaskProgress p;
    p.weight = task.weight;
    if (options.max_trials_per_task > 0) p.max_trials = options.max_trials_per_task;
    progress.push_back(p);
    rounds_in_flight.push_back(0);
    rounds_open.push_back(0);

    TuneContext context;
    context.workload = task.workload;
    context.task_name = task.name;
    context.target = options.target;
    context.num_cores = options.num_cores;
    context.vector_bytes = options.vector_bytes;
    context.seed = options.seed * 1000003 + i;
    contexts.push_back(context);
    if (!task.untunable.empty()) {
      strategies.push_back(nullptr);
      Stop(i, task.untunable);
    } else {
      try {
        strategies.push_back(CreateSearchStrategy(options.strategy, context, space(context), model,
                                                  options, task.seeds));
      } catch (const Error& e) {
        // Invalid options concern every task: they are the user's error, not the task's.
        if (e.kind() == ErrorKind::kParse) throw;
        strategies.push_back(nullptr);
        Stop(i, std::string("no design space: ") + e.what());
      }
    }
    if (strategies.back() && !task.hints.empty()) strategies.back()->AddHints(task.hints);
    untuned_hash.push_back(0);
    if (strategies.back() && options.seed_default_schedules && !IsGpuPreset(options.target)) {
      // The first variant is the untuned kernel: where it is hinted (not already measured, a
      // seed of a resumed tuning), its measurement in the first round is the untuned figure,
      // not a second run of the same kernel.
      std::vector<Candidate> defaults = DefaultCpuCandidates(task.workload);
      for (size_t d = 0; d < defaults.size(); ++d) {
        int64_t hinted = strategies.back()->Stats().hinted;
        strategies.back()->AddHints({defaults[d].postprocessed});
        if (d == 0 && strategies.back()->Stats().hinted > hinted) {
          untuned_hash.back() = ir::StructuralHash(defaults[d].scheduled);
        }
      }
    }
  }
  shared.resize(tasks.size());
}

bool Tuner::State::Waiting(size_t task) {
  std::optional<size_t> parent = families.parent[task];
  if (!parent) return false;
  if (TaskAlive(progress[*parent]) || rounds_open[*parent] > 0) return true;
  if (!released[task]) {
    // Its lead is done: its budget is its share of what the lead got, within what the global
    // budget has left once the other released followers' budgets are kept and a trial is kept
    // for each follower still waiting (families of unlike sizes could spend it all else).
    released[task] = true;
    int64_t available = options.max_trials_global - submitted;
    for (size_t j = 0; j < tasks.size(); ++j) {
      if (j == task || !families.parent[j]) continue;
      if (!released[j]) {
        available -= 1;
      } else if (TaskAlive(progress[j])) {
        available -= progress[j].max_trials - progress[j].trials;
      }
    }
    int64_t budget = FollowerTrials(families, task, progress[families.lead[task]].trials);
    budget = std::max<int64_t>(1, std::min(budget, available));
    progress[task].max_trials = std::min(progress[task].max_trials, budget);
  }
  return false;
}

void Tuner::State::ShareFamilyBest(size_t task) {
  if (!strategies[task]) return;
  // The two nearest shapes with a best: farther ones carry over worse, and each hint is a
  // trial of the round.
  constexpr size_t kMaxMembers = 2;
  std::vector<Trace> best;
  size_t members = 0;
  for (size_t j : families.nearest[task]) {
    const TaskReport& other = report.tasks[j];
    if (!other.best_trace) continue;
    if (members++ == kMaxMembers) break;
    auto [it, fresh] = shared[task].try_emplace(j, other.best_seconds);
    if (!fresh && it->second == other.best_seconds) continue;
    it->second = other.best_seconds;
    best.push_back(*other.best_trace);
  }
  if (best.empty()) return;
  try {
    strategies[task]->AddHints(best);
  } catch (const Error& e) {
    KILN_LOG_WARN("task {}: its family's traces were not usable: {}", tasks[task].name, e.what());
  }
}

ir::PrimFunc Tuner::State::DefaultCpuKernel(const ir::PrimFunc& workload) const {
  try {
    std::optional<Candidate> c = DefaultCpuSchedule(
        workload, {.num_cores = options.num_cores, .vector_bytes = options.vector_bytes});
    if (c) return c->scheduled;
  } catch (const Error& e) {
    KILN_LOG_DEBUG("no default schedule for {}: {}", workload->name, e.what());
  }
  return workload;
}

std::vector<Candidate> Tuner::State::DefaultCpuCandidates(const ir::PrimFunc& workload) const {
  try {
    return DefaultCpuSchedules(
        workload, {.num_cores = options.num_cores, .vector_bytes = options.vector_bytes});
  } catch (const Error& e) {
    KILN_LOG_DEBUG("no default schedule for {}: {}", workload->name, e.what());
  }
  return {};
}

void Tuner::State::SubmitUntuned() {
  std::vector<MeasureRequest> requests;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (untuned_hash[i] != 0) continue;  // measured in the first round (Setup)
    if (!tasks[i].untunable.empty()) continue;
    MeasureRequest r;
    r.id = next_id++;
    r.task_name = tasks[i].name;
    r.workload = tasks[i].workload;
    // The untuned kernel is the default schedule, as the compiler gives a kernel no record
    // covers: on a GPU every stage bound to blocks and threads (the workload as written would
    // run on one thread); on a CPU parallel outer loops and a vectorized inner one, where the
    // postprocessors can (else the workload as written).
    r.scheduled = IsGpuPreset(options.target) ? DefaultGpuSchedule(tasks[i].workload)
                                              : DefaultCpuKernel(tasks[i].workload);
    r.dims = tasks[i].dims;
    r.reference = tasks[i].reference;
    r.untuned = true;
    flights[r.id] = {i, -1, 0};
    requests.push_back(std::move(r));
  }
  measurer.Submit(std::move(requests));
}

bool Tuner::State::SubmitRound() {
  int64_t global_left = options.max_trials_global - submitted;
  while (global_left > 0) {
    std::vector<TaskProgress> view = progress;
    for (size_t i = 0; i < view.size(); ++i) {
      // A task with its rounds in flight waits for results before another round, and a family
      // follower for its parent to finish.
      if (rounds_in_flight[i] >= options.max_rounds_in_flight) view[i].exhausted = true;
      if (Waiting(i)) view[i].exhausted = true;
      view[i].rounds_in_flight = rounds_in_flight[i];
    }
    std::optional<size_t> next = scheduler->Next(view);
    if (!next) return false;
    size_t task = *next;
    bool lead = !families.parent[task];
    int64_t left = lead ? std::min(global_left, lead_trials - lead_submitted) : global_left;
    int64_t n = RoundTrials(progress[task], options.trials_per_round, left);
    if (n <= 0) {
      Stop(task, "");
      continue;
    }
    std::vector<SearchCandidate> candidates;
    ShareFamilyBest(task);
    try {
      runtime::TimingGate::Work work(runtime::TimingGate::Process());
      candidates = strategies[task]->Generate(static_cast<int>(n));
    } catch (const Error& e) {
      Stop(task, std::string("the search failed: ") + e.what());
      continue;
    }
    if (candidates.empty()) {
      // A space with no more distinct candidates is done, not failed, once it gave some.
      Stop(task, progress[task].trials == 0 ? NoCandidateReason(strategies[task]->Stats()) : "");
      continue;
    }
    int64_t round_id = next_round++;
    Round& round = rounds[round_id];
    round.task = task;
    round.seconds.assign(candidates.size(), 0);
    round.answered.assign(candidates.size(), false);
    round.notified.assign(candidates.size(), false);
    round.outstanding = candidates.size();
    std::vector<MeasureRequest> requests;
    for (size_t k = 0; k < candidates.size(); ++k) {
      MeasureRequest r;
      r.id = next_id++;
      r.task_name = tasks[task].name;
      r.workload = tasks[task].workload;
      r.scheduled = candidates[k].scheduled;
      r.trace = candidates[k].record;
      r.dims = tasks[task].dims;
      r.reference = tasks[task].reference;
      flights[r.id] = {task, round_id, k};
      requests.push_back(std::move(r));
    }
    round.candidates = std::move(candidates);
    progress[task].trials += static_cast<int64_t>(round.candidates.size());
    submitted += static_cast<int64_t>(round.candidates.size());
    if (lead) lead_submitted += static_cast<int64_t>(round.candidates.size());
    ++rounds_in_flight[task];
    ++rounds_open[task];
    measurer.Submit(std::move(requests));
    return true;
  }
  return false;
}

void Tuner::State::Receive(const std::vector<MeasureResponse>& responses) {
  std::vector<int64_t> touched;
  for (const MeasureResponse& response : responses) {
    auto it = flights.find(response.id);
    if (it == flights.end()) {
      KILN_LOG_WARN("the measurer answered request {}, which is not in flight", response.id);
      continue;
    }
    Flight flight = it->second;
    flights.erase(it);
    TaskReport& task = report.tasks[flight.task];
    const runtime::MeasureResult& result = response.result;
    bool machinery = !response.machinery_error.empty();
    bool ok = !machinery && result.ok() && result.correctness_checked && result.median_seconds > 0;
    if (flight.round < 0) {
      if (ok) {
        task.untuned_seconds = result.median_seconds;
        progress[flight.task].untuned_seconds = result.median_seconds;
      } else {
        task.untuned_error = machinery ? response.machinery_error : result.message;
      }
      continue;
    }
    Round& round = rounds.at(flight.round);
    ++task.trials;
    ++report.total_trials;
    if (machinery) {
      ++task.errors["machinery"];
      ++report.errors["machinery"];
      if (task.first_error.empty()) task.first_error = "machinery: " + response.machinery_error;
    } else if (!ok) {
      std::string kind(runtime::MeasureErrorKindName(result.error_kind));
      if (result.ok()) kind = "unchecked";
      if (result.error_kind == runtime::MeasureErrorKind::kTimeout && result.median_seconds > 0) {
        // Abandoned by the early cutoff: far slower than the best, and how much is a lower
        // bound the strategy learns from; it never becomes the best.
        kind = "abandoned";
        round.seconds[flight.index] = result.median_seconds;
      }
      if (round.candidates[flight.index].hash == untuned_hash[flight.task]) {
        task.untuned_error = kind + (result.message.empty() ? "" : ": " + result.message);
      }
      ++task.errors[kind];
      ++report.errors[kind];
      if (task.first_error.empty() && kind != "abandoned") {
        task.first_error = kind + (result.message.empty() ? "" : ": " + result.message);
      }
    } else {
      round.seconds[flight.index] = result.median_seconds;
      if (round.candidates[flight.index].hash == untuned_hash[flight.task] &&
          options.measure_untuned) {
        task.untuned_seconds = result.median_seconds;
        progress[flight.task].untuned_seconds = result.median_seconds;
      }
      if (task.best_seconds <= 0 || result.median_seconds < task.best_seconds) {
        task.best_seconds = result.median_seconds;
        task.best_trace = round.candidates[flight.index].record;
        task.curve.emplace_back(task.trials, task.best_seconds);
      }
    }
    // A machinery fault is no verdict on the candidate: the strategy does not hear of it.
    if (machinery) round.seconds[flight.index] = std::nan("");
    round.answered[flight.index] = true;
    --round.outstanding;
    touched.push_back(flight.round);
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (int64_t round_id : touched) Advance(round_id);
}

void Tuner::State::NotifyAnswered(Round& round) {
  size_t task = round.task;
  std::vector<SearchCandidate> candidates;
  std::vector<double> seconds;
  for (size_t k = 0; k < round.candidates.size(); ++k) {
    if (!round.answered[k] || round.notified[k]) continue;
    round.notified[k] = true;
    if (std::isnan(round.seconds[k])) continue;
    candidates.push_back(std::move(round.candidates[k]));
    seconds.push_back(round.seconds[k]);
  }
  if (candidates.empty()) return;
  try {
    runtime::TimingGate::Work work(runtime::TimingGate::Process());  // the model trains here
    strategies[task]->Notify(candidates, seconds);
  } catch (const Error& e) {
    Stop(task, std::string("the search failed on results: ") + e.what());
  }
}

void Tuner::State::Advance(int64_t round_id) {
  Round& round = rounds.at(round_id);
  size_t task = round.task;
  double tail = options.round_tail_fraction * static_cast<double>(round.candidates.size());
  bool finished = round.outstanding == 0;
  if (!round.released && (finished || static_cast<double>(round.outstanding) <= tail)) {
    round.released = true;
    NotifyAnswered(round);
    double best = report.tasks[task].best_seconds;
    progress[task].best_history.push_back(best > 0 ? best
                                                   : std::numeric_limits<double>::infinity());
    --rounds_in_flight[task];
  }
  if (finished) {
    NotifyAnswered(round);
    --rounds_open[task];
    rounds.erase(round_id);
  }
}

void Tuner::State::Refresh(double wall) {
  report.wall_seconds = wall;
  report.search_seconds = 0;
  report.rejected.clear();
  for (size_t i = 0; i < tasks.size(); ++i) {
    TaskReport& r = report.tasks[i];
    if (strategies[i]) {
      r.search = strategies[i]->Stats();
      report.search_seconds += r.search.seconds;
      for (const auto& [why, count] : r.search.rejected) report.rejected[why] += count;
    }
    r.done = !TaskAlive(progress[i]) && rounds_open[i] == 0;
  }
}

Tuner::Tuner(std::vector<TuneTask> tasks, TunerOptions options, AsyncMeasurer& measurer,
             SpaceFactory space, CostModel* model)
    : state_(std::make_unique<State>(std::move(tasks), std::move(options), measurer,
                                     std::move(space), model)) {}

Tuner::~Tuner() = default;

TuneReport Tuner::Run(const std::function<void(const TuneReport&)>& progress) {
  State& s = *state_;
  auto start = std::chrono::steady_clock::now();
  auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  s.Setup();
  if (s.options.measure_untuned) s.SubmitUntuned();
  while (true) {
    // Keep about one round queued beyond the one being measured.
    while (s.measurer.Pending() < static_cast<size_t>(s.options.trials_per_round) &&
           s.SubmitRound()) {
    }
    if (s.flights.empty()) break;
    std::vector<MeasureResponse> responses = s.measurer.Collect(0.5);
    if (responses.empty()) continue;
    s.Receive(responses);
    s.Refresh(wall());
    if (progress) progress(s.report);
  }
  for (size_t i = 0; i < s.tasks.size(); ++i) s.progress[i].exhausted = true;
  s.Refresh(wall());
  s.report.finished = true;
  if (progress) progress(s.report);
  return s.report;
}

}  // namespace kiln::search
