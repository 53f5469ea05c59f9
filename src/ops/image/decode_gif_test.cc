#include <gtest/gtest.h>

#include "ops/output_limits.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// Packs LZW codes LSB first, each with its own width, into GIF sub-blocks.
std::string PackCodes(const std::vector<std::pair<int, int>>& codes) {
  std::string bytes;
  uint32_t buffer = 0;
  int bits = 0;
  for (auto [code, width] : codes) {
    buffer |= static_cast<uint32_t>(code) << bits;
    bits += width;
    while (bits >= 8) {
      bytes.push_back(static_cast<char>(buffer & 0xFF));
      buffer >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) bytes.push_back(static_cast<char>(buffer & 0xFF));
  std::string blocks;
  for (size_t i = 0; i < bytes.size(); i += 255) {
    const std::string chunk = bytes.substr(i, 255);
    blocks.push_back(static_cast<char>(chunk.size()));
    blocks += chunk;
  }
  blocks.push_back('\0');
  return blocks;
}

// Literal codes only, with min code size 2 (clear 4, end 5, 3-bit codes): a
// clear before every two pixels keeps the decoder's table below 8 entries,
// so the code width never grows.
std::string Uncompressed(const std::vector<int>& pixels) {
  std::vector<std::pair<int, int>> codes;
  for (size_t i = 0; i < pixels.size(); ++i) {
    if (i % 2 == 0) codes.push_back({4, 3});
    codes.push_back({pixels[i], 3});
  }
  codes.push_back({5, 3});
  return PackCodes(codes);
}

std::string U16(int v) { return std::string{static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)}; }

// Four colours: 0 black, 1 red, 2 green, 3 blue.
std::string Header(int w, int h) {
  std::string s = "GIF89a" + U16(w) + U16(h);
  s += std::string{static_cast<char>(0x81), 0, 0};  // global table of 2^(1+1) colours
  s += std::string("\0\0\0\xFF\0\0\0\xFF\0\0\0\xFF", 12);
  return s;
}

std::string Gce(int disposal, int transparent) {
  const char flags = static_cast<char>((disposal << 2) | (transparent >= 0 ? 1 : 0));
  return std::string{'\x21', '\xF9', 4, flags, 0, 0, static_cast<char>(transparent >= 0 ? transparent : 0), 0};
}

std::string Image(int left, int top, int w, int h, const std::string& lzw_blocks, bool interlaced = false) {
  return "\x2C" + U16(left) + U16(top) + U16(w) + U16(h) + std::string(1, interlaced ? '\x40' : '\0') + '\x02' +
         lzw_blocks;
}

