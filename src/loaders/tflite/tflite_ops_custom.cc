// The custom operators TF Serving's TFLite sessions register, ParseExample
// and ParseExampleV2 (TFLite's parse_example kernels), mapped to the
// TensorFlow ops of the same names.
//
// The converter writes their custom_options one of two ways: a FlexBuffer
// vector [op name, serialized NodeDef] whose attrs say everything, or a
// FlexBuffer map holding only the sparse count ("num_sparse"/"Nsparse") and,
// for V1, "Ndense". With the map, TFLite takes the rest from the operator's
// tensors, and so does tfhost: the dense count from the dense keys (V2),
// each dense output's type and per-example shape (its shape after the batch
// dimension), and each sparse output's type.
#include <flatbuffers/flexbuffers.h>

#include "loaders/tflite/tflite_functions.h"
#include "loaders/tflite/tflite_ops.h"
#include "tensorflow/core/framework/node_def.pb.h"

namespace tfhost::loaders::tflite {

namespace {

struct ParseOptions {
  std::optional<tensorflow::NodeDef> node_def;  // the vector form
  int64_t num_sparse = 0;
  int64_t num_dense = -1;  // V1's "Ndense" in the map form
};

StatusOr<ParseOptions> ReadParseOptions(const OpContext& ctx) {
  const auto* bytes = ctx.op->custom_options();
  if (bytes == nullptr || bytes->size() == 0) return ctx.Error("has no custom_options");
  // GetRoot reads the last bytes as the root's offset and width; the
  // verifier checks every offset against the buffer first.
  std::vector<uint8_t> reuse;
  if (!flexbuffers::VerifyBuffer(bytes->data(), bytes->size(), &reuse)) {
    return ctx.Error("has custom_options that are not a valid FlexBuffer");
  }
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes->data(), bytes->size());
  ParseOptions out;
  if (root.IsVector() && !root.IsMap()) {
    const flexbuffers::Vector v = root.AsVector();
    if (v.size() != 2 || !(v[1].IsString() || v[1].IsBlob())) {
      return ctx.Error("has custom_options holding a vector of " + std::to_string(v.size()) +
                       " values; expected [op name, serialized NodeDef]");
    }
    const std::string serialized = v[1].IsString() ? v[1].AsString().str() : [&] {
      const flexbuffers::Blob blob = v[1].AsBlob();
      return std::string(reinterpret_cast<const char*>(blob.data()), blob.size());
    }();
    tensorflow::NodeDef node_def;
    if (!node_def.ParseFromString(serialized)) {
      return ctx.Error("has custom_options whose NodeDef does not parse");
    }
    out.node_def = std::move(node_def);
    return out;
  }
  if (!root.IsMap()) return ctx.Error("has custom_options that are neither a FlexBuffer map nor a vector");
  const flexbuffers::Map m = root.AsMap();
  const flexbuffers::TypedVector keys = m.Keys();
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string key = keys[k].AsKey();
    if (key == "num_sparse" || key == "Nsparse") out.num_sparse = m[key].AsInt64();
    if (key == "Ndense") out.num_dense = m[key].AsInt64();
  }
  if (out.num_sparse < 0 || out.num_sparse > 1024 || out.num_dense > 1024) {
    return ctx.Error("has custom_options with " + std::to_string(out.num_sparse) + " sparse and " +
                     std::to_string(out.num_dense) + " dense features; expected 0 to 1024 of each");
  }
  return out;
}

// The dtype of output `i`, which must be one a parsed feature can have.
StatusOr<DType> FeatureType(const OpContext& ctx, size_t i) {
  const DType dtype = BoundaryDTypeOf(ctx.b->tensor(ctx.outputs[i]).type());
  if (dtype != DType::kFloat && dtype != DType::kInt64 && dtype != DType::kString) {
    return ctx.Error("output " + std::to_string(i) + " " + ctx.b->TensorWhere(ctx.outputs[i]) + " is " +
                     TensorTypeName(ctx.b->tensor(ctx.outputs[i]).type()) + "; a parsed feature is FLOAT32, " +
                     "INT64 or STRING");
  }
  return dtype;
}

