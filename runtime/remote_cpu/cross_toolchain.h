// The compiler and flags that build a kernel's C for a device runner's triple on this host.
// The C emitter's code is portable (GCC vector extensions, no intrinsics), so only the
// compiler and -march change: the host CPU's -march=native (runtime/cpu_builder.h) is never
// used for another machine.
//   aarch64-linux-gnu      aarch64-linux-gnu-gcc (Debian's cross toolchain), else
//                          clang --target=aarch64-linux-gnu -fuse-ld=lld
//   aarch64-linux-android  the Android NDK's aarch64-linux-android<API>-clang under
//                          $ANDROID_NDK_ROOT (or $ANDROID_NDK), the supported path; else clang
//                          --target=aarch64-linux-android<API> -fuse-ld=lld -nostdlib with the
//                          aarch64 glibc headers for the few C declarations a kernel uses
//                          (checked to build; its symbols resolve against the runner's C
//                          library at load)
//   the host's own triple  gcc
// KILN_CROSS_CC, a compiler and its flags separated by spaces, overrides the choice.
#pragma once

#include <string>
#include <vector>

#include "runtime/remote_cpu/runner_protocol.h"

namespace kiln::runtime::remote_cpu {

struct CrossToolchain {
  std::string compiler;            // a path or a name on PATH
  std::vector<std::string> flags;  // before the per-kernel flags (--target=..., -fuse-ld=lld)
  std::string triple;              // what it builds for
  // What a kernel with parallel loops adds: -fopenmp (GCC's libgomp); clang for a GNU triple
  // -fopenmp=libgomp (the cross sysroot's, not the host's libomp); the NDK -fopenmp
  // -static-openmp (a phone has no OpenMP runtime of its own).
  std::vector<std::string> openmp_flags = {"-fopenmp"};
};

// The triple this host's own code is for ("x86_64-linux-gnu").
std::string HostTriple();

// The toolchain for `triple` (see above). Throws kiln::Error(kUnsupported) for a triple with
// no known compiler.
CrossToolchain FindCrossToolchain(const std::string& triple);

// The flags of one kernel for a runner with `facts`: -O3 -fno-math-errno -shared -fPIC
// -std=c11, an -march the device's features allow (aarch64: armv8.2-a+fp16+dotprod where it
// has both, else armv8-a), and the toolchain's OpenMP flags only when the kernel uses OpenMP (a
// serial kernel then needs no OpenMP runtime on the device).
std::vector<std::string> KernelFlags(const RunnerFacts& facts, const CrossToolchain& toolchain,
                                     bool uses_openmp);

// The path of program `name` (a path, or a name looked up on PATH), or empty when there is none.
std::string FindProgram(const std::string& name);

// "-mtriple=aarch64-linux-gnu" of a TVM-style target ("llvm -mtriple=aarch64-linux-gnu"), or
// empty.
std::string TripleOfTarget(const std::string& target);

}  // namespace kiln::runtime::remote_cpu
