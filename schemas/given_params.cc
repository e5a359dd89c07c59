// Given values and returned tensors: raw element bytes in messages, files and tensors outside.
#include "schemas/given_params.h"

#include <cstring>
#include <filesystem>

#include "runtime/file_util.h"
#include "runtime/sandbox_protocol.h"
#include "support/error.h"

namespace kiln::schemas {
namespace {

std::string RawBytes(const ir::HostTensor& t) {
  return std::string(static_cast<const char*>(t.data()), t.nbytes());
}

ir::HostTensor FromRaw(ir::DataType dtype, const std::vector<int64_t>& shape,
                       const std::string& bytes) {
  ir::HostTensor t(dtype, shape);
  KILN_CHECK(t.nbytes() == bytes.size(), ErrorKind::kParse,
             "a tensor of " + t.Describe() + " takes " + std::to_string(t.nbytes()) +
                 " bytes, got " + std::to_string(bytes.size()));
  if (!bytes.empty()) std::memcpy(t.data(), bytes.data(), bytes.size());
  return t;
}

}  // namespace

std::vector<GivenParamMsg> GivenFromReference(const runtime::Reference& reference) {
  std::vector<GivenParamMsg> out;
  for (const runtime::ReferenceParam& p : reference.params) {
    GivenParamMsg g;
    g.name = p.name;
    if (p.input.kind == runtime::ArgSpec::Kind::kInt ||
        p.input.kind == runtime::ArgSpec::Kind::kFloat) {
      g.scalar = true;
      g.dtype = p.input.kind == runtime::ArgSpec::Kind::kInt ? ir::DataType::Int(64)
                                                             : ir::DataType::Float(64);
      g.int_value = p.input.int_value;
      g.float_value = p.input.float_value;
    } else {
      KILN_CHECK(p.input.kind == runtime::ArgSpec::Kind::kTensorFile, ErrorKind::kInternal,
                 "GivenFromReference: parameter " + p.name + " is not in a file");
      g.dtype = p.input.dtype;
      g.shape = p.input.shape;
      g.input = RawBytes(runtime::ReadTensorFile(p.input.path, p.input.dtype, p.input.shape));
      g.written = p.written;
      // An input the kernel must leave alone is expected back as it went in: not sent twice.
      if (p.written) g.expected = RawBytes(p.expected);
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::shared_ptr<runtime::Reference> ReferenceFromGiven(const std::vector<GivenParamMsg>& given,
                                                       const std::string& dir, uint64_t key,
                                                       const std::string& source) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  KILN_CHECK(!ec, ErrorKind::kIO, "cannot create " + dir + ": " + ec.message());
  auto reference = std::make_shared<runtime::Reference>();
  reference->key = key;
  reference->source = source;
  reference->directory = dir;
  for (size_t i = 0; i < given.size(); ++i) {
    const GivenParamMsg& g = given[i];
    runtime::ReferenceParam p;
    p.name = g.name;
    if (g.scalar) {
      p.input = g.dtype.is_float() ? runtime::ArgSpec::Float(g.float_value)
                                   : runtime::ArgSpec::Int(g.int_value);
    } else {
      p.input.kind = runtime::ArgSpec::Kind::kTensorFile;
      p.input.dtype = g.dtype;
      p.input.shape = g.shape;
      p.input.path = dir + "/given" + std::to_string(i) + ".bin";
      runtime::WriteTensorFile(FromRaw(g.dtype, g.shape, g.input), p.input.path);
      p.written = g.written;
      p.expected = FromRaw(g.dtype, g.shape, g.written ? g.expected : g.input);
    }
    reference->params.push_back(std::move(p));
  }
  return reference;
}

std::vector<CallTensorMsg> OutputsToMsg(const std::map<int, ir::HostTensor>& outputs) {
  std::vector<CallTensorMsg> out;
  for (const auto& [param, t] : outputs) {
    out.push_back({static_cast<uint32_t>(param), t.dtype(), t.shape(), RawBytes(t)});
  }
  return out;
}

std::map<int, ir::HostTensor> OutputsFromMsg(const std::vector<CallTensorMsg>& outputs) {
  std::map<int, ir::HostTensor> out;
  for (const CallTensorMsg& m : outputs) {
    out[static_cast<int>(m.param)] = FromRaw(m.dtype, m.shape, m.data);
  }
  return out;
}

}  // namespace kiln::schemas
