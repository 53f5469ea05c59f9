# Front door for building, running and testing tfhost. See README.md.
#   make deps   install the Debian packages the build needs and the project's
#               Python environment (TensorFlow, serving clients, moto) from
#               the locked requirements/test.txt (idempotent)
#   make build  Release build; the binary is build/tfhost
#   make run    deps + build + `tfhost serve` on demo models tfhost writes itself
#   make test   deps + build + the whole ctest suite, then the sanitizer suite
#   make asan   loader/parser tests under AddressSanitizer + UBSan
#   make fuzz   builds the libFuzzer targets with clang and smoke-runs each
#   make tsan   the runtime's concurrency tests under ThreadSanitizer
#               (make test runs the thread pool's part of it: make tsan-pool)
#   make install [PREFIX=/usr/local]  builds tfhost, installs bin/tfhost, the docs
#               (share/doc/tfhost) and bash completion (cmake --install; DESTDIR works)
#   make dist   dist/tfhost-<version>-linux-<arch>.tar.gz: tfhost with every shared
#               library it needs but glibc's, relocatable (unpack anywhere)

JOBS ?= $(shell nproc)
BUILD_DIR ?= build
FUZZ_DIR ?= build-fuzz
DEMO_DIR ?= $(BUILD_DIR)/demo-models
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_DIR ?= $(HOME)/.cache/ccache

.PHONY: deps build run test unit-test asan tsan tsan-pool fuzz clean install dist

deps:
	@bash scripts/install_deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release

build: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Only the binary is built for these, not the tests and benchmarks.
PREFIX ?= /usr/local
install: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target tfhost
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The tarball's makings: scripts/make_dist.sh (needs patchelf: make deps).
dist: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS) --target dist

# The main job: TensorFlow Serving's REST (8501) and gRPC (8500) APIs over the
# demo models tfhost writes itself; it prints ready-to-paste curl commands.
# Ctrl-C drains in-flight requests and exits 0.
REST_PORT ?= 8501
GRPC_PORT ?= 8500
run: deps build
	$(BUILD_DIR)/tfhost serve --demo_models_dir=$(DEMO_DIR) --rest_api_port=$(REST_PORT) --port=$(GRPC_PORT)

unit-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

test: deps unit-test asan fuzz tsan-pool

# Model files, configs and requests are untrusted input: everything that
# parses them runs under ASan+UBSan in CI, in the fuzzers' build: one clang
# build compiles every library once with ASan, UBSan and libFuzzer's coverage
# for both (before, each compiled the whole tree once).
# Only these tests are built, to keep the sanitizer pass short.
ASAN_TESTS := crc32c_test segment_ops_test matrix_diag_ops_test broadcast_test graph_runner_test tensor_proto_test proto_wire_test tensor_bundle_reader_test \
  tensor_bundle_writer_test sstable_check_test function_inliner_test ref_variables_test \
  graphdef_loader_test tfjs_loader_test saved_model_fixtures_test tfjs_models_test \
  example_decoder_test parse_example_test npy_io_test tensor_input_test flags_test session_test \
  tfrecord_reader_test example_test convert_test json_tensor_codec_test rest_api_handler_test \
  model_config_test batching_parameters_test thread_pool_test tflite_loader_test onnx_loader_test \
  onnx_tensor_test object_graph_captures_test variable_freezing_test loop_projection_hoisting_test \
  function_runtime_test tflite_quantized_test tflite_custom_test affine_quantize_ops_test \
  requantize_ops_test matmul_ops_test simd_requantize_test onnx_ops_control_test onnx_ops_rnn_test \
  onnx_ops_resize_test onnx_ops_index_test onnx_ops_quantize_test onnx_ops_gather_test \
  concat_split_ops_test nms_ops_test frame_executor_test quantize_ops_test print_ops_test \
  gather_scatter_ops_test output_limits_test dense_segment_ops_test activation_ops_test fused_conv2d_test \
  dim_vector_test simd_gemv_test lstm_cell_test simd_lstm_cell_test lstm_cell_fusion_test tensor_list_ops_test \
  tensor_array_ops_test lstm_loop_test simd_lstm_loop_test lstm_loop_fusion_test pass_manager_test restore_subset_test \
  layer_norm_test simd_layer_norm_test layer_norm_fusion_test masked_softmax_test masked_softmax_fusion_test \
  simd_softmax_test reshape_shape_folding_test reshape_sinking_test einsum_lowering_test onnx_ops_nn_test \
  audio_ops_test
# -O1 and line tables only: reports keep file:line, and compiling costs less
# than the -O2 -g the fuzz build used before.
SANITIZER_FLAGS := -O1 -gline-tables-only
SANITIZER_CONFIGURE := CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_DIR) -G "$(GENERATOR)" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZER_FLAGS)" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$(SANITIZER_FLAGS)" \
  -DTFHOST_BUILD_FUZZERS=ON -DTFHOST_BUILD_TESTS=ON -DTFHOST_BUILD_BENCHMARKS=OFF
# UBSan findings stop the test (the build lets checks recover, so that the
# third-party suppressions apply).
UBSAN_TEST_OPTIONS := halt_on_error=1:print_stacktrace=1:suppressions=$(CURDIR)/fuzz/ubsan_suppressions.txt
asan:
	$(SANITIZER_CONFIGURE)
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(ASAN_TESTS)
	cd $(FUZZ_DIR) && ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 UBSAN_OPTIONS=$(UBSAN_TEST_OPTIONS) \
	  ctest --output-on-failure -j $(JOBS) -R '^($(subst $(eval) ,|,$(strip $(ASAN_TESTS))))$$'

# Session::Run is called from many threads at once; its tests run under TSan.
# (frame_executor_test, whose loop iterations overlap, crashes under TSan
# inside the uninstrumented libprotobuf's text parser while building its test
# graphs; it passes under ASan/UBSan.)
TSAN_TESTS := session_test thread_pool_test step_team_test
tsan:
	cmake --preset tsan -G "$(GENERATOR)"
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TESTS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^($(subst $(eval) ,|,$(strip $(TSAN_TESTS))))$$'

# The thread pool every kernel splits work over, and the step teams built on
# it, under TSan: they need only src/base, so CI runs them. On the
# ParallelFor that returned before its last worker was done with the
# caller's stack, its test failed 3 times in 3 (a data race on the caller's
# lock).
tsan-pool:
	cmake --preset tsan -G "$(GENERATOR)"
	cmake --build build-tsan -j $(JOBS) --target thread_pool_test step_team_test
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^(thread_pool_test|step_team_test)$$'

fuzz:
	$(SANITIZER_CONFIGURE)
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzzers
	bash fuzz/smoke.sh $(FUZZ_DIR)

# tfhost vs TensorFlow, ONNX Runtime, OpenVINO and LiteRT on the same models,
# inputs and machine, in one run (bench/peers/README.md; docs/perf.md). The
# peers come pinned from requirements/peers.txt in their own environment.
.PHONY: bench-peers
bench-peers: build
	TFHOST=$(BUILD_DIR)/tfhost bash bench/peers/run.sh

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) build-asan build-tsan
