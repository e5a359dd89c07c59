// GpuRunRequest's JSON form.
#include "runtime/gpu/gpu_protocol.h"

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace kiln::runtime::gpu {

using nlohmann::json;

namespace {

ir::DataType ParseDType(const json& j, const std::string& where) {
  auto t = ir::DataType::Parse(j.get<std::string>());
  KILN_CHECK(t.has_value(), ErrorKind::kParse, where + ": unknown dtype " + j.dump());
  return *t;
}

}  // namespace

int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    KILN_CHECK(d >= 0 && (d == 0 || n <= (int64_t{1} << 40) / d), ErrorKind::kParse,
               "buffer shape with a negative or too large dimension " + std::to_string(d));
    n *= d;
  }
  return n;
}

std::string GpuRequestToJson(const GpuRunRequest& r) {
  json kernels = json::array();
  for (const auto& k : r.kernels) {
    kernels.push_back({{"symbol", k.symbol}, {"grid", k.grid}, {"block", k.block}});
  }
  json buffers = json::array();
  for (const auto& b : r.buffers) {
    buffers.push_back({{"dtype", b.dtype.ToString()},
                       {"shape", b.shape},
                       {"input_path", b.input_path},
                       {"param_index", b.param_index}});
  }
  json args = json::array();
  for (const auto& a : r.args) {
    const char* kind = a.kind == GpuArgSpec::Kind::kBuffer ? "buffer"
                       : a.kind == GpuArgSpec::Kind::kInt  ? "int"
                                                           : "float";
    args.push_back({{"kind", kind},
                    {"buffer", a.buffer},
                    {"dtype", a.dtype.ToString()},
                    {"int_value", a.int_value},
                    {"float_value", a.float_value}});
  }
  json j = {{"version", kGpuProtocolVersion},
            {"source_path", r.source_path},
            {"kernels", kernels},
            {"buffers", buffers},
            {"args", args},
            {"timing",
             {{"number", r.timing.number},
              {"repeat", r.timing.repeat},
              {"min_repeat_ms", r.timing.min_repeat_ms},
              {"flush_cache", r.timing.flush_cache},
              {"warmup", r.timing.warmup}}},
            {"time", r.time},
            {"dump_outputs", r.dump_outputs},
            {"output_dir", r.output_dir},
            {"cpu_limit_s", r.cpu_limit_s}};
  return j.dump();
}

GpuRunRequest GpuRequestFromJson(const std::string& text, const std::string& where) {
  GpuRunRequest r;
  try {
    json j = json::parse(text);
    KILN_CHECK(j.at("version").get<int>() == kGpuProtocolVersion, ErrorKind::kParse,
               where + ": GPU request version " + j.at("version").dump() + ", expected " +
                   std::to_string(kGpuProtocolVersion));
    r.source_path = j.at("source_path").get<std::string>();
    for (const json& k : j.at("kernels")) {
      codegen::gpu::ConcreteLaunch launch;
      launch.symbol = k.at("symbol").get<std::string>();
      launch.grid = k.at("grid").get<std::array<int64_t, 3>>();
      launch.block = k.at("block").get<std::array<int64_t, 3>>();
      for (int a = 0; a < 3; ++a) {
        KILN_CHECK(launch.grid[a] >= 1 && launch.block[a] >= 1, ErrorKind::kParse,
                   where + ": kernel " + launch.symbol + " has a launch extent below 1");
      }
      r.kernels.push_back(std::move(launch));
    }
    for (const json& b : j.at("buffers")) {
      GpuBufferSpec spec;
      spec.dtype = ParseDType(b.at("dtype"), where);
      spec.shape = b.at("shape").get<std::vector<int64_t>>();
      ElementCount(spec.shape);
      spec.input_path = b.at("input_path").get<std::string>();
      spec.param_index = b.at("param_index").get<int>();
      r.buffers.push_back(std::move(spec));
    }
    for (const json& a : j.at("args")) {
      GpuArgSpec spec;
      std::string kind = a.at("kind").get<std::string>();
      KILN_CHECK(kind == "buffer" || kind == "int" || kind == "float", ErrorKind::kParse,
                 where + ": unknown argument kind " + kind);
      spec.kind = kind == "buffer" ? GpuArgSpec::Kind::kBuffer
                  : kind == "int"  ? GpuArgSpec::Kind::kInt
                                   : GpuArgSpec::Kind::kFloat;
      spec.buffer = a.at("buffer").get<int>();
      KILN_CHECK(spec.kind != GpuArgSpec::Kind::kBuffer ||
                     (spec.buffer >= 0 && spec.buffer < static_cast<int>(r.buffers.size())),
                 ErrorKind::kParse,
                 where + ": argument names buffer " + std::to_string(spec.buffer) + " of " +
                     std::to_string(r.buffers.size()));
      spec.dtype = ParseDType(a.at("dtype"), where);
      spec.int_value = a.at("int_value").get<int64_t>();
      spec.float_value = a.at("float_value").get<double>();
      r.args.push_back(spec);
    }
    const json& t = j.at("timing");
    r.timing.number = t.at("number").get<int>();
    r.timing.repeat = t.at("repeat").get<int>();
    r.timing.min_repeat_ms = t.at("min_repeat_ms").get<double>();
    r.timing.flush_cache = t.at("flush_cache").get<bool>();
    r.timing.warmup = t.at("warmup").get<int>();
    r.time = j.at("time").get<bool>();
    r.dump_outputs = j.at("dump_outputs").get<bool>();
    r.output_dir = j.at("output_dir").get<std::string>();
    r.cpu_limit_s = j.at("cpu_limit_s").get<double>();
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, where + ": malformed GPU request: " + e.what());
  }
  return r;
}

}  // namespace kiln::runtime::gpu
