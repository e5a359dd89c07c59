// Validation over Kiln's service: this process is the coordinator endpoint
// (validate/validation_service.h), a real kiln-worker process joins it on loopback, and every
// kernel call travels to the worker with its values and back with its outputs. On this CPU and
// on the GPU devices this machine has (lavapipe, PoCL): the bundled models agree, and a worker
// started with a fault has its kernel named by replay and offload.
#include <gtest/gtest.h>

#include "tests/integration/process_util.h"
#include "validate/report.h"
#include "validate/validation_service.h"
#include "validate_test_util.h"

namespace kiln::validate {
namespace {

using testing::ExampleModel;
using testing::PreparedModel;
using testing::PrepareFile;

struct DeviceCase {
  std::string device;  // kiln-worker --device
  std::string target;
};

class OverTheService : public testing::ValidateTestBase,
                       public ::testing::WithParamInterface<DeviceCase> {
 protected:
  // A worker of the device joined to `service`, with `fault` arguments; killed at the end.
  std::unique_ptr<kiln::testing::Process> StartWorker(ValidationService& service,
                                                      std::vector<std::string> fault,
                                                      const std::string& log) {
    std::vector<std::string> argv = {KILN_WORKER_PATH,
                                     "--coordinator",
                                     service.endpoint(),
                                     "--device",
                                     GetParam().device,
                                     "--build-jobs",
                                     "1",
                                     "--cache-dir",
                                     (dir_ / "worker-cache").string()};
    argv.insert(argv.end(), fault.begin(), fault.end());
    return std::make_unique<kiln::testing::Process>(argv, (dir_ / log).string());
  }
};

TEST_P(OverTheService, EveryBundledModelAgreesAndAWorkersFaultIsNamed) {
  const DeviceCase& c = GetParam();
  try {
    Device(c.target);  // this machine has the device (the worker would say it has not)
  } catch (const Error& e) {
    GTEST_SKIP() << "skipped: no " << c.device << " device: " << e.what();
  }
  struct Model {
    std::string name;
    std::map<std::string, int64_t> dims;
  };
  std::vector<Model> models = {
      {"mlp", {{"batch", 4}}}, {"cnn", {}}, {"transformer_block", {{"seq_len", 8}}}};
  {
    ValidationService service({"tcp://127.0.0.1:*", c.target, "", 30});
    auto worker = StartWorker(service, {}, "worker.log");
    ASSERT_NO_THROW(service.WaitForWorker(60));
    TargetOptions options;
    options.target = c.target;
    options.remote = &service.dispatcher();
    TargetDevice device(options);
    EXPECT_NE(device.Describe().find("through the service"), std::string::npos);
    for (const Model& m : models) {
      SCOPED_TRACE(m.name);
      PreparedModel p = PrepareFile(ExampleModel(m.name), m.dims);
      ValidationReport r = Validate(p.module, p.entry, p.name, p.inputs, device, Options(m.name));
      EXPECT_TRUE(r.ok()) << SummaryText(r);
      for (const KernelFinding& f : r.replay->calls) EXPECT_GT(f.device_seconds, 0) << f.task;
    }
  }
  // A worker whose softmax is wrong: named by replay and by offload, the carve reused.
  ValidationService service({"tcp://127.0.0.1:*", c.target, "", 30});
  auto worker = StartWorker(service, {"--fault", "wrong", "--fault-task", "softmax"}, "faulty.log");
  ASSERT_NO_THROW(service.WaitForWorker(60));
  TargetOptions options;
  options.target = c.target;
  options.remote = &service.dispatcher();
  TargetDevice device(options);
  PreparedModel p = PrepareFile(ExampleModel("transformer_block"), {{"seq_len", 8}});
  ValidationReport r =
      Validate(p.module, p.entry, p.name, p.inputs, device, Options("transformer_block"));
  EXPECT_TRUE(r.carve_reused);
  EXPECT_FALSE(r.ok());
  for (const KernelFinding& f : r.replay->calls) {
    EXPECT_EQ(!f.ok(), f.prim_func == "softmax") << f.prim_func << ": " << f.message;
  }
  ASSERT_TRUE(r.offload->first_bad_call.has_value()) << SummaryText(r);
  EXPECT_EQ(r.offload->first_bad_prim_func, "softmax");
}

INSTANTIATE_TEST_SUITE_P(Devices, OverTheService,
                         ::testing::Values(DeviceCase{"cpu", "llvm"},
                                           DeviceCase{"vulkan", "vulkan"},
                                           DeviceCase{"opencl", "opencl"}),
                         [](const ::testing::TestParamInfo<DeviceCase>& info) {
                           return info.param.device;
                         });

TEST(ValidationServiceTest, NoWorkerIsAnErrorNamingTheAddressAndTarget) {
  ValidationService service({"tcp://127.0.0.1:*", "vulkan", "", 30});
  try {
    service.WaitForWorker(0.2);
    ADD_FAILURE() << "a worker was found";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(service.endpoint()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("vulkan"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::validate
