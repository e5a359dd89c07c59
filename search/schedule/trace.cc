// Trace: JSON form with validation, the Python-like script, and replay.
#include "search/schedule/trace.h"

#include <unordered_map>

#include "search/schedule/index_map.h"
#include "search/schedule/index_map_json.h"
#include "search/schedule/schedule.h"

namespace kiln::search {

using nlohmann::json;

namespace {

char KindLetter(ArgKind kind) {
  switch (kind) {
    case ArgKind::kBlock:
      return 'b';
    case ArgKind::kLoop:
      return 'l';
    default:
      return 'v';
  }
}

// The signature letter for position `pos`, or '\0' past the end of a fixed signature.
char SigLetter(std::string_view sig, size_t pos) {
  if (sig.empty()) return '\0';
  bool variadic = sig.back() == '*';
  size_t fixed = variadic ? sig.size() - 1 : sig.size();
  if (pos < fixed) return sig[pos];
  return variadic ? sig[fixed - 1] : '\0';
}

size_t SigMinCount(std::string_view sig) {
  if (!sig.empty() && sig.back() == '*') return sig.size() - 2;
  return sig.size();
}

bool SigVariadic(std::string_view sig) { return !sig.empty() && sig.back() == '*'; }

bool InputFits(char letter, const InstArg& arg) {
  switch (letter) {
    case 'B':
      return arg.kind == ArgKind::kBlock;
    case 'L':
      return arg.kind == ArgKind::kLoop;
    case 'X':
      return arg.kind == ArgKind::kBlock || arg.kind == ArgKind::kLoop;
    case 'E':
      return arg.kind == ArgKind::kExpr;
    case 'K':
      return arg.kind == ArgKind::kList;
    case 'F':
      return arg.kind == ArgKind::kExpr || arg.kind == ArgKind::kInt || arg.kind == ArgKind::kNone;
    case 'V':
      return arg.kind == ArgKind::kExpr || arg.kind == ArgKind::kInt ||
             arg.kind == ArgKind::kFloat || arg.kind == ArgKind::kString;
    default:
      return false;
  }
}

bool AttrFits(char letter, const json& value) {
  auto all = [&](auto pred) {
    if (!value.is_array()) return false;
    for (const json& v : value) {
      if (!pred(v)) return false;
    }
    return true;
  };
  switch (letter) {
    case 's':
    case 'm':
      return value.is_string();
    case 'b':
      // TVM writes booleans as 1 / 0 (an IntImm) and some as true / false.
      return value.is_boolean() || (value.is_number_integer() &&
                                    (value.get<int64_t>() == 0 || value.get<int64_t>() == 1));
    case 'i':
      return value.is_number_integer();
    case 'I':
      return all([](const json& v) { return v.is_number_integer(); });
    case 'D':
      return all([](const json& v) { return v.is_number(); });
    default:
      return false;
  }
}

[[noreturn]] void Fail(size_t index, const std::string& message) {
  throw Error(ErrorKind::kParse,
              "trace JSON: instruction " + std::to_string(index) + ": " + message);
}

// How TVM writes an absent input (Split's inferred factor); JSON null is read too.
constexpr const char* kNoneInput = "None";

// An input as written in TVM's JSON and in the Python script: `name` gives a random
// variable's text; a string constant is quoted so it never reads as a name.
template <typename NameOf>
json InputJSON(const InstArg& arg, const NameOf& name) {
  switch (arg.kind) {
    case ArgKind::kNone:
      return kNoneInput;
    case ArgKind::kInt:
      return arg.value;
    case ArgKind::kFloat:
      return arg.fvalue;
    case ArgKind::kString:
      return json(arg.svalue).dump();
    case ArgKind::kList: {
      json items = json::array();
      for (const InstArg& item : arg.items) items.push_back(InputJSON(item, name));
      return items;
    }
    default:
      return name(arg.value);
  }
}

// TransformLayout as TVM 0.24+ writes it: inputs [block, index map as TVM's JSON graph],
// attrs [buffer_index, buffer_index_type, pad_value, assume_injective_transform]. Kiln's
// instruction keeps the map as lambda text among its attrs: [buffer_index, type, lambda].
// Other shapes pass unchanged.
json TransformLayoutFromTvm(size_t index, const json& inst) {
  const json& inputs = inst[1];
  if (!inputs.is_array() || inputs.size() != 2 || !inputs[1].is_string()) return inst;
  const std::string& text = inputs[1].get_ref<const std::string&>();
  if (text.empty() || text[0] != '{') return inst;
  const json& attrs = inst[2];
  if (!attrs.is_array() || attrs.size() != 4) {
    Fail(index, "(TransformLayout) expected 4 attrs with an index map input, got " + attrs.dump());
  }
  if (!attrs[2].is_null()) {
    Fail(index, "(TransformLayout) pad_value " + attrs[2].dump() +
                    " is not supported: Kiln's transform_layout takes bijective maps only");
  }
  IndexMap map;
  try {
    map = IndexMapFromTvmJson(text);
  } catch (const Error& e) {
    Fail(index, std::string("(TransformLayout) input 1 is not an index map: ") + e.what());
  }
  return json::array({inst[0], json::array({inputs[0]}),
                      json::array({attrs[0], attrs[1], map.ToText()}), inst[3]});
}

// Kiln's TransformLayout in TVM's shape (see TransformLayoutFromTvm); a map that has no TVM
// JSON form here keeps Kiln's shape.
void TransformLayoutToTvm(json& inputs, json& attrs) {
  if (inputs.size() != 1 || attrs.size() != 3 || !attrs[2].is_string()) return;
  try {
    std::string graph = IndexMapToTvmJson(IndexMap::Parse(attrs[2].get<std::string>()));
    inputs.push_back(graph);
    attrs = json::array({attrs[0], attrs[1], nullptr, false});
  } catch (const Error&) {
  }
}

}  // namespace

void Trace::Append(Instruction inst, std::optional<json> decision) {
  NormalizeInstruction(inst);
  if (decision) decisions_[instructions_.size()] = std::move(*decision);
  instructions_.push_back(std::move(inst));
}

std::optional<json> Trace::GetDecision(size_t index) const {
  auto it = decisions_.find(index);
  if (it == decisions_.end()) return std::nullopt;
  return it->second;
}

Trace Trace::WithDecision(size_t index, json decision) const {
  KILN_CHECK(index < instructions_.size(), ErrorKind::kSchedule,
             "trace: no instruction " + std::to_string(index));
  const InstructionKind* kind = LookupInstructionKind(instructions_[index].kind);
  KILN_CHECK(kind && kind->is_sampling, ErrorKind::kSchedule,
             "trace: instruction " + std::to_string(index) + " (" + instructions_[index].kind +
                 ") is not a sampling instruction");
  Trace copy = *this;
  copy.decisions_[index] = std::move(decision);
  return copy;
}

Trace Trace::Prefix(size_t n) const {
  Trace copy;
  for (size_t i = 0; i < n && i < instructions_.size(); ++i) {
    copy.Append(instructions_[i], GetDecision(i));
  }
  return copy;
}

std::optional<size_t> Trace::PostprocStart() const {
  for (size_t i = 0; i < instructions_.size(); ++i) {
    if (instructions_[i].kind == kEnterPostproc) return i;
  }
  return std::nullopt;
}

json Trace::ToJSON() const {
  std::unordered_map<int64_t, std::string> names;
  int64_t counter = 0;
  json insts = json::array();
  auto name_of = [&](int64_t id) { return names.at(id); };
  for (const Instruction& inst : instructions_) {
    const InstructionKind* kind = LookupInstructionKind(inst.kind);
    json inputs = json::array();
    for (const InstArg& arg : inst.inputs) inputs.push_back(InputJSON(arg, name_of));
    json attrs = inst.attrs;
    for (size_t k = 0; k < attrs.size() && k < kind->attrs.size(); ++k) {
      // As TVM writes them, so that its JSON reader takes Kiln's traces.
      if (kind->attrs[k] == 'b' && attrs[k].is_boolean()) attrs[k] = attrs[k].get<bool>() ? 1 : 0;
    }
    // A tuning record's workload is a module whose one function is `main` (TVM's convention),
    // whatever the PrimFunc was called where Kiln scheduled it.
    if (kind->name == "GetSBlock" && attrs.size() == 2) attrs[1] = "main";
    if (kind->name == "TransformLayout") TransformLayoutToTvm(inputs, attrs);
    json outputs = json::array();
    for (const InstArg& arg : inst.outputs) {
      std::string name = std::string(1, KindLetter(arg.kind)) + std::to_string(counter++);
      names[arg.value] = name;
      outputs.push_back(name);
    }
    insts.push_back(json::array({inst.kind, inputs, attrs, outputs}));
  }
  json decisions = json::array();
  for (const auto& [index, decision] : decisions_) {
    decisions.push_back(json::array({index, decision}));
  }
  return json::array({insts, decisions});
}

Trace Trace::FromJSON(const json& j) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_array() || !j[1].is_array()) {
    throw Error(ErrorKind::kParse, "trace JSON: expected [instructions, decisions]");
  }
  Trace trace;
  std::unordered_map<std::string, InstArg> defined;
  int64_t next_id = 0;
  for (size_t i = 0; i < j[0].size(); ++i) {
    if (!j[0][i].is_array() || j[0][i].size() != 4) {
      Fail(i, "expected [kind, inputs, attrs, outputs]");
    }
    if (!j[0][i][0].is_string()) Fail(i, "kind is not a string");
    const InstructionKind* kind = LookupInstructionKind(j[0][i][0].get<std::string>());
    if (!kind) Fail(i, "unknown instruction kind \"" + j[0][i][0].get<std::string>() + "\"");
    std::string what = "(" + std::string(kind->name) + ") ";
    const json ij = kind->name == "TransformLayout" ? TransformLayoutFromTvm(i, j[0][i]) : j[0][i];
    if (!ij[1].is_array()) Fail(i, what + "inputs is not a list");
    if (!ij[2].is_array()) Fail(i, what + "attrs is not a list");
    if (!ij[3].is_array()) Fail(i, what + "outputs is not a list");
    Instruction inst;
    inst.kind = kind->name;
    for (size_t k = 0; k < ij[1].size(); ++k) {
      const json& a = ij[1][k];
      std::string field = what + "input " + std::to_string(k) + ": ";
      InstArg arg;
      if (a.is_array()) {
        // A list of blocks (CacheRead's consumers): names defined earlier.
        std::vector<InstArg> items;
        for (const json& item : a) {
          auto it = item.is_string() ? defined.find(item.get<std::string>()) : defined.end();
          if (it == defined.end() || it->second.kind != ArgKind::kBlock) {
            Fail(i, field + item.dump() + " in the list is not a block defined earlier");
          }
          items.push_back(it->second);
        }
        arg = InstArg::List(std::move(items));
      } else if (a.is_null() || (a.is_string() && a.get<std::string>() == kNoneInput)) {
        arg = InstArg::None();
      } else if (a.is_boolean()) {
        // TVM writes a boolean annotation value (T.bool) as true / false.
        arg = InstArg::Int(a.get<bool>() ? 1 : 0);
      } else if (a.is_number_integer()) {
        arg = InstArg::Int(a.get<int64_t>());
      } else if (a.is_number()) {
        arg = InstArg::Float(a.get<double>());
      } else if (a.is_string() && !a.get<std::string>().empty() && a.get<std::string>()[0] == '"') {
        json s = json::parse(a.get<std::string>(), nullptr, false);
        if (!s.is_string()) Fail(i, field + "malformed string constant " + a.dump());
        arg = InstArg::String(s.get<std::string>());
      } else if (a.is_string()) {
        auto it = defined.find(a.get<std::string>());
        if (it == defined.end()) {
          Fail(i,
               field + "random variable " + a.get<std::string>() + " is used before it is defined");
        }
        arg = it->second;
      } else {
        Fail(i, field + "unexpected value " + a.dump());
      }
      char letter = SigLetter(kind->inputs, k);
      if (letter == '\0') Fail(i, what + "too many inputs (" + std::to_string(ij[1].size()) + ")");
      if (!InputFits(letter, arg)) Fail(i, field + a.dump() + " is not what the input takes");
      inst.inputs.push_back(arg);
    }
    // An older shape (Kiln's before TVM's) gets what it leaves out before the checks below.
    inst.attrs = ij[2];
    NormalizeInstruction(inst);
    if (inst.inputs.size() < SigMinCount(kind->inputs)) {
      Fail(i, what + "expected at least " + std::to_string(SigMinCount(kind->inputs)) +
                  " inputs, got " + std::to_string(ij[1].size()));
    }
    if (inst.attrs.size() != kind->attrs.size()) {
      Fail(i, what + "expected " + std::to_string(kind->attrs.size()) + " attrs, got " +
                  std::to_string(ij[2].size()));
    }
    for (size_t k = 0; k < inst.attrs.size(); ++k) {
      json& attr = inst.attrs[k];
      if (!AttrFits(kind->attrs[k], attr)) {
        Fail(i, what + "attr " + std::to_string(k) + " has the wrong type: " + attr.dump());
      }
      if (kind->attrs[k] == 'b')
        attr = attr.is_boolean() ? attr.get<bool>() : attr.get<int64_t>() != 0;
      if (kind->attrs[k] == 'm') {
        try {
          IndexMap::Parse(attr.get<std::string>());
        } catch (const Error& e) {
          Fail(i, what + "attr " + std::to_string(k) + " is not an index map: " + e.what());
        }
      }
    }
    size_t min_outputs = SigMinCount(kind->outputs);
    if (ij[3].size() < min_outputs ||
        (!SigVariadic(kind->outputs) && ij[3].size() != min_outputs)) {
      Fail(i, what + "wrong number of outputs (" + std::to_string(ij[3].size()) + ")");
    }
    for (size_t k = 0; k < ij[3].size(); ++k) {
      const json& o = ij[3][k];
      std::string field = what + "output " + std::to_string(k) + ": ";
      if (!o.is_string() || o.get<std::string>().size() < 2) Fail(i, field + "not a name");
      const std::string name = o.get<std::string>();
      char expected = static_cast<char>(SigLetter(kind->outputs, k) - 'A' + 'a');
      expected = expected == 'e' ? 'v' : expected;
      if (name[0] != expected) {
        Fail(i, field + name + " should name a " +
                    (expected == 'b'   ? "block"
                     : expected == 'l' ? "loop"
                                       : "value") +
                    " (start with '" + std::string(1, expected) + "')");
      }
      if (defined.count(name)) Fail(i, field + name + " is defined twice");
      InstArg arg;
      arg.kind = expected == 'b'   ? ArgKind::kBlock
                 : expected == 'l' ? ArgKind::kLoop
                                   : ArgKind::kExpr;
      arg.value = next_id++;
      defined[name] = arg;
      inst.outputs.push_back(arg);
    }
    trace.instructions_.push_back(std::move(inst));
  }
  for (size_t d = 0; d < j[1].size(); ++d) {
    const json& dj = j[1][d];
    std::string where = "trace JSON: decision " + std::to_string(d) + ": ";
    if (!dj.is_array() || dj.size() != 2 || !dj[0].is_number_integer()) {
      throw Error(ErrorKind::kParse, where + "expected [instruction_index, decision]");
    }
    int64_t index = dj[0].get<int64_t>();
    if (index < 0 || index >= static_cast<int64_t>(trace.instructions_.size())) {
      throw Error(ErrorKind::kParse,
                  where + "instruction index " + std::to_string(index) + " is out of range");
    }
    const std::string& kind_name = trace.instructions_[index].kind;
    const InstructionKind* kind = LookupInstructionKind(kind_name);
    if (!kind->is_sampling) {
      Fail(index, "(" + kind_name + ") has a decision but is not a sampling instruction");
    }
    bool list = kind_name == "SamplePerfectTile";
    bool ok = list ? AttrFits('I', dj[1]) : dj[1].is_number_integer();
    if (!ok) {
      Fail(index, "(" + kind_name + ") decision " + dj[1].dump() + " should be " +
                      (list ? "a list of integers" : "an integer"));
    }
    if (trace.decisions_.count(index)) Fail(index, "(" + kind_name + ") has two decisions");
    trace.decisions_[index] = dj[1];
  }
  return trace;
}

