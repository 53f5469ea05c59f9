// Elementwise arithmetic, comparisons and logic, unary math, reductions,
// ArgMax/ArgMin, AddN, Cumsum, Cast and Select.
#include "loaders/tflite/tflite_builtins.h"
#include "loaders/tflite/tflite_ops.h"

namespace tfhost::loaders::tflite {

namespace {

using Act = fb::ActivationFunctionType;

Act FusedOf(const OpContext& ctx) {
  switch (ctx.code) {
    case kAdd: if (auto* o = ctx.op->builtin_options_as_AddOptions()) return o->fused_activation_function(); break;
    case kSub: if (auto* o = ctx.op->builtin_options_as_SubOptions()) return o->fused_activation_function(); break;
    case kMul: if (auto* o = ctx.op->builtin_options_as_MulOptions()) return o->fused_activation_function(); break;
    case kDiv: if (auto* o = ctx.op->builtin_options_as_DivOptions()) return o->fused_activation_function(); break;
    default: break;
  }
  return Act::NONE;
}

Status MapFusedBinary(const OpContext& ctx, const std::string& op) {
  if (op == "Mul" || op == "AddV2" || op == "Sub") {
    TFHOST_ASSIGN_OR_RETURN(bool integer, op == "Mul" ? MapIntegerBinaryProduct(ctx, "Mul", {}, FusedOf(ctx))
                                                      : MapIntegerAdd(ctx, FusedOf(ctx), op == "Sub"));
    if (integer) return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, 2));
  return FinishWithActivation(ctx, FusedOf(ctx), op, std::move(in)).status();
}

Status MapReduce(const OpContext& ctx, const std::string& op) {
  const auto* o = ctx.op->builtin_options_as_ReducerOptions();
  ir::AttrMap attrs;
  attrs["keep_dims"] = BoolAttr(o != nullptr && o->keep_dims());
  if (op == "Mean") {
    TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerMean(ctx, attrs));
    if (integer) return OkStatus();
  }
  return MapSimple(ctx, op, 2, std::move(attrs));
}

Status MapAddN(const OpContext& ctx) {
  if (ctx.inputs.empty()) return ctx.Error("has no inputs");
  TFHOST_ASSIGN_OR_RETURN(auto in, AllInputs(ctx, static_cast<int>(ctx.inputs.size())));
  return ctx.b->AddOutputNode(ctx.outputs, "AddN", std::move(in)).status();
}

Status MapCumsum(const OpContext& ctx) {
  const auto* o = ctx.op->builtin_options_as_CumsumOptions();
  ir::AttrMap attrs;
  attrs["exclusive"] = BoolAttr(o != nullptr && o->exclusive());
  attrs["reverse"] = BoolAttr(o != nullptr && o->reverse());
  return MapSimple(ctx, "Cumsum", 2, std::move(attrs));
}

// TensorFlow's op for each builtin that maps one to one without attrs.
const char* PlainOp(int32_t code, int* arity) {
  *arity = 2;
  switch (code) {
    case kMaximum: return "Maximum";
    case kMinimum: return "Minimum";
    case kSquaredDifference: return "SquaredDifference";
    case kPow: return "Pow";
    case kFloorDiv: return "FloorDiv";
    case kFloorMod: return "FloorMod";
    case kLess: return "Less";
    case kLessEqual: return "LessEqual";
    case kGreater: return "Greater";
    case kGreaterEqual: return "GreaterEqual";
    case kEqual: return "Equal";
    case kNotEqual: return "NotEqual";
    case kLogicalAnd: return "LogicalAnd";
    case kLogicalOr: return "LogicalOr";
    default: break;
  }
  *arity = 3;
  switch (code) {
    case kSelect: return "Select";
    case kSelectV2: return "SelectV2";
    default: break;
  }
  *arity = 1;
  switch (code) {
    case kExp: return "Exp";
    case kLog: return "Log";
    case kSqrt: return "Sqrt";
    case kRsqrt: return "Rsqrt";
    case kSquare: return "Square";
    case kAbs: return "Abs";
    case kNeg: return "Neg";
    case kFloor: return "Floor";
    case kCeil: return "Ceil";
    case kRound: return "Round";
    case kSign: return "Sign";
    case kSin: return "Sin";
    case kCos: return "Cos";
    case kLogicalNot: return "LogicalNot";
    case kZerosLike: return "ZerosLike";
    default: return nullptr;
  }
}

const char* ReduceOp(int32_t code) {
  switch (code) {
    case kMean: return "Mean";
    case kSum: return "Sum";
    case kReduceMax: return "Max";
    case kReduceMin: return "Min";
    case kReduceProd: return "Prod";
    case kReduceAny: return "Any";
    case kReduceAll: return "All";
    default: return nullptr;
  }
}

}  // namespace

bool IsMappedMathBuiltin(int32_t code) {
  int arity = 0;
  if (PlainOp(code, &arity) != nullptr || ReduceOp(code) != nullptr) return true;
  switch (code) {
    case kAdd: case kSub: case kMul: case kDiv: case kArgMax: case kArgMin: case kAddN: case kCumsum: case kCast:
    case kRange:
      return true;
    default:
      return false;
  }
}

Status MapMathOperator(const OpContext& ctx) {
  int arity = 0;
  if (ctx.code == kSquaredDifference) {
    TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerSquaredDifference(ctx));
    if (integer) return OkStatus();
  }
  if (ctx.code == kRsqrt) {
    TFHOST_ASSIGN_OR_RETURN(bool integer, MapIntegerLookup(ctx));
    if (integer) return OkStatus();
  }
  if (const char* op = PlainOp(ctx.code, &arity)) return MapSimple(ctx, op, arity);
  if (const char* op = ReduceOp(ctx.code)) return MapReduce(ctx, op);
  switch (ctx.code) {
    case kAdd: return MapFusedBinary(ctx, "AddV2");
    case kSub: return MapFusedBinary(ctx, "Sub");
    case kMul: return MapFusedBinary(ctx, "Mul");
    case kDiv: return MapFusedBinary(ctx, "RealDiv");
    case kArgMax: return MapToOutputType(ctx, "ArgMax", "output_type", 2);
    case kArgMin: return MapToOutputType(ctx, "ArgMin", "output_type", 2);
    case kAddN: return MapAddN(ctx);
    case kCumsum: return MapCumsum(ctx);
    case kCast: return MapToOutputType(ctx, "Cast", "DstT", 1);
    case kRange: return MapSimple(ctx, "Range", 3);
    default: return ctx.Error("is not a mapped math operator");
  }
}

}  // namespace tfhost::loaders::tflite
