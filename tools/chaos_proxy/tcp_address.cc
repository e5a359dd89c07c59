// TcpAddress: tcp://HOST:PORT read and turned into a socket address.
#include "tools/chaos_proxy/tcp_address.h"

#include <arpa/inet.h>

#include <charconv>

#include "support/error.h"

namespace kiln::tools {

sockaddr_in TcpAddress::ToSockaddr() const {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  return addr;
}

TcpAddress ParseTcpAddress(std::string_view text, std::string_view what) {
  auto fail = [&](const std::string& why) {
    return Error(ErrorKind::kParse, std::string(what) + " " + std::string(text) + ": " + why);
  };
  constexpr std::string_view kScheme = "tcp://";
  if (text.substr(0, kScheme.size()) != kScheme) throw fail("expected tcp://HOST:PORT");
  std::string_view rest = text.substr(kScheme.size());
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) throw fail("no port (tcp://HOST:PORT)");
  TcpAddress address;
  address.host = std::string(rest.substr(0, colon));
  if (address.host == "localhost") address.host = "127.0.0.1";
  in_addr parsed{};
  if (inet_pton(AF_INET, address.host.c_str(), &parsed) != 1) {
    throw fail("the host must be an IPv4 address such as 127.0.0.1");
  }
  std::string_view port = rest.substr(colon + 1);
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || address.port < 0 ||
      address.port > 65535) {
    throw fail("the port must be a number in 0..65535");
  }
  return address;
}

}  // namespace kiln::tools
