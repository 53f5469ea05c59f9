#include "loaders/imported_graph_util.h"

#include <cstring>

#include "ops/run_single_op.h"

namespace tfhost::loaders {

tensorflow::AttrValue IntAttr(int64_t v) { return ops::MakeAttr(v); }
tensorflow::AttrValue FloatAttr(float v) { return ops::MakeAttr(v); }
tensorflow::AttrValue BoolAttr(bool v) { return ops::MakeAttr(v); }
tensorflow::AttrValue StringAttr(const std::string& v) { return ops::MakeAttr(v); }
tensorflow::AttrValue TypeAttr(DType v) { return ops::MakeAttr(v); }
tensorflow::AttrValue IntListAttr(const std::vector<int64_t>& v) { return ops::MakeAttr(v); }
tensorflow::AttrValue FloatListAttr(const std::vector<float>& v) { return ops::MakeAttr(v); }
tensorflow::AttrValue TypeListAttr(const std::vector<DType>& v) { return ops::MakeAttr(v); }

Tensor TransposeConstant(const Tensor& in, const std::vector<int>& perm) {
  const int rank = in.rank();
  std::vector<int64_t> out_dims(rank), in_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in.dim(i + 1);
  for (int i = 0; i < rank; ++i) out_dims[i] = in.dim(perm[i]);
  Tensor out(in.dtype(), Shape(out_dims));
  const size_t size = DTypeSize(in.dtype());
  const char* src = static_cast<const char*>(in.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  std::vector<int64_t> index(rank, 0);
  const int64_t n = in.NumElements();
  for (int64_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) offset += index[i] * in_strides[perm[i]];
    std::memcpy(dst + k * size, src + offset * size, size);
    for (int i = rank - 1; i >= 0; --i) {
      if (++index[i] < out_dims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace tfhost::loaders
