// Trace: the program of schedule instructions with the decisions of its sampling
// instructions. It is the artifact the search stores: replaying it on its workload gives the
// same schedule; changing a decision and replaying gives a neighbouring one. Its JSON form is
// MetaSchedule's, as TVM 0.24+ writes it in database_tuning_record.json, so that TVM's
// JSONDatabase loads and replays what Kiln writes and Kiln replays TVM's records:
// [[[kind, inputs, attrs, outputs], ...], [[index, decision], ...]] with random variables named
// by position of definition ("b0", "l1", "v2"), booleans written 1 / 0, an absent input
// "None", string inputs quoted ("\"SSRSRS\""), GetSBlock's function "main" (a record's workload
// is a module of one function `main`), CacheRead / CacheWrite with the consumer-block list as
// last input, ComputeAt / ReverseComputeAt with [preserve_unit_loops, index], TransformLayout's
// map as TVM's JSON graph. Reading also takes the older shapes: TVM's GetBlock, Kiln's earlier
// one (true / false, null, no index, no consumer list, the map as lambda text).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "search/schedule/instruction.h"

namespace kiln::search {

class Trace {
 public:
  const std::vector<Instruction>& instructions() const { return instructions_; }
  const std::map<size_t, nlohmann::json>& decisions() const { return decisions_; }
  size_t size() const { return instructions_.size(); }

  void Append(Instruction inst, std::optional<nlohmann::json> decision = std::nullopt);
  std::optional<nlohmann::json> GetDecision(size_t index) const;
  // A copy whose sampling instruction `index` takes `decision` instead.
  Trace WithDecision(size_t index, nlohmann::json decision) const;
  // The first `n` instructions (and their decisions).
  Trace Prefix(size_t n) const;
  // Where the postprocessors' instructions begin: the index of EnterPostproc, which a
  // postprocessed trace carries as TVM's do; none for a trace without it (a design space's
  // sketch, or a record stored before the mark was written).
  std::optional<size_t> PostprocStart() const;

  nlohmann::json ToJSON() const;
  // Validates the shape of every instruction (kind known, inputs defined before use and of
  // the kind the instruction takes, attributes and decisions well typed); throws
  // kiln::Error(kParse) naming the instruction index and field.
  static Trace FromJSON(const nlohmann::json& json);

  // The trace as a Python-like schedule script, one call per line.
  std::string AsPython() const;

  // Replays every instruction on `sch` (normally a fresh Schedule of the workload). A
  // decision that does not fit the function, or an instruction that is not valid on it, is
  // a kiln::Error(kSchedule) naming the instruction.
  void ApplyTo(Schedule& sch) const;
  // The same, with each sampling instruction's decision first passed through `refit` (given
  // the schedule so far and the instruction's inputs on it): how a trace of one shape is
  // carried to another (trace_transfer.h).
  using DecisionRefit = std::function<std::optional<nlohmann::json>(
      const Schedule& sch, const Instruction& inst, const std::vector<InstArg>& inputs,
      const std::optional<nlohmann::json>& decision)>;
  void ApplyTo(Schedule& sch, const DecisionRefit& refit) const;

 private:
  std::vector<Instruction> instructions_;
  std::map<size_t, nlohmann::json> decisions_;
};

// Replays `trace` on a fresh schedule of `func`; the result's trace equals `trace` up to
// renaming of random variables.
ir::PrimFunc ReplayTrace(const ir::PrimFunc& func, const Trace& trace, uint64_t seed = 1);

}  // namespace kiln::search
