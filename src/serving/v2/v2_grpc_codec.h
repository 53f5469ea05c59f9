// The Open Inference Protocol's gRPC messages (inference/grpc_service.proto)
// to and from V2Service's structs. Inputs come from raw_input_contents (one
// entry per input, in input order, binary form as v2_datatype.h describes)
// or from the typed contents field of their datatype (8- and 16-bit integers
// in int_contents / uint_contents, range-checked; FP16 and BF16 have no
// typed field). Outputs always go out as raw_output_contents, one per
// output, as Triton answers, so that clients decode every datatype alike.
//
// Errors are INVALID_ARGUMENT naming the input, the field, and the expected
// and given counts or datatypes.
//
// Thread-safety: pure functions.
#pragma once

#include "base/status.h"
#include "inference/grpc_service.pb.h"
#include "serving/v2/v2_service.h"

namespace tfhost::serving::v2 {

StatusOr<InferRequest> InferRequestFromProto(const inference::ModelInferRequest& proto);
void InferResponseToProto(const InferResponse& response, inference::ModelInferResponse* proto);
void ModelMetadataToProto(const ModelMetadata& metadata, inference::ModelMetadataResponse* proto);

}  // namespace tfhost::serving::v2
