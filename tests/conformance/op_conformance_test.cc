// Replays reference cases through every kernel tfhost has for the case's
// node: the op's reference kernel and each fast-kernel backend (SIMD, oneDNN)
// that accepts the node. The cases come from TensorFlow itself
// (generator/tf/, cases/tf_*.json: the op run through tf.raw_ops), from
// TensorFlow.js's CPU kernels (generator/*.mjs, kept as committed JSON), and
// for what neither runs, from values derived by hand from TensorFlow's
// documented semantics (each derivation in a comment of its generator).
// Every *.json under cases/ is read. One test per case and kernel, named
// "<Op>_<case>__<backend>", so a failure names the backend; a backend that
// declines the node has no test. Tolerances come from tolerances.h only;
// known_failures.txt lists the runs known to differ, each with its reason.
//
// TFHOST_CONFORMANCE_DEVICE=gpu (or gpu:N) adds that GPU's backend to the
// host ones (the device check, scripts/gpu_check.sh): its runs copy the
// inputs to the device (but those the backend reads in host memory) and the
// outputs back, and mark the node fp32-strict, since the tolerances are
// float32's and TF32 is a precision
// mode checked on whole models.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "backends/backend_registry.h"
#include "backends/builtin/device_registry.h"
#include "ir/precision_attrs.h"
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

// A number, or "NaN" / "Infinity" / "-Infinity" (JSON has no non-finite
// numbers); true/false read as 1/0.
double JsonNumber(const rapidjson::Value& x) {
  if (x.IsString()) {
    std::string s = x.GetString();
    return s == "NaN" ? NAN : (s[0] == '-' ? -INFINITY : INFINITY);
  }
  if (x.IsBool()) return x.GetBool() ? 1 : 0;
  return x.GetDouble();
}

StatusOr<Tensor> JsonTensor(const rapidjson::Value& v) {
  TFHOST_ASSIGN_OR_RETURN(DType dtype, JsonDType(v["dtype"].GetString()));
  std::vector<int64_t> dims;
  for (const auto& d : v["shape"].GetArray()) dims.push_back(d.GetInt64());
  Tensor t(dtype, Shape(dims));
  const auto& data = v["data"].GetArray();
  // complex64/complex128: interleaved (real, imag) pairs.
  if (dtype == DType::kComplex64 || dtype == DType::kComplex128) {
    if (static_cast<int64_t>(data.Size()) != 2 * t.NumElements()) return InvalidArgument("data size mismatch");
    for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
      if (dtype == DType::kComplex64) {
        t.data<float>()[i] = static_cast<float>(JsonNumber(data[i]));
      } else {
        t.data<double>()[i] = JsonNumber(data[i]);
      }
    }
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
    const double value = JsonNumber(x);
    switch (dtype) {
      case DType::kFloat: t.data<float>()[i] = static_cast<float>(value); break;
      // The JSON holds the exact float16/bfloat16 value (as the generator
      // checks), so narrowing through float32 does not round.
      case DType::kHalf: t.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(value)); break;
      case DType::kBFloat16: t.data<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(value)); break;
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
      case DType::kUInt32: t.data<uint32_t>()[i] = static_cast<uint32_t>(x.IsUint() ? x.GetUint() : value); break;
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

