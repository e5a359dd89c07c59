// Device keys and the JSON form of a device description.
#include "runtime/gpu/device.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace kiln::runtime::gpu {

using nlohmann::json;

std::string DeviceKey(const std::string& kind, const std::string& model) {
  std::string key;
  bool dash = false;
  for (char c : kind + "-" + model) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (dash && !key.empty()) key += '-';
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      dash = false;
    } else {
      dash = true;
    }
  }
  return key;
}

std::string DeviceToJson(const DeviceDescription& d) {
  const codegen::gpu::GpuLimits& l = d.limits;
  json j = {{"kind", d.kind},
            {"name", d.name},
            {"key", d.key},
            {"driver_version", d.driver_version},
            {"platform", d.platform},
            {"compute_units", d.compute_units},
            {"timer_resolution_ns", d.timer_resolution_ns},
            {"emulated", d.emulated},
            {"limits",
             {{"max_threads_per_block", l.max_threads_per_block},
              {"max_block_extent", l.max_block_extent},
              {"max_grid_extent", l.max_grid_extent},
              {"max_shared_bytes", l.max_shared_bytes},
              {"warp_size", l.warp_size},
              {"max_buffer_arguments", l.max_buffer_arguments},
              {"fp16", l.fp16},
              {"fp64", l.fp64},
              {"int64", l.int64}}}};
  return j.dump();
}

DeviceDescription DeviceFromJson(const std::string& text, const std::string& where) {
  DeviceDescription d;
  try {
    json j = json::parse(text);
    d.kind = j.at("kind").get<std::string>();
    d.name = j.at("name").get<std::string>();
    d.key = j.at("key").get<std::string>();
    d.driver_version = j.value("driver_version", "");
    d.platform = j.value("platform", "");
    d.compute_units = j.value("compute_units", 0);
    d.timer_resolution_ns = j.value("timer_resolution_ns", 0.0);
    d.emulated = j.value("emulated", false);
    const json& l = j.at("limits");
    d.limits.max_threads_per_block = l.at("max_threads_per_block").get<int64_t>();
    d.limits.max_block_extent = l.at("max_block_extent").get<std::array<int64_t, 3>>();
    d.limits.max_grid_extent = l.at("max_grid_extent").get<std::array<int64_t, 3>>();
    d.limits.max_shared_bytes = l.at("max_shared_bytes").get<int64_t>();
    d.limits.warp_size = l.value("warp_size", int64_t{32});
    d.limits.max_buffer_arguments = l.value("max_buffer_arguments", int64_t{1} << 20);
    d.limits.fp16 = l.value("fp16", false);
    d.limits.fp64 = l.value("fp64", true);
    d.limits.int64 = l.value("int64", true);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, where + ": not a device description: " + e.what());
  }
  KILN_CHECK(d.limits.max_threads_per_block >= 1 && d.limits.max_shared_bytes >= 0,
             ErrorKind::kParse, where + ": device limits must be positive");
  return d;
}

}  // namespace kiln::runtime::gpu
