#include "data/predict/feed.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "data/example_json.h"

namespace tfhost::data::predict {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Input keys under which predict-style signatures take serialized Examples.
bool IsExampleInputKey(const std::string& key) {
  static const std::set<std::string> keys = {"inputs",   "examples",           "example",
                                             "input_example", "input_examples", "serialized",
                                             "serialized_examples", "serialized_example", "tf_example"};
  return keys.count(key) > 0;
}

bool TakesOneStringVector(const SignatureInfo& s) {
  return s.inputs.size() == 1 && s.inputs[0].dtype == DType::kString && s.inputs[0].shape.rank() <= 1;
}

std::string DescribeInput(const TensorInfo& t) {
  return "'" + t.key + "' (" + DTypeShortName(t.dtype) + " " + t.shape.ToString() + ")";
}

std::string ListInputs(const SignatureInfo& s) {
  std::string out;
  for (const TensorInfo& t : s.inputs) out += (out.empty() ? "" : ", ") + DescribeInput(t);
  return out.empty() ? "none" : out;
}

// Writes `count` values of `f` into `dst`, converted to T. `what` prefixes errors.
template <typename T>
Status PutNumbers(const Feature& f, DType dtype, T* dst, const std::string& what) {
  const bool to_float = IsFloatingPoint(dtype);
  if (f.kind == FeatureKind::kBytes) {
    return InvalidArgument(what + " is a bytes feature; the input wants " + DTypeShortName(dtype));
  }
  if (f.kind == FeatureKind::kFloat) {
    for (size_t i = 0; i < f.floats.size(); ++i) {
      float v = f.floats[i];
      if constexpr (std::is_floating_point_v<T>) {
        dst[i] = static_cast<T>(v);
      } else {
        if (to_float) continue;  // not reached: floating dtypes use float T
        if (!std::isfinite(v) || v != std::trunc(v) ||
            static_cast<double>(v) < static_cast<double>(std::numeric_limits<T>::lowest()) ||
            static_cast<double>(v) > static_cast<double>(std::numeric_limits<T>::max())) {
          return InvalidArgument(what + " value " + FormatFloat(v) + " (index " + std::to_string(i) +
                                 ") is not a whole number that fits " + DTypeShortName(dtype));
        }
        dst[i] = static_cast<T>(v);
      }
    }
    return OkStatus();
  }
  for (size_t i = 0; i < f.int64s.size(); ++i) {
    int64_t v = f.int64s[i];
    if constexpr (std::is_floating_point_v<T>) {
      dst[i] = static_cast<T>(v);
    } else {
      if constexpr (std::is_unsigned_v<T>) {
        if (v < 0 || static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
          return InvalidArgument(what + " value " + std::to_string(v) + " (index " + std::to_string(i) +
                                 ") does not fit " + DTypeShortName(dtype));
        }
      } else {
        if (v < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
            v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
          return InvalidArgument(what + " value " + std::to_string(v) + " (index " + std::to_string(i) +
                                 ") does not fit " + DTypeShortName(dtype));
        }
      }
      dst[i] = static_cast<T>(v);
    }
  }
  return OkStatus();
}

// Copies one record's feature values into row `row` of `t` (`per` elements).
Status PutRow(const Feature& f, Tensor& t, int64_t row, int64_t per, const std::string& what) {
  const DType dtype = t.dtype();
  const int64_t off = row * per;
  switch (dtype) {
    case DType::kFloat:
      return PutNumbers<float>(f, dtype, t.data<float>() + off, what);
    case DType::kDouble:
      return PutNumbers<double>(f, dtype, t.data<double>() + off, what);
    case DType::kHalf:
    case DType::kBFloat16: {
      std::vector<float> tmp(static_cast<size_t>(per));
      TFHOST_RETURN_IF_ERROR(PutNumbers<float>(f, DType::kFloat, tmp.data(), what));
      uint16_t* dst = static_cast<uint16_t*>(t.raw_data()) + off;
      for (int64_t i = 0; i < per; ++i) {
        dst[i] = dtype == DType::kHalf ? FloatToHalf(tmp[i]) : FloatToBFloat16(tmp[i]);
      }
      return OkStatus();
    }
    case DType::kInt64:
      return PutNumbers<int64_t>(f, dtype, t.data<int64_t>() + off, what);
    case DType::kInt32:
      return PutNumbers<int32_t>(f, dtype, t.data<int32_t>() + off, what);
    case DType::kInt16:
      return PutNumbers<int16_t>(f, dtype, t.data<int16_t>() + off, what);
    case DType::kInt8:
      return PutNumbers<int8_t>(f, dtype, t.data<int8_t>() + off, what);
    case DType::kUInt8:
      return PutNumbers<uint8_t>(f, dtype, t.data<uint8_t>() + off, what);
    case DType::kUInt16:
      return PutNumbers<uint16_t>(f, dtype, t.data<uint16_t>() + off, what);
    case DType::kUInt32:
      return PutNumbers<uint32_t>(f, dtype, static_cast<uint32_t*>(t.raw_data()) + off, what);
    case DType::kUInt64:
      return PutNumbers<uint64_t>(f, dtype, static_cast<uint64_t*>(t.raw_data()) + off, what);
    case DType::kBool: {
      if (f.kind != FeatureKind::kInt64 && f.kind != FeatureKind::kNone) {
        return InvalidArgument(what + " is a " + ops::parsing::FeatureKindName(f.kind) +
                               " feature; the input wants bool (an int64 feature of 0/1)");
      }
      bool* dst = t.data<bool>() + off;
      for (size_t i = 0; i < f.int64s.size(); ++i) {
        if (f.int64s[i] != 0 && f.int64s[i] != 1) {
          return InvalidArgument(what + " value " + std::to_string(f.int64s[i]) + " is not 0 or 1 (input wants bool)");
        }
        dst[i] = f.int64s[i] == 1;
      }
      return OkStatus();
    }
    case DType::kString: {
      if (f.kind != FeatureKind::kBytes && f.kind != FeatureKind::kNone) {
        return InvalidArgument(what + " is a " + ops::parsing::FeatureKindName(f.kind) +
                               " feature; the input wants string (a bytes feature)");
      }
      std::string* dst = t.strings() + off;
      for (size_t i = 0; i < f.bytes.size(); ++i) dst[i] = f.bytes[i];
      return OkStatus();
    }
    default:
      return Unimplemented(what + ": inputs of dtype " + DTypeShortName(dtype) + " cannot be fed from features");
  }
}

StatusOr<Example> RecordExample(const RecordRef& r) {
  if (r.is_json) {
    auto parsed = RecordFromJson(r.bytes);
    if (!parsed.ok()) return parsed.status().WithContext(r.Where());
    if (parsed->is_sequence) {
      return InvalidArgument(r.Where() + " is a SequenceExample; predict feeds tf.train.Example records");
    }
    return std::move(parsed->example);
  }
  if (HasFeatureLists(r.bytes)) {
    return InvalidArgument(r.Where() + " is a SequenceExample; predict feeds tf.train.Example records");
  }
  auto ex = DecodeExample(r.bytes, r.index);
  if (!ex.ok()) return ex.status().WithContext(r.Where());
  return ex;
}

void KeepFeatures(const Example& ex, const std::vector<std::string>& names, FeatureMap* kept) {
  for (const std::string& n : names) {
    auto it = ex.features.find(n);
    if (it != ex.features.end()) (*kept)[n] = it->second;
  }
}

// Row `row` of an output tensor as a Feature.
StatusOr<Feature> RowFeature(const Tensor& t, int64_t row, int64_t per, const std::string& key) {
  const int64_t off = row * per;
  Feature f;
  auto floats = [&](auto get) {
    f.kind = FeatureKind::kFloat;
    f.floats.resize(static_cast<size_t>(per));
    for (int64_t i = 0; i < per; ++i) f.floats[i] = static_cast<float>(get(off + i));
  };
  auto ints = [&](auto get) {
    f.kind = FeatureKind::kInt64;
    f.int64s.resize(static_cast<size_t>(per));
    for (int64_t i = 0; i < per; ++i) f.int64s[i] = static_cast<int64_t>(get(off + i));
  };
  switch (t.dtype()) {
    case DType::kFloat: {
      const float* p = t.data<float>();
      f.kind = FeatureKind::kFloat;
      f.floats.assign(p + off, p + off + per);
      break;
    }
    case DType::kDouble: floats([&](int64_t i) { return t.data<double>()[i]; }); break;
    case DType::kHalf: floats([&](int64_t i) { return HalfToFloat(static_cast<const uint16_t*>(t.raw_data())[i]); }); break;
    case DType::kBFloat16:
      floats([&](int64_t i) { return BFloat16ToFloat(static_cast<const uint16_t*>(t.raw_data())[i]); });
      break;
    case DType::kInt64: ints([&](int64_t i) { return t.data<int64_t>()[i]; }); break;
    case DType::kInt32: ints([&](int64_t i) { return t.data<int32_t>()[i]; }); break;
    case DType::kInt16: ints([&](int64_t i) { return t.data<int16_t>()[i]; }); break;
    case DType::kInt8: ints([&](int64_t i) { return t.data<int8_t>()[i]; }); break;
    case DType::kUInt8: ints([&](int64_t i) { return t.data<uint8_t>()[i]; }); break;
    case DType::kUInt16: ints([&](int64_t i) { return t.data<uint16_t>()[i]; }); break;
    case DType::kUInt32: ints([&](int64_t i) { return static_cast<const uint32_t*>(t.raw_data())[i]; }); break;
    case DType::kUInt64: ints([&](int64_t i) { return static_cast<const uint64_t*>(t.raw_data())[i]; }); break;
    case DType::kBool: ints([&](int64_t i) { return t.data<bool>()[i] ? 1 : 0; }); break;
    case DType::kString: {
      const std::string* p = t.strings();
      f.kind = FeatureKind::kBytes;
      f.bytes.assign(p + off, p + off + per);
      break;
    }
    default:
      return Unimplemented("output '" + key + "' has dtype " + DTypeShortName(t.dtype()) +
                           ", which has no tf.train.Feature kind");
  }
  return f;
}

}  // namespace