StatusOr<tensorflow::AttrValue> JsonAttr(const rapidjson::Value& v) {
  tensorflow::AttrValue a;
  auto type_of = [](const char* s) { return static_cast<tensorflow::DataType>(*ParseDType(s)); };
  if (v.HasMember("i")) a.set_i(v["i"].GetInt64());
  if (v.HasMember("f")) a.set_f(static_cast<float>(JsonNumber(v["f"])));
  if (v.HasMember("tensor")) {  // {"tensor": {dtype, shape, data}}: Const's value
    TFHOST_ASSIGN_OR_RETURN(Tensor t, JsonTensor(v["tensor"]));
    a = ops::MakeAttr(t);
  }
  if (v.HasMember("s")) a.set_s(v["s"].GetString());
  if (v.HasMember("b")) a.set_b(v["b"].GetBool());
  if (v.HasMember("type")) a.set_type(type_of(v["type"].GetString()));
  if (v.HasMember("list_i")) {
    auto* l = a.mutable_list();
    for (const auto& x : v["list_i"].GetArray()) l->add_i(x.GetInt64());
  }
  if (v.HasMember("list_f")) {
    auto* l = a.mutable_list();
    for (const auto& x : v["list_f"].GetArray()) l->add_f(static_cast<float>(JsonNumber(x)));
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
    // A value the loader cannot read fails the file, naming the case.
    auto where = [&](const Status& s) {
      return InvalidArgument("conformance case " + k.name + " in " + path.string() + ": " + s.ToString());
    };
    for (auto it = c["attrs"].MemberBegin(); it != c["attrs"].MemberEnd(); ++it) {
      auto attr = JsonAttr(it->value);
      if (!attr.ok()) return where(attr.status());
      k.attrs[it->name.GetString()] = *attr;
    }
    for (const char* field : {"inputs", "outputs"}) {
      for (const auto& t : c[field].GetArray()) {
        auto tensor = JsonTensor(t);
        if (!tensor.ok()) return where(tensor.status());
        (field[0] == 'i' ? k.inputs : k.outputs).push_back(*tensor);
      }
    }
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

// The suite's files: the compiled-in source paths, or the environment's
// (a copy of the tree elsewhere, as on the device check's machine).
std::string SuitePath(const char* env, const char* built_in) {
  const char* v = std::getenv(env);
  return v != nullptr && *v != '\0' ? v : built_in;
}
std::string CasesDir() { return SuitePath("TFHOST_CONFORMANCE_CASES", TFHOST_CONFORMANCE_CASES); }
std::string KnownFailuresFile() {
  return SuitePath("TFHOST_CONFORMANCE_KNOWN_FAILURES", TFHOST_CONFORMANCE_KNOWN_FAILURES);
}

CaseSet LoadCases() {
  CaseSet set;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(CasesDir(), ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (ec) set.load_status = NotFound("conformance cases directory " + CasesDir() + ": " + ec.message());
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

bool IsFloatingType(DType d) {
  return d == DType::kFloat || d == DType::kDouble || d == DType::kHalf || d == DType::kBFloat16 ||
         d == DType::kComplex64 || d == DType::kComplex128;
}

// Compares one run's outputs with the case's reference outputs, within the
// op's tolerance: "" when they match, else what differs (per output, its
// first few wrong elements and how many there are).
std::string Mismatches(const Case& c, const std::vector<Tensor>& outputs) {
  std::ostringstream problems;
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    if (!c.only_outputs.empty() &&
        std::find(c.only_outputs.begin(), c.only_outputs.end(), static_cast<int>(k)) == c.only_outputs.end()) {
      continue;
    }
    if (k >= outputs.size()) return "no output " + std::to_string(k);
    const Tensor& got = outputs[k];
    const Tensor& want = c.outputs[k];
    if (!got.valid()) return "output " + std::to_string(k) + " is dead or unset";
    if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
      problems << "output " << k << " is " << DTypeShortName(got.dtype()) << got.shape().ToString() << ", want "
               << DTypeShortName(want.dtype()) << want.shape().ToString() << "; ";
      continue;
    }
    int64_t wrong = 0;
    std::ostringstream first;
    auto mismatch = [&](int64_t i, const std::string& got_text, const std::string& want_text) {
      if (wrong++ < 4) first << "\n  [" << i << "] got " << got_text << ", want " << want_text;
    };
    if (want.dtype() == DType::kString) {
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        if (got.strings()[i] != want.strings()[i]) mismatch(i, "\"" + got.strings()[i] + "\"", "\"" + want.strings()[i] + "\"");
      }
    } else if (!IsFloatingType(want.dtype())) {
      // Integers, bools and quantized values match exactly, element bytes
      // and all (a double would not tell int64 neighbours apart).
      const size_t width = DTypeSize(want.dtype());
      const auto g = got.dtype() == DType::kUInt64 || IsStringLike(got.dtype()) ? std::vector<double>() : got.ToDoubleVector();
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        const char* gb = static_cast<const char*>(got.raw_data()) + i * width;
        const char* wb = static_cast<const char*>(want.raw_data()) + i * width;
        if (std::memcmp(gb, wb, width) != 0) {
          std::ostringstream gs, ws;
          if (want.dtype() == DType::kInt64) {
            gs << got.data<int64_t>()[i];
            ws << want.data<int64_t>()[i];
          } else if (want.dtype() == DType::kUInt64) {
            gs << got.data<uint64_t>()[i];
            ws << want.data<uint64_t>()[i];
          } else {
            gs << g[i];
            ws << want.ToDoubleVector()[i];
          }
          mismatch(i, gs.str(), ws.str());
        }
      }
    } else {
      const DType part = want.dtype() == DType::kComplex64    ? DType::kFloat
                         : want.dtype() == DType::kComplex128 ? DType::kDouble
                                                              : want.dtype();
      const conformance::Tolerance tol = conformance::ToleranceFor(c.op, part);
      auto as_doubles = [](const Tensor& t) {
        if (t.dtype() == DType::kComplex64) return std::vector<double>(t.data<float>(), t.data<float>() + 2 * t.NumElements());
        if (t.dtype() == DType::kComplex128) return std::vector<double>(t.data<double>(), t.data<double>() + 2 * t.NumElements());
        return t.ToDoubleVector();
      };
      const auto g = as_doubles(got), w = as_doubles(want);
      for (size_t i = 0; i < w.size(); ++i) {
        const bool ok = std::isnan(w[i])   ? std::isnan(g[i])
                        : std::isinf(w[i]) ? g[i] == w[i]
                                           : std::fabs(g[i] - w[i]) <= tol.atol + tol.rtol * std::fabs(w[i]);
        if (!ok) {
          std::ostringstream gs, ws;
          gs << std::setprecision(9) << g[i];
          ws << std::setprecision(9) << w[i] << " (tolerance " << tol.atol + tol.rtol * std::fabs(w[i]) << ")";
          mismatch(static_cast<int64_t>(i), gs.str(), ws.str());
        }
      }
    }
    if (wrong > 0) {
      problems << "output " << k << ": " << wrong << " of " << want.NumElements() << " elements differ"
               << first.str() << "\n";
    }
  }
  return problems.str();
}

