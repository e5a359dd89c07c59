// Base64 as TVM's tensors use it: RFC 4648 vectors, round trips, and malformed text.
#include "ir/tvm_json/base64.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> cases[] = {{"", ""},
                                                       {"f", "Zg=="},
                                                       {"fo", "Zm8="},
                                                       {"foo", "Zm9v"},
                                                       {"foob", "Zm9vYg=="},
                                                       {"fooba", "Zm9vYmE="},
                                                       {"foobar", "Zm9vYmFy"}};
  for (auto [plain, encoded] : cases) {
    EXPECT_EQ(Base64Encode(Bytes(plain)), encoded);
    EXPECT_EQ(Base64Decode(encoded, "test"), Bytes(plain));
  }
}

TEST(Base64, RoundTripsEveryByte) {
  std::vector<uint8_t> all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<uint8_t>(i));
  for (size_t n = 0; n < 8; ++n) {
    std::vector<uint8_t> part(all.begin(), all.end() - n);
    EXPECT_EQ(Base64Decode(Base64Encode(part), "test"), part);
  }
}

TEST(Base64, AcceptsMissingPaddingAndWhitespace) {
  EXPECT_EQ(Base64Decode("Zm9vYg", "test"), Bytes("foob"));
  EXPECT_EQ(Base64Decode("Zm9v\nYmFy", "test"), Bytes("foobar"));
}

TEST(Base64, RejectsMalformedText) {
  try {
    Base64Decode("Zm9v!mFy", "node 3");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("node 3: not base64 at offset 4"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Base64Decode("Zg==Zg==", "x"), Error);  // data after padding
  EXPECT_THROW(Base64Decode("Z", "x"), Error);         // cut inside a byte
}

}  // namespace
}  // namespace kiln::ir::tvm_json