const char* FeedModeName(FeedMode mode) { return mode == FeedMode::kSerializedExamples ? "examples" : "features"; }

StatusOr<FeedMode> ParseFeedMode(std::string_view name) {
  if (name == "examples") return FeedMode::kSerializedExamples;
  if (name == "features") return FeedMode::kFeatures;
  return InvalidArgument("unknown feed mode '" + std::string(name) + "' (expected auto, examples or features)");
}

StatusOr<FeedMode> ChooseFeedMode(const SignatureInfo& s, std::optional<FeedMode> requested) {
  if (requested == FeedMode::kFeatures) return FeedMode::kFeatures;
  if (requested == FeedMode::kSerializedExamples) {
    if (!TakesOneStringVector(s)) {
      return InvalidArgument("signature '" + s.name + "' does not take serialized Examples: that needs exactly one " +
                             "string input of shape [?] or unknown shape; its inputs are " + ListInputs(s));
    }
    return FeedMode::kSerializedExamples;
  }
  if (TakesOneStringVector(s) && (EndsWith(s.method_name, "/classify") || EndsWith(s.method_name, "/regress") ||
                                  IsExampleInputKey(s.inputs[0].key))) {
    return FeedMode::kSerializedExamples;
  }
  return FeedMode::kFeatures;
}

