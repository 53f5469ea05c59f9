// StringJoin, StringLength, StringLower, StringUpper, Substr, StringSplitV2.
#include "ops/string/string_ops.h"

#include <algorithm>
#include <string_view>

namespace tfhost::ops {
namespace string_internal {

BroadcastIndexer::BroadcastIndexer(const Shape& out, const Shape& in) : out_dims_(out.dims()) {
  identity_ = in == out;
  scalar_ = in.num_elements() == 1;
  in_strides_.assign(out_dims_.size(), 0);
  int64_t stride = 1;
  // Align trailing dims; a missing or size-1 input dim gets stride 0.
  for (int i = in.rank() - 1, o = out.rank() - 1; i >= 0 && o >= 0; --i, --o) {
    in_strides_[o] = in.dim(i) == 1 ? 0 : stride;
    stride *= in.dim(i);
  }
}

int64_t BroadcastIndexer::operator()(int64_t out_index) const {
  if (identity_) return out_index;
  if (scalar_) return 0;
  int64_t in_index = 0;
  for (int d = static_cast<int>(out_dims_.size()) - 1; d >= 0; --d) {
    in_index += (out_index % out_dims_[d]) * in_strides_[d];
    out_index /= out_dims_[d];
  }
  return in_index;
}

}  // namespace string_internal

namespace {

using string_internal::BroadcastIndexer;

Status CheckStringInput(const KernelContext& ctx, int i, const char* name) {
  if (ctx.input(i).dtype() != DType::kString) {
    return ctx.Error(std::string(name) + " must be a string tensor, got " +
                     DTypeName(ctx.input(i).dtype()));
  }
  return OkStatus();
}

Status StringJoin(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string separator, ctx.AttrOr<std::string>("separator", ""));
  // TensorFlow requires equal shapes or scalars; NumPy broadcasting is a
  // superset that gives the same answer on everything TensorFlow accepts.
  Shape out_shape;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx, i, "inputs"));
    auto s = BroadcastShapes(out_shape, ctx.input(i).shape());
    if (!s.ok()) return ctx.Error("inputs must have equal shapes or be scalars: " + s.status().message());
    out_shape = *s;
  }
  Tensor out(DType::kString, out_shape);
  std::vector<BroadcastIndexer> index;
  for (int i = 0; i < ctx.num_inputs(); ++i) index.emplace_back(out_shape, ctx.input(i).shape());
  for (int64_t k = 0; k < out.NumElements(); ++k) {
    std::string& s = out.strings()[k];
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (i > 0) s += separator;
      s += ctx.input(i).strings()[index[i](k)];
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// UTF-8 characters are counted as bytes that do not continue a sequence, as
// TensorFlow does (it does not validate the encoding either).
int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

StatusOr<bool> ReadUnitIsUtf8(const KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string unit, ctx.AttrOr<std::string>("unit", "BYTE"));
  if (unit != "BYTE" && unit != "UTF8_CHAR") {
    return ctx.Error("unit must be 'BYTE' or 'UTF8_CHAR', got '" + unit + "'");
  }
  return unit == "UTF8_CHAR";
}

Status StringLength(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx, 0, "input"));
  TFHOST_ASSIGN_OR_RETURN(bool utf8, ReadUnitIsUtf8(ctx));
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kInt32, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    const std::string& s = in.strings()[i];
    out.data<int32_t>()[i] = static_cast<int32_t>(utf8 ? Utf8Length(s) : static_cast<int64_t>(s.size()));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// ASCII case mapping only: TensorFlow maps other characters only when
