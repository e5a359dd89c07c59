// JSON encoding and validated decoding of sandbox requests and results; raw tensor files.
#include "runtime/sandbox_protocol.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace kiln::runtime {
namespace {

using json = nlohmann::json;
using codegen::SlotKind;

constexpr std::pair<SandboxPhase, std::string_view> kPhases[] = {
    {SandboxPhase::kBuild, "build"},
    {SandboxPhase::kRunOnce, "run_once"},
    {SandboxPhase::kTime, "time"},
};
constexpr std::pair<SlotKind, std::string_view> kSlotKinds[] = {
    {SlotKind::kBufferData, "buffer"},
    {SlotKind::kScalarInt, "int"},
    {SlotKind::kScalarFloat, "float"},
    {SlotKind::kShapeVar, "shape"},
};
constexpr std::pair<ArgSpec::Kind, std::string_view> kArgKinds[] = {
    {ArgSpec::Kind::kRandomTensor, "random"}, {ArgSpec::Kind::kTensor, "tensor"},
    {ArgSpec::Kind::kTensorFile, "file"},     {ArgSpec::Kind::kInt, "int"},
    {ArgSpec::Kind::kFloat, "float"},
};

template <typename E, size_t N>
std::string_view NameOf(const std::pair<E, std::string_view> (&table)[N], E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  throw Error(ErrorKind::kInternal, "enum value without a name in the sandbox protocol");
}

// Reads fields of one JSON object, each error naming the file and the field's path.
class Reader {
 public:
  Reader(const json& object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) Fail("", "expected an object");
  }
  [[noreturn]] void Fail(const std::string& field, const std::string& what) const {
    throw Error(ErrorKind::kParse, where_ + (field.empty() ? "" : "." + field) + ": " + what);
  }
  bool Has(const std::string& field) const { return object_.contains(field); }
  const json& Get(const std::string& field) const {
    auto it = object_.find(field);
    if (it == object_.end()) Fail(field, "missing");
    return *it;
  }
  std::string String(const std::string& field) const {
    const json& v = Get(field);
    if (!v.is_string()) Fail(field, "expected a string");
    return v.get<std::string>();
  }
  std::string StringOr(const std::string& field, std::string fallback) const {
    return Has(field) ? String(field) : fallback;
  }
  int64_t Int(const std::string& field) const {
    const json& v = Get(field);
    if (!v.is_number_integer()) Fail(field, "expected an integer");
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      Fail(field, "integer out of range");
    }
    return v.get<int64_t>();
  }
  uint64_t UInt(const std::string& field) const {
    const json& v = Get(field);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
      Fail(field, "expected a non-negative integer");
    }
    return v.get<uint64_t>();
  }
  int IntIn(const std::string& field, int64_t low, int64_t high) const {
    int64_t v = Int(field);
    if (v < low || v > high) {
      Fail(field, std::to_string(v) + " is outside [" + std::to_string(low) + ", " +
                      std::to_string(high) + "]");
    }
    return static_cast<int>(v);
  }
  double Double(const std::string& field) const {
    const json& v = Get(field);
    if (!v.is_number()) Fail(field, "expected a number");
    double d = v.get<double>();
    if (!std::isfinite(d)) Fail(field, "expected a finite number");
    return d;
  }
  double NonNegative(const std::string& field) const {
    double d = Double(field);
    if (d < 0) Fail(field, "expected a non-negative number");
    return d;
  }
  bool Bool(const std::string& field) const {
    const json& v = Get(field);
    if (!v.is_boolean()) Fail(field, "expected true or false");
    return v.get<bool>();
  }
  const json& Array(const std::string& field) const {
    const json& v = Get(field);
    if (!v.is_array()) Fail(field, "expected an array");
    return v;
  }
  ir::DataType DType(const std::string& field) const {
    std::string name = String(field);
    auto t = ir::DataType::Parse(name);
    if (!t || t->is_handle() || t->is_void()) Fail(field, "unknown dtype '" + name + "'");
    return *t;
  }
  std::vector<int64_t> Shape(const std::string& field) const {
    std::vector<int64_t> shape;
    const json& a = Array(field);
    int64_t numel = 1;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_number_integer() || a[i].get<int64_t>() < 0) {
        Fail(field + "[" + std::to_string(i) + "]", "expected a non-negative integer");
      }
      shape.push_back(a[i].get<int64_t>());
      // Refuse shapes whose byte size would overflow or exhaust memory (1 TiB elements).
      if (shape.back() > 0 && numel > (int64_t{1} << 40) / shape.back()) {
        Fail(field, "shape too large");
      }
      numel *= shape.back();
    }
    return shape;
  }
  template <typename E, size_t N>
  E Enum(const std::string& field, const std::pair<E, std::string_view> (&table)[N]) const {
    std::string name = String(field);
    for (const auto& [v, n] : table) {
      if (n == name) return v;
    }
    Fail(field, "unknown value '" + name + "'");
  }
  std::string Path(const std::string& field) const { return where_ + "." + field; }

 private:
  const json& object_;
  std::string where_;
};

