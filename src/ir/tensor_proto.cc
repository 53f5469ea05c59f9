#include "ir/tensor_proto.h"

#include <cstring>

namespace tfhost::ir {

namespace {

// Fills `n` elements of `out` from a repeated field of `m` values: the last
// value repeats when m < n, nothing to copy when m == 0 (zeros stay).
template <typename Dst, typename Field, typename Convert>
void FillFromField(Dst* out, int64_t n, const Field& field, Convert convert) {
  int64_t m = field.size();
  if (m == 0) return;
  for (int64_t i = 0; i < n; ++i) out[i] = convert(field.Get(static_cast<int>(i < m ? i : m - 1)));
}

bool ReadVarint32(const char*& p, const char* end, uint32_t* value) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < end; shift += 7) {
    uint32_t byte = static_cast<uint8_t>(*p++);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

}  // namespace

tensorflow::TensorShapeProto ShapeToProto(const Shape& shape) {
  tensorflow::TensorShapeProto p;
  for (int64_t d : shape.dims()) p.add_dim()->set_size(d);
  return p;
}

StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto) {
  DType dtype = BaseType(proto.dtype());
  if (!IsSupportedDType(dtype) || dtype == DType::kResource) {
    return Unimplemented("TensorProto has dtype " + DTypeName(dtype) +
                         ", which tfhost cannot hold as a constant");
  }
  if (proto.tensor_shape().unknown_rank()) {
    return InvalidArgument("TensorProto has an unknown-rank shape; a constant needs a known shape");
  }
  std::vector<int64_t> dims;
  for (const auto& d : proto.tensor_shape().dim()) dims.push_back(d.size());
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, "TensorProto shape"));
  const int64_t n = shape.num_elements();
  Tensor t(dtype, shape);
  const std::string& content = proto.tensor_content();

  if (!content.empty()) {
    if (dtype == DType::kString) {
      const char* p = content.data();
      const char* end = p + content.size();
      std::vector<uint32_t> lengths(n);
      for (int64_t i = 0; i < n; ++i) {
        if (!ReadVarint32(p, end, &lengths[i])) {
          return InvalidArgument("DT_STRING tensor_content is truncated in the length prefix of element " +
                                 std::to_string(i));
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        if (static_cast<uint64_t>(end - p) < lengths[i]) {
          return InvalidArgument("DT_STRING tensor_content is shorter than its declared lengths");
        }
        t.strings()[i].assign(p, lengths[i]);
        p += lengths[i];
      }
      return t;
    }
    if (content.size() != t.ByteSize()) {
      return InvalidArgument("tensor_content has " + std::to_string(content.size()) +
                             " bytes but " + DTypeName(dtype) + shape.ToString() + " needs " +
                             std::to_string(t.ByteSize()));
    }
    std::memcpy(t.raw_data(), content.data(), content.size());
    return t;
  }

  auto same = [](auto v) { return v; };
  switch (dtype) {
    case DType::kFloat: FillFromField(t.data<float>(), n, proto.float_val(), same); break;
    case DType::kDouble: FillFromField(t.data<double>(), n, proto.double_val(), same); break;
    case DType::kInt32: case DType::kQInt32:
      FillFromField(t.data<int32_t>(), n, proto.int_val(), same); break;
    case DType::kInt16: case DType::kQInt16:
      FillFromField(t.data<int16_t>(), n, proto.int_val(), [](int32_t v) { return static_cast<int16_t>(v); }); break;
    case DType::kUInt16: case DType::kQUInt16:
      FillFromField(t.data<uint16_t>(), n, proto.int_val(), [](int32_t v) { return static_cast<uint16_t>(v); }); break;
    case DType::kInt8: case DType::kQInt8:
      FillFromField(t.data<int8_t>(), n, proto.int_val(), [](int32_t v) { return static_cast<int8_t>(v); }); break;
    case DType::kUInt8: case DType::kQUInt8:
      FillFromField(t.data<uint8_t>(), n, proto.int_val(), [](int32_t v) { return static_cast<uint8_t>(v); }); break;
    case DType::kInt64: FillFromField(t.data<int64_t>(), n, proto.int64_val(), same); break;
    case DType::kUInt32: FillFromField(t.data<uint32_t>(), n, proto.uint32_val(), same); break;
    case DType::kUInt64: FillFromField(t.data<uint64_t>(), n, proto.uint64_val(), same); break;
    case DType::kBool: FillFromField(t.data<bool>(), n, proto.bool_val(), same); break;
    case DType::kHalf: case DType::kBFloat16: {
      auto narrow = [](int32_t v) { return static_cast<uint16_t>(v); };
      if (proto.half_val_size() > 0) {
        FillFromField(t.data<uint16_t>(), n, proto.half_val(), narrow);
      } else {  // very old writers put bfloat16 into int_val
        FillFromField(t.data<uint16_t>(), n, proto.int_val(), narrow);
      }
      break;
    }
    case DType::kString:
      FillFromField(t.strings(), n, proto.string_val(), [](const std::string& s) { return s; });
      break;
    case DType::kComplex64: {
      int64_t m = proto.scomplex_val_size() / 2;
      float* out = t.data<float>();
      for (int64_t i = 0; i < n && m > 0; ++i) {
        int64_t src = i < m ? i : m - 1;
        out[2 * i] = proto.scomplex_val(static_cast<int>(2 * src));
        out[2 * i + 1] = proto.scomplex_val(static_cast<int>(2 * src + 1));
      }
      break;
    }
    default:
      return Unimplemented("TensorProto of dtype " + DTypeName(dtype) + " is not supported");
  }
  return t;
}

void TensorToProto(const Tensor& tensor, tensorflow::TensorProto* proto) {
  proto->Clear();
  proto->set_dtype(static_cast<tensorflow::DataType>(tensor.dtype()));
  *proto->mutable_tensor_shape() = ShapeToProto(tensor.shape());
  const int64_t n = tensor.NumElements();
  if (tensor.dtype() == DType::kString) {
    for (int64_t i = 0; i < n; ++i) proto->add_string_val(tensor.strings()[i]);
    return;
  }
  if (n > 1) {
    proto->set_tensor_content(std::string(static_cast<const char*>(tensor.raw_data()), tensor.ByteSize()));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    switch (tensor.dtype()) {
      case DType::kFloat: proto->add_float_val(tensor.data<float>()[i]); break;
      case DType::kDouble: proto->add_double_val(tensor.data<double>()[i]); break;
      case DType::kInt32: proto->add_int_val(tensor.data<int32_t>()[i]); break;
      case DType::kInt16: proto->add_int_val(tensor.data<int16_t>()[i]); break;
      case DType::kInt8: proto->add_int_val(tensor.data<int8_t>()[i]); break;
      case DType::kUInt8: proto->add_int_val(tensor.data<uint8_t>()[i]); break;
      case DType::kUInt16: proto->add_int_val(tensor.data<uint16_t>()[i]); break;
      case DType::kInt64: proto->add_int64_val(tensor.data<int64_t>()[i]); break;
      case DType::kUInt32: proto->add_uint32_val(tensor.data<uint32_t>()[i]); break;
      case DType::kUInt64: proto->add_uint64_val(tensor.data<uint64_t>()[i]); break;
      case DType::kBool: proto->add_bool_val(tensor.data<bool>()[i]); break;
      case DType::kHalf: case DType::kBFloat16: proto->add_half_val(tensor.data<uint16_t>()[i]); break;
      default:
        proto->set_tensor_content(std::string(static_cast<const char*>(tensor.raw_data()), tensor.ByteSize()));
        return;
    }
  }
}

}  // namespace tfhost::ir
