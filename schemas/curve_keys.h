// CurveZMQ key pairs as files, shared by the coordinator, the workers and `tune`. A key pair
// NAME is two files in a folder: NAME.key (public and secret key, Z85, readable by its owner
// only) and NAME.pub (the public key alone, to hand to the other side). The coordinator's
// allow-list is the folder's authorized/ subfolder: one .pub file per worker or client that
// may connect.
#pragma once

#include <string>
#include <vector>

namespace kiln::schemas {

struct CurveKeyPair {
  std::string public_key;  // 40 Z85 characters
  std::string secret_key;  // 40 Z85 characters; empty for a public key alone
};

// A fresh pair (zmq_curve_keypair); kiln::Error(kUnsupported) when libzmq lacks CURVE.
CurveKeyPair GenerateCurveKeyPair();
// Writes DIR/NAME.key (mode 0600) and DIR/NAME.pub; refuses to overwrite an existing key.
void WriteCurveKeyPair(const std::string& dir, const std::string& name, const CurveKeyPair& pair);
// Reads NAME.key or NAME.pub; kiln::Error(kIO/kParse) naming the file and the line.
CurveKeyPair ReadCurveKeyFile(const std::string& path);
// Every public key under DIR/authorized/*.pub (none when the folder does not exist).
std::vector<std::string> ReadAuthorizedKeys(const std::string& dir);

}  // namespace kiln::schemas
