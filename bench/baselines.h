// The library baselines bench programs time Kiln's kernels against, behind one small
// interface so that each library's threading is set in one place: OpenBLAS (cblas_sgemm, its
// own pthread pool) and oneDNN (dnnl_sgemm and the convolution primitive, OpenMP). Row-major,
// no transposes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::bench {

struct SgemmShape {
  int64_t m, n, k;
};

// C = A * B with A m x k, B k x n, C m x n, all row-major and contiguous.
void OpenBlasSgemm(const SgemmShape& shape, const float* a, const float* b, float* c);
void OneDnnSgemm(const SgemmShape& shape, const float* a, const float* b, float* c);

// A 2-D convolution, NCHW input, OIHW weights, no bias, zero padding.
struct Conv2dShape {
  int64_t batch = 1, in_channels = 64, height = 56, width = 56;
  int64_t out_channels = 64, kernel_h = 3, kernel_w = 3;
  int64_t pad_h = 1, pad_w = 1, stride_h = 1, stride_w = 1;
  int64_t out_height() const { return (height + 2 * pad_h - kernel_h) / stride_h + 1; }
  int64_t out_width() const { return (width + 2 * pad_w - kernel_w) / stride_w + 1; }
  double Flops() const {
    return 2.0 * static_cast<double>(batch * out_channels * out_height() * out_width()) *
           static_cast<double>(in_channels * kernel_h * kernel_w);
  }
};

// The memory layouts oneDNN's convolution runs on. kPlain: the primitive made for NCHW input
// and output and OIHW weights, the caller's own layouts. kBlocked: the layouts the primitive
// prefers (format "any"; nChw16c and its blocked weights with AVX-512); the inputs are
// reordered into them, and the output out of them, outside Run, so Run times the
// convolution alone, as a network that keeps the blocked layout between layers would.
enum class ConvLayout { kPlain, kBlocked };

// oneDNN's forward-inference convolution primitive (direct algorithm) for one shape. The
// primitive is made for the OpenMP thread count current at construction: set it first.
class OneDnnConv2d {
 public:
  OneDnnConv2d(const Conv2dShape& shape, ConvLayout layout);
  ~OneDnnConv2d();
  OneDnnConv2d(const OneDnnConv2d&) = delete;
  OneDnnConv2d& operator=(const OneDnnConv2d&) = delete;

  // Copies x (NCHW) and w (OIHW) into the primitive's memory, reordered if it is blocked.
  void SetInputs(const float* x, const float* w);
  // The convolution only.
  void Run();
  // The last output, reordered into y (NCHW).
  void GetOutput(float* y);
  // What oneDNN chose: its implementation's name and the source layout, e.g.
  // "jit:avx512_core, src aBcd16b".
  std::string Description() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Thread counts. OpenBLAS keeps its own pool; oneDNN and Kiln's generated kernels share the
// process's OpenMP runtime (libgomp), so one call sets both.
void SetOpenBlasThreads(int threads);
void SetOpenMpThreads(int threads);

// "OpenBLAS 0.3.21 ..." and "oneDNN 2.6.x", for the report.
std::string OpenBlasVersion();
std::string OneDnnVersion();

}  // namespace kiln::bench