json Parse(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, where + ": not valid JSON (truncated or corrupt?): " + e.what());
  }
  Reader r(j, where);
  int version = r.IntIn("version", 0, INT32_MAX);
  if (version != kSandboxProtocolVersion) {
    r.Fail("version", "protocol version " + std::to_string(version) + ", this build speaks " +
                          std::to_string(kSandboxProtocolVersion));
  }
  return j;
}

json SignatureToJson(const codegen::KernelSignature& signature) {
  json slots = json::array();
  for (const codegen::ArgSlot& slot : signature.slots) {
    slots.push_back({{"kind", NameOf(kSlotKinds, slot.kind)},
                     {"name", slot.name},
                     {"dtype", slot.dtype.ToString()},
                     {"param_index", slot.param_index},
                     {"dim", slot.dim}});
  }
  return {{"symbol", signature.symbol}, {"slots", slots}};
}

codegen::KernelSignature SignatureFromJson(const Reader& r) {
  codegen::KernelSignature signature;
  signature.symbol = r.String("symbol");
  const json& slots = r.Array("slots");
  for (size_t i = 0; i < slots.size(); ++i) {
    Reader s(slots[i], r.Path("slots[" + std::to_string(i) + "]"));
    codegen::ArgSlot slot;
    slot.kind = s.Enum("kind", kSlotKinds);
    slot.name = s.String("name");
    slot.dtype = s.DType("dtype");
    slot.param_index = s.IntIn("param_index", 0, 1 << 16);
    slot.dim = s.IntIn("dim", -1, 64);
    if (slot.kind == SlotKind::kShapeVar && slot.dim < 0) s.Fail("dim", "missing for a shape");
    signature.slots.push_back(std::move(slot));
  }
  return signature;
}

json ArgToJson(const ArgSpec& arg) {
  json j = {{"kind", NameOf(kArgKinds, arg.kind)}};
  switch (arg.kind) {
    case ArgSpec::Kind::kTensor:
      throw Error(ErrorKind::kInternal,
                  "an in-memory tensor argument must be written to a file before it is sent");
    case ArgSpec::Kind::kRandomTensor:
      j["seed"] = arg.seed;
      j["low"] = arg.low;
      j["high"] = arg.high;
      [[fallthrough]];
    case ArgSpec::Kind::kTensorFile:
      j["dtype"] = arg.dtype.ToString();
      j["shape"] = arg.shape;
      if (arg.kind == ArgSpec::Kind::kTensorFile) j["path"] = arg.path;
      break;
    case ArgSpec::Kind::kInt:
      j["value"] = arg.int_value;
      break;
    case ArgSpec::Kind::kFloat:
      j["value"] = arg.float_value;
      break;
  }
  return j;
}

ArgSpec ArgFromJson(const Reader& r) {
  ArgSpec arg;
  arg.kind = r.Enum("kind", kArgKinds);
  switch (arg.kind) {
    case ArgSpec::Kind::kTensor:
      r.Fail("kind", "in-memory tensors cannot be sent");
    case ArgSpec::Kind::kRandomTensor:
      arg.seed = r.UInt("seed");
      arg.low = r.Double("low");
      arg.high = r.Double("high");
      if (arg.low > arg.high) r.Fail("low", "greater than high");
      [[fallthrough]];
    case ArgSpec::Kind::kTensorFile:
      arg.dtype = r.DType("dtype");
      arg.shape = r.Shape("shape");
      if (arg.kind == ArgSpec::Kind::kTensorFile) arg.path = r.String("path");
      break;
    case ArgSpec::Kind::kInt:
      arg.int_value = r.Int("value");
      break;
    case ArgSpec::Kind::kFloat:
      arg.float_value = r.Double("value");
      break;
  }
  return arg;
}

}  // namespace

std::string_view SandboxPhaseName(SandboxPhase phase) { return NameOf(kPhases, phase); }

ArgSpec ArgSpec::Random(ir::DataType dtype, std::vector<int64_t> shape, uint64_t seed, double low,
                        double high) {
  ArgSpec a;
  a.kind = Kind::kRandomTensor;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.seed = seed;
  a.low = low;
  a.high = high;
  return a;
}