StatusOr<Tensor> Decode(const std::string& gif) {
  Tensor contents(DType::kString, Shape({}));
  contents.strings()[0] = gif;
  auto out = RunSingleOp("DecodeGif", {contents});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

std::vector<uint8_t> Rgb(std::initializer_list<int> colours) {
  static const uint8_t kPalette[4][3] = {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  std::vector<uint8_t> v;
  for (int c : colours) v.insert(v.end(), kPalette[c], kPalette[c] + 3);
  return v;
}

TEST(DecodeGifTest, SingleFrameMapsIndicesThroughTheGlobalPalette) {
  auto image = Decode(Header(2, 2) + Image(0, 0, 2, 2, Uncompressed({0, 1, 2, 3})) + "\x3B");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_TRUE(TensorsEqual(*image, Tensor::FromVector<uint8_t>(Rgb({0, 1, 2, 3}), Shape({1, 2, 2, 3}))));
}

TEST(DecodeGifTest, CompressedRunsUseTheCodeBeingDefined) {
  // [1, 1, 1, 1] compresses to clear, 1, 6 ("11", defined by this very code),
  // 1, end; the third code adds entry 7, so the end code is read with 4 bits.
  const std::string lzw = PackCodes({{4, 3}, {1, 3}, {6, 3}, {1, 3}, {5, 4}});
  auto image = Decode(Header(4, 1) + Image(0, 0, 4, 1, lzw) + "\x3B");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_TRUE(TensorsEqual(*image, Tensor::FromVector<uint8_t>(Rgb({1, 1, 1, 1}), Shape({1, 1, 4, 3}))));
}

TEST(DecodeGifTest, LaterFramesPaintOverThePreviousOneIgnoringDisposal) {
  // Frame 1 asks for "restore to background" (disposal 2) and frame 2 paints
  // only column 1, with index 0 transparent: TensorFlow keeps frame 1 beneath.
  const std::string gif = Header(2, 2) + Gce(2, -1) + Image(0, 0, 2, 2, Uncompressed({1, 1, 2, 2})) + Gce(0, 0) +
                          Image(1, 0, 1, 2, Uncompressed({3, 0})) + "\x3B";
  auto image = Decode(gif);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  std::vector<uint8_t> want = Rgb({1, 1, 2, 2});
  const std::vector<uint8_t> second = Rgb({1, 3, 2, 2});
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_TRUE(TensorsEqual(*image, Tensor::FromVector<uint8_t>(want, Shape({2, 2, 2, 3}))));
}

TEST(DecodeGifTest, InterlacedRowsAreReordered) {
  // A 1x5 interlaced image: stored rows are 0, 4, 2, 1, 3 (passes from rows
  // 0, 4, 2, 1), so rows 0..4 get stored rows 0, 3, 2, 4, 1 -> colours 1, 1, 3, 2, 2.
  auto image = Decode(Header(1, 5) + Image(0, 0, 1, 5, Uncompressed({1, 2, 3, 1, 2}), true) + "\x3B");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_TRUE(TensorsEqual(*image, Tensor::FromVector<uint8_t>(Rgb({1, 1, 3, 2, 2}), Shape({1, 5, 1, 3}))));
}

TEST(DecodeGifTest, CanvasIsTheLargestFrameAndBlackWhereFrameZeroLeavesIt) {
  // The screen says 4x4, but TensorFlow sizes the output by the largest frame
  // (2 wide from frame 1, 2 high from frame 0). Frame 0 (1x2 at (0, 0))
  // leaves column 1 black; frame 1 (2x1 at (0, 1)) repaints row 1.
  const std::string gif = Header(4, 4) + Image(0, 0, 1, 2, Uncompressed({1, 2})) +
                          Image(0, 1, 2, 1, Uncompressed({3, 3})) + "\x3B";
  auto image = Decode(gif);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  std::vector<uint8_t> want = Rgb({1, 0, 2, 0});
  const std::vector<uint8_t> second = Rgb({1, 0, 3, 3});
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_TRUE(TensorsEqual(*image, Tensor::FromVector<uint8_t>(want, Shape({2, 2, 2, 3}))));
}

TEST(DecodeGifTest, FileEndingAfterACompleteFrameKeepsIt) {
  // No trailer: giflib's reader fails after the image, which TensorFlow only logs.
  auto image = Decode(Header(2, 2) + Image(0, 0, 2, 2, Uncompressed({0, 1, 2, 3})));
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_TRUE(TensorsEqual(*image, Tensor::FromVector<uint8_t>(Rgb({0, 1, 2, 3}), Shape({1, 2, 2, 3}))));
}

TEST(DecodeGifTest, CorruptFilesAreErrorsNamingTheProblem) {
  auto not_gif = Decode("\x89PNG\r\n\x1a\n0000000000");
  TFHOST_ASSERT_ERROR(not_gif, StatusCode::kInvalidArgument,
                      "contents is not a GIF: expected a GIF87a or GIF89a header and screen descriptor (18 bytes)");
  const std::string whole = Header(2, 2) + Image(0, 0, 2, 2, Uncompressed({0, 1, 2, 3}));
  auto cut = Decode(whole.substr(0, whole.size() - 3));  // inside the image data
  TFHOST_ASSERT_ERROR(cut, StatusCode::kInvalidArgument, "truncated GIF: data sub-block at byte 37");
  auto short_data = Decode(Header(2, 2) + Image(0, 0, 2, 2, Uncompressed({0, 1, 2})) + "\x3B");
  TFHOST_ASSERT_ERROR(short_data, StatusCode::kInvalidArgument,
                      "GIF image data ends (end code) before the image is complete");
  auto no_images = Decode(Header(2, 2) + "\x3B");
  TFHOST_EXPECT_ERROR(no_images, StatusCode::kInvalidArgument, "GIF contains no image");
  // A frame claiming more than the decoded size limit: DecodeGifLimitTest.
}

TEST(DecodeGifTest, IndexOutsideALocalColourTableIsAnError) {
  // Local table of 2 colours (flags 0x80, size bits 0), index 3 used.
  const std::string image = "\x2C" + U16(0) + U16(0) + U16(1) + U16(1) + std::string("\x80", 1) +
                            std::string("\0\0\0\xFF\xFF\xFF", 6) + '\x02' + Uncompressed({3});
  auto out = Decode(Header(1, 1) + image + "\x3B");
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "GIF frame 0: colour index 3 is outside the colour table of 2");
}


// --max_decoded_image_mb (ops/output_limits.h): frames are bounded while
// they are read, and the composited output before it is allocated.

StatusOr<Tensor> DecodeWithLimit(const std::string& gif, int64_t limit_bytes) {
  ResourceManager resources;
  TFHOST_RETURN_IF_ERROR(SetOutputLimits(resources, {limit_bytes}));
  auto out = RunSingleOp("DecodeGif", {Tensor::StringScalar(gif)}, {}, &resources);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(DecodeGifLimitTest, FrameDeclaringFourGigapixelsIsRefusedBeforeItsPixelsAreDecoded) {
  // A 65535 x 65535 frame claims 4 GiB of colour indices (12 GiB of RGB).
  const std::string gif = Header(65535, 65535) + Image(0, 0, 65535, 65535, Uncompressed({0, 1})) + "\x3B";
  TFHOST_EXPECT_ERROR(Decode(gif), StatusCode::kInvalidArgument,
                      "decoded GIF frames 0..0 (frame 0 of 65535x65535) needs 4294836225 bytes, past the limit of "
                      "1073741824 bytes (--max_decoded_image_mb=1024)");
}

TEST(DecodeGifLimitTest, OutputAtTheLimitDecodesAndOneByteOverIsRefused) {
  // Two 2 x 2 frames: 2 x 2 x 2 x 3 = 24 bytes of output.
  const std::string gif = Header(2, 2) + Image(0, 0, 2, 2, Uncompressed({0, 1, 2, 3})) +
                          Image(0, 0, 2, 2, Uncompressed({3, 2, 1, 0})) + "\x3B";
  auto at = DecodeWithLimit(gif, 24);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(at->shape(), Shape({2, 2, 2, 3}));
  TFHOST_EXPECT_ERROR(DecodeWithLimit(gif, 23), StatusCode::kInvalidArgument,
                      "decoded GIF of 2 frames of 2x2x3 needs 24 bytes, past the limit of 23 bytes");
}

}  // namespace
}  // namespace tfhost::ops