// The attrs TFLite's kernel derives from the operator's outputs:
// sparse_types, Tdense and dense_shapes.
Status AttrsFromOutputs(const OpContext& ctx, int64_t num_sparse, int64_t num_dense, ir::AttrMap* attrs) {
  const int64_t want = 3 * num_sparse + num_dense;
  if (static_cast<int64_t>(ctx.outputs.size()) != want) {
    return ctx.Error("has " + std::to_string(ctx.outputs.size()) + " outputs; " + std::to_string(num_sparse) +
                     " sparse and " + std::to_string(num_dense) + " dense features need " + std::to_string(want));
  }
  std::vector<DType> sparse_types, dense_types;
  for (int64_t i = 0; i < num_sparse; ++i) {
    TFHOST_ASSIGN_OR_RETURN(DType t, FeatureType(ctx, static_cast<size_t>(num_sparse + i)));
    sparse_types.push_back(t);
  }
  tensorflow::AttrValue shapes;
  shapes.mutable_list();
  for (int64_t i = 0; i < num_dense; ++i) {
    const size_t out = static_cast<size_t>(3 * num_sparse + i);
    TFHOST_ASSIGN_OR_RETURN(DType t, FeatureType(ctx, out));
    dense_types.push_back(t);
    const std::vector<int64_t> dims = SignatureDims(ctx.b->tensor(ctx.outputs[out]));
    if (dims.empty()) {
      return ctx.Error("dense output " + ctx.b->TensorWhere(ctx.outputs[out]) +
                       " has no batch dimension; expected [batch, ...]");
    }
    auto* shape = shapes.mutable_list()->add_shape();
    for (size_t d = 1; d < dims.size(); ++d) shape->add_dim()->set_size(dims[d]);
  }
  (*attrs)["sparse_types"] = TypeListAttr(sparse_types);
  (*attrs)["Tdense"] = TypeListAttr(dense_types);
  (*attrs)["dense_shapes"] = std::move(shapes);
  return OkStatus();
}

StatusOr<std::vector<ir::TensorRef>> Inputs(const OpContext& ctx) {
  std::vector<ir::TensorRef> in;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(ir::TensorRef r, ctx.In(static_cast<int>(i)));
    in.push_back(r);
  }
  return in;
}

// V2: serialized, names, sparse_keys, dense_keys, ragged_keys, then one
// default per dense key.
Status MapParseExampleV2(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ParseOptions options, ReadParseOptions(ctx));
  ir::AttrMap attrs;
  if (options.node_def.has_value()) {
    for (const auto& [name, value] : options.node_def->attr()) attrs[name] = value;
  } else {
    if (ctx.inputs.size() < 5 || !ctx.HasInput(3)) {
      return ctx.Error("has " + std::to_string(ctx.inputs.size()) + " inputs; expected serialized, names, " +
                       "sparse_keys, dense_keys, ragged_keys and the dense defaults");
    }
    TFHOST_ASSIGN_OR_RETURN(auto dense_keys, ctx.b->ConstantValue(ctx.inputs[3]));
    if (!dense_keys.has_value()) {
      return ctx.Error("reads its dense keys from " + ctx.b->TensorWhere(ctx.inputs[3]) +
                       ", which is not a constant; expected the keys in the model");
    }
    const int64_t num_dense = dense_keys->NumElements();
    TFHOST_RETURN_IF_ERROR(AttrsFromOutputs(ctx, options.num_sparse, num_dense, &attrs));
    attrs["num_sparse"] = IntAttr(options.num_sparse);
    attrs["ragged_value_types"] = TypeListAttr({});
    attrs["ragged_split_types"] = TypeListAttr({});
  }
  TFHOST_ASSIGN_OR_RETURN(auto in, Inputs(ctx));
  return ctx.b->AddOutputNode(ctx.outputs, "ParseExampleV2", std::move(in), std::move(attrs)).status();
}

// V1: serialized, names, Nsparse sparse keys, Ndense dense keys, then one
// default per dense key.
Status MapParseExample(const OpContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(ParseOptions options, ReadParseOptions(ctx));
  ir::AttrMap attrs;
  if (options.node_def.has_value()) {
    for (const auto& [name, value] : options.node_def->attr()) attrs[name] = value;
  } else {
    const int64_t num_dense = options.num_dense >= 0
                                  ? options.num_dense
                                  : (static_cast<int64_t>(ctx.inputs.size()) - 2 - options.num_sparse) / 2;
    if (num_dense < 0 || static_cast<int64_t>(ctx.inputs.size()) != 2 + options.num_sparse + 2 * num_dense) {
      return ctx.Error("has " + std::to_string(ctx.inputs.size()) + " inputs; " +
                       std::to_string(options.num_sparse) + " sparse and " + std::to_string(num_dense) +
                       " dense features need " + std::to_string(2 + options.num_sparse + 2 * num_dense));
    }
    TFHOST_RETURN_IF_ERROR(AttrsFromOutputs(ctx, options.num_sparse, num_dense, &attrs));
    attrs["Nsparse"] = IntAttr(options.num_sparse);
    attrs["Ndense"] = IntAttr(num_dense);
  }
  TFHOST_ASSIGN_OR_RETURN(auto in, Inputs(ctx));
  return ctx.b->AddOutputNode(ctx.outputs, "ParseExample", std::move(in), std::move(attrs)).status();
}

}  // namespace

bool IsMappedCustomOperator(const std::string& custom_code) {
  return custom_code == "ParseExample" || custom_code == "ParseExampleV2";
}

Status MapCustomOperator(const OpContext& ctx, const std::string& custom_code) {
  if (custom_code == "ParseExampleV2") return MapParseExampleV2(ctx);
  if (custom_code == "ParseExample") return MapParseExample(ctx);
  return ctx.Error("is the custom operator '" + custom_code + "', which tfhost does not map");
}

}  // namespace tfhost::loaders::tflite
