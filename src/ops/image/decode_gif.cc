// DecodeGif: every frame of a GIF87a/GIF89a file as [num_frames, height,
// width, 3] uint8 RGB, with a self-contained parser and LZW decoder (no image
// library).
//
// Frames are composited as TensorFlow's decoder does (facts from its
// gif_io.cc, which ignores each frame's disposal method):
//   * the canvas is max frame width x max frame height (not the logical
//     screen size); frames sit at their offsets, clipped to it;
//   * frame k starts as a copy of composited frame k - 1 (frame 0: black);
//   * the frame's rectangle is painted with its local colour table, else the
//     global one;
//   * a pixel whose index is the frame's transparent colour (first Graphic
//     Control Extension before the image) keeps the value beneath it;
//   * an index outside the colour table, a missing colour table, LZW data
//     that ends before the rectangle is filled, or no image at all is an
//     error; a file that ends (or holds an unknown block) after complete
//     images keeps them.
// Interlaced images are de-interlaced. Sizes come from an untrusted file:
// decoded indices and the output are bounded (the session's decoded image
// limit, ops/output_limits.h) before they are allocated, and pixels are only
// produced as fast as LZW codes arrive.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "ops/output_limits.h"
#include "ops/op_registry.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Has(size_t n) const { return data_.size() - pos_ >= n; }
  size_t pos() const { return pos_; }
  uint8_t U8() { return static_cast<uint8_t>(data_[pos_++]); }
  uint16_t U16() {
    const uint16_t v = static_cast<uint16_t>(static_cast<uint8_t>(data_[pos_]) |
                                             (static_cast<uint8_t>(data_[pos_ + 1]) << 8));
    pos_ += 2;
    return v;
  }
  std::string_view Bytes(size_t n) {
    std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

struct Palette {
  std::string_view rgb;  // 3 bytes per colour
  int count = 0;
};

// Reads a colour table of 2^(bits + 1) entries when `present`.
Status ReadPalette(Reader& r, bool present, int bits, Palette* p, const char* what) {
  if (!present) return OkStatus();
  p->count = 1 << (bits + 1);
  if (!r.Has(static_cast<size_t>(p->count) * 3)) {
    return InvalidArgument(std::string("truncated GIF: ") + what + " colour table at byte " + std::to_string(r.pos()));
  }
  p->rgb = r.Bytes(static_cast<size_t>(p->count) * 3);
  return OkStatus();
}

// Concatenates data sub-blocks (size byte, data) up to the 0 terminator.
Status ReadSubBlocks(Reader& r, std::string* out) {
  while (true) {
    if (!r.Has(1)) return InvalidArgument("truncated GIF: data sub-block at byte " + std::to_string(r.pos()));
    const uint8_t n = r.U8();
    if (n == 0) return OkStatus();
    if (!r.Has(n)) return InvalidArgument("truncated GIF: data sub-block at byte " + std::to_string(r.pos()));
    if (out) out->append(r.Bytes(n));
    else r.Bytes(n);
  }
}

// Decodes `pixels` colour indices from LZW `data` with minimum code size
// `min_bits` (variable-length codes of up to 12 bits, LSB first).
Status DecodeLzw(const std::string& data, int min_bits, int64_t pixels, std::vector<uint8_t>* out) {
  // The GIF spec allows 2..8 (2 also for two-colour images).
  if (min_bits < 2 || min_bits > 8) {
    return InvalidArgument("bad GIF LZW minimum code size " + std::to_string(min_bits) + " (expected 2..8)");
  }
  const int clear = 1 << min_bits, eoi = clear + 1;
  // Code table as (prefix code, last byte, string length); strings are
  // written back to front.
  std::vector<int> prefix(4096, -1), length(4096, 1);
  std::vector<uint8_t> suffix(4096, 0), first(4096, 0);
  for (int i = 0; i < clear; ++i) {
    suffix[i] = first[i] = static_cast<uint8_t>(i);
  }
  int bits = min_bits + 1, next = clear + 2, prev = -1;
  uint32_t buffer = 0;
  int buffered = 0;
  size_t pos = 0;
  out->clear();
  out->reserve(static_cast<size_t>(std::min<int64_t>(pixels, int64_t{1} << 24)));
  while (static_cast<int64_t>(out->size()) < pixels) {
    while (buffered < bits && pos < data.size()) {
      buffer |= static_cast<uint32_t>(static_cast<uint8_t>(data[pos++])) << buffered;
      buffered += 8;
    }
    if (buffered < bits) return InvalidArgument("GIF image data ends before the image is complete");
    const int code = static_cast<int>(buffer & ((1u << bits) - 1));
    buffer >>= bits;
    buffered -= bits;
    if (code == clear) {
      bits = min_bits + 1;
      next = clear + 2;
      prev = -1;
      continue;
    }
    if (code == eoi) return InvalidArgument("GIF image data ends (end code) before the image is complete");
    int emit = code;
    if (prev < 0) {
      if (code >= clear) return InvalidArgument("corrupt GIF LZW data: code " + std::to_string(code) + " after a clear");
    } else if (code > next || (code == next && next >= 4096)) {
      return InvalidArgument("corrupt GIF LZW data: code " + std::to_string(code) + " not yet defined");
    }
    if (prev >= 0 && next < 4096) {
      // New entry: prev's string + first byte of code's string (of prev's
      // own when code is the entry being defined).
      prefix[next] = prev;
      suffix[next] = code == next ? first[prev] : first[code];
      first[next] = first[prev];
      length[next] = length[prev] + 1;
      ++next;
      if (next == (1 << bits) && bits < 12) ++bits;
    }
    const size_t start = out->size();
    out->resize(start + length[emit]);
    for (int c = emit, i = length[emit] - 1; i >= 0; c = prefix[c], --i) (*out)[start + i] = suffix[c];
    prev = code;
  }
  out->resize(static_cast<size_t>(pixels));
  return OkStatus();
}

struct Frame {
  int left, top, width, height;
  int transparent;  // -1: none
  std::vector<uint8_t> indices;  // row-major, de-interlaced
  Palette palette;
};

// Reads one image (descriptor, colour table, LZW data) after its 0x2C byte.
// `budget`: bytes of decoded indices still allowed out of `limit`.
Status ReadFrame(Reader& r, const Palette& global, int transparent, int64_t index, int64_t limit, int64_t* budget,
                 Frame* f) {
  if (!r.Has(9)) return InvalidArgument("truncated GIF: image descriptor at byte " + std::to_string(r.pos()));
  f->left = r.U16();
  f->top = r.U16();
  f->width = r.U16();
  f->height = r.U16();
  const uint8_t image_flags = r.U8();
  f->transparent = transparent;
  TFHOST_RETURN_IF_ERROR(ReadPalette(r, image_flags & 0x80, image_flags & 7, &f->palette, "local"));
  if (f->palette.count == 0) f->palette = global;
  if (f->palette.count == 0) return InvalidArgument("GIF frame " + std::to_string(index) + " has no colour table");
  if (!r.Has(1)) return InvalidArgument("truncated GIF: image data at byte " + std::to_string(r.pos()));
  const int min_bits = r.U8();
  std::string lzw;
  TFHOST_RETURN_IF_ERROR(ReadSubBlocks(r, &lzw));
  const int64_t pixels = int64_t{f->width} * f->height;
  *budget -= pixels;
  if (*budget < 0) {
    return InvalidArgument(DecodedImageTooLargeText(
        "GIF frames 0.." + std::to_string(index) + " (frame " + std::to_string(index) + " of " +
            std::to_string(f->width) + "x" + std::to_string(f->height) + ")",
        static_cast<uint64_t>(limit - *budget), limit));
  }
  std::vector<uint8_t> decoded;
  TFHOST_RETURN_IF_ERROR(DecodeLzw(lzw, min_bits, pixels, &decoded));
  if (!(image_flags & 0x40)) {
    f->indices = std::move(decoded);
    return OkStatus();
  }
  // Interlaced: stored rows are 0, 8, 16, .. then 4, 12, .. then 2, 6, .. then 1, 3, ..
  f->indices.resize(decoded.size());
  int64_t src_row = 0;
  const int starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
  for (int pass = 0; pass < 4; ++pass)
    for (int64_t y = starts[pass]; y < f->height; y += steps[pass], ++src_row) {
      std::memcpy(f->indices.data() + y * f->width, decoded.data() + src_row * f->width, f->width);
    }
  return OkStatus();
}

}  // namespace

