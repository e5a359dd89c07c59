// Hand-written WGSL for the WebGPU runtime and validator tests, following the contract of
// codegen/webgpu/webgpu_abi.h (storage buffers in bind group 0 in argument order, one uniform
// struct of 32-bit scalars after them, the workgroup size and logical grid as the override
// constants kiln_wg_* and kiln_grid_*, the logical block recovered from the folded dispatch),
// and the three kernels naga accepts and Tint rejects.
#pragma once

namespace kiln::runtime::webgpu::test_wgsl {

// The six override constants and the logical block of the folded dispatch; a workgroup past the
// logical grid leaves as a whole (uniform control flow, so barriers stay valid).
#define KILN_WGSL_PRELUDE                                                                          \
  "override kiln_wg_x: u32 = 1u;\n"                                                                \
  "override kiln_wg_y: u32 = 1u;\n"                                                                \
  "override kiln_wg_z: u32 = 1u;\n"                                                                \
  "override kiln_grid_x: u32 = 1u;\n"                                                              \
  "override kiln_grid_y: u32 = 1u;\n"                                                              \
  "override kiln_grid_z: u32 = 1u;\n"                                                              \
  "fn kiln_block(wid: vec3<u32>, nwg: vec3<u32>) -> vec3<u32> {\n"                                 \
  "  let linear = wid.x + nwg.x * (wid.y + nwg.y * wid.z);\n"                                      \
  "  return vec3<u32>(linear % kiln_grid_x, (linear / kiln_grid_x) % kiln_grid_y,\n"               \
  "                   linear / (kiln_grid_x * kiln_grid_y));\n"                                    \
  "}\n"                                                                                            \
  "fn kiln_past_grid(wid: vec3<u32>, nwg: vec3<u32>) -> bool {\n"                                  \
  "  return wid.x + nwg.x * (wid.y + nwg.y * wid.z) >= kiln_grid_x * kiln_grid_y * kiln_grid_z;\n" \
  "}\n"

// The zoo's "matmul": C[32, 48] = A[32, 40] x B[40, 48], in 8 x 8 tiles of A and B staged
// through workgroup memory between barriers. Launch: grid (6, 4, 1), block (8, 8, 1).
inline constexpr char kTiledMatmul[] = KILN_WGSL_PRELUDE R"(
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
const N: u32 = 48u;
const K: u32 = 40u;
const T: u32 = 8u;
var<workgroup> As: array<f32, 64>;
var<workgroup> Bs: array<f32, 64>;
@compute @workgroup_size(kiln_wg_x, kiln_wg_y, kiln_wg_z)
fn matmul(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
  if (kiln_past_grid(wid, nwg)) { return; }
  let block = kiln_block(wid, nwg);
  let i = block.y * T + lid.y;
  let j = block.x * T + lid.x;
  var acc = 0.0;
  for (var k0 = 0u; k0 < K; k0 += T) {
    As[lid.y * T + lid.x] = A[i * K + k0 + lid.x];
    Bs[lid.y * T + lid.x] = B[(k0 + lid.y) * N + j];
    workgroupBarrier();
    for (var k1 = 0u; k1 < T; k1++) {
      acc += As[lid.y * T + k1] * Bs[k1 * T + lid.x];
    }
    workgroupBarrier();
  }
  C[i * N + j] = acc;
}
)";

// C[i] = A[i] * alpha + B[i] for i < n: the scalars (alpha: float32, n: int64) in the uniform.
inline constexpr char kAxpy[] = KILN_WGSL_PRELUDE R"(
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
struct Args { alpha: f32, n: i32 }
@group(0) @binding(3) var<uniform> args: Args;
@compute @workgroup_size(kiln_wg_x, kiln_wg_y, kiln_wg_z)
fn axpy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
  if (kiln_past_grid(wid, nwg)) { return; }
  let i = i32(kiln_block(wid, nwg).x * kiln_wg_x + lid.x);
  if (i < args.n) { C[i] = A[i] * args.alpha + B[i]; }
}
)";

// Work that would take hours (wgpu bounds every loop, so a hang is long, not endless): each
// thread of a huge grid spins 65535 times. Launch: grid (65535, 64, 1), block (64, 1, 1).
inline constexpr char kHang[] = KILN_WGSL_PRELUDE R"(
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
struct Args { alpha: f32, n: i32 }
@group(0) @binding(3) var<uniform> args: Args;
@compute @workgroup_size(kiln_wg_x, kiln_wg_y, kiln_wg_z)
fn axpy(@builtin(local_invocation_id) lid: vec3<u32>) {
  var x = A[lid.x];
  for (var i = 0u; i < 65535u; i++) { x = x * 0.999 + B[i % 64u] * args.alpha; }
  C[lid.x] = x;
}
)";

// naga accepts, Tint rejects: a barrier under a branch on a value read from memory.
inline constexpr char kBarrierInNonUniformControlFlow[] = R"(
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
var<workgroup> s: array<f32, 64>;
@compute @workgroup_size(64)
fn bad(@builtin(local_invocation_index) i: u32) {
  if (A[i] > 0.0) { workgroupBarrier(); }
  s[i] = A[i];
  A[i] = s[63u - i];
}
)";

// naga accepts, Tint rejects: one variable passed as two pointer arguments.
inline constexpr char kAliasedPointerArguments[] = R"(
fn add_into(a: ptr<function, f32>, b: ptr<function, f32>) { *a = *a + *b; *b = 0.0; }
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
@compute @workgroup_size(1)
fn bad() {
  var x = A[0];
  add_into(&x, &x);
  A[0] = x;
}
)";

// naga accepts, Tint rejects: 20 KiB of workgroup memory, past WebGPU's default 16 KiB.
inline constexpr char kWorkgroupMemoryPastTheLimit[] = R"(
@group(0) @binding(0) var<storage, read_write> A: array<f32>;
var<workgroup> big: array<f32, 5120>;
@compute @workgroup_size(64)
fn bad(@builtin(local_invocation_index) i: u32) {
  big[i * 80u] = A[i];
  workgroupBarrier();
  A[i] = big[(63u - i) * 80u];
}
)";

}  // namespace kiln::runtime::webgpu::test_wgsl
