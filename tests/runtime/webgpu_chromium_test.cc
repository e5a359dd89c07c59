// An emitted WebGPU kernel in a real browser: Debian's chromium, headless with
// --enable-unsafe-webgpu (its SwiftShader adapter, no GPU needed), opens a page this test serves
// on loopback; the page runs the kernel the way kiln-webgpu-runner does (one explicit bind group
// layout, the override constants, the folded dispatch, codegen/webgpu/webgpu_abi.h) and posts
// the outputs back; they are compared with the reference interpreter's. The browser is closed
// over the DevTools protocol (--remote-debugging-pipe: Browser.close) and its process group
// ended by id. Chrome compiles WGSL with Tint, so this also checks that the emitted module is one
// Chrome accepts. Without chromium, or without a WebGPU adapter in it, the test says skipped.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "codegen/lower.h"
#include "codegen/webgpu/webgpu_abi.h"
#include "codegen/webgpu/wgsl_emitter.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/measure_result.h"
#include "runtime/webgpu/pipeline_constants.h"
#include "search/schedule/schedule.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::runtime::webgpu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string FindChromium() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    for (const char* name : {"chromium", "chromium-browser"}) {
      fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
        return candidate.string();
      }
    }
    start = end + 1;
  }
  return "";
}

std::string Base64(const void* data, size_t n) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = static_cast<const uint8_t*>(data);
  std::string out;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    out += digits[v >> 18 & 63];
    out += digits[v >> 12 & 63];
    out += i + 1 < n ? digits[v >> 6 & 63] : '=';
    out += i + 2 < n ? digits[v & 63] : '=';
  }
  return out;
}

std::vector<uint8_t> FromBase64(const std::string& text) {
  std::vector<uint8_t> out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    int d = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+'             ? 62
            : c == '/'             ? 63
                                   : -1;
    if (d < 0) continue;
    v = v << 6 | d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(v >> bits & 0xff));
    }
  }
  return out;
}

// A one-page HTTP server on 127.0.0.1: GET / answers `page`, POST /result keeps the body.
class LoopbackServer {
 public:
  explicit LoopbackServer(std::string page) : page_(std::move(page)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw Error(ErrorKind::kIO, "loopback server: cannot listen");
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

  // The posted body, or "" when none came within `seconds`.
  std::string WaitForResult(double seconds) {
    std::unique_lock lock(mutex_);
    posted_.wait_for(lock, std::chrono::duration<double>(seconds),
                     [&] { return !result_.empty(); });
    return result_;
  }

 private:
  void Loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) continue;
      Handle(client);
      ::close(client);
    }
  }

  void Handle(int client) {
    std::string request;
    char buffer[65536];
    size_t header_end = std::string::npos;
    size_t body_length = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{client, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      ssize_t n = ::read(client, buffer, sizeof buffer);
      if (n <= 0) break;
      request.append(buffer, static_cast<size_t>(n));
      if (header_end == std::string::npos) {
        header_end = request.find("\r\n\r\n");
        if (header_end == std::string::npos) continue;
        size_t at = request.find("Content-Length: ");
        if (at != std::string::npos && at < header_end)
          body_length = std::stoul(request.substr(at + 16));
      }
      if (request.size() >= header_end + 4 + body_length) break;
    }
    std::string reply;
    if (request.rfind("GET / ", 0) == 0) {
      reply = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
              std::to_string(page_.size()) + "\r\nConnection: close\r\n\r\n" + page_;
    } else if (request.rfind("POST /result ", 0) == 0 && header_end != std::string::npos) {
      {
        std::lock_guard lock(mutex_);
        result_ = request.substr(header_end + 4);
      }
      posted_.notify_all();
      reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    } else {
      reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    }
    for (size_t sent = 0; sent < reply.size();) {
      ssize_t n = ::write(client, reply.data() + sent, reply.size() - sent);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  }

  std::string page_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable posted_;
  std::string result_;
};

