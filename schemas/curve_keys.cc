// CurveZMQ key files: generation, writing with owner-only permissions, strict reading.
#include "schemas/curve_keys.h"

#include <sys/stat.h>
#include <zmq.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace kiln::schemas {
namespace {

bool IsZ85Key(const std::string& s) {
  if (s.size() != 40) return false;
  static const std::string kAlphabet =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
  return s.find_first_not_of(kAlphabet) == std::string::npos;
}

}  // namespace

CurveKeyPair GenerateCurveKeyPair() {
  KILN_CHECK(zmq_has("curve"), ErrorKind::kUnsupported,
             "this libzmq was built without CURVE security");
  char public_key[41] = {};
  char secret_key[41] = {};
  KILN_CHECK(zmq_curve_keypair(public_key, secret_key) == 0, ErrorKind::kIO,
             std::string("zmq_curve_keypair: ") + zmq_strerror(zmq_errno()));
  return {public_key, secret_key};
}

void WriteCurveKeyPair(const std::string& dir, const std::string& name, const CurveKeyPair& pair) {
  KILN_CHECK(!name.empty() && name.find('/') == std::string::npos, ErrorKind::kParse,
             "key name '" + name + "' must be a plain file name");
  std::filesystem::path base(dir);
  std::error_code ec;
  std::filesystem::create_directories(base, ec);
  KILN_CHECK(!ec, ErrorKind::kIO, dir + ": cannot create the folder: " + ec.message());
  std::filesystem::path key = base / (name + ".key");
  KILN_CHECK(!std::filesystem::exists(key), ErrorKind::kIO,
             key.string() + " exists: remove it first to make a new key pair");
  {
    // Created owner-only before the secret is written into it.
    std::ofstream(key).close();
    ::chmod(key.c_str(), 0600);
    std::ofstream out(key);
    out << "public " << pair.public_key << "\nsecret " << pair.secret_key << "\n";
    KILN_CHECK(out.good(), ErrorKind::kIO, key.string() + ": cannot write");
  }
  std::ofstream pub(base / (name + ".pub"));
  pub << "public " << pair.public_key << "\n";
  KILN_CHECK(pub.good(), ErrorKind::kIO, (base / (name + ".pub")).string() + ": cannot write");
}

CurveKeyPair ReadCurveKeyFile(const std::string& path) {
  std::ifstream in(path);
  KILN_CHECK(in.good(), ErrorKind::kIO, path + ": cannot open the key file");
  CurveKeyPair pair;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string field, value;
    words >> field >> value;
    KILN_CHECK(IsZ85Key(value) && (field == "public" || field == "secret"), ErrorKind::kParse,
               path + ":" + std::to_string(number) +
                   ": expected 'public KEY' or 'secret KEY' with a 40-character Z85 key");
    (field == "public" ? pair.public_key : pair.secret_key) = value;
  }
  KILN_CHECK(!pair.public_key.empty(), ErrorKind::kParse, path + ": no public key");
  return pair;
}

std::vector<std::string> ReadAuthorizedKeys(const std::string& dir) {
  std::vector<std::string> keys;
  std::filesystem::path folder = std::filesystem::path(dir) / "authorized";
  if (!std::filesystem::is_directory(folder)) return keys;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".pub") {
      keys.push_back(ReadCurveKeyFile(entry.path().string()).public_key);
    }
  }
  return keys;
}

}  // namespace kiln::schemas
