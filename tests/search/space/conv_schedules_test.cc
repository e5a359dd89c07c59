// The hand-set default schedules of NCHW pointwise and depthwise convolutions: which workloads
// get them, that they come first among the default's variants, their loop structure, and the
// same numbers as the loops as written (the reference interpreter on random inputs).
#include "search/space/conv_schedules.h"

#include <gtest/gtest.h>

#include <string>

#include "ir/text/parser.h"
#include "search/space/default_schedule.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

constexpr int64_t kLanes = 16;

DefaultScheduleOptions TwoCores() { return {.num_cores = 2, .vector_bytes = 64}; }

ir::PrimFunc Parse(const std::string& text) {
  return ir::ParsePrimFuncs(text, "conv_schedules_test.tir").front();
}

// A 1x1 convolution with a bias and a hardswish epilogue in separate stages, as legalization
// and fusion write a PP-LCNet block: 24 output channels (3 tiles of 8), `height` rows of
// `width` pixels.
ir::PrimFunc PointwiseConv(int64_t height = 3, int64_t width = 10) {
  std::string text = R"(
@T.prim_func
def pw(x: T.Buffer((2, 16, 3, 10), "float32"), w: T.Buffer((24, 16, 1, 1), "float32"),
       b: T.Buffer((1, 24, 1, 1), "float32"), y: T.Buffer((2, 24, 3, 10), "float32")):
    conv = T.alloc_buffer((2, 24, 3, 10))
    biased = T.alloc_buffer((2, 24, 3, 10))
    clipped = T.alloc_buffer((2, 24, 3, 10))
    for n, f, yy, xx, rc, ry, rx in T.grid(2, 24, 3, 10, 16, 1, 1):
        with T.sblock("conv2d_nchw"):
            vn, vf, vy, vx, vc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, yy, xx, rc, ry, rx])
            with T.init():
                conv[vn, vf, vy, vx] = T.float32(0)
            conv[vn, vf, vy, vx] = conv[vn, vf, vy, vx] + x[vn, vc, vy + vry, vx + vrx] * w[vf, vc, vry, vrx]
    for i0, i1, i2, i3 in T.grid(2, 24, 3, 10):
        with T.sblock("T_add"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            biased[v0, v1, v2, v3] = conv[v0, v1, v2, v3] + b[0, v1, 0, 0]
    for i0, i1, i2, i3 in T.grid(2, 24, 3, 10):
        with T.sblock("compute"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            clipped[v0, v1, v2, v3] = T.max(T.min(biased[v0, v1, v2, v3] + T.float32(3), T.float32(6)), T.float32(0))
    for i0, i1, i2, i3 in T.grid(2, 24, 3, 10):
        with T.sblock("T_multiply"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            y[v0, v1, v2, v3] = biased[v0, v1, v2, v3] * clipped[v0, v1, v2, v3] / T.float32(6)
)";
  // The height and width as written (3, 10) replaced where they appear in shapes and grids.
  const std::string from = "3, 10", to = std::to_string(height) + ", " + std::to_string(width);
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return Parse(text);
}

// A depthwise 5x5 convolution (padding 2, vertical stride `stride`) with a bias epilogue.
ir::PrimFunc DepthwiseConv(int stride) {
  const std::string s = std::to_string(stride);
  const std::string out_h = std::to_string(stride == 1 ? 6 : 3);
  return Parse(R"(
@T.prim_func
def dw(x: T.Buffer((2, 8, 6, 12), "float32"), w: T.Buffer((8, 1, 5, 5), "float32"),
       b: T.Buffer((1, 8, 1, 1), "float32"), y: T.Buffer((2, 8, )" +
               out_h + R"(, 12), "float32")):
    pad = T.alloc_buffer((2, 8, 10, 16))
    conv = T.alloc_buffer((2, 8, )" +
               out_h + R"(, 12))
    for i0, i1, i2, i3 in T.grid(2, 8, 10, 16):
        with T.sblock("pad_temp"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            pad[v0, v1, v2, v3] = T.if_then_else(2 <= v2 and v2 < 8 and 2 <= v3 and v3 < 14,
                                                 x[v0, v1, v2 - 2, v3 - 2], T.float32(0))
    for n, f, yy, xx, rc, ry, rx in T.grid(2, 8, )" +
               out_h + R"(, 12, 1, 5, 5):
        with T.sblock("group_conv2d_nchw"):
            vn, vf, vy, vx, vc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, yy, xx, rc, ry, rx])
            with T.init():
                conv[vn, vf, vy, vx] = T.float32(0)
            conv[vn, vf, vy, vx] = conv[vn, vf, vy, vx] + pad[vn, vf + vc, vy * )" +
               s + R"( + vry, vx + vrx] * w[vf, vc, vry, vrx]
    for i0, i1, i2, i3 in T.grid(2, 8, )" +
               out_h + R"(, 12):
        with T.sblock("T_add"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            y[v0, v1, v2, v3] = conv[v0, v1, v2, v3] + b[0, v1, 0, 0]
)");
}

// A 3x3 convolution over 16 input channels: neither pointwise nor depthwise.
ir::PrimFunc DenseConv3x3() {
  return Parse(R"(
@T.prim_func
def conv(x: T.Buffer((1, 16, 8, 8), "float32"), w: T.Buffer((32, 16, 3, 3), "float32"),
         y: T.Buffer((1, 32, 6, 6), "float32")):
    for n, f, yy, xx, rc, ry, rx in T.grid(1, 32, 6, 6, 16, 3, 3):
        with T.sblock("conv"):
            vn, vf, vy, vx, vc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, yy, xx, rc, ry, rx])
            with T.init():
                y[vn, vf, vy, vx] = T.float32(0)
            y[vn, vf, vy, vx] = y[vn, vf, vy, vx] + x[vn, vc, vy + vry, vx + vrx] * w[vf, vc, vry, vrx]
)");
}

// A 1x1 convolution that writes its output parameter itself (no epilogue); 20 output channels
// (tiles of 5), rows of 7 pixels.
ir::PrimFunc PointwiseConvAlone() {
  return Parse(R"(
@T.prim_func
def pw_alone(x: T.Buffer((1, 12, 4, 7), "float32"), w: T.Buffer((20, 12, 1, 1), "float32"),
             y: T.Buffer((1, 20, 4, 7), "float32")):
    for n, f, yy, xx, rc, ry, rx in T.grid(1, 20, 4, 7, 12, 1, 1):
        with T.sblock("conv2d_nchw"):
            vn, vf, vy, vx, vc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, yy, xx, rc, ry, rx])
            with T.init():
                y[vn, vf, vy, vx] = T.float32(0)
            y[vn, vf, vy, vx] = y[vn, vf, vy, vx] + x[vn, vc, vy + vry, vx + vrx] * w[vf, vc, vry, vrx]
)");
}

