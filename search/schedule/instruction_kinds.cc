// The table of instruction kinds: for each primitive, the shape of its instruction, how to
// replay it on a Schedule and how to print it as a line of a Python-like schedule script.
#include <algorithm>
#include <utility>

#include "search/schedule/instruction.h"
#include "search/schedule/schedule.h"

namespace kiln::search {

using nlohmann::json;
using Inputs = std::vector<InstArg>;
using Decision = std::optional<json>;
using Texts = std::vector<std::string>;

namespace {

template <typename RV>
Inputs Out(const std::vector<RV>& rvs) {
  Inputs out;
  for (const RV& rv : rvs) out.push_back(InstArg::Of(rv));
  return out;
}

std::string Join(const Texts& texts, size_t from = 0, size_t to = SIZE_MAX) {
  std::string out;
  for (size_t i = from; i < std::min(to, texts.size()); ++i)
    out += (i > from ? ", " : "") + texts[i];
  return out;
}

std::string Py(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Py(v[i]);
    return out + "]";
  }
  return v.dump();
}

std::string WithDecision(const std::string& call, const Decision& decision) {
  return decision ? call + ", decision=" + Py(*decision) + ")" : call + ")";
}

std::vector<LoopRV> Loops(const Inputs& in, size_t from = 0) {
  std::vector<LoopRV> loops;
  for (size_t i = from; i < in.size(); ++i) loops.push_back(in[i].loop());
  return loops;
}

AnnotationValue ToAnnotationValue(const InstArg& arg) {
  switch (arg.kind) {
    case ArgKind::kInt:
      return arg.value;
    case ArgKind::kFloat:
      return arg.fvalue;
    case ArgKind::kString:
      return arg.svalue;
    default:
      return arg.expr();
  }
}

// A simple instruction on one loop: "sch.parallel(l1)".
template <void (Schedule::*kMethod)(LoopRV)>
Inputs ApplyLoop(Schedule& sch, const Inputs& in, const json&, const Decision&) {
  (sch.*kMethod)(in[0].loop());
  return {};
}

// TVM's insertion index of compute_at / reverse_compute_at: -1 puts the block at the first
// position its dependences allow, -2 at the last, k >= 0 as the k-th child of the loop.
// Kiln's primitives place it at the first.
constexpr int64_t kInsertFirst = -1;

void CheckInsertionIndex(const char* what, const json& index) {
  int64_t value = index.get<int64_t>();
  KILN_CHECK(value == kInsertFirst, ErrorKind::kSchedule,
             std::string(what) + ": insertion index " + std::to_string(value) +
                 " is not supported; Kiln places the block at the first position its "
                 "dependences allow (index -1)");
}

std::string IndexText(const json& index) {
  return index.get<int64_t>() == kInsertFirst ? "" : ", index=" + index.dump();
}

// TVM's consumer_blocks of cache_read / cache_write: the consumers that use the cache. Empty
// means all of them, which is what Kiln's primitives do; a choice of some is not supported.
void CheckAllConsumers(const char* what, const InstArg& consumers) {
  KILN_CHECK(consumers.items.empty(), ErrorKind::kSchedule,
             std::string(what) + ": a list of " + std::to_string(consumers.items.size()) +
                 " consumer blocks is not supported; Kiln redirects every consumer "
                 "(consumer_blocks=[])");
}

std::string ConsumersText(const std::string& text) {
  return text == "[]" ? "" : ", consumer_blocks=" + text;
}

#define KILN_PRINTER(py_name) \
  [](const Texts& in, const json&, const Decision&) { return "sch." py_name "(" + Join(in) + ")"; }

const std::vector<InstructionKind> kKinds = {
    {"GetSBlock", "", "ss", "B", false,
     [](Schedule& sch, const Inputs&, const json& a, const Decision&) -> Inputs {
       return {InstArg::Of(sch.GetBlock(a[0].get<std::string>()))};
     },
     [](const Texts&, const json& a, const Decision&) {
       std::string call = "sch.get_block(" + a[0].dump();
       if (a[1].get<std::string>() != "main") call += ", func_name=" + a[1].dump();
       return call + ")";
     }},
    {"GetLoops", "B", "", "L*", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) {
       return Out(sch.GetLoops(in[0].block()));
     },
     KILN_PRINTER("get_loops")},
    {"GetChildBlocks", "X", "", "B*", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) {
       return in[0].kind == ArgKind::kLoop ? Out(sch.GetChildBlocks(in[0].loop()))
                                           : Out(sch.GetChildBlocks(in[0].block()));
     },
     KILN_PRINTER("get_child_blocks")},
    {"GetProducers", "B", "", "B*", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) {
       return Out(sch.GetProducers(in[0].block()));
     },
     KILN_PRINTER("get_producers")},
    {"GetConsumers", "B", "", "B*", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) {
       return Out(sch.GetConsumers(in[0].block()));
     },
     KILN_PRINTER("get_consumers")},
    {"Split", "LF*", "bb", "L*", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) {
       std::vector<Factor> factors;
       for (size_t i = 1; i < in.size(); ++i) {
         if (in[i].kind == ArgKind::kNone) {
           factors.emplace_back(std::nullopt);
         } else if (in[i].kind == ArgKind::kInt) {
           factors.emplace_back(in[i].value);
         } else {
           factors.emplace_back(in[i].expr());
         }
       }
       return Out(sch.Split(in[0].loop(), factors, a[0].get<bool>()));
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.split(" + in[0] + ", factors=[" + Join(in, 1) +
              "], preserve_unit_iters=" + Py(a[0]) + ")";
     }},
    {"Fuse", "L*", "b", "L", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       return {InstArg::Of(sch.Fuse(Loops(in), a[0].get<bool>()))};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.fuse(" + Join(in) + ", preserve_unit_iters=" + Py(a[0]) + ")";
     }},
    {"Reorder", "L*", "", "", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) -> Inputs {
       sch.Reorder(Loops(in));
       return {};
     },
     KILN_PRINTER("reorder")},
    {"AddUnitLoop", "X", "", "L", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) -> Inputs {
       return {InstArg::Of(in[0].kind == ArgKind::kLoop ? sch.AddUnitLoop(in[0].loop())
                                                        : sch.AddUnitLoop(in[0].block()))};
     },
     KILN_PRINTER("add_unit_loop")},
    {"Parallel", "L", "", "", false, ApplyLoop<&Schedule::Parallel>, KILN_PRINTER("parallel")},
    {"Vectorize", "L", "", "", false, ApplyLoop<&Schedule::Vectorize>, KILN_PRINTER("vectorize")},
    {"Unroll", "L", "", "", false, ApplyLoop<&Schedule::Unroll>, KILN_PRINTER("unroll")},
    {"Bind", "L", "s", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       sch.Bind(in[0].loop(), a[0].get<std::string>());
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.bind(" + in[0] + ", " + a[0].dump() + ")";
     }},
    {"Annotate", "XV", "s", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       std::string key = a[0].get<std::string>();
       if (in[0].kind == ArgKind::kLoop) {
         sch.Annotate(in[0].loop(), key, ToAnnotationValue(in[1]));
       } else {
         sch.Annotate(in[0].block(), key, ToAnnotationValue(in[1]));
       }
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.annotate(" + in[0] + ", ann_key=" + a[0].dump() + ", ann_val=" + in[1] + ")";
     }},
    {"Unannotate", "X", "s", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       std::string key = a[0].get<std::string>();
       if (in[0].kind == ArgKind::kLoop) {
         sch.Unannotate(in[0].loop(), key);
       } else {
         sch.Unannotate(in[0].block(), key);
       }
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.unannotate(" + in[0] + ", ann_key=" + a[0].dump() + ")";
     }},
    {"SamplePerfectTile", "L", "ii", "E*", true,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision& d) {
       std::optional<std::vector<int64_t>> decision;
       if (d) decision = d->get<std::vector<int64_t>>();
       return Out(
           sch.SamplePerfectTile(in[0].loop(), a[0].get<int>(), a[1].get<int64_t>(), decision));
     },
     [](const Texts& in, const json& a, const Decision& d) {
       return WithDecision("sch.sample_perfect_tile(" + in[0] + ", n=" + a[0].dump() +
                               ", max_innermost_factor=" + a[1].dump(),
                           d);
     }},
    {"SampleCategorical", "", "ID", "E", true,
     [](Schedule& sch, const Inputs&, const json& a, const Decision& d) -> Inputs {
       std::optional<int64_t> decision;
       if (d) decision = d->get<int64_t>();
       return {InstArg::Of(sch.SampleCategorical(a[0].get<std::vector<int64_t>>(),
                                                 a[1].get<std::vector<double>>(), decision))};
     },
     [](const Texts&, const json& a, const Decision& d) {
       return WithDecision("sch.sample_categorical(candidates=" + Py(a[0]) + ", probs=" + Py(a[1]),
                           d);
     }},
    {"SampleComputeLocation", "B", "", "L", true,
     [](Schedule& sch, const Inputs& in, const json&, const Decision& d) -> Inputs {
       std::optional<int64_t> decision;
       if (d) decision = d->get<int64_t>();
       return {InstArg::Of(sch.SampleComputeLocation(in[0].block(), decision))};
     },
     [](const Texts& in, const json&, const Decision& d) {
       return WithDecision("sch.sample_compute_location(" + in[0], d);
     }},
    {"ComputeAt", "BL", "bi", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       CheckInsertionIndex("compute_at", a[1]);
       sch.ComputeAt(in[0].block(), in[1].loop(), a[0].get<bool>());
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.compute_at(" + in[0] + ", " + in[1] + ", preserve_unit_loops=" + Py(a[0]) +
              IndexText(a[1]) + ")";
     }},
    {"ReverseComputeAt", "BL", "bi", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       CheckInsertionIndex("reverse_compute_at", a[1]);
       sch.ReverseComputeAt(in[0].block(), in[1].loop(), a[0].get<bool>());
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.reverse_compute_at(" + in[0] + ", " + in[1] +
              ", preserve_unit_loops=" + Py(a[0]) + IndexText(a[1]) + ")";
     }},
    {"ComputeInline", "B", "", "", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) -> Inputs {
       sch.ComputeInline(in[0].block());
       return {};
     },
     KILN_PRINTER("compute_inline")},
    {"ReverseComputeInline", "B", "", "", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) -> Inputs {
       sch.ReverseComputeInline(in[0].block());
       return {};
     },
     KILN_PRINTER("reverse_compute_inline")},
    {"CacheRead", "BK", "is", "B", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       CheckAllConsumers("cache_read", in[1]);
       return {InstArg::Of(sch.CacheRead(in[0].block(), a[0].get<int>(), a[1].get<std::string>()))};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.cache_read(" + in[0] + ", read_buffer_index=" + a[0].dump() +
              ", storage_scope=" + a[1].dump() + ConsumersText(in[1]) + ")";
     }},
    {"CacheWrite", "BK", "is", "B", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       CheckAllConsumers("cache_write", in[1]);
       return {
           InstArg::Of(sch.CacheWrite(in[0].block(), a[0].get<int>(), a[1].get<std::string>()))};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.cache_write(" + in[0] + ", write_buffer_index=" + a[0].dump() +
              ", storage_scope=" + a[1].dump() + ConsumersText(in[1]) + ")";
     }},
    {"SetScope", "B", "is", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       sch.SetScope(in[0].block(), a[0].get<int>(), a[1].get<std::string>());
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.set_scope(" + in[0] + ", buffer_index=" + a[0].dump() +
              ", storage_scope=" + a[1].dump() + ")";
     }},
    {"StorageAlign", "B", "iiii", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       sch.StorageAlign(in[0].block(), a[0].get<int>(), a[1].get<int>(), a[2].get<int>(),
                        a[3].get<int>());
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.storage_align(" + in[0] + ", buffer_index=" + a[0].dump() +
              ", axis=" + a[1].dump() + ", factor=" + a[2].dump() + ", offset=" + a[3].dump() + ")";
     }},
    {"TransformLayout", "B", "iim", "", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       int64_t type = a[1].get<int64_t>();
       KILN_CHECK(type == 0 || type == 1, ErrorKind::kSchedule,
                  "transform_layout: buffer index type " + std::to_string(type) +
                      " is neither 0 (read) nor 1 (write)");
       sch.TransformLayout(in[0].block(), a[0].get<int>(),
                           type == 1 ? BufferIndexType::kWrite : BufferIndexType::kRead,
                           IndexMap::Parse(a[2].get<std::string>()));
       return {};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.transform_layout(" + in[0] + ", buffer=(" +
              (a[1].get<int64_t>() == 1 ? "\"write\", " : "\"read\", ") + a[0].dump() +
              "), index_map=" + a[2].get<std::string>() + ")";
     }},
    {"RFactor", "L", "i", "B", false,
     [](Schedule& sch, const Inputs& in, const json& a, const Decision&) -> Inputs {
       return {InstArg::Of(sch.RFactor(in[0].loop(), a[0].get<int>()))};
     },
     [](const Texts& in, const json& a, const Decision&) {
       return "sch.rfactor(" + in[0] + ", factor_axis=" + a[0].dump() + ")";
     }},
    {"DecomposeReduction", "BL", "", "B", false,
     [](Schedule& sch, const Inputs& in, const json&, const Decision&) -> Inputs {
       return {InstArg::Of(sch.DecomposeReduction(in[0].block(), in[1].loop()))};
     },
     KILN_PRINTER("decompose_reduction")},
    // Marks where the design space ends and the postprocessors' instructions begin; replay
    // has nothing to do.
    {"EnterPostproc", "", "", "", false,
     [](Schedule&, const Inputs&, const json&, const Decision&) -> Inputs { return {}; },
     KILN_PRINTER("enter_postproc")},
};