StatusOr<Tensor> DecodeGifFrames(std::string_view data, int64_t max_bytes) {
  Reader r(data);
  if (!r.Has(13) || (data.substr(0, 6) != "GIF87a" && data.substr(0, 6) != "GIF89a")) {
    return InvalidArgument("contents is not a GIF: expected a GIF87a or GIF89a header and screen descriptor (" +
                           std::to_string(data.size()) + " bytes)");
  }
  r.Bytes(6);
  r.U16();  // logical screen width and height: TensorFlow sizes the output
  r.U16();  // by the largest frame instead
  const uint8_t flags = r.U8();
  r.U8();  // background colour index: TensorFlow paints black, not it
  r.U8();  // pixel aspect ratio
  Palette global;
  TFHOST_RETURN_IF_ERROR(ReadPalette(r, flags & 0x80, flags & 7, &global, "global"));
  std::vector<Frame> frames;
  int64_t budget = max_bytes;
  int transparent = -1;
  bool seen_gce = false;
  // Blocks up to the trailer. As TensorFlow (giflib's reader failing past the
  // last complete image is only logged there), a file that ends or turns
  // unreadable between blocks keeps the frames read so far.
  Status stop = OkStatus();
  while (stop.ok()) {
    if (!r.Has(1)) {
      stop = InvalidArgument("truncated GIF: no trailer");
      break;
    }
    const uint8_t kind = r.U8();
    if (kind == 0x3B) break;  // trailer
    if (kind == 0x21) {
      if (!r.Has(1)) {
        stop = InvalidArgument("truncated GIF: extension at byte " + std::to_string(r.pos()));
        break;
      }
      const uint8_t label = r.U8();
      std::string body;
      stop = ReadSubBlocks(r, label == 0xF9 ? &body : nullptr);
      // Graphic Control Extension: the first one before an image applies;
      // a malformed one (not 4 bytes) is ignored, as giflib's reader does.
      if (stop.ok() && label == 0xF9 && !seen_gce) {
        seen_gce = true;
        if (body.size() == 4 && (static_cast<uint8_t>(body[0]) & 1)) transparent = static_cast<uint8_t>(body[3]);
      }
      continue;
    }
    if (kind != 0x2C) {
      stop = InvalidArgument("corrupt GIF: unknown block type " + std::to_string(kind) + " at byte " +
                             std::to_string(r.pos() - 1) + " (expected an image, extension or trailer)");
      break;
    }
    Frame f;
    TFHOST_RETURN_IF_ERROR(
        ReadFrame(r, global, transparent, static_cast<int64_t>(frames.size()), max_bytes, &budget, &f));
    frames.push_back(std::move(f));
    transparent = -1;
    seen_gce = false;
  }
  if (frames.empty()) {
    return stop.ok() ? InvalidArgument("GIF contains no image") : stop.WithContext("GIF contains no complete image");
  }
  // The canvas is as large as the largest frame (TensorFlow ignores the
  // logical screen size); frames are placed at their offsets and clipped.
  int width = 0, height = 0;
  for (const Frame& f : frames) {
    width = std::max(width, f.width);
    height = std::max(height, f.height);
  }
  const int64_t frame_elements = int64_t{width} * height * 3;
  const int64_t n = static_cast<int64_t>(frames.size());
  if (frame_elements > 0 && n > max_bytes / frame_elements) {
    const unsigned __int128 need = static_cast<unsigned __int128>(n) * static_cast<uint64_t>(frame_elements);
    return InvalidArgument(DecodedImageTooLargeText(
        "GIF of " + std::to_string(n) + " frames of " + std::to_string(width) + "x" + std::to_string(height) + "x3",
        need > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(need), max_bytes));
  }
  Tensor out(DType::kUInt8, Shape({n, height, width, 3}));  // zeros: frame 0's background
  uint8_t* base = out.data<uint8_t>();
  for (int64_t k = 0; k < n; ++k) {
    const Frame& f = frames[k];
    uint8_t* dst = base + k * frame_elements;
    if (k > 0) std::memcpy(dst, dst - frame_elements, static_cast<size_t>(frame_elements));
    const int y_end = std::min(f.top + f.height, height), x_end = std::min(f.left + f.width, width);
    for (int y = f.top; y < y_end; ++y)
      for (int x = f.left; x < x_end; ++x) {
        const int index = f.indices[static_cast<size_t>(y - f.top) * f.width + (x - f.left)];
        if (index == f.transparent) continue;
        if (index >= f.palette.count) {
          return InvalidArgument("GIF frame " + std::to_string(k) + ": colour index " + std::to_string(index) +
                                 " is outside the colour table of " + std::to_string(f.palette.count));
        }
        std::memcpy(dst + (static_cast<int64_t>(y) * width + x) * 3, f.palette.rgb.data() + index * 3, 3);
      }
  }
  return out;
}

namespace {

Status DecodeGif(KernelContext& ctx) {
  const Tensor& contents = ctx.input(0);
  if (contents.rank() != 0) return ctx.Error("contents must be a scalar, got shape " + contents.shape().ToString());
  auto image = DecodeGifFrames(contents.strings()[0], GetOutputLimits(ctx).max_image_bytes);
  if (!image.ok()) return ctx.Error(std::string(image.status().message()));
  ctx.set_output(0, std::move(*image));
  return OkStatus();
}

}  // namespace

void RegisterDecodeGifOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DecodeGif").Input("contents: string").Output("image: uint8"),
                         DecodeGif);
}

}  // namespace tfhost::ops::image