void ExpectEveryVariantMatches(const ir::PrimFunc& f, const std::vector<Candidate>& all) {
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(testing::CompareNumerics(f, all[i].scheduled), "") << "variant " << i;
  }
}

TEST(ConvSchedulesTest, APointwiseConvIsTiledAsAMatmulOverChannelsAndPixels) {
  ir::PrimFunc f = PointwiseConv();
  ASSERT_TRUE(PointwiseConvTrace(f, kLanes).has_value());
  EXPECT_FALSE(DepthwiseConvTrace(f).has_value());
  std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
  ASSERT_GE(all.size(), 2u);
  std::string first = testing::Skeleton(all.front().scheduled);
  // 8 output channels (unrolled) by the row's 10 pixels (vectorized), accumulated in a local
  // tile over the input channels; the epilogue's stages inlined into the one that writes y,
  // which runs on the tile; parallel over (n, channel tile).
  EXPECT_NE(first.find("for f_1 in 8 unroll\n"), std::string::npos) << first;
  EXPECT_NE(first.find("for xx_1 in 10 vectorized\n"), std::string::npos) << first;
  EXPECT_NE(first.find(":local"), std::string::npos) << first;
  EXPECT_NE(first.find("parallel"), std::string::npos) << first;
  EXPECT_NE(first.find("block T_multiply"), std::string::npos) << first;
  EXPECT_EQ(first.find("block T_add"), std::string::npos) << first;
  EXPECT_EQ(first.find("block compute"), std::string::npos) << first;
  ExpectEveryVariantMatches(f, all);
}

