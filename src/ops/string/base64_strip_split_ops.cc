// String ops of serving signatures and TF1 text preprocessing:
//
//   EncodeBase64 / DecodeBase64: TensorFlow's web-safe base64 ('-' and '_'
//     for '+' and '/'); Encode pads with '=' only when pad is true; Decode
//     accepts input with or without padding and rejects other characters.
//   StringStrip: leading and trailing ASCII whitespace removed.
//   StringSplit (TF1 tf.string_split): each input split at ANY of the
//     delimiter's characters (an empty delimiter splits into bytes); with
//     skip_empty, empty tokens are dropped; an empty input string has no
//     tokens either way (TensorFlow's str_util::Split, as TF.js ports it). Output is a SparseTensor
//     [batch, max tokens].
//   ReduceJoin: joins strings along the reduction axes with `separator`, the
//     axes reduced in the order given (so the first listed varies fastest in
//     the joined text); keep_dims keeps them as size 1.
#include <algorithm>
#include <cctype>

#include "base/base64.h"
#include "ops/array/array_util.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

Status EncodeBase64(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(bool pad, ctx.AttrOr<bool>("pad", false));
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) out.strings()[i] = Base64Encode(in.strings()[i], {Base64Alphabet::kWebSafe, pad});
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status DecodeBase64(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    // TensorFlow's web-safe base64: up to two '=' of padding, present or not.
    std::string_view text = in.strings()[i];
    size_t pad = 0;
    while (!text.empty() && text.back() == '=') {
      text.remove_suffix(1);
      ++pad;
    }
    auto bytes = pad > 2 ? StatusOr<std::string>(InvalidArgument("invalid base64: " + std::to_string(pad) +
                                                                 " '=' of padding"))
                         : Base64Decode(text, {Base64Alphabet::kWebSafe, /*padding=*/false});
    if (!bytes.ok()) {
      return ctx.Error("Invalid character found in base64 (element " + std::to_string(i) + "): " +
                       bytes.status().message());
    }
    out.strings()[i] = *std::move(bytes);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status StringStrip(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    const std::string& s = in.strings()[i];
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    out.strings()[i] = s.substr(b, e - b);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status StringSplit(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const Tensor& delim_t = ctx.input(1);
  if (in.rank() != 1) return ctx.Error("input must be a vector, got " + in.shape().ToString());
  if (delim_t.rank() != 0) return ctx.Error("delimiter must be a scalar, got " + delim_t.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(bool skip_empty, ctx.AttrOr<bool>("skip_empty", true));
  const std::string& delim = delim_t.strings()[0];
  std::vector<int64_t> idx;
  std::vector<std::string> tokens;
  int64_t widest = 0;
  for (int64_t b = 0; b < in.dim(0); ++b) {
    const std::string& s = in.strings()[b];
    std::vector<std::string> parts;
    if (delim.empty()) {
      for (char c : s) parts.emplace_back(1, c);
    } else if (!s.empty()) {  // an empty string has no tokens, even without skip_empty
      size_t start = 0;
      for (size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || delim.find(s[i]) != std::string::npos) {
          if (!(skip_empty && i == start)) parts.push_back(s.substr(start, i - start));
          start = i + 1;
        }
      }
    }
    for (size_t j = 0; j < parts.size(); ++j) {
      idx.push_back(b);
      idx.push_back(static_cast<int64_t>(j));
      tokens.push_back(std::move(parts[j]));
    }
    widest = std::max<int64_t>(widest, static_cast<int64_t>(parts.size()));
  }
  const int64_t n = static_cast<int64_t>(tokens.size());
  Tensor indices = Tensor::FromVector<int64_t>(idx, Shape({n, 2}));
  Tensor values(DType::kString, Shape({n}));
  for (int64_t i = 0; i < n; ++i) values.strings()[i] = std::move(tokens[i]);
  ctx.set_output(0, std::move(indices));
  ctx.set_output(1, std::move(values));
  ctx.set_output(2, Tensor::FromVector<int64_t>({in.dim(0), widest}));
  return OkStatus();
}

Status ReduceJoin(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axes_v, array::ReadIndexVector(ctx, 1, "reduction_indices"));
  TFHOST_ASSIGN_OR_RETURN(bool keep_dims, ctx.AttrOr<bool>("keep_dims", false));
  TFHOST_ASSIGN_OR_RETURN(std::string sep, ctx.AttrOr<std::string>("separator", ""));
  const int rank = in.rank();
  std::vector<bool> reduce(rank, false);
  std::vector<int> order;  // reduced axes in the given order: the first varies fastest
  for (int64_t a : axes_v) {
    TFHOST_ASSIGN_OR_RETURN(int axis, array::NormalizeAxis(ctx, a, rank, "reduction_indices"));
    if (reduce[axis]) return ctx.Error("Duplicate reduction dimension " + std::to_string(axis));
    reduce[axis] = true;
    order.push_back(axis);
  }
  std::vector<int64_t> out_dims;
  std::vector<int> kept;
  for (int d = 0; d < rank; ++d) {
    if (!reduce[d]) {
      out_dims.push_back(in.dim(d));
      kept.push_back(d);
    } else if (keep_dims) {
      out_dims.push_back(1);
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, out_dims, "output"));
  Tensor out(DType::kString, shape);
  const std::vector<int64_t> strides = array::RowMajorStrides(in.shape());
  int64_t reduced_count = 1;
  for (int axis : order) reduced_count *= in.dim(axis);
  for (int64_t o = 0; o < out.NumElements(); ++o) {
    int64_t base = 0, rest = o;
    for (size_t k = kept.size(); k-- > 0;) {
      const int64_t n = in.dim(kept[k]);
      base += (rest % n) * strides[kept[k]];
      rest /= n;
    }
    std::string& dst = out.strings()[o];
    std::vector<int64_t> idx(order.size(), 0);
    for (int64_t r = 0; r < reduced_count; ++r) {
      int64_t offset = base;
      for (size_t k = 0; k < order.size(); ++k) offset += idx[k] * strides[order[k]];
      if (r > 0) dst += sep;
      dst += in.strings()[offset];
      for (size_t k = 0; k < order.size(); ++k) {
        if (++idx[k] < in.dim(order[k])) break;
        idx[k] = 0;
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterBase64StripSplitOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("EncodeBase64").Input("input: string").Output("output: string").Attr("pad: bool = false"),
                    EncodeBase64);
  registry.Register(ir::OpDefBuilder("DecodeBase64").Input("input: string").Output("output: string"),
                         DecodeBase64);
  registry.Register(ir::OpDefBuilder("StringStrip").Input("input: string").Output("output: string"),
                         StringStrip);
  registry.Register(ir::OpDefBuilder("StringSplit")
                        .Input("input: string")
                        .Input("delimiter: string")
                        .Output("indices: int64")
                        .Output("values: string")
                        .Output("shape: int64")
                        .Attr("skip_empty: bool = true"),
                    StringSplit);
  registry.Register(ir::OpDefBuilder("ReduceJoin")
                        .Input("inputs: string")
                        .Input("reduction_indices: int32")
                        .Output("output: string")
                        .Attr("keep_dims: bool = false")
                        .Attr("separator: string = \"\""),
                    ReduceJoin);
}

}  // namespace tfhost::ops