ArgSpec ArgSpec::Tensor(ir::HostTensor tensor) {
  ArgSpec a;
  a.kind = Kind::kTensor;
  a.dtype = tensor.dtype();
  a.shape = tensor.shape();
  a.tensor = std::move(tensor);
  return a;
}

ArgSpec ArgSpec::Int(int64_t value) {
  ArgSpec a;
  a.kind = Kind::kInt;
  a.int_value = value;
  return a;
}

ArgSpec ArgSpec::Float(double value) {
  ArgSpec a;
  a.kind = Kind::kFloat;
  a.float_value = value;
  return a;
}

std::vector<ir::ArgValue> MaterializeArgs(const std::vector<ArgSpec>& specs) {
  std::vector<ir::ArgValue> args;
  for (const ArgSpec& spec : specs) {
    switch (spec.kind) {
      case ArgSpec::Kind::kRandomTensor:
        args.emplace_back(
            ir::HostTensor::Random(spec.dtype, spec.shape, spec.seed, spec.low, spec.high));
        break;
      case ArgSpec::Kind::kTensor:
        args.emplace_back(spec.tensor.Clone());
        break;
      case ArgSpec::Kind::kTensorFile:
        args.emplace_back(ReadTensorFile(spec.path, spec.dtype, spec.shape));
        break;
      case ArgSpec::Kind::kInt:
        args.emplace_back(spec.int_value);
        break;
      case ArgSpec::Kind::kFloat:
        args.emplace_back(spec.float_value);
        break;
    }
  }
  return args;
}

std::string RequestToJson(const SandboxRequest& request) {
  json args = json::array();
  for (const ArgSpec& arg : request.args) args.push_back(ArgToJson(arg));
  json j = {
      {"version", kSandboxProtocolVersion},
      {"phase", SandboxPhaseName(request.phase)},
      {"source_path", request.source_path},
      {"library_path", request.library_path},
      {"build",
       {{"compiler", request.build.compiler},
        {"flags", request.build.flags},
        {"time_limit_s", request.build.time_limit_s},
        {"cache_dir", request.build.cache_dir}}},
      {"signature", SignatureToJson(request.signature)},
      {"args", args},
      {"timing",
       {{"number", request.timing.number},
        {"repeat", request.timing.repeat},
        {"min_repeat_ms", request.timing.min_repeat_ms},
        {"flush_cache", request.timing.flush_cache},
        {"warmup", request.timing.warmup},
        {"cutoff_seconds", request.timing.cutoff_seconds}}},
      {"dump_outputs", request.dump_outputs},
      {"output_dir", request.output_dir},
      {"cpu_limit_s", request.cpu_limit_s},
  };
  return j.dump(1);
}

SandboxRequest RequestFromJson(const std::string& text, const std::string& where) {
  json j = Parse(text, where);
  Reader r(j, where);
  SandboxRequest request;
  request.phase = r.Enum("phase", kPhases);
  request.source_path = r.StringOr("source_path", "");
  request.library_path = r.StringOr("library_path", "");
  if (request.source_path.empty() == request.library_path.empty()) {
    r.Fail("source_path", "give exactly one of source_path and library_path");
  }
  if (request.phase == SandboxPhase::kBuild && request.source_path.empty()) {
    r.Fail("source_path", "the build phase needs a source");
  }
  Reader b(r.Get("build"), r.Path("build"));
  request.build.compiler = b.String("compiler");
  request.build.flags.clear();
  const json& flags = b.Array("flags");
  for (size_t i = 0; i < flags.size(); ++i) {
    if (!flags[i].is_string()) b.Fail("flags[" + std::to_string(i) + "]", "expected a string");
    request.build.flags.push_back(flags[i].get<std::string>());
  }
  request.build.time_limit_s = b.NonNegative("time_limit_s");
  request.build.cache_dir = b.StringOr("cache_dir", "");
  request.signature = SignatureFromJson(Reader(r.Get("signature"), r.Path("signature")));
  const json& args = r.Array("args");
  for (size_t i = 0; i < args.size(); ++i) {
    request.args.push_back(ArgFromJson(Reader(args[i], r.Path("args[" + std::to_string(i) + "]"))));
  }
  Reader t(r.Get("timing"), r.Path("timing"));
  request.timing.number = t.IntIn("number", 1, INT32_MAX);
  request.timing.repeat = t.IntIn("repeat", 1, 1 << 20);
  request.timing.min_repeat_ms = t.NonNegative("min_repeat_ms");
  request.timing.flush_cache = t.Bool("flush_cache");
  request.timing.warmup = t.IntIn("warmup", 0, INT32_MAX);
  request.timing.cutoff_seconds = t.NonNegative("cutoff_seconds");
  request.dump_outputs = r.Bool("dump_outputs");
  request.output_dir = r.StringOr("output_dir", "");
  request.cpu_limit_s = r.NonNegative("cpu_limit_s");
  if ((request.dump_outputs || request.phase == SandboxPhase::kRunOnce) &&
      request.output_dir.empty()) {
    r.Fail("output_dir", "needed to dump outputs");
  }
  return request;
}

