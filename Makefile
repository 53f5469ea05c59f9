# Front door for building, running and testing tfhost. See README.md.
#   make deps   install the Debian packages the build needs (idempotent)
#   make build  Release build; the binary is build/tfhost
#   make run    deps + build + `tfhost serve` on demo models tfhost writes itself
#   make test   deps + build + the whole ctest suite, then the sanitizer suite
#   make asan   loader/parser tests under AddressSanitizer + UBSan
#   make fuzz   builds the libFuzzer targets with clang and smoke-runs each
#   make tsan   the runtime's concurrency tests under ThreadSanitizer

JOBS ?= $(shell nproc)
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
FUZZ_DIR ?= build-fuzz
DEMO_DIR ?= $(BUILD_DIR)/demo-models
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_DIR ?= $(HOME)/.cache/ccache

.PHONY: deps build run test unit-test asan tsan fuzz clean

deps:
	@bash scripts/install_deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release

build: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: TensorFlow Serving's REST (8501) and gRPC (8500) APIs over the
# demo models tfhost writes itself; it prints ready-to-paste curl commands.
# Ctrl-C drains in-flight requests and exits 0.
REST_PORT ?= 8501
GRPC_PORT ?= 8500
run: deps build
	$(BUILD_DIR)/tfhost serve --demo_models_dir=$(DEMO_DIR) --rest_api_port=$(REST_PORT) --port=$(GRPC_PORT)

unit-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

test: deps unit-test asan fuzz

# Model files, configs and requests are untrusted input: everything that
# parses them runs under ASan+UBSan in CI. Only these targets are built, to keep
# the sanitizer pass short.
ASAN_TESTS := crc32c_test tensor_proto_test proto_wire_test tensor_bundle_reader_test \
  tensor_bundle_writer_test sstable_check_test function_inliner_test ref_variables_test \
  graphdef_loader_test tfjs_loader_test saved_model_fixtures_test tfjs_models_test \
  example_decoder_test parse_example_test npy_io_test tensor_input_test flags_test session_test \
  tfrecord_reader_test example_test convert_test json_tensor_codec_test rest_api_handler_test \
  model_config_test batching_parameters_test
asan:
	cmake -S . -B $(ASAN_DIR) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DTFHOST_SANITIZE=address,undefined -DTFHOST_BUILD_BENCHMARKS=OFF
	cmake --build $(ASAN_DIR) -j $(JOBS) --target $(ASAN_TESTS)
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -R '^($(subst $(eval) ,|,$(strip $(ASAN_TESTS))))$$'

# Session::Run is called from many threads at once; its tests run under TSan.
# (frame_executor_test, whose loop iterations overlap, crashes under TSan
# inside the uninstrumented libprotobuf's text parser while building its test
# graphs; it passes under ASan/UBSan.)
TSAN_TESTS := session_test thread_pool_test
tsan:
	cmake --preset tsan -G "$(GENERATOR)"
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_TESTS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -R '^($(subst $(eval) ,|,$(strip $(TSAN_TESTS))))$$'

fuzz:
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_DIR) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTFHOST_BUILD_FUZZERS=ON -DTFHOST_BUILD_TESTS=OFF -DTFHOST_BUILD_BENCHMARKS=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzzers
	bash fuzz/smoke.sh $(FUZZ_DIR)

# tfhost vs TensorFlow.js (wasm+SIMD, cpu) on the TF.js fixtures, same inputs,
# one thread (docs/perf.md); the peer's npm packages come from the committed lock.
.PHONY: bench-peers
bench-peers: build
	cd bench/peers/tfjs && npm ci --no-audit --no-fund
	TFHOST=$(BUILD_DIR)/tfhost bash bench/compare_tfjs.sh

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) build-tsan
