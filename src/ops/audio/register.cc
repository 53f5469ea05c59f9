#include "ops/audio/audio_ops.h"

namespace tfhost::ops {

void RegisterAudioOps(OpRegistry& registry) {
  audio::RegisterWavOps(registry);
  audio::RegisterSpectrogramOps(registry);
  audio::RegisterFftOps(registry);
  audio::RegisterFftNdOps(registry);
}

}  // namespace tfhost::ops