// One test: a case on one kernel. "reference" is the op's own kernel; any
// other name is a backend of backends::BackendRegistry::Global() that
// accepted the case's node.
struct CaseRun {
  int case_index;
  std::string backend;
};

// gtest prints a failing test's parameter: the case and backend by name.
void PrintTo(const CaseRun& run, std::ostream* os) { *os << AllCases()[run.case_index].name << " on " << run.backend; }

// The backends the runs are listed from: the host's, plus the GPU
// TFHOST_CONFORMANCE_DEVICE names. Why that GPU is not usable, if it is not,
// goes to RequestedDeviceIsUsable.
struct SuiteRegistry {
  const backends::BackendRegistry* registry = nullptr;
  std::string device_error;
};

const SuiteRegistry& Suite() {
  static const SuiteRegistry* suite = [] {
    auto* s = new SuiteRegistry{&backends::BackendRegistry::Global(), ""};
    const char* device = std::getenv("TFHOST_CONFORMANCE_DEVICE");
    if (device == nullptr || *device == '\0') return s;
    auto choice = backends::ParseDevice(device);
    if (!choice.ok()) {
      s->device_error = choice.status().ToString();
      return s;
    }
    auto chosen = backends::ForDevice(*choice);
    if (!chosen.ok()) {
      s->device_error = chosen.status().ToString();
      return s;
    }
    s->registry = chosen->registry;
    return s;
  }();
  return *suite;
}

