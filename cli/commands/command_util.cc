// Join, ParseDims, ConcreteShape, ShapeText.
#include "cli/commands/command_util.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "support/error.h"

namespace kiln::cli {

int ExitTwoOnInputError(const std::function<int()>& run) {
  try {
    return run();
  } catch (const InputError& e) {
    std::cerr << "tune: " << ErrorKindName(e.error.kind()) << ": " << e.error.what() << "\n";
    return 2;
  }
}

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::map<std::string, int64_t> ParseDims(const std::vector<std::string>& dims) {
  std::map<std::string, int64_t> values;
  for (const std::string& d : dims) {
    auto eq = d.find('=');
    int64_t value = 0;
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      try {
        size_t used = 0;
        value = std::stoll(d.substr(eq + 1), &used);
        ok = used == d.size() - eq - 1 && value > 0;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok) throw Error(ErrorKind::kParse, "--dim " + d + ": expected NAME=VALUE with VALUE > 0");
    values[d.substr(0, eq)] = value;
  }
  return values;
}

std::vector<int64_t> ConcreteShape(const ir::Buffer& buffer,
                                   const std::map<std::string, int64_t>& dims) {
  ir::arith::Analyzer analyzer;
  std::vector<int64_t> shape;
  for (const ir::Expr& extent : buffer->shape) {
    // Bind every variable of the extent whose name has a value.
    class Binder : public ir::IRVisitor {
     public:
      Binder(ir::arith::Analyzer& a, const std::map<std::string, int64_t>& d) : a_(a), d_(d) {}
      void VisitExpr_(const ir::VarNode* op) override {
        auto it = d_.find(op->name);
        if (it != d_.end()) {
          a_.Bind(ir::GetRef<ir::Var>(op), ir::IntImm(op->dtype, it->second));
        } else {
          missing.push_back(op->name);
        }
      }
      std::vector<std::string> missing;

     private:
      ir::arith::Analyzer& a_;
      const std::map<std::string, int64_t>& d_;
    } binder(analyzer, dims);
    binder.VisitExpr(extent);
    if (!binder.missing.empty()) {
      throw Error(ErrorKind::kParse, "buffer " + buffer->name + " has symbolic dimension '" +
                                         binder.missing[0] + "': give it a value with --dim " +
                                         binder.missing[0] + "=VALUE");
    }
    auto value = ir::AsConstInt(analyzer.Simplify(extent));
    if (!value) {
      throw Error(ErrorKind::kUnsupported, "buffer " + buffer->name + ": shape is not computable");
    }
    shape.push_back(*value);
  }
  return shape;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void AddImportOptions(CLI::App* app, std::string* winograd, std::string* sparse_attention) {
  app->add_option("--winograd", *winograd,
                  "3x3 stride-1 convolutions as Winograd F(4,3): off (the default), auto (where "
                  "the channels and image are large enough) or on; the same for tune run, "
                  "compile, tasks and submit, or the records do not apply")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app->add_option("--sparse-attention", *sparse_attention,
                  "a block-structured masked attention as the block-sparse attention kernels: "
                  "auto (the default: where the mask is sparse enough to win), always or never; "
                  "the same for tune run, compile, tasks and submit (docs/sparse.md)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

CLI::Option* AddBucketFlags(CLI::App* app, BucketFlags* flags, const std::string& bucket_help,
                            const std::string& weight_help) {
  CLI::Option* bucket = app->add_option("--bucket", flags->buckets, bucket_help);
  app->add_option("--max-dim", flags->max_dims,
                  "the largest bucket of a bare --bucket NAME, NAME=V");
  app->add_option("--bucket-weight", flags->weights, weight_help);
  return bucket;
}

void AddDialectOption(CLI::App* app, std::string* dialect) {
  app->add_option("--dialect", *dialect,
                  "TVMScript dialect of the printed TensorIR: tvm-0.24 (TVM 0.24 and later, the "
                  "default) or tvm-0.23")
      ->check([](const std::string& value) {
        try {
          ir::ParseTirDialect(value);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      });
}

ir::TirPrintOptions DialectPrintOptions(const std::string& dialect) {
  ir::TirPrintOptions options;
  if (!dialect.empty()) options.dialect = ir::ParseTirDialect(dialect);
  return options;
}

}  // namespace kiln::cli
