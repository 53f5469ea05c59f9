// DecodeCSV: splits each record of a string tensor into fields and converts
// them to the column dtypes, as `tf.io.decode_csv` does inside Estimator
// serving input functions.
//
// Semantics (TensorFlow's DecodeCSVOp):
//   * fields are separated by the one-byte `field_delim`; with
//     `use_quote_delim` a field may be wrapped in double quotes, inside which
//     the delimiter is literal and "" stands for one quote; a quote inside an
//     unquoted field, or anything but the delimiter after a closing quote, is
//     an error.
//   * a record must have exactly as many fields as there are outputs (or, with
//     `select_cols`, at least max(select_cols) + 1 fields, of which only the
//     selected are kept).
//   * an empty field, or one equal to `na_value`, takes the column's default
//     (record_defaults[i], a tensor of one element); a column whose default is
//     empty is required and a missing value is an error.
//   * numbers must parse completely (int32/int64 decimal, float/double).
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ops/op_registry.h"
#include "ops/parsing/parse_example.h"

namespace tfhost::ops {
namespace {

// Splits `record` into fields per the rules above; `ok` false with a message.
Status SplitRecord(const KernelContext& ctx, const std::string& record, char delim, bool quotes,
                   int64_t record_index, std::vector<std::string>* fields) {
  fields->clear();
  const size_t n = record.size();
  size_t i = 0;
  auto where = [&] { return " in record " + std::to_string(record_index); };
  while (true) {
    std::string field;
    if (quotes && i < n && record[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (record[i] == '"') {
          if (i + 1 < n && record[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field.push_back(record[i++]);
      }
      if (!closed) return ctx.Error("Quoted field has to end with quote followed by delim or end" + where());
      if (i < n && record[i] != delim) {
        return ctx.Error("Quote inside a string has to be escaped by another quote" + where());
      }
    } else {
      while (i < n && record[i] != delim) {
        if (quotes && record[i] == '"') {
          return ctx.Error("Unquoted fields cannot have quotes inside" + where());
        }
        field.push_back(record[i++]);
      }
    }
    fields->push_back(std::move(field));
    if (i >= n) break;
    ++i;  // the delimiter; a trailing one yields a final empty field
    if (i == n) {
      fields->emplace_back();
      break;
    }
  }
  return OkStatus();
}

// TensorFlow's safe_strto32/64 and safe_strtof/d accept leading and trailing
// spaces around the number.
std::string TrimSpaces(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

template <typename T>
bool ParseInteger(const std::string& raw, T* out) {
  const std::string s = TrimSpaces(raw);
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
  *out = static_cast<T>(v);
  return true;
}

template <typename T>
bool ParseReal(const std::string& raw, T* out) {
  const std::string s = TrimSpaces(raw);
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  *out = static_cast<T>(v);
  return true;
}

Status DecodeCsv(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> out_types, ctx.Attr<std::vector<DType>>("OUT_TYPE"));
  TFHOST_ASSIGN_OR_RETURN(std::string delim, ctx.AttrOr<std::string>("field_delim", ","));
  TFHOST_ASSIGN_OR_RETURN(bool quotes, ctx.AttrOr<bool>("use_quote_delim", true));
  TFHOST_ASSIGN_OR_RETURN(std::string na_value, ctx.AttrOr<std::string>("na_value", ""));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> select_cols,
                          ctx.AttrOr<std::vector<int64_t>>("select_cols", {}));
  if (delim.size() != 1) return ctx.Error("field_delim should be only 1 char, got '" + delim + "'");
  const int num_cols = static_cast<int>(out_types.size());
  if (ctx.num_inputs() != num_cols + 1) {
    return ctx.Error("expected " + std::to_string(num_cols) + " record_defaults, got " +
                     std::to_string(ctx.num_inputs() - 1));
  }
  if (!select_cols.empty()) {
    if (static_cast<int>(select_cols.size()) != num_cols) {
      return ctx.Error("select_cols has " + std::to_string(select_cols.size()) + " entries but there are " +
                       std::to_string(num_cols) + " outputs");
    }
    for (size_t k = 0; k < select_cols.size(); ++k) {
      if (select_cols[k] < 0) return ctx.Error("select_cols must be non-negative");
      if (k > 0 && select_cols[k] <= select_cols[k - 1]) {
        return ctx.Error("select_cols is not strictly increasing");
      }
    }
  }
  const Tensor& records = ctx.input(0);
  if (records.dtype() != DType::kString) return ctx.Error("records must be a string tensor");
  for (int c = 0; c < num_cols; ++c) {
    const Tensor& d = ctx.input(c + 1);
    if (d.dtype() != out_types[c]) {
      return ctx.Error("record_defaults[" + std::to_string(c) + "] has dtype " + DTypeShortName(d.dtype()) +
                       ", OUT_TYPE says " + DTypeShortName(out_types[c]));
    }
    if (d.rank() > 1 || d.NumElements() > 1) {
      return ctx.Error("record_defaults[" + std::to_string(c) +
                       "] must have at most one element, got shape " + d.shape().ToString());
    }
    if (out_types[c] != DType::kFloat && out_types[c] != DType::kDouble && out_types[c] != DType::kInt32 &&
        out_types[c] != DType::kInt64 && out_types[c] != DType::kString) {
      return ctx.Error("unsupported OUT_TYPE " + DTypeShortName(out_types[c]));
    }
  }
  std::vector<Tensor> outs;
  for (int c = 0; c < num_cols; ++c) outs.emplace_back(out_types[c], records.shape());

  std::vector<std::string> fields;
  for (int64_t r = 0; r < records.NumElements(); ++r) {
    TFHOST_RETURN_IF_ERROR(SplitRecord(ctx, records.strings()[r], delim[0], quotes, r, &fields));
    if (select_cols.empty() && static_cast<int>(fields.size()) != num_cols) {
      return ctx.Error("Expect " + std::to_string(num_cols) + " fields but have " +
                       std::to_string(fields.size()) + " in record " + std::to_string(r));
    }
    if (!select_cols.empty() && static_cast<int64_t>(fields.size()) <= select_cols.back()) {
      // Not back() + 1: the attr may hold the largest int64.
      return ctx.Error("Expect more than " + std::to_string(select_cols.back()) + " fields but have " +
                       std::to_string(fields.size()) + " in record " + std::to_string(r));
    }
    for (int c = 0; c < num_cols; ++c) {
      const std::string& field = fields[select_cols.empty() ? c : select_cols[c]];
      const Tensor& def = ctx.input(c + 1);
      Tensor& out = outs[c];
      const bool missing = field.empty() || field == na_value;
      if (missing && def.NumElements() == 0) {
        return ctx.Error("Field " + std::to_string(c) + " is required but missing in record " +
                         std::to_string(r) + "!");
      }
      auto bad = [&](const char* type) {
        return ctx.Error("Field " + std::to_string(c) + " in record " + std::to_string(r) +
                         " is not a valid " + type + ": " + field);
      };
      switch (out_types[c]) {
        case DType::kString:
          out.strings()[r] = missing ? def.strings()[0] : field;
          break;
        case DType::kInt32:
          if (missing) out.data<int32_t>()[r] = def.data<int32_t>()[0];
          else if (!ParseInteger(field, &out.data<int32_t>()[r])) return bad("int32");
          break;
        case DType::kInt64:
          if (missing) out.data<int64_t>()[r] = def.data<int64_t>()[0];
          else if (!ParseInteger(field, &out.data<int64_t>()[r])) return bad("int64");
          break;
        case DType::kFloat:
          if (missing) out.data<float>()[r] = def.data<float>()[0];
          else if (!ParseReal(field, &out.data<float>()[r])) return bad("float");
          break;
        default:
          if (missing) out.data<double>()[r] = def.data<double>()[0];
          else if (!ParseReal(field, &out.data<double>()[r])) return bad("double");
          break;
      }
    }
  }
  for (int c = 0; c < num_cols; ++c) ctx.set_output(c, std::move(outs[c]));
  return OkStatus();
}

}  // namespace

void RegisterDecodeCsvOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DecodeCSV")
                        .Input("records: string")
                        .Input("record_defaults: OUT_TYPE")
                        .Output("output: OUT_TYPE")
                        .Attr("OUT_TYPE: list({float,double,int32,int64,string})")
                        .Attr("field_delim: string = ','")
                        .Attr("use_quote_delim: bool = true")
                        .Attr("na_value: string = ''")
                        .Attr("select_cols: list(int) = []"),
                    DecodeCsv);
}

}  // namespace tfhost::ops
