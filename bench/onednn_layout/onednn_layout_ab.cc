// Does a layout pass pay? Times the convolution chain of nsfw_mobilenet_v2
// (MobileNetV2 x1.4, 224x224: 52 convolutions with fused Relu6), or of
// ResNet-50 (53 convolutions, mostly 3x3 and 1x1 on 64-2048 channels: the
// network family where oneDNN's blocked kernels were designed to shine), in
// oneDNN alone, with the activations either kept in NHWC (what tfhost's kernels
// take) or in whatever layout each primitive prefers (format_tag::any: the
// blocked nChw8c/nChw16c of oneDNN's older jit kernels), with a reorder
// inserted wherever two neighbours disagree (counted in the time). That is
// the best a pass keeping blocked formats across convolutions could do.
// Run it under ONEDNN_MAX_CPU_ISA=AVX2 to see the AVX2 kernels on an
// AVX-512 machine (run.sh does both).
//
//   onednn_layout_ab BATCH nhwc|any|nChw8c|nChw16c f32|bf16 [RUNS [mobilenet_v2|resnet50]]
//
// nChw8c / nChw16c force that blocked layout on every convolution after
// the stem (oneDNN's own choice under `any` is not always its fastest).
//
// Prints one line: batch, layout, dtype, reorders, p50 ms, and the
// implementations oneDNN chose (how many convolutions each).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct Conv {
  int ic, oc, h, k, stride;
  bool depthwise;
  int input = -1;  // the convolution whose output this one reads; -1: the one before
};

// MobileNetV2 with width multiplier 1.4: stem, 17 inverted-residual blocks
// (expand 1x1, depthwise 3x3, project 1x1), final 1x1 to 1792 channels.
std::vector<Conv> MobileNetV2x14() {
  const int blocks[7][4] = {{1, 24, 1, 1}, {6, 32, 2, 2}, {6, 48, 3, 2}, {6, 88, 4, 2},
                            {6, 136, 3, 1}, {6, 224, 3, 2}, {6, 448, 1, 1}};  // t, c, n, s
  std::vector<Conv> convs = {{3, 48, 224, 3, 2, false}};
  int h = 112, c = 48;
  for (const auto& b : blocks) {
    for (int i = 0; i < b[2]; ++i) {
      const int stride = i == 0 ? b[3] : 1;
      const int expanded = c * b[0];
      if (b[0] != 1) convs.push_back({c, expanded, h, 1, 1, false});
      convs.push_back({expanded, expanded, h, 3, stride, true});
      h = (h + stride - 1) / stride;
      convs.push_back({expanded, b[1], h, 1, 1, false});
      c = b[1];
    }
  }
  convs.push_back({c, 1792, h, 1, 1, false});
  return convs;
}

// ResNet-50 v1.5 at 224x224: the 7x7 stem, then 16 bottlenecks (1x1
// reduce, 3x3, 1x1 expand; stride on the 3x3) with a 1x1 projection of the
// block's input in each stage's first block. Left out: the max pool after
// the stem (the first block reads the stem's 112x112 output at stride 2
// instead, the same work as reading the pooled 56x56) and the residual adds.
std::vector<Conv> ResNet50() {
  const int stages[4][3] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};  // width, blocks, stride
  std::vector<Conv> convs = {{3, 64, 224, 7, 2, false}};
  int h = 112, c = 64, block_input = 0;
  bool first_block = true;
  for (const auto& s : stages) {
    for (int i = 0; i < s[1]; ++i) {
      // The stem's output is pooled to 56x56: model that as stride 2 in
      // the first block's 1x1 convolutions.
      const int in_stride = first_block ? 2 : 1;
      const int stride = i == 0 && !first_block ? s[2] : 1;
      convs.push_back({c, s[0], h, 1, in_stride, false, block_input});
      const int hh = (h + in_stride - 1) / in_stride;
      convs.push_back({s[0], s[0], hh, 3, stride, false});
      const int oh = (hh + stride - 1) / stride;
      convs.push_back({s[0], 4 * s[0], oh, 1, 1, false});
      if (i == 0) convs.push_back({c, 4 * s[0], h, 1, in_stride * stride, false, block_input});
      block_input = static_cast<int>(convs.size()) - 1;
      h = oh;
      c = 4 * s[0];
      first_block = false;
    }
  }
  return convs;
}

