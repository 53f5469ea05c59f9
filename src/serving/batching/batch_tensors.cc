#include "serving/batching/batch_tensors.h"

#include <algorithm>
#include <cstring>

namespace tfhost::serving::batching {
namespace {

// Element-wise copies between tensors of one dtype, for fixed-size and string
// elements alike (strings are std::string objects, not bytes).
class ElementCopier {
 public:
  explicit ElementCopier(Tensor* dst) : dst_(dst), string_like_(IsStringLike(dst->dtype())),
                                        size_(string_like_ ? 0 : DTypeSize(dst->dtype())) {}

  void Copy(const Tensor& src, int64_t src_offset, int64_t dst_offset, int64_t n) {
    if (n <= 0) return;
    if (string_like_) {
      std::copy_n(src.strings() + src_offset, n, dst_->strings() + dst_offset);
    } else {
      std::memcpy(static_cast<char*>(dst_->raw_data()) + dst_offset * size_,
                  static_cast<const char*>(src.raw_data()) + src_offset * size_, n * size_);
    }
  }

  // Fills with the first element of `src` (TF Serving's padding value), or
  // leaves the zero/empty value when `src` has no element.
  void Fill(const Tensor& src, int64_t dst_offset, int64_t n) {
    if (n <= 0 || src.NumElements() == 0) return;
    if (string_like_) {
      std::fill_n(dst_->strings() + dst_offset, n, src.strings()[0]);
    } else {
      char* out = static_cast<char*>(dst_->raw_data()) + dst_offset * size_;
      const char* value = static_cast<const char*>(src.raw_data());
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * size_, value, size_);
    }
  }

 private:
  Tensor* dst_;
  bool string_like_;
  size_t size_;
};

int64_t Product(const std::vector<int64_t>& dims, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < dims.size(); ++i) n *= dims[i];
  return n;
}

// Copies one block of shape `src_dims` into a block of shape `dst_dims`
// (each dst dim >= src dim), filling the rest with the pad value.
void CopyPadded(ElementCopier& copier, const Tensor& src, const std::vector<int64_t>& src_dims,
                const std::vector<int64_t>& dst_dims, size_t d, int64_t src_offset, int64_t dst_offset) {
  if (d == src_dims.size()) {  // a scalar block
    copier.Copy(src, src_offset, dst_offset, 1);
    return;
  }
  if (d + 1 == src_dims.size()) {
    copier.Copy(src, src_offset, dst_offset, src_dims[d]);
    copier.Fill(src, dst_offset + src_dims[d], dst_dims[d] - src_dims[d]);
    return;
  }
  const int64_t src_stride = Product(src_dims, d + 1);
  const int64_t dst_stride = Product(dst_dims, d + 1);
  for (int64_t i = 0; i < src_dims[d]; ++i) {
    CopyPadded(copier, src, src_dims, dst_dims, d + 1, src_offset + i * src_stride, dst_offset + i * dst_stride);
  }
  copier.Fill(src, dst_offset + src_dims[d] * dst_stride, (dst_dims[d] - src_dims[d]) * dst_stride);
}

std::vector<int64_t> InnerDims(const Shape& shape) {
  return std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end());
}

}  // namespace

StatusOr<int64_t> TaskRows(const TensorMap& inputs) {
  if (inputs.empty()) return InvalidArgument("a batched request needs at least one input tensor");
  int64_t rows = -1;
  std::string first;
  for (const auto& [name, tensor] : inputs) {
    if (!tensor.valid() || tensor.rank() == 0) {
      return InvalidArgument("input '" + name + "' is a scalar; batching joins requests along dim 0, so every "
                             "input needs at least one dimension");
    }
    if (rows < 0) {
      rows = tensor.dim(0);
      first = name;
    } else if (tensor.dim(0) != rows) {
      return InvalidArgument("inputs '" + first + "' and '" + name + "' disagree on dim 0 (" +
                             std::to_string(rows) + " vs " + std::to_string(tensor.dim(0)) +
                             "); batching needs one batch size per request");
    }
  }
  return rows;
}

std::string BatchCompatibilityKey(const TensorMap& inputs, bool pad_variable_length) {
  std::string key;
  for (const auto& [name, tensor] : inputs) {
    key += name;
    key += ':';
    key += std::to_string(static_cast<int>(tensor.dtype()));
    key += ':';
    if (pad_variable_length) {
      key += "r" + std::to_string(tensor.rank());
    } else {
      for (int i = 1; i < tensor.rank(); ++i) key += std::to_string(tensor.dim(i)) + ",";
    }
    key += ';';
  }
  return key;
}

