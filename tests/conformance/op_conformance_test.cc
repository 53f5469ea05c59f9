// Replays reference cases through tfhost's reference kernels: cases computed
// by TensorFlow.js's CPU kernels (an implementation written by others; see
// generator/generate.mjs) and, for ops TensorFlow.js lacks, cases derived by
// hand from TensorFlow's documented semantics (generator/hand_cases.mjs, with
// each derivation in a comment). Every *.json under cases/ is read (the core
// set and one file per op family's generator). One test per case, named
// "<Op>/<case>". Tolerances come from tolerances.h only.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "backends/fast_kernel_registry.h"
#include "base/thread_pool.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"
#include "tolerances.h"

namespace tfhost {
namespace {

struct Case {
  std::string name;
  std::string op;
  ir::AttrMap attrs;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<int> only_outputs;  // empty = compare all
};

StatusOr<DType> JsonDType(const std::string& name) { return ParseDType(name); }

bool IsQuantizedType(DType d) {
  return d == DType::kQInt8 || d == DType::kQUInt8 || d == DType::kQInt16 || d == DType::kQUInt16 ||
         d == DType::kQInt32;
}

StatusOr<Tensor> JsonTensor(const rapidjson::Value& v) {
  TFHOST_ASSIGN_OR_RETURN(DType dtype, JsonDType(v["dtype"].GetString()));
  std::vector<int64_t> dims;
  for (const auto& d : v["shape"].GetArray()) dims.push_back(d.GetInt64());
  Tensor t(dtype, Shape(dims));
  const auto& data = v["data"].GetArray();
  // complex64: interleaved (real, imag) float pairs.
  if (dtype == DType::kComplex64) {
    if (static_cast<int64_t>(data.Size()) != 2 * t.NumElements()) return InvalidArgument("data size mismatch");
    for (rapidjson::SizeType i = 0; i < data.Size(); ++i) t.data<float>()[i] = static_cast<float>(data[i].GetDouble());
    return t;
  }
  if (static_cast<int64_t>(data.Size()) != t.NumElements()) return InvalidArgument("data size mismatch");
  for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
    const auto& x = data[i];
    if (dtype == DType::kString) {  // text, or {"hex": "52494646..."} for bytes
      if (x.IsString()) {
        t.strings()[i] = std::string(x.GetString(), x.GetStringLength());
      } else if (x.IsObject() && x.HasMember("hex")) {
        std::string hex = x["hex"].GetString(), bytes;
        for (size_t k = 0; k + 1 < hex.size(); k += 2) {
          bytes.push_back(static_cast<char>(std::stoi(hex.substr(k, 2), nullptr, 16)));
        }
        t.strings()[i] = bytes;
      } else {
        return InvalidArgument("string data must be a string or {hex}");
      }
      continue;
    }
    if (dtype == DType::kUInt64) {  // beyond 2^53: exact integers, or decimal strings
      if (x.IsUint64()) {
        t.data<uint64_t>()[i] = x.GetUint64();
      } else if (x.IsString()) {
        t.data<uint64_t>()[i] = std::stoull(x.GetString());
      } else {
        return InvalidArgument("uint64 data must be integers or decimal strings");
      }
      continue;
    }
    double value;
    if (x.IsString()) {  // "NaN", "Infinity", "-Infinity"
      std::string s = x.GetString();
      value = s == "NaN" ? NAN : (s[0] == '-' ? -INFINITY : INFINITY);
    } else if (x.IsBool()) {
      value = x.GetBool() ? 1 : 0;
    } else {
      value = x.GetDouble();
    }
    switch (dtype) {
      case DType::kFloat: t.data<float>()[i] = static_cast<float>(value); break;
      case DType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(value); break;
      case DType::kInt64:
        t.data<int64_t>()[i] = x.IsInt64() ? x.GetInt64() : static_cast<int64_t>(value);
        break;
      case DType::kDouble: t.data<double>()[i] = value; break;
      case DType::kBool: t.data<bool>()[i] = value != 0; break;
      case DType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(value); break;
      case DType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(value); break;
      case DType::kUInt16: t.data<uint16_t>()[i] = static_cast<uint16_t>(value); break;
      case DType::kInt16: t.data<int16_t>()[i] = static_cast<int16_t>(value); break;
      case DType::kUInt32: t.data<uint32_t>()[i] = static_cast<uint32_t>(value); break;
      // Quantized types hold their integer in the storage type of their width.
      case DType::kQInt8: t.data<int8_t>()[i] = static_cast<int8_t>(value); break;
      case DType::kQUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(value); break;
      case DType::kQInt16: t.data<int16_t>()[i] = static_cast<int16_t>(value); break;
      case DType::kQUInt16: t.data<uint16_t>()[i] = static_cast<uint16_t>(value); break;
      case DType::kQInt32: t.data<int32_t>()[i] = static_cast<int32_t>(value); break;
      default: return InvalidArgument("unsupported dtype in case file");
    }
  }
  return t;
}

tensorflow::AttrValue JsonAttr(const rapidjson::Value& v) {
  tensorflow::AttrValue a;
  auto type_of = [](const char* s) { return static_cast<tensorflow::DataType>(*ParseDType(s)); };
  if (v.HasMember("i")) a.set_i(v["i"].GetInt64());
  if (v.HasMember("f")) a.set_f(static_cast<float>(v["f"].GetDouble()));
  if (v.HasMember("s")) a.set_s(v["s"].GetString());
  if (v.HasMember("b")) a.set_b(v["b"].GetBool());
  if (v.HasMember("type")) a.set_type(type_of(v["type"].GetString()));
  if (v.HasMember("list_i")) {
    auto* l = a.mutable_list();
    for (const auto& x : v["list_i"].GetArray()) l->add_i(x.GetInt64());
  }
  if (v.HasMember("list_f")) {
    auto* l = a.mutable_list();
    for (const auto& x : v["list_f"].GetArray()) l->add_f(static_cast<float>(x.GetDouble()));
  }
  if (v.HasMember("list_s")) {
    auto* l = a.mutable_list();
    for (const auto& x : v["list_s"].GetArray()) l->add_s(x.GetString());
  }
  if (v.HasMember("shape")) {  // [2, -1]: one shape attr (-1 = unknown dim)
    auto* proto = a.mutable_shape();
    for (const auto& d : v["shape"].GetArray()) proto->add_dim()->set_size(d.GetInt64());
  }
  if (v.HasMember("list_shape")) {  // [[2, -1], []]: one dims list per shape
    auto* l = a.mutable_list();
    for (const auto& shape : v["list_shape"].GetArray()) {
      auto* proto = l->add_shape();
      for (const auto& d : shape.GetArray()) proto->add_dim()->set_size(d.GetInt64());
    }
  }
  if (v.HasMember("list_type")) {
    auto* l = a.mutable_list();
    for (const auto& x : v["list_type"].GetArray()) l->add_type(type_of(x.GetString()));
  }
  return a;
}

// Appends the cases of one file; a file that does not parse, or a case that
// repeats another's name, is an error naming the file (never silently fewer
// tests).
Status LoadCaseFile(const std::filesystem::path& path, std::set<std::string>& names, std::vector<Case>& cases) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  rapidjson::Document doc;
  doc.Parse(ss.str().c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("cases") || !doc["cases"].IsArray()) {
    return InvalidArgument("conformance case file " + path.string() + " is not a JSON object with a \"cases\" array");
  }
  for (const auto& c : doc["cases"].GetArray()) {
    Case k;
    k.name = c["name"].GetString();
    k.op = c["op"].GetString();
    if (!names.insert(k.name).second) {
      return InvalidArgument("conformance case " + k.name + " in " + path.string() + " repeats an earlier case's name");
    }
    for (auto it = c["attrs"].MemberBegin(); it != c["attrs"].MemberEnd(); ++it) {
      k.attrs[it->name.GetString()] = JsonAttr(it->value);
    }
    for (const auto& t : c["inputs"].GetArray()) k.inputs.push_back(*JsonTensor(t));
    for (const auto& t : c["outputs"].GetArray()) k.outputs.push_back(*JsonTensor(t));
    if (c.HasMember("only_outputs")) {
      for (const auto& i : c["only_outputs"].GetArray()) k.only_outputs.push_back(i.GetInt());
    }
    cases.push_back(std::move(k));
  }
  return Status::Ok();
}

