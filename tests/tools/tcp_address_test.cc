// TcpAddress: the proxy's tcp://HOST:PORT addresses and their errors.
#include "tools/chaos_proxy/tcp_address.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::tools {
namespace {

TEST(TcpAddressTest, LoopbackAddressesAreRead) {
  TcpAddress a = ParseTcpAddress("tcp://127.0.0.1:7070", "--listen");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 7070);
  EXPECT_EQ(a.ToString(), "tcp://127.0.0.1:7070");
  EXPECT_EQ(ParseTcpAddress("tcp://localhost:0", "--listen").ToString(), "tcp://127.0.0.1:0");
}

TEST(TcpAddressTest, AnythingElseIsRefusedNamingTheFlag) {
  for (const char* bad : {"127.0.0.1:7070", "tcp://127.0.0.1", "tcp://127.0.0.1:port",
                          "tcp://127.0.0.1:70000", "tcp://example.org:80", "ipc:///tmp/x"}) {
    try {
      ParseTcpAddress(bad, "--upstream");
      ADD_FAILURE() << bad << " was taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), ::testing::StartsWith(std::string("--upstream ") + bad + ": "));
    }
  }
}

}  // namespace
}  // namespace kiln::tools