std::string Trace::AsPython() const {
  std::unordered_map<int64_t, std::string> names;
  int64_t counter = 0;
  std::string out;
  for (size_t i = 0; i < instructions_.size(); ++i) {
    const Instruction& inst = instructions_[i];
    std::vector<std::string> inputs;
    for (const InstArg& arg : inst.inputs) {
      switch (arg.kind) {
        case ArgKind::kNone:
          inputs.push_back("None");
          break;
        case ArgKind::kInt:
          inputs.push_back(std::to_string(arg.value));
          break;
        case ArgKind::kFloat:
          inputs.push_back(json(arg.fvalue).dump());
          break;
        case ArgKind::kString:
          inputs.push_back(json(arg.svalue).dump());
          break;
        case ArgKind::kList: {
          std::string list = "[";
          for (const InstArg& item : arg.items) {
            list += (list.size() > 1 ? ", " : "") + names.at(item.value);
          }
          inputs.push_back(list + "]");
          break;
        }
        default:
          inputs.push_back(names.at(arg.value));
      }
    }
    std::string lhs;
    for (size_t k = 0; k < inst.outputs.size(); ++k) {
      const InstArg& arg = inst.outputs[k];
      std::string name = std::string(1, KindLetter(arg.kind)) + std::to_string(counter++);
      names[arg.value] = name;
      lhs += (k ? ", " : "") + name;
    }
    const InstructionKind* kind = LookupInstructionKind(inst.kind);
    std::string call = kind->print(inputs, inst.attrs, GetDecision(i));
    if (inst.outputs.size() == 1 && SigVariadic(kind->outputs)) lhs += ",";
    if (!inst.outputs.empty()) {
      out +=
          (inst.outputs.size() == 1 && SigVariadic(kind->outputs) ? "(" + lhs + ")" : lhs) + " = ";
    } else if (SigVariadic(kind->outputs)) {
      out += "_ = ";
    }
    out += call + "\n";
  }
  return out;
}