struct CaseSet {
  std::vector<Case> cases;
  Status load_status;
};

CaseSet LoadCases() {
  CaseSet set;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(TFHOST_CONFORMANCE_CASES, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (ec) set.load_status = NotFound("conformance cases directory " + std::string(TFHOST_CONFORMANCE_CASES) + ": " + ec.message());
  std::sort(files.begin(), files.end());
  std::set<std::string> names;
  for (const auto& file : files) {
    Status s = LoadCaseFile(file, names, set.cases);
    if (!s.ok() && set.load_status.ok()) set.load_status = s;
  }
  return set;
}

const CaseSet& AllCaseSet() {
  static const CaseSet* set = new CaseSet(LoadCases());
  return *set;
}

const std::vector<Case>& AllCases() { return AllCaseSet().cases; }

class OpConformanceTest : public ::testing::TestWithParam<int> {};

// Compares one run's outputs with the case's reference outputs, within the
// op's tolerance; `label` says which kernel produced them.
void ExpectMatchesReference(const Case& c, const std::vector<Tensor>& outputs, const std::string& label) {
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    if (!c.only_outputs.empty() &&
        std::find(c.only_outputs.begin(), c.only_outputs.end(), static_cast<int>(k)) == c.only_outputs.end()) {
      continue;
    }
    ASSERT_LT(k, outputs.size()) << label;
    const Tensor& got = outputs[k];
    const Tensor& want = c.outputs[k];
    ASSERT_EQ(got.shape(), want.shape()) << label << " output " << k;
    ASSERT_EQ(got.dtype(), want.dtype()) << label << " output " << k;
    if (want.dtype() == DType::kString) {
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        EXPECT_EQ(got.strings()[i], want.strings()[i]) << label << " output " << k << " [" << i << "]";
      }
      continue;
    }
    if (IsQuantizedType(want.dtype()) || want.dtype() == DType::kUInt64) {
      // Not representable as doubles (uint64) or not numeric to
      // ToDoubleVector (quantized): element bytes must match exactly.
      const size_t width = DTypeSize(want.dtype());
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        EXPECT_EQ(std::memcmp(static_cast<const char*>(got.raw_data()) + i * width,
                              static_cast<const char*>(want.raw_data()) + i * width, width),
                  0)
            << label << " output " << k << " [" << i << "]";
      }
      continue;
    }
    const conformance::Tolerance tol =
        conformance::ToleranceFor(c.op, want.dtype() == DType::kComplex64 ? DType::kFloat : want.dtype());
    auto as_doubles = [](const Tensor& t) {
      if (t.dtype() != DType::kComplex64) return t.ToDoubleVector();
      return std::vector<double>(t.data<float>(), t.data<float>() + 2 * t.NumElements());
    };
    auto g = as_doubles(got), w = as_doubles(want);
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::isnan(w[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << label << " output " << k << " [" << i << "]";
        continue;
      }
      if (std::isinf(w[i])) {
        EXPECT_EQ(g[i], w[i]) << label << " output " << k << " [" << i << "]";
        continue;
      }
      EXPECT_NEAR(g[i], w[i], tol.atol + tol.rtol * std::fabs(w[i])) << label << " output " << k << " [" << i << "]";
    }
  }
}