// `encoding` is set (through ICU), which tfhost does not support.
template <bool kUpper>
Status StringCase(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx, 0, "input"));
  TFHOST_ASSIGN_OR_RETURN(std::string encoding, ctx.AttrOr<std::string>("encoding", ""));
  if (!encoding.empty()) {
    return ctx.Error("encoding '" + encoding + "' is not supported; only '' (ASCII) is");
  }
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    std::string s = in.strings()[i];
    for (char& c : s) {
      if (kUpper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      if (!kUpper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    out.strings()[i] = std::move(s);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Byte offset of UTF-8 character `chars` in `s` (s.size() when past the end).
size_t Utf8Offset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (i < s.size() && chars > 0) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    --chars;
  }
  return i;
}

Status Substr(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx, 0, "input"));
  TFHOST_ASSIGN_OR_RETURN(bool utf8, ReadUnitIsUtf8(ctx));
  const Tensor& in = ctx.input(0);
  const Tensor& pos = ctx.input(1);
  const Tensor& len = ctx.input(2);
  if (pos.dtype() != len.dtype() || (pos.dtype() != DType::kInt32 && pos.dtype() != DType::kInt64)) {
    return ctx.Error("pos and len must both be int32 or both int64");
  }
  if (pos.shape() != len.shape()) {
    return ctx.Error("pos " + pos.shape().ToString() + " and len " + len.shape().ToString() +
                     " must have the same shape");
  }
  auto out_shape = BroadcastShapes(in.shape(), pos.shape());
  if (!out_shape.ok()) return ctx.Error(out_shape.status().message());
  auto pos_values = *pos.ToInt64Vector();
  auto len_values = *len.ToInt64Vector();
  Tensor out(DType::kString, *out_shape);
  BroadcastIndexer in_index(*out_shape, in.shape()), arg_index(*out_shape, pos.shape());
  for (int64_t k = 0; k < out.NumElements(); ++k) {
    std::string_view s = in.strings()[in_index(k)];
    int64_t p = pos_values[arg_index(k)], l = len_values[arg_index(k)];
    int64_t size = utf8 ? Utf8Length(s) : static_cast<int64_t>(s.size());
    // Negative pos counts from the end; |pos| may equal the length.
    if (p < -size || p > size) {
      return ctx.Error("pos " + std::to_string(p) + " out of range for string of length " +
                       std::to_string(size) + " at index " + std::to_string(k));
    }
    if (p < 0) p += size;
    // A len past the end (or negative, as in TF's size_t arithmetic) takes the rest.
    int64_t take = (l < 0 || l > size - p) ? size - p : l;
    if (utf8) {
      size_t begin = Utf8Offset(s, p);
      size_t end = begin + Utf8Offset(s.substr(begin), take);
      out.strings()[k].assign(s.substr(begin, end - begin));
    } else {
      out.strings()[k].assign(s.substr(static_cast<size_t>(p), static_cast<size_t>(take)));
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Python str.split semantics, which tf.strings.split documents it follows,
// except where TensorFlow's kernel differs: splitting on whitespace, once
// maxsplit tokens are out the rest of the string after the whitespace that
// follows them is one more token, as it stands (trailing whitespace kept),
// even when empty ("x" with maxsplit 1 is ["x", ""]), and maxsplit 0 leaves
// the string whole, whitespace and all (conformance cases
// StringSplitV2/tf/sep_whitespace_max*).
void SplitPython(std::string_view s, std::string_view sep, int64_t maxsplit,
                 std::vector<std::string_view>* out) {
  if (sep.empty()) {  // runs of whitespace
    if (maxsplit == 0) {
      out->push_back(s);
      return;
    }
    size_t i = 0;
    int64_t splits = 0;
    while (true) {
      while (i < s.size() && IsAsciiSpace(s[i])) ++i;
      if (i == s.size()) return;
      size_t j = i;
      while (j < s.size() && !IsAsciiSpace(s[j])) ++j;
      out->push_back(s.substr(i, j - i));
      ++splits;
      i = j;
      if (maxsplit >= 0 && splits == maxsplit) {
        while (i < s.size() && IsAsciiSpace(s[i])) ++i;
        out->push_back(s.substr(i));
        return;
      }
    }
  }
  size_t start = 0;
  int64_t splits = 0;
  while (maxsplit < 0 || splits < maxsplit) {
    size_t at = s.find(sep, start);
    if (at == std::string_view::npos) break;
    out->push_back(s.substr(start, at - start));
    start = at + sep.size();
    ++splits;
  }
  out->push_back(s.substr(start));
}

Status StringSplitV2(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx, 0, "input"));
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx, 1, "sep"));
  TFHOST_ASSIGN_OR_RETURN(int64_t maxsplit, ctx.AttrOr<int64_t>("maxsplit", -1));
  const Tensor& in = ctx.input(0);
  if (in.rank() != 1) return ctx.Error("input must be a vector, got " + in.shape().ToString());
  if (ctx.input(1).rank() != 0) return ctx.Error("sep must be a scalar");
  const std::string& sep = ctx.input(1).strings()[0];
  std::vector<std::string_view> tokens;
  std::vector<int64_t> row_of, col_of;
  int64_t max_cols = 0;
  for (int64_t r = 0; r < in.dim(0); ++r) {
    size_t before = tokens.size();
    SplitPython(in.strings()[r], sep, maxsplit, &tokens);
    int64_t n = static_cast<int64_t>(tokens.size() - before);
    for (int64_t c = 0; c < n; ++c) {
      row_of.push_back(r);
      col_of.push_back(c);
    }
    max_cols = std::max(max_cols, n);
  }
  int64_t total = static_cast<int64_t>(tokens.size());
  Tensor indices(DType::kInt64, Shape({total, 2}));
  Tensor values(DType::kString, Shape({total}));
  for (int64_t k = 0; k < total; ++k) {
    indices.data<int64_t>()[2 * k] = row_of[k];
    indices.data<int64_t>()[2 * k + 1] = col_of[k];
    values.strings()[k].assign(tokens[k]);
  }
  ctx.set_output(0, std::move(indices));
  ctx.set_output(1, std::move(values));
  ctx.set_output(2, Tensor::FromVector<int64_t>({in.dim(0), max_cols}));
  return OkStatus();
}

}  // namespace

void RegisterBasicStringOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("StringJoin")
                        .Input("inputs: N * string")
                        .Output("output: string")
                        .Attr("N: int >= 0")
                        .Attr("separator: string = ''"),
                    StringJoin);
  registry.Register(ir::OpDefBuilder("StringLength")
                        .Input("input: string")
                        .Output("output: int32")
                        .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"),
                    StringLength);
  registry.Register(ir::OpDefBuilder("StringLower")
                        .Input("input: string")
                        .Output("output: string")
                        .Attr("encoding: string = ''"),
                    StringCase<false>);
  registry.Register(ir::OpDefBuilder("StringUpper")
                        .Input("input: string")
                        .Output("output: string")
                        .Attr("encoding: string = ''"),
                    StringCase<true>);
  registry.Register(ir::OpDefBuilder("Substr")
                        .Input("input: string")
                        .Input("pos: T")
                        .Input("len: T")
                        .Output("output: string")
                        .Attr("T: {int32, int64}")
                        .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"),
                    Substr);
  registry.Register(ir::OpDefBuilder("StringSplitV2")
                        .Input("input: string")
                        .Input("sep: string")
                        .Output("indices: int64")
                        .Output("values: string")
                        .Output("shape: int64")
                        .Attr("maxsplit: int = -1"),
                    StringSplitV2);
}

}  // namespace tfhost::ops
