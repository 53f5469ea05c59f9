// Fuzzes frozen GraphDef parsing (binary and text format) and graph construction.
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/text_format.h>

#include "fuzz/graph_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::GraphDef graph_def;
  if (graph_def.ParseFromArray(data, static_cast<int>(size))) {
    tfhost::fuzz::ExerciseGraphDef(graph_def);
  }
  graph_def.Clear();
  std::string text(reinterpret_cast<const char*>(data), size);
  google::protobuf::TextFormat::Parser parser;
  parser.AllowPartialMessage(true);
  if (parser.ParseFromString(text, &graph_def)) tfhost::fuzz::ExerciseGraphDef(graph_def);
  return 0;
}