TEST_P(OpConformanceTest, ReferenceKernelMatchesTensorFlowJs) {
  const Case& c = AllCases()[GetParam()];
  auto outputs = ops::RunSingleOp(c.op, c.inputs, c.attrs);
  ASSERT_TRUE(outputs.ok()) << c.name << ": " << outputs.status().ToString();
  ExpectMatchesReference(c, *outputs, c.name + " (reference kernel)");
}

// Every fast kernel a backend offers for the case's node, single-threaded and
// on a two-worker intra-op pool (work splitting must not change results).
TEST_P(OpConformanceTest, FastKernelMatchesTensorFlowJs) {
  const Case& c = AllCases()[GetParam()];
  auto node = ops::MakeSingleOpNode(c.op, c.attrs);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  backends::FastKernel fast =
      backends::FastKernelRegistry::Global().Make(*node, ops::OpRegistry::Global().Find(c.op)->kernel);
  if (!fast.kernel) GTEST_SKIP() << "no fast kernel for " << c.op << " with these attrs; the reference kernel runs";
  ThreadPool pool(2);
  for (ThreadPool* intra : {static_cast<ThreadPool*>(nullptr), &pool}) {
    auto outputs = ops::RunKernelOnNode(*node, fast.kernel, c.inputs, nullptr, intra);
    std::string label = c.name + " (" + fast.backend + " kernel, " + (intra ? "2+1 threads" : "1 thread") + ")";
    ASSERT_TRUE(outputs.ok()) << label << ": " << outputs.status().ToString();
    ExpectMatchesReference(c, *outputs, label);
  }
}

std::string CaseName(const ::testing::TestParamInfo<int>& info) {
  std::string name = AllCases()[info.param].name;
  for (char& ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(TfjsReference, OpConformanceTest,
                         ::testing::Range(0, static_cast<int>(AllCases().size())), CaseName);

TEST(OpConformanceSuiteTest, EveryCaseFileLoadsWithUniqueCaseNames) {
  EXPECT_TRUE(AllCaseSet().load_status.ok()) << AllCaseSet().load_status.ToString();
  EXPECT_GT(AllCases().size(), 100u);
}

}  // namespace
}  // namespace tfhost
