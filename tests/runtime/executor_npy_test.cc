// .npy: round trips per dtype, what numpy itself writes, and malformed files.
#include <gtest/gtest.h>

#include "runtime/model/npy.h"
#include "support/error.h"

namespace kiln::runtime::model {
namespace {

TEST(NpyTest, RoundTripsEveryDtype) {
  for (ir::DataType dtype : {ir::DataType::Float(32), ir::DataType::Float(64),
                             ir::DataType::Float(16), ir::DataType::Int(8), ir::DataType::Int(32),
                             ir::DataType::Int(64), ir::DataType::UInt(8), ir::DataType::Bool()}) {
    for (std::vector<int64_t> shape :
         std::vector<std::vector<int64_t>>{{}, {5}, {2, 3, 4}, {0, 3}}) {
      ir::HostTensor t = ir::HostTensor::Random(dtype, shape, 3, -4, 4);
      std::string bytes = SerializeNpy(t);
      // numpy's rule: the data starts on a 64-byte boundary.
      EXPECT_EQ((bytes.size() - t.nbytes()) % 64, 0u);
      ir::HostTensor back = ParseNpy(bytes, "t.npy");
      EXPECT_EQ(back.dtype(), dtype);
      EXPECT_EQ(back.shape(), shape);
      for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(back.GetDouble(i), t.GetDouble(i));
    }
  }
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  // np.save of np.arange(6, dtype=np.float32).reshape(2, 3), header as numpy 1.26 pads it.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i);
    bytes.append(reinterpret_cast<const char*>(&f), 4);
  }
  ir::HostTensor t = ParseNpy(bytes, "arange.npy");
  EXPECT_EQ(t.shape(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(t.GetDouble(5), 5.0);
}

TEST(NpyTest, MalformedFilesAreParseErrorsNamingTheFile) {
  std::string good = SerializeNpy(ir::HostTensor(ir::DataType::Float(32), {4}));
  auto message = [](const std::string& bytes) {
    try {
      ParseNpy(bytes, "in.npy");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("").find("in.npy: "), std::string::npos);
  EXPECT_NE(message("hello world, not numpy").find("magic"), std::string::npos);
  EXPECT_NE(message(good.substr(0, good.size() - 1)).find("16 bytes of data, the file has 15"),
            std::string::npos);
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_NE(message(fortran).find("fortran_order"), std::string::npos);
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  EXPECT_NE(message(big_endian).find("dtype"), std::string::npos);
  std::string huge = good;
  huge.replace(huge.find("(4,)"), 4, "(99999999999999999,)");
  EXPECT_NE(message(huge).find("in.npy"), std::string::npos);
}

}  // namespace
}  // namespace kiln::runtime::model
