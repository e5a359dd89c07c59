// HostTensor element access per dtype, 16-bit float rounding, random fill and comparison.
#include "ir/host_tensor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/error.h"
#include "support/half.h"

namespace kiln::ir {
namespace {

TEST(HalfTest, KnownValuesAndRounding) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);                      // rounds up to infinity
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);         // tie rounds to even (zero)
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);         // 1.5 ulp rounds to 2
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie to even
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  // Every finite half converts to float and back to itself.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16ToFloat(0x4049), 3.140625f);
}

TEST(HostTensorTest, ElementAccessPerDtype) {
  HostTensor i8(DataType::Int(8), {3});
  i8.SetInt(0, 127);
  i8.SetInt(1, 128);  // wraps like a C cast
  EXPECT_EQ(i8.GetInt(0), 127);
  EXPECT_EQ(i8.GetInt(1), -128);
  HostTensor u8(DataType::UInt(8), {1});
  u8.SetInt(0, -1);
  EXPECT_EQ(u8.GetInt(0), 255);
  HostTensor f16(DataType::Float(16), {1});
  f16.SetDouble(0, 0.1);
  EXPECT_NEAR(f16.GetDouble(0), 0.1, 1e-4);
  EXPECT_NE(f16.GetDouble(0), 0.1);
  HostTensor b(DataType::Bool(), {2});
  b.SetDouble(1, 3.0);
  EXPECT_EQ(b.GetInt(1), 1);
  HostTensor i64(DataType::Int(64), {1});
  i64.SetInt(0, (int64_t{1} << 62) + 1);
  EXPECT_EQ(i64.GetInt(0), (int64_t{1} << 62) + 1);
}

TEST(HostTensorTest, BorrowedMemoryIsReadInPlaceAndReleasedWithTheLastCopy) {
  alignas(64) static float storage[16];
  for (int i = 0; i < 6; ++i) storage[i] = static_cast<float>(i) * 0.5f;
  int released = 0;
  {
    HostTensor copy;
    {
      HostTensor t =
          HostTensor::Borrow(DataType::Float(32), {2, 3},
                             std::shared_ptr<uint8_t>(reinterpret_cast<uint8_t*>(storage),
                                                      [&](uint8_t*) { ++released; }));
      EXPECT_EQ(t.data(), storage);
      EXPECT_EQ(t.numel(), 6);
      EXPECT_EQ(t.GetDouble(5), 2.5);
      copy = t;
    }
    EXPECT_EQ(released, 0) << "a copy still holds the memory";
    EXPECT_EQ(copy.Describe(), "float32[2, 3]");
  }
  EXPECT_EQ(released, 1);
  // Kernels are built for 64-byte aligned buffers: anything else is refused, naming the tensor.
  auto misaligned =
      std::shared_ptr<uint8_t>(reinterpret_cast<uint8_t*>(storage) + 4, [](uint8_t*) {});
  try {
    HostTensor::Borrow(DataType::Float(32), {3}, misaligned);
    FAIL() << "a misaligned buffer was borrowed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kType);
    EXPECT_NE(std::string(e.what()).find("float32[3]"), std::string::npos) << e.what();
  }
}

TEST(HostTensorTest, RandomIsSeededAndInRange) {
  HostTensor a = HostTensor::Random(DataType::Float(32), {64}, 7, -2, 3);
  HostTensor b = HostTensor::Random(DataType::Float(32), {64}, 7, -2, 3);
  HostTensor c = HostTensor::Random(DataType::Float(32), {64}, 8, -2, 3);
  EXPECT_TRUE(CompareTensors(a, b, 0, 0).ok);
  EXPECT_FALSE(CompareTensors(a, c, 0, 0).ok);
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_GE(a.GetDouble(i), -2);
    EXPECT_LT(a.GetDouble(i), 3);
  }
  HostTensor ints = HostTensor::Random(DataType::Int(32), {1000}, 1, -3, 3);
  bool saw_low = false, saw_high = false;
  for (int64_t i = 0; i < ints.numel(); ++i) {
    EXPECT_GE(ints.GetInt(i), -3);
    EXPECT_LE(ints.GetInt(i), 3);
    saw_low |= ints.GetInt(i) == -3;
    saw_high |= ints.GetInt(i) == 3;
  }
  EXPECT_TRUE(saw_low && saw_high);
}

TEST(HostTensorTest, CompareReportsWhereAndHowMuch) {
  HostTensor e(DataType::Float(32), {4});
  HostTensor a = e.Clone();
  a.SetDouble(2, 0.5);
  TensorComparison c = CompareTensors(e, a, 1e-5, 1e-6);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.first_mismatch, 2);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  EXPECT_NE(c.message.find("element 2"), std::string::npos);
  EXPECT_FALSE(CompareTensors(e, HostTensor(DataType::Float(32), {5}), 1, 1).ok);
  HostTensor n(DataType::Float(32), {1});
  n.SetDouble(0, NAN);
  EXPECT_TRUE(CompareTensors(n, n.Clone(), 0, 0).ok);
}

}  // namespace
}  // namespace kiln::ir
