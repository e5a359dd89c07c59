// TVM's binary tensor record: records written by TVM 0.27 decode to the values it was given,
// every Kiln dtype round-trips, and forged or cut records are errors, not allocations.
#include "ir/tvm_json/ndarray.h"

#include <gtest/gtest.h>

#include "ir/tvm_json/base64.h"
#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

// Written by TVM 0.27 (tvm.ir.save_json of relax.const(np.array(...))).
constexpr char kFloat32_1x3[] =
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAAAAAAAMA/AAAAwAAAUEA=";
constexpr char kBoolPair[] = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAYIAQACAAAAAAAAAAIAAAAAAAAAAQA=";
constexpr char kFloat16Scalar[] = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAIQAQACAAAAAAAAAABD";
constexpr char kInt32Pair[] =
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAgAQACAAAAAAAAAAgAAAAAAAAABwAAAPj///8=";

TEST(TensorRecord, DecodesWhatTvmWrote) {
  HostTensor t = DecodeTensorBase64(kFloat32_1x3, "c0");
  EXPECT_EQ(t.dtype(), DataType::Float(32));
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(t.GetDouble(0), 1.5);
  EXPECT_EQ(t.GetDouble(1), -2.0);
  EXPECT_EQ(t.GetDouble(2), 3.25);

  HostTensor b = DecodeTensorBase64(kBoolPair, "c1");
  EXPECT_EQ(b.dtype(), DataType::Bool());
  EXPECT_EQ(b.GetInt(0), 1);
  EXPECT_EQ(b.GetInt(1), 0);

  HostTensor h = DecodeTensorBase64(kFloat16Scalar, "c2");
  EXPECT_EQ(h.dtype(), DataType::Float(16));
  EXPECT_TRUE(h.shape().empty());
  EXPECT_EQ(h.GetDouble(0), 3.5);

  HostTensor i = DecodeTensorBase64(kInt32Pair, "c3");
  EXPECT_EQ(i.dtype(), DataType::Int(32));
  EXPECT_EQ(i.GetInt(0), 7);
  EXPECT_EQ(i.GetInt(1), -8);
}

TEST(TensorRecord, EncodesAsTvmDoes) {
  HostTensor t(DataType::Float(32), {1, 3});
  t.SetDouble(0, 1.5);
  t.SetDouble(1, -2.0);
  t.SetDouble(2, 3.25);
  EXPECT_EQ(EncodeTensorBase64(t), kFloat32_1x3);
  HostTensor b(DataType::Bool(), {2});
  b.SetInt(0, 1);
  EXPECT_EQ(EncodeTensorBase64(b), kBoolPair);
}

TEST(TensorRecord, EveryDtypeRoundTrips) {
  const DataType dtypes[] = {DataType::Float(32),  DataType::Float(16), DataType::Float(64),
                             DataType::BFloat16(), DataType::Int(8),    DataType::Int(16),
                             DataType::Int(64),    DataType::UInt(8),   DataType::UInt(32),
                             DataType::Bool()};
  for (DataType dtype : dtypes) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{}, std::vector<int64_t>{0, 4}, std::vector<int64_t>{2, 3, 5}}) {
      HostTensor t = HostTensor::Random(dtype, shape, 7, -4, 4);
      HostTensor back = DecodeTensor(EncodeTensor(t), "t");
      ASSERT_EQ(back.dtype(), dtype);
      ASSERT_EQ(back.shape(), shape);
      for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(back.GetDouble(i), t.GetDouble(i));
    }
  }
}

void ExpectError(std::vector<uint8_t> bytes, ErrorKind kind, const std::string& phrase) {
  try {
    DecodeTensor(bytes, "metadata node 4");
    FAIL() << "expected an error with " << phrase;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("metadata node 4"), std::string::npos) << e.what();
  }
}

TEST(TensorRecord, MalformedRecordsAreErrors) {
  std::vector<uint8_t> good = Base64Decode(kFloat32_1x3, "t");
  std::vector<uint8_t> bad_magic = good;
  bad_magic[0] ^= 1;
  ExpectError(bad_magic, ErrorKind::kParse, "not a TVM tensor record");
  ExpectError(std::vector<uint8_t>(good.begin(), good.begin() + 30), ErrorKind::kParse,
              "ends before its dtype lanes");
  ExpectError(std::vector<uint8_t>(good.begin(), good.end() - 1), ErrorKind::kParse,
              "12 data bytes follow, but 11 do");
  std::vector<uint8_t> float8 = good;
  float8[29] = 8;  // dtype bits
  ExpectError(float8, ErrorKind::kUnsupported, "code 2, bits 8");
  // A forged shape asking for 2^62 elements must not allocate.
  std::vector<uint8_t> huge = good;
  huge[40] = 0;
  huge[47] = 0x40;
  ExpectError(huge, ErrorKind::kParse, "says its data has 12 bytes");
  std::vector<uint8_t> negative = good;
  negative[39] = 0xff;
  ExpectError(negative, ErrorKind::kParse, "dim 0 is negative");
  std::vector<uint8_t> many_dims = good;
  many_dims[24] = 0x7f;
  ExpectError(many_dims, ErrorKind::kParse, "more dims than the record holds");
}

}  // namespace
}  // namespace kiln::ir::tvm_json