// Names older TVM versions gave a kind: read, never written.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"GetBlock", "GetSBlock"},
};

#undef KILN_PRINTER

}  // namespace

const std::vector<InstructionKind>& InstructionKinds() { return kKinds; }

const InstructionKind* LookupInstructionKind(std::string_view name) {
  for (const auto& [alias, current] : kAliases) {
    if (alias == name) name = current;
  }
  for (const InstructionKind& kind : kKinds) {
    if (kind.name == name) return &kind;
  }
  return nullptr;
}

void NormalizeInstruction(Instruction& inst) {
  const InstructionKind* kind = LookupInstructionKind(inst.kind);
  KILN_CHECK(kind != nullptr, ErrorKind::kParse,
             "trace: unknown instruction kind \"" + inst.kind + "\"");
  inst.kind = kind->name;
  // Before TVM's shape, Kiln wrote ComputeAt without the insertion index and CacheRead /
  // CacheWrite without the consumer list; both defaults mean what Kiln's primitives do.
  if ((kind->name == "ComputeAt" || kind->name == "ReverseComputeAt") && inst.attrs.is_array() &&
      inst.attrs.size() == 1) {
    inst.attrs.push_back(kInsertFirst);
  }
  if ((kind->name == "CacheRead" || kind->name == "CacheWrite") && inst.inputs.size() == 1) {
    inst.inputs.push_back(InstArg::List({}));
  }
}

}  // namespace kiln::search
