// SaveReference and LoadReference: the on-disk form of a workload's reference.
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "runtime/file_util.h"
#include "runtime/reference_store.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int kFormatVersion = 1;

std::string InputFile(size_t i) { return "in" + std::to_string(i) + ".bin"; }
std::string ExpectedFile(size_t i) { return "out" + std::to_string(i) + ".bin"; }

bool IsTensor(const ArgSpec& spec) {
  return spec.kind == ArgSpec::Kind::kTensor || spec.kind == ArgSpec::Kind::kTensorFile ||
         spec.kind == ArgSpec::Kind::kRandomTensor;
}

// The input tensor a parameter's spec describes.
ir::HostTensor InputTensor(const ArgSpec& spec) {
  std::vector<ir::ArgValue> values = MaterializeArgs({spec});
  return std::get<ir::HostTensor>(values[0]);
}

[[noreturn]] void Malformed(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kParse, where + ": " + what);
}

const json& Field(const json& object, const std::string& name, const std::string& where) {
  if (!object.is_object()) Malformed(where, "expected an object");
  auto it = object.find(name);
  if (it == object.end()) Malformed(where + "." + name, "missing");
  return *it;
}

}  // namespace

void SaveReference(const Reference& reference, const std::string& directory) {
  fs::path final_dir(directory);
  std::error_code ec;
  fs::create_directories(final_dir.parent_path(), ec);
  KILN_CHECK(!ec, ErrorKind::kIO,
             "cannot create " + final_dir.parent_path().string() + ": " + ec.message());
  fs::path tmp = final_dir.string() + ".tmp-" + UniqueSuffix();
  fs::create_directory(tmp, ec);
  KILN_CHECK(!ec, ErrorKind::kIO, "cannot create " + tmp.string() + ": " + ec.message());
  try {
    json params = json::array();
    for (size_t i = 0; i < reference.params.size(); ++i) {
      const ReferenceParam& p = reference.params[i];
      json entry = {{"name", p.name}, {"written", p.written}};
      if (IsTensor(p.input)) {
        entry["kind"] = "tensor";
        entry["dtype"] = p.input.dtype.ToString();
        entry["shape"] = p.input.shape;
        WriteTensorFile(InputTensor(p.input), (tmp / InputFile(i)).string());
        if (p.written) WriteTensorFile(p.expected, (tmp / ExpectedFile(i)).string());
      } else if (p.input.kind == ArgSpec::Kind::kInt) {
        entry["kind"] = "int";
        entry["value"] = p.input.int_value;
      } else {
        entry["kind"] = "float";
        entry["value"] = p.input.float_value;
      }
      params.push_back(std::move(entry));
    }
    json meta = {{"version", kFormatVersion},
                 {"workload_hash", reference.workload_hash},
                 {"seed", reference.seed},
                 {"source", reference.source},
                 {"params", params}};
    // meta.json last: a directory holding it is complete.
    WriteFileAtomically((tmp / "meta.json").string(), meta.dump(1));
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::rename(tmp, final_dir, ec);
  if (ec) {
    // Another process saved the same reference first; it holds the same values.
    bool exists = fs::exists(final_dir / "meta.json");
    std::string reason = ec.message();
    fs::remove_all(tmp, ec);
    KILN_CHECK(exists, ErrorKind::kIO,
               "cannot move the reference into " + final_dir.string() + ": " + reason);
  }
}

std::shared_ptr<Reference> LoadReference(const std::string& directory) {
  fs::path dir(directory);
  std::string where = (dir / "meta.json").string();
  json meta;
  try {
    meta = json::parse(ReadWholeFile(where));
  } catch (const json::exception& e) {
    Malformed(where, std::string("not valid JSON: ") + e.what());
  }
  const json& version = Field(meta, "version", where);
  if (!version.is_number_integer() || version.get<int64_t>() != kFormatVersion) {
    Malformed(where + ".version", "expected " + std::to_string(kFormatVersion));
  }
  auto reference = std::make_shared<Reference>();
  reference->directory = directory;
  reference->from_disk = true;
  const json& hash = Field(meta, "workload_hash", where);
  const json& seed = Field(meta, "seed", where);
  const json& source = Field(meta, "source", where);
  if (!hash.is_string()) Malformed(where + ".workload_hash", "expected a string");
  if (!seed.is_number_unsigned() && !seed.is_number_integer()) {
    Malformed(where + ".seed", "expected an integer");
  }
  if (!source.is_string()) Malformed(where + ".source", "expected a string");
  reference->workload_hash = hash.get<std::string>();
  reference->seed = seed.get<uint64_t>();
  reference->source = source.get<std::string>();
  const json& params = Field(meta, "params", where);
  if (!params.is_array()) Malformed(where + ".params", "expected an array");
  for (size_t i = 0; i < params.size(); ++i) {
    std::string at = where + ".params[" + std::to_string(i) + "]";
    const json& entry = params[i];
    ReferenceParam p;
    const json& name = Field(entry, "name", at);
    const json& kind = Field(entry, "kind", at);
    const json& written = Field(entry, "written", at);
    if (!name.is_string() || !kind.is_string() || !written.is_boolean()) {
      Malformed(at, "name and kind must be strings, written a boolean");
    }
    p.name = name.get<std::string>();
    p.written = written.get<bool>();
    std::string k = kind.get<std::string>();
    if (k == "tensor") {
      const json& dtype = Field(entry, "dtype", at);
      const json& shape = Field(entry, "shape", at);
      auto t = dtype.is_string() ? ir::DataType::Parse(dtype.get<std::string>()) : std::nullopt;
      if (!t) Malformed(at + ".dtype", "expected a dtype name");
      if (!shape.is_array()) Malformed(at + ".shape", "expected an array");
      std::vector<int64_t> dims;
      for (const json& d : shape) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) {
          Malformed(at + ".shape", "expected non-negative integers");
        }
        dims.push_back(d.get<int64_t>());
      }
      p.input.kind = ArgSpec::Kind::kTensorFile;
      p.input.dtype = *t;
      p.input.shape = dims;
      p.input.path = (dir / InputFile(i)).string();
      // Reading checks the byte size against dtype and shape.
      ir::HostTensor input = ReadTensorFile(p.input.path, *t, dims);
      p.expected = p.written ? ReadTensorFile((dir / ExpectedFile(i)).string(), *t, dims) : input;
    } else if (k == "int" || k == "float") {
      const json& value = Field(entry, "value", at);
      if (!value.is_number()) Malformed(at + ".value", "expected a number");
      p.input =
          k == "int" ? ArgSpec::Int(value.get<int64_t>()) : ArgSpec::Float(value.get<double>());
    } else {
      Malformed(at + ".kind", "unknown kind '" + k + "'");
    }
    reference->params.push_back(std::move(p));
  }
  return reference;
}

}  // namespace kiln::runtime