std::string RecordRef::Where() const {
  std::string f = file ? "file '" + *file + "' " : std::string();
  if (is_json) return f + "line " + std::to_string(line) + " (record " + std::to_string(index) + ")";
  return f + "record " + std::to_string(index);
}

StatusOr<Feeder> Feeder::Create(SignatureInfo signature, FeedMode mode, FeedOptions options) {
  Feeder f;
  f.signature_ = std::move(signature);
  f.mode_ = mode;
  f.options_ = std::move(options);
  const SignatureInfo& s = f.signature_;
  if (s.outputs.empty()) return InvalidArgument("signature '" + s.name + "' has no outputs");
  if (f.options_.outputs.empty()) {
    for (const TensorInfo& t : s.outputs) f.output_keys_.push_back(t.key);
  } else {
    for (const std::string& k : f.options_.outputs) {
      bool found = false;
      for (const TensorInfo& t : s.outputs) found = found || t.key == k;
      if (!found) {
        std::string keys;
        for (const TensorInfo& t : s.outputs) keys += (keys.empty() ? "" : ", ") + t.key;
        return InvalidArgument("signature '" + s.name + "' has no output '" + k + "' (outputs: " + keys + ")");
      }
      f.output_keys_.push_back(k);
    }
  }
  for (const std::string& k : f.options_.keep_features) {
    for (const std::string& o : f.output_keys_) {
      if (o == k) {
        return InvalidArgument("kept feature '" + k + "' has the name of an output; each output Example "
                               "holds one feature per name");
      }
    }
  }
  if (mode == FeedMode::kSerializedExamples) {
    if (!TakesOneStringVector(s)) {
      return InvalidArgument("signature '" + s.name + "' does not take serialized Examples; its inputs are " +
                             ListInputs(s));
    }
    return f;
  }
  for (size_t ti = 0; ti < s.inputs.size(); ++ti) {
    const TensorInfo& t = s.inputs[ti];
    Input in;
    in.input_index = ti;
    in.feature = t.key;
    std::string stem = t.tensor_name;
    if (size_t colon = stem.rfind(':'); colon != std::string::npos) stem.resize(colon);
    if (stem != t.key) in.alt_feature = stem;
    if (!t.shape.rank_known()) {
      in.row_unknown_rank = true;
    } else if (t.shape.rank() == 0) {
      return InvalidArgument("signature input " + DescribeInput(t) +
                             " is a scalar; predict stacks records along a first (batch) dimension");
    } else {
      in.fixed_batch = t.shape.dim(0);
      for (int i = 1; i < t.shape.rank(); ++i) in.row_dims.push_back(t.shape.dim(i));
      int unknown = 0;
      for (int64_t d : in.row_dims) unknown += d < 0 ? 1 : 0;
      if (unknown > 1) {
        return InvalidArgument("signature input " + DescribeInput(t) +
                               " has more than one unknown dimension besides the batch; a feature's value list "
                               "cannot say how to shape it");
      }
    }
    f.feature_inputs_.push_back(in);
  }
  return f;
}

