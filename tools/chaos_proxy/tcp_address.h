// TcpAddress: the chaos proxy's addresses, in the service's spelling (tcp://127.0.0.1:7070).
// Only numeric IPv4 hosts and "localhost" are taken: the proxy is a loopback test tool.
#pragma once

#include <netinet/in.h>

#include <string>
#include <string_view>

namespace kiln::tools {

struct TcpAddress {
  std::string host;  // dotted IPv4
  int port = 0;      // 0: any free port (to listen on)
  std::string ToString() const { return "tcp://" + host + ":" + std::to_string(port); }
  sockaddr_in ToSockaddr() const;
};

// kiln::Error(kParse) naming `what` (the flag) and the text when it is not tcp://HOST:PORT with
// an IPv4 host (or localhost) and a port in 0..65535.
TcpAddress ParseTcpAddress(std::string_view text, std::string_view what);

}  // namespace kiln::tools
