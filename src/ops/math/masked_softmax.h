// _TfhostMaskedSoftmax: Softmax(SelectV2(mask, logits, fill)) as one node,
// the masked softmax of attention as Keras writes it (its Softmax layer with
// a mask: the masked scores replaced by a large negative fill, then the
// softmax over the last axis). passes/masked_softmax_fusion writes it so
// that a backend applies the mask while it reads each row of scores, instead
// of writing the masked scores out and reading them back (BERT-base: 12
// such [1, 12, 128, 128] tensors a run at batch 1).
//
// Inputs: logits (T), mask (bool) and fill (T), broadcasting together as
// SelectV2's do; output: the softmax over the last axis of their
// broadcast, exactly what the two ops give (the reference kernel runs
// their reference kernels in turn). With the attr zero_masked, the output
// is then SelectV2(mask, softmax, 0), as Keras's layer returns it.
#pragma once

namespace tfhost::ops::math {

inline constexpr const char* kMaskedSoftmaxOp = "_TfhostMaskedSoftmax";

}  // namespace tfhost::ops::math
