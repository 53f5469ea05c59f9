#include "ops/kernel_contract.h"

#include <atomic>
#include <new>
#include <string>

#include "ir/attr_constraints.h"
#include "ir/attrs.h"
#include "ir/op_def_util.h"
#include "ir/precision_attrs.h"
#include "ops/output_limits.h"

namespace tfhost::ops {
namespace {

// "a, b" or "values (N=3), axis": the schema's input args with their
// resolved counts, for count errors.
std::string DescribeInputArgs(const tensorflow::OpDef& def, const ir::Node& node) {
  std::string s;
  for (const auto& arg : def.input_arg()) {
    if (!s.empty()) s += ", ";
    s += arg.name();
    if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
      auto n = ir::ArgArity(arg, node);
      const std::string& attr = arg.number_attr().empty() ? arg.type_list_attr() : arg.number_attr();
      s += " (" + attr + "=" + (n.ok() ? std::to_string(*n) : std::string("?")) + ")";
    }
  }
  return s.empty() ? "none" : s;
}

// The name of flat input `index`'s arg and where its dtype comes from, for
// dtype errors: "'b' (attr T)".
std::string DescribeInput(const tensorflow::OpDef& def, const ir::Node& node, int index) {
  int begin = 0;
  for (const auto& arg : def.input_arg()) {
    auto n = ir::ArgArity(arg, node);
    if (!n.ok()) break;
    if (index < begin + *n) {
      std::string from = !arg.type_attr().empty()        ? "attr " + arg.type_attr()
                         : !arg.type_list_attr().empty() ? "attr " + arg.type_list_attr()
                                                         : std::string("the schema");
      return "'" + arg.name() + "' (dtype from " + from + ")";
    }
    begin += *n;
  }
  return "?";
}

// Input 0 of a bf16 edge's reader (ir/precision_attrs.h) carries bf16 where
// its schema says float32: its kernel reads bf16 itself, or gets the input
// widened to float32 first (runtime/bf16_edges.h).
bool Bf16EdgeInput(const ir::Node& node, size_t k, DType got, DType expected) {
  if (k != 0 || got != DType::kBFloat16 || expected != DType::kFloat) return false;
  auto reads_bf16 = ir::GetAttrOr<bool>(node, ir::kBf16InputAttr, false);
  return reads_bf16.ok() && *reads_bf16;
}

Status WrongDType(const tensorflow::OpDef& def, const ir::Node& node, int k, DType got, DType expected) {
  return InvalidArgument(ir::NodeContext(node) + ": input " + std::to_string(k) + " " + DescribeInput(def, node, k) +
                         " is " + DTypeShortName(got) + ", expected " + DTypeShortName(expected));
}

}  // namespace

StatusOr<std::vector<DType>> ExpectedInputDTypes(const tensorflow::OpDef& def, const ir::Node& node) {
  std::vector<DType> expected;
  for (const auto& arg : def.input_arg()) {
    auto n = ir::ArgArity(arg, node);
    if (!n.ok()) {
      return InvalidArgument(ir::NodeContext(node) + ": cannot count the inputs of arg '" + arg.name() +
                             "': " + n.status().message());
    }
    if (arg.is_ref()) {
      expected.insert(expected.end(), *n, DType::kInvalid);
      continue;
    }
    if (!arg.type_list_attr().empty()) {
      auto types = ir::GetAttr<std::vector<DType>>(node, arg.type_list_attr());
      if (!types.ok()) return types.status();
      for (DType t : *types) expected.push_back(BaseType(static_cast<int>(t)));
      continue;
    }
    DType t = DType::kInvalid;
    if (!arg.type_attr().empty()) {
      const auto* attr = node.FindAttr(arg.type_attr());
      if (attr != nullptr && attr->value_case() == tensorflow::AttrValue::kType) t = BaseType(attr->type());
    } else {
      t = BaseType(arg.type());
    }
    expected.insert(expected.end(), *n, t);
  }
  return expected;
}

