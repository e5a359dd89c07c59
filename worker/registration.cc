// A worker's registration message, with the device facts of this machine's CPU.
#include "worker/registration.h"

#include <algorithm>
#include <thread>

#include "runtime/host_cpu.h"
#include "worker/device_key.h"

namespace kiln::worker {

schemas::RegisterMsg MakeRegistration(const RegistrationOptions& o) {
  schemas::RegisterMsg m;
  bool cpu = o.device == "cpu";
  m.worker_id = o.worker_id;
  m.device_key = !o.device_key.empty() ? o.device_key : cpu ? DetectCpuDeviceKey() : o.device;
  m.target = o.target;
  m.can_build = true;
  m.can_run = true;
  m.concurrency = static_cast<uint32_t>(std::clamp(o.build_jobs, 1, 4096));
  m.hardware = cpu ? DetectCpuHardware() : o.device;
  m.hostname = o.hostname;
  if (cpu) {
    m.vector_bytes = static_cast<uint32_t>(runtime::HostVectorBytes());
    m.num_cores = std::max(1u, std::thread::hardware_concurrency());
  }
  return m;
}

}  // namespace kiln::worker
