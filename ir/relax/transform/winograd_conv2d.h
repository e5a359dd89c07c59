// WinogradConv2d: rewrites 3x3, stride-1 float32 convolutions with constant weights into
// Winograd's minimal filtering F(m x m, 3 x 3), as TVM's conv2d_winograd_without_weight_transform
// with the weight transform folded and oneDNN's winograd convolution do:
//
//   U = G g G^T        per (output channel, input channel): computed here, at compile time,
//                      in double from the constant weight, and bound as a constant
//                      [alpha^2, C, K] (alpha^2 / 9 times the weight's bytes: 4x for m = 4).
//                      Not left to FoldConstant: its output limit (2^20 elements) would stop
//                      at a 512-channel layer's 9.4M-element transform
//   V = B^T d B        per (tile of the zero-padded input, input channel): one kernel
//                      (call_tir) that copies the input channel-last with its padding, then
//                      stores all alpha^2 values of a (tile, channel) in one block, vectorised
//                      over channels; marked opaque so that nothing fuses into it:
//                      [alpha^2, P, C]
//   M = V x U          alpha^2 independent P x C by C x K products: a Relax matmul, so that it
//                      is the ordinary matmul task the default schedule, the library choice
//                      and the search handle. The output channels are its columns (the vector
//                      lanes of the default matmul schedule): channel counts are multiples of
//                      16 in most networks, tile counts (196 for 56 x 56) seldom are
//   Y = A^T M A        back to NCHW: one block per (tile, output channel) storing its m x m
//                      outputs into a tile-aligned buffer, then a copy cropping the partial
//                      tiles at the bottom and right edges; one kernel (call_tir) marked
//                      out-elementwise-fusable, so that the convolution's scale, shift,
//                      residual add and relu fuse into the copy as they did into the direct conv
//
// with alpha = m + 2 and P = N * ceil(H_out / m) * ceil(W_out / m) tiles. m = 4 (alpha 6:
// 36 products, 4x fewer multiplications than the direct convolution) by default, m = 2
// (alpha 4) on request. The transform matrices are the usual ones (interpolation points 0,
// +-1, +-2 and infinity for m = 4); with float32 the result is within a few 1e-6 relative of the
// direct convolution on random inputs (winograd_conv2d_test.cc). The transforms' sums are
// spelled so that every partial sum shared by several outputs is the same expression, which the
// C compiler computes once (the separable form B^T (d B)).
//
// A conv2d is rewritten when: its kernel is 3x3, strides and dilation 1, groups 1, layouts
// NCHW / OIHW / NCHW, input, weight and output float32 with static shapes, and the weight a
// constant (a Relax constant, or a variable bound to one in the same function). kOn rewrites
// every such conv; kAuto only those large enough to pay for the transforms (input and output
// channels >= min_channels and output height x width >= min_pixels); kOff none.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

enum class WinogradMode : uint8_t { kOff, kAuto, kOn };

struct WinogradOptions {
  WinogradMode mode = WinogradMode::kOff;
  int tile = 4;  // m: 2 or 4
  int64_t min_channels = 16;
  int64_t min_pixels = 64;
};

// "off", "auto", "on" (the CLI's --winograd); nullopt for anything else.
std::optional<WinogradMode> ParseWinogradMode(std::string_view text);
const char* WinogradModeName(WinogradMode mode);

// Throws kiln::Error(kUnsupported) for a tile other than 2 or 4.
IRModule WinogradConv2d(const IRModule& module, const WinogradOptions& options);

}  // namespace kiln::ir::relax::transform