// Headless chromium on `url` in its own process group, driven over --remote-debugging-pipe.
class Browser {
 public:
  Browser(const std::string& chromium, const std::string& profile, const std::string& url) {
    int to_browser[2], from_browser[2];
    if (::pipe(to_browser) != 0 || ::pipe(from_browser) != 0) throw Error(ErrorKind::kIO, "pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      // The DevTools pipe: commands on fd 3, answers on fd 4.
      ::dup2(to_browser[0], 3);
      ::dup2(from_browser[1], 4);
      int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
      for (int fd = 5; fd < 1024; ++fd) ::close(fd);
      std::string profile_arg = "--user-data-dir=" + profile;
      const char* argv[] = {chromium.c_str(),
                            "--headless=new",
                            "--enable-unsafe-webgpu",
                            "--no-sandbox",
                            "--disable-background-networking",
                            "--disable-component-update",
                            "--disable-sync",
                            "--no-first-run",
                            "--remote-debugging-pipe",
                            profile_arg.c_str(),
                            url.c_str(),
                            nullptr};
      ::execv(argv[0], const_cast<char**>(argv));
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
    ::close(to_browser[0]);
    ::close(from_browser[1]);
    commands_ = to_browser[1];
    answers_ = from_browser[0];
    ::fcntl(answers_, F_SETFL, O_NONBLOCK);
  }

  // Browser.close over the pipe, a few seconds to end, then the process group is killed.
  ~Browser() {
    std::string close = R"({"id":1,"method":"Browser.close"})";
    close.push_back('\0');
    [[maybe_unused]] ssize_t n = ::write(commands_, close.data(), close.size());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    int status = 0;
    char drain[4096];
    while (::waitpid(pid_, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
      while (::read(answers_, drain, sizeof drain) > 0) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    ::close(commands_);
    ::close(answers_);
  }

 private:
  pid_t pid_ = -1;
  int commands_ = -1;
  int answers_ = -1;
};

// The page: the module, the buffers (base64), the uniform, each kernel's constants and
// dispatch; it posts {adapter, outputs: [base64 per buffer]} or {error}.
std::string Page(const json& config) {
  return R"(<!doctype html><html><body><script>
const config = )" +
         config.dump() +
         R"(;
function bytes(b64) { return Uint8Array.from(atob(b64), c => c.charCodeAt(0)); }
function b64(array) {
  let s = ""; for (let i = 0; i < array.length; i += 32768)
    s += String.fromCharCode.apply(null, array.subarray(i, i + 32768));
  return btoa(s);
}
async function run() {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) return {error: "no WebGPU adapter"};
  const device = await adapter.requestDevice();
  device.pushErrorScope("validation");
  const module = device.createShaderModule({code: config.wgsl});
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter(m => m.type === "error");
  if (errors.length) return {error: "WGSL: " + errors.map(m => m.lineNum + ":" + m.linePos + " " + m.message).join("; ")};
  const U = GPUBufferUsage;
  const buffers = config.buffers.map(b => {
    const data = bytes(b.data);
    const size = Math.max(4, Math.ceil(data.length / 4) * 4);
    const buffer = device.createBuffer({size, usage: U.STORAGE | U.COPY_SRC | U.COPY_DST});
    const padded = new Uint8Array(size); padded.set(data);
    device.queue.writeBuffer(buffer, 0, padded);
    return {buffer, size, length: data.length};
  });
  const entries = buffers.map((b, i) => ({binding: i, visibility: GPUShaderStage.COMPUTE, buffer: {type: "storage"}}));
  const resources = buffers.map((b, i) => ({binding: i, resource: {buffer: b.buffer}}));
  if (config.uniform) {
    const data = bytes(config.uniform);
    const buffer = device.createBuffer({size: data.length, usage: U.UNIFORM | U.COPY_DST});
    device.queue.writeBuffer(buffer, 0, data);
    entries.push({binding: buffers.length, visibility: GPUShaderStage.COMPUTE, buffer: {type: "uniform"}});
    resources.push({binding: buffers.length, resource: {buffer}});
  }
  const layout = device.createBindGroupLayout({entries});
  const pipelineLayout = device.createPipelineLayout({bindGroupLayouts: [layout]});
  const group = device.createBindGroup({layout, entries: resources});
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  for (const k of config.kernels) {
    pass.setPipeline(device.createComputePipeline({layout: pipelineLayout,
        compute: {module, entryPoint: k.symbol, constants: k.constants}}));
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(...k.dispatch);
  }
  pass.end();
  const reads = buffers.map(b => {
    const read = device.createBuffer({size: b.size, usage: U.MAP_READ | U.COPY_DST});
    encoder.copyBufferToBuffer(b.buffer, 0, read, 0, b.size);
    return read;
  });
  device.queue.submit([encoder.finish()]);
  const error = await device.popErrorScope();
  if (error) return {error: error.message};
  const outputs = [];
  for (let i = 0; i < reads.length; ++i) {
    await reads[i].mapAsync(GPUMapMode.READ);
    outputs.push(b64(new Uint8Array(reads[i].getMappedRange()).slice(0, buffers[i].length)));
  }
  return {adapter: adapter.info.vendor + " " + adapter.info.architecture, outputs};
}
run().catch(e => ({error: String(e)})).then(r =>
    fetch("/result", {method: "POST", body: JSON.stringify(r)}));
</script></body></html>
)";
}

