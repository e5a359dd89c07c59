// Device keys, the device description's JSON form and the GPU runner protocol's JSON form:
// round trips, and malformed input refused with the file and field named.
#include <gtest/gtest.h>

#include "runtime/gpu/device.h"
#include "runtime/gpu/gpu_protocol.h"
#include "support/error.h"

namespace kiln::runtime::gpu {
namespace {

TEST(DeviceKey, KindAndModelInLowerCaseWithDashes) {
  EXPECT_EQ(DeviceKey("cuda", "H100"), "cuda-h100");
  EXPECT_EQ(DeviceKey("opencl", "pocl"), "opencl-pocl");
  EXPECT_EQ(DeviceKey("vulkan", "llvmpipe (LLVM 15.0.7, 256 bits)"),
            "vulkan-llvmpipe-llvm-15-0-7-256-bits");
  EXPECT_EQ(DeviceKey("cuda", "  NVIDIA  H200 "), "cuda-nvidia-h200");
}

TEST(DeviceDescription, JsonRoundTrip) {
  DeviceDescription d;
  d.kind = "opencl";
  d.name = "cpu-x86-64";
  d.key = "opencl-pocl";
  d.platform = "Portable Computing Language";
  d.limits.max_threads_per_block = 4096;
  d.limits.max_shared_bytes = 4 << 20;
  d.limits.max_block_extent = {4096, 4096, 4096};
  d.limits.fp16 = true;
  d.compute_units = 2;
  DeviceDescription back = DeviceFromJson(DeviceToJson(d), "test");
  EXPECT_EQ(back.key, d.key);
  EXPECT_EQ(back.platform, d.platform);
  EXPECT_EQ(back.limits.max_threads_per_block, 4096);
  EXPECT_EQ(back.limits.max_shared_bytes, 4 << 20);
  EXPECT_EQ(back.limits.max_block_extent[2], 4096);
  EXPECT_TRUE(back.limits.fp16);
  EXPECT_EQ(back.compute_units, 2);
}

TEST(DeviceDescription, MalformedIsAParseErrorNamingTheSource) {
  for (const char* text : {"", "{}", "{\"kind\": 1}", "[1, 2]"}) {
    try {
      DeviceFromJson(text, "device.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_NE(std::string(e.what()).find("device.json"), std::string::npos) << e.what();
    }
  }
}

TEST(GpuProtocol, RequestRoundTrip) {
  GpuRunRequest r;
  r.source_path = "/tmp/x.cl";
  r.kernels.push_back({"k0", {4, 1, 1}, {64, 2, 1}});
  r.buffers.push_back({ir::DataType::Float(32), {4, 8}, "/tmp/in0.bin", 0});
  r.buffers.push_back({ir::DataType::Float(16), {128}, "", -1});
  GpuArgSpec a;
  a.kind = GpuArgSpec::Kind::kBuffer;
  a.buffer = 1;
  GpuArgSpec n;
  n.kind = GpuArgSpec::Kind::kInt;
  n.dtype = ir::DataType::Int(32);
  n.int_value = 7;
  r.args = {a, n};
  r.timing.repeat = 3;
  r.dump_outputs = true;
  r.output_dir = "/tmp/out";
  GpuRunRequest back = GpuRequestFromJson(GpuRequestToJson(r), "request.json");
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].symbol, "k0");
  EXPECT_EQ(back.kernels[0].block[1], 2);
  ASSERT_EQ(back.buffers.size(), 2u);
  EXPECT_EQ(back.buffers[1].dtype, ir::DataType::Float(16));
  EXPECT_EQ(back.buffers[0].param_index, 0);
  ASSERT_EQ(back.args.size(), 2u);
  EXPECT_EQ(back.args[1].int_value, 7);
  EXPECT_EQ(back.args[1].dtype, ir::DataType::Int(32));
  EXPECT_EQ(back.timing.repeat, 3);
  EXPECT_TRUE(back.dump_outputs);
}

TEST(GpuProtocol, MalformedRequestsAreRefused) {
  GpuRunRequest r;
  r.kernels.push_back({"k0", {1, 1, 1}, {1, 1, 1}});
  std::string good = GpuRequestToJson(r);
  EXPECT_NO_THROW(GpuRequestFromJson(good, "r.json"));
  std::string zero_block = good;
  zero_block.replace(zero_block.find("\"block\":[1,1,1]"), 15, "\"block\":[0,1,1]");
  std::string bad_buffer = good;
  bad_buffer.replace(bad_buffer.find("\"args\":[]"), 9,
                     "\"args\":[{\"kind\":\"buffer\",\"buffer\":5,\"dtype\":\"int64\","
                     "\"int_value\":0,\"float_value\":0}]");
  for (const std::string& text :
       {std::string("{"), std::string("{\"version\": 99}"), zero_block, bad_buffer}) {
    try {
      GpuRequestFromJson(text, "r.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
      EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::runtime::gpu
