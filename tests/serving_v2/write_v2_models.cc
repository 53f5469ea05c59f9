// Writes the models tests/serving_v2 serves: one echo SavedModel per Open
// Inference Protocol datatype (src/serving/v2/v2_test_models.h; echo_fp32 at
// versions 1 and 2 with label "stable" -> 1), and DIR/models.config, the
// model server config that serves them all.
//   write_v2_models DIR
#include <google/protobuf/text_format.h>

#include <fstream>
#include <iostream>

#include "serving/v2/v2_test_models.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_v2_models DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  auto config = tfhost::serving::v2::testing::WriteEchoModels(dir);
  if (!config.ok()) {
    std::cerr << "write_v2_models: " << config.status().ToString() << "\n";
    return 1;
  }
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(*config, &text)) {
    std::cerr << "write_v2_models: cannot print the model server config\n";
    return 1;
  }
  std::ofstream out(dir + "/models.config");
  out << text;
  out.close();
  if (!out) {
    std::cerr << "write_v2_models: cannot write " << dir << "/models.config\n";
    return 1;
  }
  std::cout << dir << "/models.config\n";
  return 0;
}