StatusOr<TensorMap> ConcatenateBatch(const std::vector<RowSlice>& slices, int64_t padded_rows,
                                     bool pad_variable_length) {
  if (slices.empty()) return Internal("ConcatenateBatch: empty batch");
  int64_t total_rows = 0;
  for (const RowSlice& s : slices) total_rows += s.end - s.begin;
  if (padded_rows < total_rows) return Internal("ConcatenateBatch: padded_rows below the batch's rows");
  TensorMap batched;
  for (const auto& [name, first_tensor] : *slices[0].inputs) {
    // Target inner dims: the maximum over the batch (equal without padding).
    std::vector<int64_t> inner = InnerDims(first_tensor.shape());
    int64_t actual_elements = 0;
    for (const RowSlice& s : slices) {
      auto it = s.inputs->find(name);
      if (it == s.inputs->end() || it->second.dtype() != first_tensor.dtype() ||
          it->second.rank() != first_tensor.rank()) {
        return Internal("ConcatenateBatch: requests with different inputs in one batch ('" + name + "')");
      }
      const Tensor& t = it->second;
      for (size_t i = 0; i < inner.size(); ++i) {
        if (t.dim(static_cast<int>(i) + 1) != inner[i] && !pad_variable_length) {
          return Internal("ConcatenateBatch: input '" + name + "' shapes differ within one batch");
        }
        inner[i] = std::max(inner[i], t.dim(static_cast<int>(i) + 1));
      }
      actual_elements += t.NumElements();
    }
    std::vector<int64_t> dims = {padded_rows};
    dims.insert(dims.end(), inner.begin(), inner.end());
    // Variable-length padding can multiply sizes (a [1,N,1] and a [1,1,N]
    // request pad to [2,N,N]); refuse what would balloon memory.
    const int64_t limit = std::max<int64_t>(int64_t{1} << 24, 64 * actual_elements);
    TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, "batched input '" + name + "'", limit));
    Tensor out(first_tensor.dtype(), shape);
    ElementCopier copier(&out);
    const int64_t row_elements = Product(inner, 0);
    int64_t row = 0;
    for (const RowSlice& s : slices) {
      const Tensor& t = s.inputs->at(name);
      const std::vector<int64_t> src_inner = InnerDims(t.shape());
      const int64_t src_row_elements = Product(src_inner, 0);
      for (int64_t r = s.begin; r < s.end; ++r, ++row) {
        if (src_inner == inner) {
          copier.Copy(t, r * src_row_elements, row * row_elements, row_elements);
        } else {
          CopyPadded(copier, t, src_inner, inner, 0, r * src_row_elements, row * row_elements);
        }
      }
    }
    // Batch padding: repeat the first row (TF Serving does the same, so a
    // model never sees rows of zeros it might choke on, e.g. log(0)).
    for (; row < padded_rows; ++row) copier.Copy(out, 0, row * row_elements, row_elements);
    batched.emplace(name, std::move(out));
  }
  return batched;
}

Tensor SliceRows(const Tensor& tensor, int64_t begin, int64_t end) {
  std::vector<int64_t> dims = tensor.shape().dims();
  dims[0] = end - begin;
  Tensor out(tensor.dtype(), Shape(dims));
  const int64_t row_elements = dims[0] == 0 ? 0 : out.NumElements() / dims[0];
  ElementCopier copier(&out);
  copier.Copy(tensor, begin * row_elements, 0, (end - begin) * row_elements);
  return out;
}

StatusOr<Tensor> ConcatRows(const std::vector<Tensor>& parts, const std::string& what) {
  if (parts.empty()) return Internal("ConcatRows: nothing to join for " + what);
  if (parts.size() == 1) return parts[0];
  std::vector<int64_t> dims = parts[0].shape().dims();
  int64_t rows = 0;
  for (const Tensor& p : parts) {
    if (p.dtype() != parts[0].dtype() || p.rank() != parts[0].rank() || p.rank() == 0 ||
        InnerDims(p.shape()) != InnerDims(parts[0].shape())) {
      return InvalidArgument(what + ": the pieces of a split request came back with different shapes (" +
                             parts[0].shape().ToString() + " vs " + p.shape().ToString() +
                             "); cannot reassemble them");
    }
    rows += p.dim(0);
  }
  dims[0] = rows;
  Tensor out(parts[0].dtype(), Shape(dims));
  ElementCopier copier(&out);
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    copier.Copy(p, 0, offset, p.NumElements());
    offset += p.NumElements();
  }
  return out;
}

Status CheckBatchedOutputs(const TensorMap& outputs, int64_t batch_rows) {
  for (const auto& [name, tensor] : outputs) {
    if (tensor.rank() == 0 || tensor.dim(0) != batch_rows) {
      return InvalidArgument("output '" + name + "' of the batched run has shape " + tensor.shape().ToString() +
                             ", but batching needs dim 0 to equal the batch size " + std::to_string(batch_rows) +
                             " so that each request gets its own rows back; serve this model without "
                             "batching, or export it with a leading batch dimension on every output");
    }
  }
  return OkStatus();
}

}  // namespace tfhost::serving::batching
