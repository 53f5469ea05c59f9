// Builds tensorflow.OpDef schemas from TensorFlow's REGISTER_OP spelling, so an
// op's schema reads as TensorFlow documents it:
//
//   OpDefBuilder("Conv2D")
//       .Input("input: T").Input("filter: T").Output("output: T")
//       .Attr("T: {half, bfloat16, float, double}")
//       .Attr("strides: list(int)").Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
//       .Attr("data_format: string = 'NHWC'").Attr("dilations: list(int) = [1, 1, 1, 1]")
//
// Arg types: a type attr name ("T"), a list(type) attr name, "N * T", a fixed
// type ("int32", "string", "resource"), "Ref(T)". Attr types: string, int,
// float, bool, type, shape, tensor, func, list(...), "{...}" allowed values;
// "int >= 2" style minimums are accepted and ignored. Defaults: ints, floats,
// true/false, 'strings', dtype names, [lists] of those.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "tensorflow/core/framework/op_def.pb.h"

namespace tfhost::ir {

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name) : name_(std::move(name)) {}
  OpDefBuilder& Input(std::string spec) { inputs_.push_back(std::move(spec)); return *this; }
  OpDefBuilder& Output(std::string spec) { outputs_.push_back(std::move(spec)); return *this; }
  OpDefBuilder& Attr(std::string spec) { attrs_.push_back(std::move(spec)); return *this; }
  OpDefBuilder& SetIsStateful() { stateful_ = true; return *this; }
  // Parses every spec; the error names the op and the bad spec.
  StatusOr<tensorflow::OpDef> Finalize() const;

 private:
  std::string name_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  bool stateful_ = false;
};

}  // namespace tfhost::ir
