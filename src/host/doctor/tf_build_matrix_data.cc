// The embedded copy of src/host/data/tf_build_matrix.json (keep them equal;
// tf_build_matrix_test checks). Edit the JSON, then paste it here.
#include "host/doctor/tf_build_matrix.h"

namespace tfhost::host {

const char kTfBuildMatrixJson[] = R"json({
  "source": "TensorFlow, 'Tested build configurations', Linux GPU table: https://www.tensorflow.org/install/source#gpu",
  "note": "One row per TensorFlow minor release: the CUDA and cuDNN versions TensorFlow built and tested that release with. Add a row when TensorFlow publishes one.",
  "builds": [
    {"tensorflow": "2.19", "cuda": "12.5", "cudnn": "9.3"},
    {"tensorflow": "2.18", "cuda": "12.5", "cudnn": "9.3"},
    {"tensorflow": "2.17", "cuda": "12.3", "cudnn": "8.9"},
    {"tensorflow": "2.16", "cuda": "12.3", "cudnn": "8.9"},
    {"tensorflow": "2.15", "cuda": "12.2", "cudnn": "8.9"},
    {"tensorflow": "2.14", "cuda": "11.8", "cudnn": "8.7"},
    {"tensorflow": "2.13", "cuda": "11.8", "cudnn": "8.6"},
    {"tensorflow": "2.12", "cuda": "11.8", "cudnn": "8.6"},
    {"tensorflow": "2.11", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.10", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.9", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.8", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.7", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.6", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.5", "cuda": "11.2", "cudnn": "8.1"},
    {"tensorflow": "2.4", "cuda": "11.0", "cudnn": "8.0"},
    {"tensorflow": "2.3", "cuda": "10.1", "cudnn": "7.6"},
    {"tensorflow": "2.2", "cuda": "10.1", "cudnn": "7.6"},
    {"tensorflow": "2.1", "cuda": "10.1", "cudnn": "7.6"},
    {"tensorflow": "2.0", "cuda": "10.0", "cudnn": "7.4"},
    {"tensorflow": "1.15", "cuda": "10.0", "cudnn": "7.4"},
    {"tensorflow": "1.14", "cuda": "10.0", "cudnn": "7.4"},
    {"tensorflow": "1.13", "cuda": "10.0", "cudnn": "7.4"}
  ]
}
)json";

}  // namespace tfhost::host