TEST(ConvSchedulesTest, APointwiseConvTilesWholeRowsWhereOneRowIsNotWholeVectors) {
  // Rows of 12 pixels: 4 rows are 48 pixels, 3 vectors of 16; 28 accumulators / 3 vectors
  // gives up to 9 output channels, 8 of the 24 (a divisor); the 4 rows fused and vectorized.
  ir::PrimFunc f = PointwiseConv(4, 12);
  EXPECT_FALSE(PointwiseConvTrace(PointwiseConvAlone(), kLanes, PointwiseTile::kWholeRows))
      << "3 rows of 7 pixels, 21, are no whole vectors: nothing to tile";
  ASSERT_TRUE(PointwiseConvTrace(f, kLanes, PointwiseTile::kWholeRows).has_value());
  std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
  ASSERT_GE(all.size(), 3u);
  std::string first = testing::Skeleton(all.front().scheduled);
  EXPECT_NE(first.find("for f_1 in 8 unroll\n"), std::string::npos) << first;
  EXPECT_NE(first.find("yy_1_xx_fused in 48 vectorized\n"), std::string::npos) << first;
  EXPECT_NE(first.find(":local"), std::string::npos) << first;
  ExpectEveryVariantMatches(f, all);
}

TEST(ConvSchedulesTest, APointwiseConvWithoutAnEpilogueWritesItsTileToTheOutput) {
  ir::PrimFunc f = PointwiseConvAlone();
  ASSERT_TRUE(PointwiseConvTrace(f, kLanes).has_value());
  std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
  ASSERT_GE(all.size(), 2u);
  std::string first = testing::Skeleton(all.front().scheduled);
  EXPECT_NE(first.find("for f_1 in 5 unroll\n"), std::string::npos) << first;
  EXPECT_NE(first.find("for xx_1 in 7 vectorized\n"), std::string::npos) << first;
  EXPECT_NE(first.find(":local"), std::string::npos) << first;
  ExpectEveryVariantMatches(f, all);
}

TEST(ConvSchedulesTest, ADepthwiseConvAccumulatesEachRowOverTheUnrolledWindow) {
  for (int stride : {1, 2}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    ir::PrimFunc f = DepthwiseConv(stride);
    ASSERT_TRUE(DepthwiseConvTrace(f).has_value());
    EXPECT_FALSE(PointwiseConvTrace(f, kLanes).has_value());
    std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
    ASSERT_GE(all.size(), 2u);
    std::string first = testing::Skeleton(all.front().scheduled);
    // One (n, f) plane per parallel job, its padded plane made under that loop; each output
    // row accumulated in a local row over the 5 x 5 window (unrolled), vectorized along x.
    EXPECT_NE(first.find("parallel"), std::string::npos) << first;
    EXPECT_NE(first.find("block pad_temp"), std::string::npos) << first;
    EXPECT_NE(first.find("for ry in 5 unroll\n"), std::string::npos) << first;
    EXPECT_NE(first.find("for rx in 5 unroll\n"), std::string::npos) << first;
    EXPECT_NE(first.find("for xx in 12 vectorized\n"), std::string::npos) << first;
    EXPECT_NE(first.find(":local"), std::string::npos) << first;
    ExpectEveryVariantMatches(f, all);
  }
}

TEST(ConvSchedulesTest, OtherKernelsDoNotGetThem) {
  // A dense 3x3 convolution, a matmul, an elementwise kernel.
  for (const ir::PrimFunc& f :
       {DenseConv3x3(), testing::MakeMatmul(32, 32, 16), testing::MakeTwoStage(64, 32)}) {
    EXPECT_FALSE(PointwiseConvTrace(f, kLanes).has_value()) << f->name;
    EXPECT_FALSE(DepthwiseConvTrace(f).has_value()) << f->name;
  }
}

}  // namespace
}  // namespace kiln::search