StatusOr<FedBatch> Feeder::Feed(const std::vector<RecordRef>& records) const {
  if (records.empty()) return InvalidArgument("empty batch");
  FedBatch batch;
  batch.size = static_cast<int64_t>(records.size());
  const bool keep = !options_.keep_features.empty();
  if (mode_ == FeedMode::kSerializedExamples) {
    Tensor t(DType::kString, Shape({batch.size}));
    std::string* dst = t.strings();
    if (keep) batch.kept.resize(records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      const RecordRef& r = records[i];
      if (r.is_json || keep) {
        TFHOST_ASSIGN_OR_RETURN(Example ex, RecordExample(r));
        if (keep) KeepFeatures(ex, options_.keep_features, &batch.kept[i]);
        dst[i] = r.is_json ? EncodeExample(ex) : std::string(r.bytes);
      } else {
        dst[i].assign(r.bytes.data(), r.bytes.size());
      }
    }
    batch.inputs[signature_.inputs[0].key] = std::move(t);
    return batch;
  }
  TFHOST_RETURN_IF_ERROR(FeedFeatures(records, &batch));
  return batch;
}

Status Feeder::FeedFeatures(const std::vector<RecordRef>& records, FedBatch* batch) const {
  const int64_t n = batch->size;
  std::vector<Example> examples;
  examples.reserve(records.size());
  for (const RecordRef& r : records) {
    TFHOST_ASSIGN_OR_RETURN(Example ex, RecordExample(r));
    examples.push_back(std::move(ex));
  }
  if (!options_.keep_features.empty()) {
    batch->kept.resize(records.size());
    for (size_t i = 0; i < examples.size(); ++i) KeepFeatures(examples[i], options_.keep_features, &batch->kept[i]);
  }
  for (const Input& in : feature_inputs_) {
    const TensorInfo& info = signature_.inputs[in.input_index];
    if (in.fixed_batch >= 0 && in.fixed_batch != n) {
      return InvalidArgument("signature input " + DescribeInput(info) + " takes batches of exactly " +
                             std::to_string(in.fixed_batch) + " records, this batch has " + std::to_string(n) +
                             "; run with --batch " + std::to_string(in.fixed_batch));
    }
    // Find each record's feature.
    std::vector<const Feature*> feats(examples.size(), nullptr);
    int64_t missing = 0;
    for (size_t i = 0; i < examples.size(); ++i) {
      const FeatureMap& fm = examples[i].features;
      auto it = fm.find(in.feature);
      if (it == fm.end() && !in.alt_feature.empty()) it = fm.find(in.alt_feature);
      if (it != fm.end()) feats[i] = &it->second;
      if (feats[i] == nullptr) ++missing;
    }
    if (missing > 0) {
      if (info.has_default && missing == n) continue;  // the signature's default feeds it
      size_t i = 0;
      while (feats[i] != nullptr) ++i;
      std::string names = "'" + in.feature + "'" + (in.alt_feature.empty() ? "" : " or '" + in.alt_feature + "'");
      return InvalidArgument(records[i].Where() + " has no feature " + names + " for signature input " +
                             DescribeInput(info) +
                             (info.has_default ? " (the input has a default, but only batches where no record "
                                                 "has the feature can use it)"
                                               : ""));
    }
    // One record's element count and dims.
    const int64_t count0 = static_cast<int64_t>(feats[0]->size());
    std::vector<int64_t> row = in.row_dims;
    if (in.row_unknown_rank) {
      row = {count0};
    } else {
      int64_t known = 1;
      int unknown_at = -1;
      for (size_t d = 0; d < row.size(); ++d) {
        if (row[d] < 0) unknown_at = static_cast<int>(d);
        else known *= row[d];
      }
      if (unknown_at >= 0) {
        if (known == 0 || count0 % known != 0) {
          return InvalidArgument(records[0].Where() + ": feature '" + in.feature + "' has " + std::to_string(count0) +
                                 " values, not a multiple of " + std::to_string(known) + " as input " +
                                 DescribeInput(info) + " needs");
        }
        row[unknown_at] = count0 / known;
      }
    }
    int64_t per = 1;
    for (int64_t d : row) per *= d;
    for (size_t i = 0; i < feats.size(); ++i) {
      int64_t c = static_cast<int64_t>(feats[i]->size());
      if (c != per) {
        return InvalidArgument(records[i].Where() + ": feature '" + in.feature + "' has " + std::to_string(c) +
                               " values; signature input " + DescribeInput(info) + " wants " + std::to_string(per) +
                               " per record" +
                               (i > 0 && (in.row_unknown_rank || per == count0)
                                    ? " (as the batch's first record has; rows must have equal lengths)"
                                    : ""));
      }
    }
    std::vector<int64_t> dims = {n};
    dims.insert(dims.end(), row.begin(), row.end());
    TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, "input '" + info.key + "'", int64_t{1} << 34));
    Tensor t(info.dtype, shape);
    for (size_t i = 0; i < feats.size(); ++i) {
      Status s = PutRow(*feats[i], t, static_cast<int64_t>(i), per,
                        records[i].Where() + ": feature '" + in.feature + "' (signature input " +
                            DescribeInput(info) + ")");
      if (!s.ok()) return s;
    }
    batch->inputs[info.key] = std::move(t);
  }
  return OkStatus();
}