void Trace::ApplyTo(Schedule& sch) const { ApplyTo(sch, DecisionRefit{}); }

void Trace::ApplyTo(Schedule& sch, const DecisionRefit& refit) const {
  std::unordered_map<int64_t, InstArg> map;
  for (size_t i = 0; i < instructions_.size(); ++i) {
    const Instruction& inst = instructions_[i];
    const InstructionKind* kind = LookupInstructionKind(inst.kind);
    std::string where = "trace instruction " + std::to_string(i) + " (" + inst.kind + "): ";
    KILN_CHECK(kind != nullptr, ErrorKind::kParse, where + "unknown instruction kind");
    auto translate = [&](const InstArg& arg) {
      if (!arg.is_rv()) return arg;
      auto it = map.find(arg.value);
      KILN_CHECK(it != map.end(), ErrorKind::kSchedule,
                 where + "uses " + Schedule::RVName(arg) +
                     ", which no earlier instruction of the trace defines");
      return it->second;
    };
    std::vector<InstArg> inputs;
    for (const InstArg& arg : inst.inputs) {
      InstArg translated = translate(arg);
      for (InstArg& item : translated.items) item = translate(item);
      inputs.push_back(std::move(translated));
    }
    std::vector<InstArg> outputs;
    try {
      std::optional<nlohmann::json> decision = GetDecision(i);
      if (refit && kind->is_sampling) decision = refit(sch, inst, inputs, decision);
      outputs = kind->apply(sch, inputs, inst.attrs, decision);
    } catch (const Error& e) {
      throw Error(e.kind(), where + e.what());
    } catch (const json::exception& e) {
      throw Error(ErrorKind::kParse, where + "malformed attribute or decision: " + e.what());
    }
    KILN_CHECK(outputs.size() == inst.outputs.size(), ErrorKind::kSchedule,
               where + "gave " + std::to_string(outputs.size()) + " results where the trace has " +
                   std::to_string(inst.outputs.size()) +
                   "; the function differs from the one traced");
    for (size_t k = 0; k < outputs.size(); ++k) map[inst.outputs[k].value] = outputs[k];
  }
}

ir::PrimFunc ReplayTrace(const ir::PrimFunc& func, const Trace& trace, uint64_t seed) {
  Schedule sch(func, seed);
  trace.ApplyTo(sch);
  return sch.func();
}

}  // namespace kiln::search
