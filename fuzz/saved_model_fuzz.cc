// Fuzzes saved_model.pb parsing and graph construction.
#include <cstddef>
#include <cstdint>

#include "fuzz/graph_fuzz_common.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::SavedModel saved_model;
  if (!saved_model.ParseFromArray(data, static_cast<int>(size))) return 0;
  for (const auto& meta_graph : saved_model.meta_graphs()) {
    tfhost::fuzz::ExerciseGraphDef(meta_graph.graph_def());
  }
  return 0;
}