const std::vector<CaseRun>& AllRuns() {
  static const std::vector<CaseRun>* runs = [] {
    auto* list = new std::vector<CaseRun>;
    const auto& registry = *Suite().registry;
    for (int i = 0; i < static_cast<int>(AllCases().size()); ++i) {
      const Case& c = AllCases()[i];
      list->push_back({i, "reference"});
      const ops::OpRegistration* reg = ops::OpRegistry::Global().Find(c.op);
      auto node = ops::MakeSingleOpNode(c.op, c.attrs);
      if (reg == nullptr || !node.ok()) continue;  // the reference run reports it
      for (const backends::Backend* backend : registry.backends()) {
        if (backend->name() == backends::kReferenceBackend) continue;
        if (registry.MakeKernelFrom(backend->name(), *node, reg->kernel).kernel) {
          list->push_back({i, backend->name()});
        }
      }
    }
    return list;
  }();
  return *runs;
}

// known_failures.txt: "<case name>\t<backend>\t<reason>" for each run known
// to disagree with its reference (a tfhost bug not yet fixed, or a reference
// quirk tfhost deliberately does not copy). Such a run is reported as skipped
// with its differences; once it matches, the test fails until the line is
// removed, so the list never outlives the bugs.
const std::map<std::string, std::string>& KnownFailures() {
  static const std::map<std::string, std::string>* known = [] {
    auto* m = new std::map<std::string, std::string>;
    std::ifstream in(KnownFailuresFile());
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const size_t a = line.find('\t'), b = line.find('\t', a + 1);
      if (a == std::string::npos || b == std::string::npos) continue;  // KnownFailuresFileIsWellFormed reports it
      (*m)[line.substr(0, b)] = line.substr(b + 1);
    }
    return m;
  }();
  return *known;
}

class OpConformanceTest : public ::testing::TestWithParam<CaseRun> {};

// Runs the case on `backend`'s kernel: the op's reference kernel, or the
// backend's fast kernel alone (not chained to other backends), single-
// threaded and on a two-worker intra-op pool (work splitting must not change
// results). Returns what differs from the reference ("" = nothing), or sets
// `declined` when the fast kernel handed every call to the reference kernel.
std::string RunAndCompare(const Case& c, const std::string& backend, bool* declined) {
  *declined = false;
  if (backend == "reference") {
    auto outputs = ops::RunSingleOp(c.op, c.inputs, c.attrs);
    if (!outputs.ok()) return "reference kernel failed: " + outputs.status().ToString();
    return Mismatches(c, *outputs);
  }
  auto node = ops::MakeSingleOpNode(c.op, c.attrs);
  if (!node.ok()) return node.status().ToString();
  const backends::BackendRegistry& registry = *Suite().registry;
  const backends::Backend* placed = registry.Find(backend);
  if (placed == nullptr) return "no backend named " + backend;
  const bool on_device = !placed->memory_space().host_accessible();
  if (on_device) node->attrs[ir::kStrictFp32Attr].set_b(true);
  backends::NodeKernel fast = registry.MakeKernelFrom(backend, *node, ops::OpRegistry::Global().Find(c.op)->kernel);
  if (!fast.kernel) return backend + " no longer accepts the node it accepted when the tests were listed";
  std::vector<Tensor> inputs = c.inputs;
  if (on_device) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (placed->InputInHostMemory(*node, static_cast<int>(i))) continue;  // a Reshape's shape
      auto in = placed->CopyIn(inputs[i]);
      if (!in.ok()) return "copying input " + std::to_string(i) + " to " + backend + ": " + in.status().ToString();
      inputs[i] = std::move(*in);
    }
  }
  ThreadPool pool(2);
  bool ran_on_backend = false;
  std::string problems;
  for (ThreadPool* intra : {static_cast<ThreadPool*>(nullptr), &pool}) {
    // The last kernel to mark the call did the work: 0 means the backend
    // handed it to the reference kernel (a shape it does not take).
    int done_by = 0;
    ops::KernelFn observed = [&](ops::KernelContext& ctx) {
      Status s = fast.kernel(ctx);
      done_by = ctx.backend_id();
      return s;
    };
    auto outputs = ops::RunKernelOnNode(*node, observed, inputs, nullptr, intra);
    const std::string threads = intra ? "2+1 threads" : "1 thread";
    // A device kernel that declines the call ends its space's chain.
    if (on_device && !outputs.ok() && outputs.status().code() == StatusCode::kUnimplemented &&
        outputs.status().message().find("accepts this call") != std::string::npos) {
      continue;
    }
    if (!outputs.ok()) return backend + " kernel (" + threads + ") failed: " + outputs.status().ToString();
    if (on_device) {
      for (size_t i = 0; i < outputs->size(); ++i) {
        auto out = placed->CopyOut((*outputs)[i]);
        if (!out.ok()) return "copying output " + std::to_string(i) + " from " + backend + ": " + out.status().ToString();
        (*outputs)[i] = std::move(*out);
      }
    }
    if (done_by == 0) continue;
    ran_on_backend = true;
    const std::string m = Mismatches(c, *outputs);
    if (!m.empty()) problems += "(" + threads + ") " + m;
  }
  *declined = !ran_on_backend;
  return problems;
}