StatusOr<std::vector<Example>> Feeder::Split(const std::map<std::string, Tensor>& outputs, int64_t batch_size,
                                             std::vector<FeatureMap> kept) const {
  std::vector<Example> out(static_cast<size_t>(batch_size));
  if (!kept.empty()) {
    for (size_t i = 0; i < out.size() && i < kept.size(); ++i) out[i].features = std::move(kept[i]);
  }
  for (const std::string& key : output_keys_) {
    auto it = outputs.find(key);
    if (it == outputs.end()) return Internal("the run returned no output '" + key + "'");
    const Tensor& t = it->second;
    if (t.rank() < 1 || t.dim(0) != batch_size) {
      return InvalidArgument("output '" + key + "' has shape " + t.shape().ToString() + " for a batch of " +
                             std::to_string(batch_size) +
                             " records; predict needs outputs whose first dimension is the batch (select others "
                             "away with --outputs)");
    }
    const int64_t per = batch_size == 0 ? 0 : t.NumElements() / batch_size;
    for (int64_t i = 0; i < batch_size; ++i) {
      TFHOST_ASSIGN_OR_RETURN(Feature f, RowFeature(t, i, per, key));
      out[static_cast<size_t>(i)].features[key] = std::move(f);
    }
  }
  return out;
}

}  // namespace tfhost::data::predict