struct Step {
  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s BATCH nhwc|any|nChw8c|nChw16c f32|bf16 [RUNS [mobilenet_v2|resnet50]]\n",
                 argv[0]);
    return 2;
  }
  const int batch = std::atoi(argv[1]);
  const std::string layout = argv[2];
  Tag activation_tag = Tag::nhwc;
  if (layout == "any") {
    activation_tag = Tag::any;
  } else if (layout == "nChw8c") {
    activation_tag = Tag::aBcd8b;
  } else if (layout == "nChw16c") {
    activation_tag = Tag::aBcd16b;
  } else if (layout != "nhwc") {
    std::fprintf(stderr, "layout must be nhwc, any, nChw8c or nChw16c, not '%s'\n", argv[2]);
    return 2;
  }
  const Dt act = std::strcmp(argv[3], "bf16") == 0 ? Dt::bf16 : Dt::f32;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 20;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const std::string network = argc > 5 ? argv[5] : "mobilenet_v2";
  if (network != "mobilenet_v2" && network != "resnet50") {
    std::fprintf(stderr, "network must be mobilenet_v2 or resnet50, not '%s'\n", network.c_str());
    return 2;
  }
  const std::vector<Conv> convs = network == "resnet50" ? ResNet50() : MobileNetV2x14();
  std::vector<Step> steps;
  std::vector<memory> outputs;
  std::map<std::string, int> impls;
  int reorders = 0;
  try {
    for (size_t i = 0; i < convs.size(); ++i) {
      const Conv& c = convs[i];
      const int oh = (c.h + c.stride - 1) / c.stride;
      const int pad = c.k / 2;
      // The stem reads the float32 NHWC image and writes NHWC float32 (no
      // kernel takes a 3-channel image into a blocked layout but oneDNN's
      // reference one); everything after it is `act` in the chosen layout.
      const bool stem = i == 0;
      const Dt dt = stem ? Dt::f32 : act;
      const memory::desc src({batch, c.ic, c.h, c.h}, dt, stem ? Tag::nhwc : activation_tag);
      const memory::desc dst({batch, c.oc, oh, oh}, dt, stem ? Tag::nhwc : activation_tag);
      const memory::desc weights = c.depthwise ? memory::desc({c.oc, 1, 1, c.k, c.k}, dt, Tag::any)
                                               : memory::desc({c.oc, c.ic, c.k, c.k}, dt, Tag::any);
      const memory::desc bias({c.oc}, Dt::f32, Tag::x);
      dnnl::post_ops relu6;
      relu6.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 6.f);
      dnnl::primitive_attr attr;
      attr.set_post_ops(relu6);
      dnnl::convolution_forward::primitive_desc pd(
          {dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, weights, bias, dst,
           {c.stride, c.stride}, {pad, pad}, {pad, pad}},
          attr, eng);
      ++impls[pd.impl_info_str()];
      memory in = stem ? memory(pd.src_desc(), eng) : outputs[c.input >= 0 ? c.input : i - 1];
      if (in.get_desc() != pd.src_desc()) {
        memory converted(pd.src_desc(), eng);
        steps.push_back({dnnl::reorder(in, converted), {{DNNL_ARG_FROM, in}, {DNNL_ARG_TO, converted}}});
        in = converted;
        ++reorders;
      }
      memory w(pd.weights_desc(), eng), b(pd.bias_desc(), eng), out(pd.dst_desc(), eng);
      // Values do not change the time; zeros keep the activations finite.
      std::memset(w.get_data_handle(), 0, pd.weights_desc().get_size());
      std::memset(b.get_data_handle(), 0, pd.bias_desc().get_size());
      std::memset(in.get_data_handle(), 0, in.get_desc().get_size());
      steps.push_back({dnnl::convolution_forward(pd),
                       {{DNNL_ARG_SRC, in}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, out}}});
      outputs.push_back(out);
    }
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "oneDNN: %s\n", e.what());
    return 1;
  }
  std::vector<double> ms;
  for (int r = 0; r < runs + 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& s : steps) s.prim.execute(stream, s.args);
    stream.wait();
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r >= 3) ms.push_back(t);  // the first runs fill caches and create kernels
  }
  std::sort(ms.begin(), ms.end());
  std::string chosen;
  for (const auto& [impl, n] : impls) chosen += (chosen.empty() ? "" : ", ") + std::to_string(n) + " " + impl;
  std::printf("%s  batch %d  layout %-4s  %-4s  convolutions %zu  reorders %d  p50 %.2f ms  [%s]\n",
              network.c_str(), batch, argv[2], argv[3], convs.size(), reorders, ms[ms.size() / 2], chosen.c_str());
  return 0;
}
