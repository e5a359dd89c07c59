// ZmtpStream: the greeting passed on as it arrives, handshake commands passed whole, messages
// cut at their last frame (short and long frames, several frames), CurveZMQ's MESSAGE commands
// taken as messages, and anything that is not ZMTP 3 passed raw.
#include "tools/chaos_proxy/zmtp_stream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/tools/zmtp_test_util.h"

namespace kiln::tools {
namespace {

using testing::Frame;
using testing::Greeting;

std::vector<ZmtpUnit> Units(ZmtpStream& stream) {
  std::vector<ZmtpUnit> out;
  while (auto unit = stream.Next()) out.push_back(std::move(*unit));
  return out;
}

TEST(ZmtpStreamTest, GreetingCommandsAndMessagesComeOutInOrder) {
  std::string ready = Frame("\x05READY\x0bSocket-Type", false, true);
  std::string small = Frame("hello");
  std::string large = Frame(std::string(1000, 'x'));
  std::string multi = Frame("part1", true) + Frame("part2", true) + Frame("part3");
  ZmtpStream stream;
  std::string all = Greeting() + ready + small + large + multi;
  stream.Feed(all.data(), all.size());
  std::vector<ZmtpUnit> units = Units(stream);
  ASSERT_EQ(units.size(), 5u);
  EXPECT_EQ(units[0].kind, ZmtpUnit::Kind::kRaw);
  EXPECT_EQ(units[0].bytes, Greeting());
  EXPECT_EQ(units[1].kind, ZmtpUnit::Kind::kRaw);
  EXPECT_EQ(units[1].bytes, ready);
  EXPECT_EQ(units[2].kind, ZmtpUnit::Kind::kMessage);
  EXPECT_EQ(units[2].bytes, small);
  ASSERT_EQ(units[2].bodies.size(), 1u);
  EXPECT_EQ(units[2].bytes.substr(units[2].bodies[0].first, units[2].bodies[0].second), "hello");
  EXPECT_EQ(units[3].bytes, large);
  EXPECT_EQ(units[3].bodies[0], std::make_pair(size_t{9}, size_t{1000}));
  EXPECT_EQ(units[4].bytes, multi);
  ASSERT_EQ(units[4].bodies.size(), 3u);
  EXPECT_EQ(units[4].bytes.substr(units[4].bodies[2].first, 5), "part3");
  EXPECT_FALSE(stream.raw());
  EXPECT_EQ(stream.buffered(), 0u);
}

TEST(ZmtpStreamTest, ByteByByteGivesTheSameMessages) {
  std::string all = Greeting() + Frame("\x05READY", false, true) + Frame("a", true) +
                    Frame(std::string(300, 'b')) + Frame("c");
  ZmtpStream stream;
  std::string greeting;
  std::vector<std::string> messages;
  for (char c : all) {
    stream.Feed(&c, 1);
    for (ZmtpUnit& u : Units(stream)) {
      // The greeting goes on byte by byte: peers wait for each other's first bytes.
      if (greeting.size() < 64) {
        EXPECT_EQ(u.bytes.size(), 1u);
        greeting += u.bytes;
      } else if (u.kind == ZmtpUnit::Kind::kMessage) {
        messages.push_back(u.bytes);
      }
    }
  }
  EXPECT_EQ(greeting, Greeting());
  EXPECT_EQ(messages, (std::vector<std::string>{Frame("a", true) + Frame(std::string(300, 'b')),
                                                Frame("c")}));
}

TEST(ZmtpStreamTest, CurveMessagesAreMessagesAndOtherCommandsAreNot) {
  std::string message = Frame(std::string("\x07MESSAGE", 8) + "nonce-and-box", false, true);
  std::string ping = Frame("\x04PING\x00\x00", false, true);
  std::string all = Greeting() + ping + message;
  ZmtpStream stream;
  stream.Feed(all.data(), all.size());
  std::vector<ZmtpUnit> units = Units(stream);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[1].kind, ZmtpUnit::Kind::kRaw);
  EXPECT_EQ(units[2].kind, ZmtpUnit::Kind::kMessage);
  EXPECT_EQ(units[2].bytes, message);
}

TEST(ZmtpStreamTest, WhatIsNotZmtp3PassesRaw) {
  for (std::string start : {std::string("GET / HTTP/1.1\r\n\r\n"), [] {
                              std::string old = Greeting();
                              old[10] = 2;  // ZMTP 2
                              return old;
                            }()}) {
    ZmtpStream stream;
    std::string all = start + Frame("hello");
    stream.Feed(all.data(), all.size());
    std::string out;
    for (ZmtpUnit& u : Units(stream)) {
      EXPECT_EQ(u.kind, ZmtpUnit::Kind::kRaw);
      out += u.bytes;
    }
    EXPECT_EQ(out, all);
    EXPECT_TRUE(stream.raw());
  }
  // Unknown flags after the greeting: raw from there on, nothing lost.
  ZmtpStream stream;
  std::string all = Greeting() + Frame("ok") + "\x80garbage";
  stream.Feed(all.data(), all.size());
  std::string out;
  for (ZmtpUnit& u : Units(stream)) out += u.bytes;
  EXPECT_EQ(out, all);
  EXPECT_TRUE(stream.raw());
}

TEST(ZmtpStreamTest, AnUnfinishedMessageWaits) {
  std::string all = Greeting() + Frame("first", true) + Frame("second");
  ZmtpStream stream;
  stream.Feed(all.data(), all.size() - 3);
  std::vector<ZmtpUnit> units = Units(stream);
  ASSERT_EQ(units.size(), 1u);  // the greeting only
  EXPECT_GT(stream.buffered(), 0u);
  stream.Feed(all.data() + all.size() - 3, 3);
  units = Units(stream);
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].kind, ZmtpUnit::Kind::kMessage);
  EXPECT_EQ(units[0].bytes, Frame("first", true) + Frame("second"));
}

}  // namespace
}  // namespace kiln::tools
