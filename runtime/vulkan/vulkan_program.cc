// JSON form of a Vulkan program, validated on the way in.
#include "runtime/vulkan/vulkan_program.h"

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace kiln::runtime::vulkan {
namespace {

using json = nlohmann::json;

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kParse, where + ": " + what);
}

const json& Field(const json& object, const char* name, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end()) Fail(where + "." + name, "missing");
  return *it;
}

uint32_t UInt32(const json& v, const std::string& where) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > UINT32_MAX) {
    Fail(where, "expected an integer in [0, 4294967295]");
  }
  return static_cast<uint32_t>(v.get<int64_t>());
}

std::array<uint32_t, 3> Dims(const json& object, const char* name, const std::string& where) {
  const json& v = Field(object, name, where);
  std::string at = where + "." + name;
  if (!v.is_array() || v.size() != 3) Fail(at, "expected three integers (x, y, z)");
  std::array<uint32_t, 3> dims;
  for (int d = 0; d < 3; ++d) {
    dims[d] = UInt32(v[d], at + "[" + std::to_string(d) + "]");
    if (dims[d] == 0) Fail(at + "[" + std::to_string(d) + "]", "expected a positive integer");
  }
  return dims;
}

std::string String(const json& object, const char* name, const std::string& where) {
  const json& v = Field(object, name, where);
  if (!v.is_string()) Fail(where + "." + name, "expected a string");
  return v.get<std::string>();
}

}  // namespace

std::string ProgramToJson(const VulkanProgram& program) {
  json kernels = json::array();
  for (const VulkanKernelSpec& k : program.kernels) {
    kernels.push_back({{"name", k.name},
                       {"glsl", k.glsl},
                       {"groups", k.groups},
                       {"threads", k.threads},
                       {"shared_bytes", k.shared_bytes}});
  }
  return json{{"version", kVulkanProgramVersion},
              {"kernels", kernels},
              {"workspace_bytes", program.workspace_bytes}}
      .dump(1);
}

VulkanProgram ProgramFromJson(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    Fail(where, std::string("not valid JSON (truncated or corrupt?): ") + e.what());
  }
  if (!j.is_object()) Fail(where, "expected an object");
  const json& version = Field(j, "version", where);
  if (!version.is_number_integer() || version.get<int64_t>() != kVulkanProgramVersion) {
    Fail(where + ".version",
         "expected " + std::to_string(kVulkanProgramVersion) + ", got " + version.dump());
  }
  const json& kernels = Field(j, "kernels", where);
  if (!kernels.is_array() || kernels.empty()) {
    Fail(where + ".kernels", "expected a non-empty array");
  }
  VulkanProgram program;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::string at = where + ".kernels[" + std::to_string(i) + "]";
    const json& k = kernels[i];
    if (!k.is_object()) Fail(at, "expected an object");
    VulkanKernelSpec spec;
    spec.name = String(k, "name", at);
    spec.glsl = String(k, "glsl", at);
    spec.groups = Dims(k, "groups", at);
    spec.threads = Dims(k, "threads", at);
    spec.shared_bytes = UInt32(Field(k, "shared_bytes", at), at + ".shared_bytes");
    program.kernels.push_back(std::move(spec));
  }
  if (j.contains("workspace_bytes")) {
    const json& workspace = j["workspace_bytes"];
    if (!workspace.is_array()) Fail(where + ".workspace_bytes", "expected an array");
    for (size_t i = 0; i < workspace.size(); ++i) {
      std::string at = where + ".workspace_bytes[" + std::to_string(i) + "]";
      const json& v = workspace[i];
      // A scratch buffer of more than 16 GiB is a corrupt file, not a kernel's need.
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t{1} << 34)) {
        Fail(at, "expected a byte count in [0, 2^34]");
      }
      program.workspace_bytes.push_back(v.get<uint64_t>());
    }
  }
  return program;
}

}  // namespace kiln::runtime::vulkan
