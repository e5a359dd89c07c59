// A worker's registration: a CPU worker registers its detected key and the facts the
// coordinator fits the design space to (its vector width from /proc/cpuinfo's flags, its
// hardware threads); another kind registers none unless it knows them; a key given wins.
#include "worker/registration.h"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/host_cpu.h"
#include "schemas/convert.h"
#include "worker/device_key.h"

namespace kiln::worker {
namespace {

TEST(Registration, ACpuWorkerRegistersItsVectorWidthAndCores) {
  schemas::RegisterMsg m =
      MakeRegistration({.worker_id = "w", .device = "cpu", .build_jobs = 2, .hostname = "h"});
  EXPECT_EQ(m.worker_id, "w");
  EXPECT_EQ(m.device_key, DetectCpuDeviceKey());
  EXPECT_EQ(m.target, "llvm");
  EXPECT_EQ(m.concurrency, 2u);
  EXPECT_EQ(m.hostname, "h");
  EXPECT_EQ(m.vector_bytes, static_cast<uint32_t>(runtime::HostVectorBytes()));
  EXPECT_TRUE(m.vector_bytes == 16 || m.vector_bytes == 32 || m.vector_bytes == 64);
  EXPECT_EQ(m.num_cores, std::max(1u, std::thread::hardware_concurrency()));
  // What the coordinator reads is what was sent.
  EXPECT_EQ(std::get<schemas::RegisterMsg>(schemas::Decode(schemas::Encode(m))), m);
}

TEST(Registration, OtherKindsRegisterNoFactsAndAGivenKeyWins) {
  schemas::RegisterMsg fake = MakeRegistration({.worker_id = "f", .device = "fake"});
  EXPECT_EQ(fake.device_key, "fake");
  EXPECT_EQ(fake.vector_bytes, 0u);
  EXPECT_EQ(fake.num_cores, 0u);
  schemas::RegisterMsg named =
      MakeRegistration({.worker_id = "n", .device = "cpu", .device_key = "cpu-lab-7"});
  EXPECT_EQ(named.device_key, "cpu-lab-7");
  EXPECT_EQ(MakeRegistration({.worker_id = "z", .build_jobs = 0}).concurrency, 1u);
}

}  // namespace
}  // namespace kiln::worker