std::string ResultToJson(const SandboxResult& result) {
  json outputs = json::array();
  for (const TensorFileRef& out : result.outputs) {
    outputs.push_back({{"param_index", out.param_index},
                       {"dtype", out.dtype.ToString()},
                       {"shape", out.shape},
                       {"path", out.path}});
  }
  json j = {
      {"version", kSandboxProtocolVersion},
      {"status", MeasureErrorKindName(result.error_kind)},
      {"message", result.message},
      {"library_path", result.library_path},
      {"build_seconds", result.build_seconds},
      {"build_cache_hit", result.build_cache_hit},
      {"repeat_seconds", result.repeat_seconds},
      {"median_seconds", result.median_seconds},
      {"number", result.number},
      {"cutoff", CutoffName(result.cutoff)},
      {"contention", result.contention},
      {"kernel_seconds", result.kernel_seconds},
      {"outputs", outputs},
  };
  return j.dump(1);
}

SandboxResult ResultFromJson(const std::string& text, const std::string& where) {
  json j = Parse(text, where);
  Reader r(j, where);
  SandboxResult result;
  std::string status = r.String("status");
  auto kind = ParseMeasureErrorKind(status);
  if (!kind) r.Fail("status", "unknown status '" + status + "'");
  result.error_kind = *kind;
  result.message = r.String("message");
  result.library_path = r.String("library_path");
  result.build_seconds = r.NonNegative("build_seconds");
  result.build_cache_hit = r.Bool("build_cache_hit");
  const json& repeats = r.Array("repeat_seconds");
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (!repeats[i].is_number() || !std::isfinite(repeats[i].get<double>()) ||
        repeats[i].get<double>() < 0) {
      r.Fail("repeat_seconds[" + std::to_string(i) + "]", "expected a non-negative number");
    }
    result.repeat_seconds.push_back(repeats[i].get<double>());
  }
  result.median_seconds = r.NonNegative("median_seconds");
  result.number = r.IntIn("number", 0, INT32_MAX);
  std::string cutoff = r.String("cutoff");
  auto parsed_cutoff = ParseCutoff(cutoff);
  if (!parsed_cutoff) r.Fail("cutoff", "unknown value '" + cutoff + "'");
  result.cutoff = *parsed_cutoff;
  result.contention = r.NonNegative("contention");
  result.kernel_seconds = r.NonNegative("kernel_seconds");
  const json& outputs = r.Array("outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    Reader o(outputs[i], r.Path("outputs[" + std::to_string(i) + "]"));
    TensorFileRef out;
    out.param_index = o.IntIn("param_index", 0, 1 << 16);
    out.dtype = o.DType("dtype");
    out.shape = o.Shape("shape");
    out.path = o.String("path");
    result.outputs.push_back(std::move(out));
  }
  return result;
}

void WriteTensorFile(const ir::HostTensor& tensor, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(tensor.data()), static_cast<std::streamsize>(tensor.nbytes()));
  out.close();
  KILN_CHECK(out.good(), ErrorKind::kIO, "cannot write tensor file " + path);
}

void WriteTensorFile(const ir::HostTensor& tensor, PreopenedFile& file) {
  file.Write(tensor.data(), tensor.nbytes());
}

ir::HostTensor ReadTensorFile(const std::string& path, ir::DataType dtype,
                              const std::vector<int64_t>& shape) {
  ir::HostTensor tensor(dtype, shape);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  KILN_CHECK(in.is_open(), ErrorKind::kIO,
             "cannot open tensor file " + path + ": " + std::strerror(errno));
  std::streamoff size = in.tellg();
  KILN_CHECK(size == static_cast<std::streamoff>(tensor.nbytes()), ErrorKind::kIO,
             "tensor file " + path + " holds " + std::to_string(size) + " bytes; a " +
                 tensor.Describe() + " needs " + std::to_string(tensor.nbytes()));
  in.seekg(0);
  in.read(static_cast<char*>(tensor.data()), static_cast<std::streamsize>(tensor.nbytes()));
  KILN_CHECK(in.good() || tensor.nbytes() == 0, ErrorKind::kIO, "cannot read tensor file " + path);
  return tensor;
}

}  // namespace kiln::runtime