TEST_P(OpConformanceTest, MatchesReference) {
  const Case& c = AllCases()[GetParam().case_index];
  const std::string& backend = GetParam().backend;
  bool declined = false;
  const std::string problems = RunAndCompare(c, backend, &declined);
  if (declined) GTEST_SKIP() << backend << " handed these shapes to the reference kernel";
  auto known = KnownFailures().find(c.name + "\t" + backend);
  if (known != KnownFailures().end()) {
    if (problems.empty()) {
      FAIL() << c.name << " on " << backend << " now matches its reference: remove it from known_failures.txt";
    }
    GTEST_SKIP() << "known failure (" << known->second << "): " << problems;
  }
  EXPECT_TRUE(problems.empty()) << c.name << " on the " << backend << " kernel: " << problems;
}

std::string RunName(const ::testing::TestParamInfo<CaseRun>& info) {
  std::string name = AllCases()[info.param.case_index].name + "__" + info.param.backend;
  for (char& ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, OpConformanceTest, ::testing::ValuesIn(AllRuns()), RunName);

// Every line names a case and backend that exist, with a reason.
TEST(OpConformanceSuiteTest, KnownFailuresFileIsWellFormed) {
  std::ifstream in(KnownFailuresFile());
  ASSERT_TRUE(in) << "cannot read " << KnownFailuresFile();
  std::set<std::string> runs;
  for (const CaseRun& r : AllRuns()) runs.insert(AllCases()[r.case_index].name + "\t" + r.backend);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t a = line.find('\t'), b = line.find('\t', a + 1);
    ASSERT_TRUE(a != std::string::npos && b != std::string::npos && b + 1 < line.size())
        << "known_failures.txt: want <case>\\t<backend>\\t<reason>, got: " << line;
    EXPECT_TRUE(runs.count(line.substr(0, b))) << "known_failures.txt names no run of the suite: " << line;
  }
}

TEST(OpConformanceSuiteTest, RequestedDeviceIsUsable) {
  const char* device = std::getenv("TFHOST_CONFORMANCE_DEVICE");
  if (device == nullptr || *device == '\0') GTEST_SKIP() << "TFHOST_CONFORMANCE_DEVICE is not set: host backends only";
  EXPECT_EQ(Suite().device_error, "") << "TFHOST_CONFORMANCE_DEVICE=" << device;
}

TEST(OpConformanceSuiteTest, EveryCaseFileLoadsWithUniqueCaseNames) {
  EXPECT_TRUE(AllCaseSet().load_status.ok()) << AllCaseSet().load_status.ToString();
  EXPECT_GT(AllCases().size(), 100u);
}

}  // namespace
}  // namespace tfhost
