// TensorProto reading: raw_data and typed fields for each dtype family, and the checks that
// reject inconsistent sizes, external data and unsupported dtypes.
#include "ir/frontend/onnx/tensor_proto.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "onnx/onnx_pb.h"

namespace kiln::ir::frontend::onnx {
namespace {

using Proto = ::onnx::TensorProto;

Proto Make(int32_t dtype, std::vector<int64_t> dims) {
  Proto t;
  t.set_name("t");
  t.set_data_type(dtype);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

HostTensor Read(const Proto& t) {
  return ReadTensorProtoBytes(t.SerializeAsString(), "t.pb").value;
}

std::string ErrorOf(const Proto& t) {
  try {
    Read(t);
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(OnnxTensorProto, RawFloatAndTypedInt64) {
  Proto f = Make(Proto::FLOAT, {2, 2});
  float values[4] = {1.5f, -2, 0, 8};
  f.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  HostTensor t = Read(f);
  EXPECT_EQ(t.Describe(), "float32[2, 2]");
  EXPECT_EQ(t.GetDouble(1), -2);
  EXPECT_EQ(t.GetDouble(3), 8);

  Proto i = Make(Proto::INT64, {3});
  for (int64_t v : {int64_t{-7}, int64_t{1} << 40, int64_t{3}}) i.add_int64_data(v);
  HostTensor ti = Read(i);
  EXPECT_EQ(ti.dtype(), DataType::Int(64));
  EXPECT_EQ(ti.GetInt(1), int64_t{1} << 40);
}

TEST(OnnxTensorProto, SmallTypesInInt32DataAndBool) {
  Proto h = Make(Proto::FLOAT16, {2});
  h.add_int32_data(0x3C00);  // 1.0
  h.add_int32_data(0xC000);  // -2.0
  HostTensor th = Read(h);
  EXPECT_EQ(th.dtype(), DataType::Float(16));
  EXPECT_EQ(th.GetDouble(0), 1.0);
  EXPECT_EQ(th.GetDouble(1), -2.0);

  Proto u = Make(Proto::UINT8, {2});
  u.add_int32_data(200);
  u.add_int32_data(7);
  EXPECT_EQ(Read(u).GetInt(0), 200);

  Proto b = Make(Proto::BOOL, {3});
  b.set_raw_data(std::string("\x01\x00\x05", 3));
  HostTensor tb = Read(b);
  EXPECT_EQ(tb.GetInt(0), 1);
  EXPECT_EQ(tb.GetInt(1), 0);
  EXPECT_EQ(tb.GetInt(2), 1);  // any nonzero byte is true

  Proto scalar = Make(Proto::DOUBLE, {});
  scalar.add_double_data(2.25);
  HostTensor ts = Read(scalar);
  EXPECT_TRUE(ts.shape().empty());
  EXPECT_EQ(ts.GetDouble(0), 2.25);
}

TEST(OnnxTensorProto, InconsistentSizesAreRejected) {
  Proto short_raw = Make(Proto::FLOAT, {4});
  short_raw.set_raw_data(std::string(12, '\0'));
  EXPECT_EQ(ErrorOf(short_raw),
            "t.pb: tensor 't': raw_data has 12 bytes but 4 FLOAT elements need 16");

  Proto few = Make(Proto::INT32, {3});
  few.add_int32_data(1);
  EXPECT_EQ(ErrorOf(few),
            "t.pb: tensor 't': the dims need 3 values but the tensor holds 1 (no "
            "raw_data)");

  Proto wrong_field = Make(Proto::FLOAT, {1});
  wrong_field.add_int64_data(1);
  EXPECT_EQ(ErrorOf(wrong_field),
            "t.pb: tensor 't': float_data holds 0 values but the dims need 1");

  Proto negative = Make(Proto::FLOAT, {2, -1});
  EXPECT_EQ(ErrorOf(negative), "t.pb: tensor 't': dim 1 is negative (-1)");

  Proto huge = Make(Proto::FLOAT, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_NE(ErrorOf(huge).find("the element count overflows"), std::string::npos);
  Proto too_large = Make(Proto::FLOAT, {0, int64_t{1} << 41});
  EXPECT_NE(ErrorOf(too_large).find("larger than Kiln supports"), std::string::npos);

  EXPECT_THROW(ReadTensorProtoBytes("\x0a\xff\xff", "bad.pb"), Error);
}

TEST(OnnxTensorProto, UnsupportedDtypesAndExternalData) {
  Proto s = Make(Proto::STRING, {1});
  s.add_string_data("hello");
  try {
    Read(s);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_EQ(std::string(e.what()), "t.pb: tensor 't': STRING tensors are not supported");
  }
  Proto ext = Make(Proto::FLOAT, {1});
  ext.set_data_location(Proto::EXTERNAL);
  auto* entry = ext.add_external_data();
  entry->set_key("location");
  entry->set_value("w.bin");
  EXPECT_NE(ErrorOf(ext).find("external file ('w.bin')"), std::string::npos);
}

TEST(OnnxTensorProto, ReadsTheBackendTestData) {
  std::string path = "/usr/share/libonnx-testdata/data/node/test_relu/test_data_set_0/input_0.pb";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "libonnx-testdata is not installed";
  NamedTensor t = ReadTensorProtoFile(path);
  EXPECT_EQ(t.name, "x");
  EXPECT_EQ(t.value.Describe(), "float32[3, 4, 5]");
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
