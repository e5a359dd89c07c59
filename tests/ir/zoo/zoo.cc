// The zoo registry and the helpers that turn an entry into concrete test arguments.
#include "tests/ir/zoo/zoo.h"

#include <algorithm>
#include <set>

#include "tests/ir/zoo/entries.h"

namespace kiln::ir::zoo {
namespace {

std::vector<ZooEntry> BuildZoo() {
  std::vector<ZooEntry> entries;
  AddElementwiseEntries(entries);
  AddReduceEntries(entries);
  AddLinearEntries(entries);
  AddConvPoolEntries(entries);
  AddNormEntries(entries);
  AddLayoutEntries(entries);
  std::set<std::string> names;
  for (const ZooEntry& e : entries) {
    KILN_CHECK(names.insert(e.name).second, ErrorKind::kInternal,
               "zoo: two entries named " + e.name);
  }
  return entries;
}

}  // namespace

ZooEntry MakeEntry(std::string name, std::function<PrimFunc()> build,
                   void (*reference)(std::vector<HostTensor>&), std::vector<size_t> outputs,
                   std::map<std::string, int64_t> shape_vars) {
  ZooEntry e;
  e.name = std::move(name);
  e.build = std::move(build);
  e.reference = reference;
  e.outputs = std::move(outputs);
  e.shape_vars = std::move(shape_vars);
  return e;
}

const std::vector<ZooEntry>& Zoo() {
  static const std::vector<ZooEntry> entries = BuildZoo();
  return entries;
}

const ZooEntry& ZooLookup(std::string_view name) {
  for (const ZooEntry& e : Zoo()) {
    if (e.name == name) return e;
  }
  throw Error(ErrorKind::kInvalidIR, "zoo: no function named " + std::string(name));
}

std::vector<int64_t> ConcreteShape(const Buffer& buffer,
                                   const std::map<std::string, int64_t>& shape_vars) {
  std::vector<int64_t> shape;
  for (const Expr& dim : buffer->shape) {
    if (auto value = AsConstInt(dim)) {
      shape.push_back(*value);
    } else if (const auto* var = dim.as<VarNode>()) {
      auto it = shape_vars.find(var->name);
      KILN_CHECK(it != shape_vars.end(), ErrorKind::kInvalidIR,
                 "zoo: no value for the dimension " + var->name + " of buffer " + buffer->name);
      shape.push_back(it->second);
    } else {
      throw Error(ErrorKind::kUnsupported, "zoo: buffer " + buffer->name +
                                               " has a dimension that is neither a constant "
                                               "nor a variable");
    }
  }
  return shape;
}

bool IsOutput(const ZooEntry& entry, size_t param) {
  return std::find(entry.outputs.begin(), entry.outputs.end(), param) != entry.outputs.end();
}

std::vector<HostTensor> MakeArguments(const ZooEntry& entry, const PrimFunc& f, uint64_t seed) {
  std::vector<HostTensor> args;
  for (size_t p = 0; p < f->params.size(); ++p) {
    auto buffer = f->BufferOf(f->params[p]);
    KILN_CHECK(buffer.has_value(), ErrorKind::kUnsupported,
               "zoo: " + entry.name + " has a scalar parameter");
    std::vector<int64_t> shape = ConcreteShape(*buffer, entry.shape_vars);
    if (IsOutput(entry, p)) {
      args.emplace_back((*buffer)->dtype, std::move(shape));
    } else {
      args.push_back(HostTensor::Random((*buffer)->dtype, std::move(shape), seed + p,
                                        entry.input_low, entry.input_high));
    }
  }
  return args;
}

}  // namespace kiln::ir::zoo