// matmul 32 x 48 x 40 as a tuned schedule looks: 8 x 16 threads, k in steps of 8 through
// workgroup-memory tiles of A and B fetched cooperatively, barriers around each step.
ir::PrimFunc TiledMatmul(const ir::PrimFunc& f) {
  search::Schedule sch(f);
  search::BlockRV c = sch.GetBlock("C");
  search::BlockRV a_shared = sch.CacheRead(c, 0, "shared");
  search::BlockRV b_shared = sch.CacheRead(c, 1, "shared");
  std::vector<search::LoopRV> loops = sch.GetLoops(c);
  std::vector<search::LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<search::LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  std::vector<search::LoopRV> k = sch.Split(loops[2], {std::nullopt, 8});
  sch.Reorder({i[0], j[0], i[1], j[1], k[0], k[1]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  for (search::BlockRV cache : {a_shared, b_shared}) {
    sch.ComputeAt(cache, k[0]);
    std::vector<search::LoopRV> cl = sch.GetLoops(cache);
    search::LoopRV fused = sch.Fuse({cl[cl.size() - 2], cl[cl.size() - 1]});
    std::vector<search::LoopRV> parts = sch.Split(fused, {std::nullopt, 8, 16});
    sch.Bind(parts[1], "threadIdx.y");
    sch.Bind(parts[2], "threadIdx.x");
  }
  return sch.func();
}

TEST(WebGpuChromiumTest, AnEmittedKernelRunsInAPageAndMatchesTheInterpreter) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("matmul");
  ir::PrimFunc f = entry.build();
  codegen::WebGpuTarget target;
  codegen::EmittedSource source =
      target.Emit(codegen::Lower(TiledMatmul(f), target.DefaultLowerOptions()), "kiln_matmul");
  ASSERT_NE(source.code.find("var<workgroup>"), std::string::npos) << source.code;
  std::vector<ir::HostTensor> inputs = ir::zoo::MakeArguments(entry, f, 11);

  std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "skipped: no chromium on PATH (deploy/install-deps.sh)";

  // The arguments are the function's buffers (no scalars, no workspace for this schedule).
  ASSERT_TRUE(source.launch->workspace.empty());
  json config;
  config["wgsl"] = source.code;
  config["uniform"] = nullptr;
  config["buffers"] = json::array();
  for (const ir::HostTensor& t : inputs) {
    config["buffers"].push_back({{"data", Base64(t.data(), t.nbytes())}});
  }
  config["kernels"] = json::array();
  for (const codegen::gpu::KernelLaunch& k : source.launch->kernels) {
    codegen::gpu::ConcreteLaunch launch = codegen::gpu::Concretize(k, entry.shape_vars);
    json constants = json::object();
    for (const auto& [name, value] : PipelineConstants(source.code, launch))
      constants[name] = value;
    std::array<uint32_t, 3> dispatch = codegen::webgpu::DispatchOf(launch, 65535);
    config["kernels"].push_back({{"symbol", launch.symbol},
                                 {"constants", constants},
                                 {"dispatch", {dispatch[0], dispatch[1], dispatch[2]}}});
  }

  testing::ScratchDir dir;
  LoopbackServer server(Page(config));
  std::string posted;
  {
    Browser browser(chromium, dir.Sub("profile"), server.Url());
    posted = server.WaitForResult(120);
  }
  ASSERT_FALSE(posted.empty()) << "chromium posted nothing within 120 s";
  json result = json::parse(posted);
  if (result.contains("error") && result["error"] == "no WebGPU adapter") {
    GTEST_SKIP() << "skipped: chromium has no WebGPU adapter here";
  }
  ASSERT_FALSE(result.contains("error")) << result["error"] << "\n" << source.code;
  ASSERT_EQ(result["outputs"].size(), inputs.size());

  std::vector<ir::ArgValue> args(inputs.begin(), inputs.end());
  ir::Interpret(f, args);
  std::vector<ir::HostTensor> expected, actual;
  for (size_t i = 0; i < inputs.size(); ++i) {
    expected.push_back(std::get<ir::HostTensor>(args[i]));
    std::vector<uint8_t> data = FromBase64(result["outputs"][i].get<std::string>());
    ir::HostTensor out(inputs[i].dtype(), inputs[i].shape());
    ASSERT_EQ(data.size(), out.nbytes()) << "buffer " << i;
    std::memcpy(out.data(), data.data(), data.size());
    actual.push_back(std::move(out));
  }
  MeasureResult checked;
  CheckOutputs(expected, actual, checked, std::nullopt, {"A", "B", "C"});
  EXPECT_TRUE(checked.ok()) << checked.message << "\nadapter: " << result["adapter"];
}

}  // namespace
}  // namespace kiln::runtime::webgpu