StatusOr<std::vector<int>> CheckNodeContract(const tensorflow::OpDef& def, const ir::Node& node,
                                             const std::vector<DType>& input_dtypes) {
  TFHOST_RETURN_IF_ERROR(ir::CheckAttrConstraints(def, node));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> expected, ExpectedInputDTypes(def, node));
  if (input_dtypes.size() != expected.size()) {
    return InvalidArgument(ir::NodeContext(node) + ": has " + std::to_string(input_dtypes.size()) +
                           " data inputs, but the schema of " + def.name() + " expects " +
                           std::to_string(expected.size()) + " (" + DescribeInputArgs(def, node) + ")");
  }
  if (!node.output_dtypes.empty()) {
    auto outputs = ir::OutputDTypes(def, node);
    if (!outputs.ok()) return InvalidArgument(ir::NodeContext(node) + ": " + outputs.status().message());
    if (outputs->size() != node.output_dtypes.size()) {
      return InvalidArgument(ir::NodeContext(node) + ": has " + std::to_string(node.output_dtypes.size()) +
                             " outputs, but the schema of " + def.name() + " and the node's attrs give " +
                             std::to_string(outputs->size()));
    }
  }
  std::vector<int> late;
  for (size_t k = 0; k < expected.size(); ++k) {
    if (expected[k] == DType::kInvalid) continue;  // no type attr: the kernel reports it
    const DType got = BaseType(static_cast<int>(input_dtypes[k]));
    if (got == DType::kInvalid) {
      late.push_back(static_cast<int>(k));
    } else if (got != expected[k] && !Bf16EdgeInput(node, k, got, expected[k])) {
      return WrongDType(def, node, static_cast<int>(k), got, expected[k]);
    }
  }
  return late;
}

Status CheckLateInputs(const KernelContext& ctx, const std::vector<DType>& expected, const std::vector<int>& late) {
  for (int k : late) {
    if (k >= ctx.num_inputs()) {
      return Internal(ir::NodeContext(ctx.node()) + ": has " + std::to_string(ctx.num_inputs()) +
                      " inputs at run time, but its plan checked input " + std::to_string(k));
    }
    if (ctx.input_is_dead(k)) continue;
    const Tensor& t = ctx.input(k);
    if (!t.valid()) return ctx.Error("input " + std::to_string(k) + " is missing");
    if (t.dtype() != expected[k] && !Bf16EdgeInput(ctx.node(), k, t.dtype(), expected[k])) {
      return ctx.Error("input " + std::to_string(k) + " is " + DTypeShortName(t.dtype()) + ", expected " +
                       DTypeShortName(expected[k]) + " (from the schema of " + ctx.node().op + " and its attrs)");
    }
  }
  return OkStatus();
}

KernelFn WithLateInputChecks(KernelFn kernel, std::vector<DType> expected, std::vector<int> late) {
  if (late.empty()) return kernel;
  return [kernel = std::move(kernel), expected = std::move(expected), late = std::move(late)](KernelContext& ctx) {
    TFHOST_RETURN_IF_ERROR(CheckLateInputs(ctx, expected, late));
    return kernel(ctx);
  };
}

Status InvokeKernel(const KernelFn& kernel, KernelContext& ctx) {
  Status st;
  try {
    st = kernel(ctx);
  } catch (const std::bad_alloc&) {
    st = ResourceExhausted(ir::NodeContext(ctx.node()) +
                           ": out of memory while the kernel ran (allocating an output or a scratch buffer)");
  }
  if (const int bad = ctx.out_of_range_input(); bad >= 0) [[unlikely]] {
    return Internal(ir::NodeContext(ctx.node()) + ": the kernel read input " + std::to_string(bad) +
                    ", but the node has " + std::to_string(ctx.num_inputs()) + " inputs (a kernel bug: " +
                    "kernels may read only the inputs their schema declares)");
  }
  if (st.ok()) return CheckStringOutputs(ctx);
  return st;
}

}  // namespace tfhost::ops
