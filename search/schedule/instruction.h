// Schedule instructions: one primitive call as recorded in a trace. Inputs are random
// variables (handles to blocks, loops and sampled integers), constants, or lists of block
// handles; attributes are constants (JSON values); outputs are the random variables the call
// defined. Each instruction kind ("Split", "SamplePerfectTile", ...) knows the shape of its
// inputs, attributes and outputs, how to replay itself on a Schedule and how to print itself.
// Kinds, shapes and attributes are MetaSchedule's, so that TVM and Kiln read each other's
// traces.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::search {

class Schedule;

// Random variables: handles resolved against a Schedule's current state.
struct BlockRV {
  int64_t id = -1;
};
struct LoopRV {
  int64_t id = -1;
};
struct ExprRV {
  int64_t id = -1;
};

enum class ArgKind : uint8_t { kNone, kInt, kFloat, kString, kBlock, kLoop, kExpr, kList };

// An instruction input or output: a constant, a random variable by id, or a list of block
// random variables (the consumer blocks of CacheRead / CacheWrite).
struct InstArg {
  ArgKind kind = ArgKind::kNone;
  int64_t value = 0;  // the integer, or the random variable's id
  double fvalue = 0;
  std::string svalue;
  std::vector<InstArg> items;  // kList only

  static InstArg None() { return {}; }
  static InstArg Int(int64_t v) { return {ArgKind::kInt, v, 0, {}, {}}; }
  static InstArg Float(double v) { return {ArgKind::kFloat, 0, v, {}, {}}; }
  static InstArg String(std::string v) { return {ArgKind::kString, 0, 0, std::move(v), {}}; }
  static InstArg Of(BlockRV rv) { return {ArgKind::kBlock, rv.id, 0, {}, {}}; }
  static InstArg Of(LoopRV rv) { return {ArgKind::kLoop, rv.id, 0, {}, {}}; }
  static InstArg Of(ExprRV rv) { return {ArgKind::kExpr, rv.id, 0, {}, {}}; }
  static InstArg List(std::vector<InstArg> items) {
    return {ArgKind::kList, 0, 0, {}, std::move(items)};
  }
  bool is_rv() const {
    return kind == ArgKind::kBlock || kind == ArgKind::kLoop || kind == ArgKind::kExpr;
  }
  BlockRV block() const { return {value}; }
  LoopRV loop() const { return {value}; }
  ExprRV expr() const { return {value}; }
};

// The kind that marks where a postprocessed trace's postprocessors begin (TVM's name).
inline constexpr std::string_view kEnterPostproc = "EnterPostproc";

struct Instruction {
  std::string kind;
  std::vector<InstArg> inputs;
  nlohmann::json attrs = nlohmann::json::array();
  std::vector<InstArg> outputs;
};

// What an instruction kind looks like. Signatures are strings of one letter per input or
// output, the last one optionally followed by '*' (zero or more):
//   inputs:  B block, L loop, X block or loop, E sampled integer, F split factor (E, int or
//            None), V annotation value (E, int, float or string), K list of blocks
//   outputs: B, L, E
//   attrs:   s string, b bool (written 1 / 0 as TVM does; true / false also read), i int,
//            I list of ints, D list of numbers, m index map (a string holding a lambda, see
//            index_map.h)
struct InstructionKind {
  std::string_view name;
  std::string_view inputs;
  std::string_view attrs;
  std::string_view outputs;
  bool is_sampling;
  // Replays the call on `sch` with inputs already translated to its random variables.
  std::vector<InstArg> (*apply)(Schedule& sch, const std::vector<InstArg>& inputs,
                                const nlohmann::json& attrs,
                                const std::optional<nlohmann::json>& decision);
  // One line of the Python-like schedule script without the "outputs = " part; `inputs` are
  // the printed input texts.
  std::string (*print)(const std::vector<std::string>& inputs, const nlohmann::json& attrs,
                       const std::optional<nlohmann::json>& decision);
};

// The kind named `name` ("Split"), or nullptr. Names that older TVM versions wrote find the
// current kind ("GetBlock" finds "GetSBlock").
const InstructionKind* LookupInstructionKind(std::string_view name);

// Brings an instruction of an older shape to the current one, in place: the kind's current
// name, the attributes older traces leave out (ComputeAt's insertion index) and the inputs
// they leave out (CacheRead's consumer blocks). Traces call it on every instruction they
// take, so a trace holds one shape whatever its source. The kind must be known.
void NormalizeInstruction(Instruction& inst);
const std::vector<InstructionKind>& InstructionKinds();

}  // namespace kiln::search
