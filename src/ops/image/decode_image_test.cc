#include <gtest/gtest.h>

#include "ops/output_limits.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// Encoded test images, written with libjpeg-turbo / libpng (hex):
std::string Bytes(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}
// 16x16 grayscale, every pixel 100, quality 100 (all quantizers 1).
const char* kJpegGray100 =
      "ffd8ffe000104a46494600010100000100010000ffdb00430001010101010101010101010101010101010101010101010101"
      "010101010101010101010101010101010101010101010101010101010101010101010101010101ffc0000b08001000100101"
      "1100ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b51000020103030204030505"
      "04040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a"
      "25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a8384858687"
      "88898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2"
      "e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda0008010100003f00f87e8a28afffd9";
// 16x8 RGB, quality 90: pixel (y, x) = (16x, 16y, 128).
const char* kJpegRgb =
      "ffd8ffe000104a46494600010100000100010000ffdb0043000302020302020303030304030304050805050404050a070706"
      "080c0a0c0c0b0a0b0b0d0e12100d0e110e0b0b1016101113141515150c0f171816141812141514ffdb004301030404050405"
      "09050509140d0b0d141414141414141414141414141414141414141414141414141414141414141414141414141414141414"
      "1414141414141414ffc00011080008001003012200021101031101ffc4001f00000105010101010101000000000000000001"
      "02030405060708090a0bffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114"
      "328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a53545556"
      "5758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5"
      "b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffc4001f010003"
      "0101010101010101010000000000000102030405060708090a0bffc400b51100020102040403040705040400010277000102"
      "031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35"
      "363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495"
      "969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9ea"
      "f2f3f4f5f6f7f8f9faffda000c03010002110311003f00f957c29f0a7ee7ee7f4af66f09fc29fb9fb9fd28a2bebb39ccf13a"
      "fbc7d5f86d9ce33dcf78ffd9";
// 2x2 RGBA 8-bit: (255,0,0,255) (0,255,0,128) / (0,0,255,0) (10,20,30,40).
const char* kPngRgba =
      "89504e470d0a1a0a0000000d494844520000000200000002080600000072b60d240000001a49444154089963f8cfc0f09fe1"
      "3f43030303c37f062e11390d0036a904e19be7fb9b0000000049454e44ae426082";
// 3x2 palette [red, green, blue] with tRNS alphas [255, 0, 128]; indices [0 1 2 / 2 1 0].
const char* kPngPalette =
      "89504e470d0a1a0a0000000d4948445200000003000000020803000000aaaa962800000009504c5445ff000000ff000000ff"
      "2d4acd8a0000000374524e53ff0080a9567313000000104944415408996360606462606264000000200007f1ca7d32000000"
      "0049454e44ae426082";
// 2x2 gray 16-bit: 0, 65535 / 4660, 257.
const char* kPngGray16 =
      "89504e470d0a1a0a0000000d4948445200000002000000021000000000074d8ebb00000012494441540899636060f8ff9f41"
      "c8849111000de4024756be51870000000049454e44ae426082";
// 4x4 RGB 8-bit, Adam7-interlaced: sample k (row-major) = 5k.
const char* kPngRgbInterlaced =
      "89504e470d0a1a0a0000000d4948445200000004000000040802000001519439bf00000031494441540899636060e5629053"
      "d660aca86d92939363e41791949393636cef99282727c768e3e8c60f038c5b76ee837300f09f08dfed38605f000000004945"
      "4e44ae426082";

std::vector<int> Pixels(const Tensor& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v.push_back(t.dtype() == DType::kUInt16 ? t.data<uint16_t>()[i] : t.data<uint8_t>()[i]);
  }
  return v;
}

TEST(DecodeJpegTest, SolidGrayDecodesExactlyAtFullAndReducedScale) {
  auto out = RunSingleOp("DecodeJpeg", {Tensor::StringScalar(Bytes(kJpegGray100))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({16, 16, 1}));
  EXPECT_EQ(Pixels((*out)[0]), std::vector<int>(256, 100));
  // channels 3 replicates gray; ratio 2 halves each side.
  auto rgb = RunSingleOp("DecodeJpeg", {Tensor::StringScalar(Bytes(kJpegGray100))},
                         {{"channels", MakeAttr(3)}, {"ratio", MakeAttr(2)}});
  ASSERT_TRUE(rgb.ok()) << rgb.status().ToString();
  EXPECT_EQ((*rgb)[0].shape(), Shape({8, 8, 3}));
  EXPECT_EQ(Pixels((*rgb)[0]), std::vector<int>(8 * 8 * 3, 100));
  auto shape = RunSingleOp("ExtractJpegShape", {Tensor::StringScalar(Bytes(kJpegRgb))});
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_TRUE(TensorsEqual((*shape)[0], Tensor::FromVector<int32_t>({8, 16, 3})));
}

TEST(DecodeJpegTest, ColorImageComesOutRgbCloseToTheSource) {
  // Lossy at quality 90 with 2x2 chroma subsampling: each sample within 20
  // levels of (16x, 16y, 128) (the corners of the ramp move most).
  for (const char* dct : {"", "INTEGER_FAST", "INTEGER_ACCURATE"}) {
    auto out = RunSingleOp("DecodeJpeg", {Tensor::StringScalar(Bytes(kJpegRgb))}, {{"dct_method", MakeAttr(dct)}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].shape(), Shape({8, 16, 3}));
    const uint8_t* p = (*out)[0].data<uint8_t>();
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 16; ++x) {
        EXPECT_NEAR(p[(y * 16 + x) * 3 + 0], 16 * x, 20) << y << "," << x;
        EXPECT_NEAR(p[(y * 16 + x) * 3 + 1], 16 * y, 20) << y << "," << x;
        EXPECT_NEAR(p[(y * 16 + x) * 3 + 2], 128, 20) << y << "," << x;
      }
    }
  }
}

TEST(DecodeJpegTest, CorruptOrTruncatedHeadersAreErrors) {
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeJpeg", {Tensor::StringScalar("not a jpeg")}), StatusCode::kInvalidArgument,
                      "invalid JPEG data (10 bytes): Not a JPEG file: starts with 0x6e 0x6f");
  std::string jpeg = Bytes(kJpegGray100);
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeJpeg", {Tensor::StringScalar(jpeg.substr(0, 100))}), StatusCode::kInvalidArgument,
                      "invalid JPEG data (100 bytes): Invalid JPEG file structure: missing SOS marker");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeJpeg", {Tensor::StringScalar(jpeg)}, {{"ratio", MakeAttr(3)}}), StatusCode::kInvalidArgument,
                      "ratio must be 1, 2, 4 or 8, got 3");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeJpeg", {Tensor::StringScalar(jpeg)}, {{"channels", MakeAttr(2)}}), StatusCode::kInvalidArgument,
                      "channels 2 is not supported here");
}

TEST(DecodePngTest, RgbaKeepsOrStripsOrGraysAlpha) {
  auto out = RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngRgba))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2, 4}));
  EXPECT_EQ(Pixels((*out)[0]), std::vector<int>({255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 40}));
  auto rgb = RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngRgba))}, {{"channels", MakeAttr(3)}});
  ASSERT_TRUE(rgb.ok()) << rgb.status().ToString();
  EXPECT_EQ(Pixels((*rgb)[0]), std::vector<int>({255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30}));
}

TEST(DecodePngTest, PaletteWithTransparencyBecomesRgba) {
  auto out = RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngPalette))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3, 4}));
  EXPECT_EQ(Pixels((*out)[0]), std::vector<int>({255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 255, 128,
                                                 0, 0, 255, 128, 0, 255, 0, 0, 255, 0, 0, 255}));
}

TEST(DecodePngTest, SixteenBitKeptForUint16AndStrippedForUint8) {
  auto wide = RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngGray16))}, {{"dtype", MakeAttr(DType::kUInt16)}});
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_EQ((*wide)[0].dtype(), DType::kUInt16);
  EXPECT_EQ(Pixels((*wide)[0]), std::vector<int>({0, 65535, 4660, 257}));
  // uint8: the high byte of each sample.
  auto narrow = RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngGray16))});
  ASSERT_TRUE(narrow.ok()) << narrow.status().ToString();
  EXPECT_EQ(Pixels((*narrow)[0]), std::vector<int>({0, 255, 0x12, 1}));
}

TEST(DecodePngTest, InterlacedImageIsReassembled) {
  auto out = RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngRgbInterlaced))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<int> want;
  for (int k = 0; k < 48; ++k) want.push_back(5 * k);
  EXPECT_EQ(Pixels((*out)[0]), want);
  std::string png = Bytes(kPngRgbInterlaced);
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodePng", {Tensor::StringScalar(png.substr(0, 60))}), StatusCode::kInvalidArgument,
                      "invalid PNG data (60 bytes): PNG data ends early");
  png[70] ^= 0x55;  // corrupt the compressed data (CRC mismatch)
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodePng", {Tensor::StringScalar(png)}), StatusCode::kInvalidArgument,
                      "invalid PNG data (106 bytes): IDAT: invalid distance too far back");
}

// A 2x2 24-bit bottom-up BMP: bottom row (blue, white), top row (red, green).
std::string Bmp2x2() {
  auto le = [](std::string& s, uint32_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  std::string s = "BM";
  le(s, 54 + 16, 4);
  le(s, 0, 4);
  le(s, 54, 4);
  le(s, 40, 4);
  le(s, 2, 4);
  le(s, 2, 4);
  le(s, 1, 2);
  le(s, 24, 2);
  le(s, 0, 4);
  le(s, 16, 4);
  le(s, 2835, 4);
  le(s, 2835, 4);
  le(s, 0, 4);
  le(s, 0, 4);
  // Rows are BGR, padded to 4 bytes; stored bottom row first.
  s += std::string("\xff\x00\x00\xff\xff\xff\x00\x00", 8);
  s += std::string("\x00\x00\xff\x00\xff\x00\x00\x00", 8);
  return s;
}

TEST(DecodeBmpTest, BottomUpBgrRowsBecomeTopDownRgb) {
  auto out = RunSingleOp("DecodeBmp", {Tensor::StringScalar(Bmp2x2())});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2, 3}));
  EXPECT_EQ(Pixels((*out)[0]), std::vector<int>({255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255}));
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeBmp", {Tensor::StringScalar(Bmp2x2().substr(0, 60))}), StatusCode::kInvalidArgument,
                      "BMP pixel data ends early: needs 16 bytes at offset 54");
}

TEST(DecodeImageTest, SniffsTheFormatAndConvertsToFloat) {
  auto jpeg = RunSingleOp("DecodeImage", {Tensor::StringScalar(Bytes(kJpegGray100))}, {{"dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(jpeg.ok()) << jpeg.status().ToString();
  EXPECT_EQ((*jpeg)[0].shape(), Shape({16, 16, 1}));
  EXPECT_FLOAT_EQ((*jpeg)[0].data<float>()[0], 100.0f / 255.0f);
  auto png = RunSingleOp("DecodeImage", {Tensor::StringScalar(Bytes(kPngRgba))}, {{"channels", MakeAttr(3)}});
  ASSERT_TRUE(png.ok()) << png.status().ToString();
  EXPECT_EQ(Pixels((*png)[0]), std::vector<int>({255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30}));
  auto bmp = RunSingleOp("DecodeImage", {Tensor::StringScalar(Bmp2x2())}, {{"dtype", MakeAttr(DType::kUInt16)}});
  ASSERT_TRUE(bmp.ok()) << bmp.status().ToString();
  EXPECT_EQ(Pixels((*bmp)[0])[0], 65280);  // 8-bit 255 shifted up, as TensorFlow widens a BMP
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeImage", {Tensor::StringScalar("????")}), StatusCode::kInvalidArgument,
                      "Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
}

// Two 2x1 frames over a 4-colour palette (black, red, green, blue): frame 0
// red, green; frame 1 blue, black. LZW: min code size 2, 3-bit codes
// clear(4), a, b, end(5) packed LSB first.
std::string TwoFrameGif() {
  return std::string("GIF89a\x02\x00\x01\x00\x81\x00\x00", 13) +
         std::string("\x00\x00\x00\xFF\x00\x00\x00\xFF\x00\x00\x00\xFF", 12) +
         std::string("\x2C\x00\x00\x00\x00\x02\x00\x01\x00\x00\x02\x02\x8C\x0A\x00", 15) +
         std::string("\x2C\x00\x00\x00\x00\x02\x00\x01\x00\x00\x02\x02\x1C\x0A\x00", 15) + "\x3B";
}

TEST(DecodeImageTest, GifGivesAllFramesOrTheFirstAndOnlyRgb) {
  auto all = RunSingleOp("DecodeImage", {Tensor::StringScalar(TwoFrameGif())});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ((*all)[0].shape(), Shape({2, 1, 2, 3}));
  EXPECT_EQ(Pixels((*all)[0]), std::vector<int>({255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0}));
  auto first = RunSingleOp("DecodeImage", {Tensor::StringScalar(TwoFrameGif())},
                           {{"expand_animations", MakeAttr(false)}, {"dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)[0].shape(), Shape({1, 2, 3}));
  EXPECT_FLOAT_EQ((*first)[0].data<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ((*first)[0].data<float>()[4], 1.0f);
  auto gray = RunSingleOp("DecodeImage", {Tensor::StringScalar(TwoFrameGif())}, {{"channels", MakeAttr(1)}});
  TFHOST_ASSERT_ERROR(gray, StatusCode::kInvalidArgument, "GIF images have 3 channels, 1 were requested");
  auto cut = RunSingleOp("DecodeImage", {Tensor::StringScalar(TwoFrameGif().substr(0, 30))});
  TFHOST_EXPECT_ERROR(cut, StatusCode::kInvalidArgument, "truncated GIF: image descriptor at byte 26");
}


// --max_decoded_image_mb: a header's declared size is checked against the
// session's limit (ops/output_limits.h) before any pixel memory is sized.

uint32_t Crc32(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}
std::string BigEndian32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
}
std::string PngChunk(const std::string& type, const std::string& data) {
  return BigEndian32(static_cast<uint32_t>(data.size())) + type + data + BigEndian32(Crc32(type + data));
}
// A few dozen bytes whose IHDR declares width x height 8-bit RGB pixels,
// then the start of the pixel data (libpng reads no further before the
// decoder sizes the image).
std::string PngDeclaring(uint32_t width, uint32_t height) {
  const std::string ihdr = BigEndian32(width) + BigEndian32(height) + std::string("\x08\x02\x00\x00\x00", 5);
  return std::string("\x89PNG\r\n\x1a\n", 8) + PngChunk("IHDR", ihdr) + PngChunk("IDAT", std::string(16, '\0'));
}

StatusOr<std::vector<Tensor>> DecodeWithLimit(const std::string& op, const std::string& contents, int64_t limit_bytes) {
  ResourceManager resources;
  TFHOST_RETURN_IF_ERROR(SetOutputLimits(resources, {limit_bytes}));
  return RunSingleOp(op, {Tensor::StringScalar(contents)}, {}, &resources);
}

TEST(DecodeImageLimitTest, PngDeclaringTenGigapixelsIsRefusedUnderTheDefaultLimit) {
  // 100000 x 100000 x 3 = 3e10 bytes from a 70-byte file.
  const std::string png = PngDeclaring(100000, 100000);
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodePng", {Tensor::StringScalar(png)}), StatusCode::kInvalidArgument,
                      "decoded PNG image of 100000x100000 pixels of 3 bytes needs 30000000000 bytes, past the limit "
                      "of 1073741824 bytes (--max_decoded_image_mb=1024); refused before decoding");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeImage", {Tensor::StringScalar(png)}), StatusCode::kInvalidArgument,
                      "needs 30000000000 bytes, past the limit of 1073741824 bytes (--max_decoded_image_mb=1024)");
}

TEST(DecodeImageLimitTest, PngAtTheLimitDecodesAndOneByteOverIsRefused) {
  // kPngRgba: 2 x 2 x 4 = 16 bytes.
  auto at = DecodeWithLimit("DecodePng", Bytes(kPngRgba), 16);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ((*at)[0].shape(), Shape({2, 2, 4}));
  TFHOST_EXPECT_ERROR(DecodeWithLimit("DecodePng", Bytes(kPngRgba), 15), StatusCode::kInvalidArgument,
                      "decoded PNG image of 2x2 pixels of 4 bytes needs 16 bytes, past the limit of 15 bytes");
  // 16-bit samples count two bytes each: 2 x 2 x 1 x 2 = 8.
  EXPECT_TRUE(DecodeWithLimit("DecodeImage", Bytes(kPngGray16), 1 << 20).ok());
  ResourceManager resources;
  ASSERT_TRUE(SetOutputLimits(resources, {7}).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodePng", {Tensor::StringScalar(Bytes(kPngGray16))},
                                  {{"dtype", MakeAttr(DType::kUInt16)}}, &resources),
                      StatusCode::kInvalidArgument, "2x2 pixels of 2 bytes needs 8 bytes, past the limit of 7 bytes");
}

TEST(DecodeImageLimitTest, JpegDeclaringMoreThanTheLimitIsRefusedAndOneAtItDecodes) {
  // kJpegGray100: 16 x 16 x 1 = 256 bytes.
  auto at = DecodeWithLimit("DecodeJpeg", Bytes(kJpegGray100), 256);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ((*at)[0].shape(), Shape({16, 16, 1}));
  TFHOST_EXPECT_ERROR(DecodeWithLimit("DecodeJpeg", Bytes(kJpegGray100), 255), StatusCode::kInvalidArgument,
                      "decoded JPEG image of 16x16 pixels of 1 bytes needs 256 bytes, past the limit of 255 bytes");
  // The same file with its frame header saying 60000 x 60000.
  std::string big = Bytes(kJpegGray100);
  const size_t sof = big.find(std::string("\xff\xc0\x00\x0b\x08\x00\x10\x00\x10", 9));
  ASSERT_NE(sof, std::string::npos);
  big.replace(sof + 5, 4, std::string("\xea\x60\xea\x60", 4));
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeJpeg", {Tensor::StringScalar(big)}), StatusCode::kInvalidArgument,
                      "decoded JPEG image of 60000x60000 pixels of 1 bytes needs 3600000000 bytes, past the limit of "
                      "1073741824 bytes (--max_decoded_image_mb=1024)");
}

TEST(DecodeImageLimitTest, BmpHeaderDeclaringMoreThanTheLimitIsRefusedBeforeItsPixelsAreRead) {
  // Bmp2x2: 2 x 2 x 3 = 12 bytes.
  EXPECT_TRUE(DecodeWithLimit("DecodeBmp", Bmp2x2(), 12).ok());
  TFHOST_EXPECT_ERROR(DecodeWithLimit("DecodeBmp", Bmp2x2(), 11), StatusCode::kInvalidArgument,
                      "decoded BMP image of 2x2 pixels of 3 bytes needs 12 bytes, past the limit of 11 bytes");
  std::string big = Bmp2x2();
  big.replace(18, 8, std::string("\x40\x42\x0f\x00\x40\x42\x0f\x00", 8));  // 1000000 x 1000000
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeBmp", {Tensor::StringScalar(big)}), StatusCode::kInvalidArgument,
                      "decoded BMP image of 1000000x1000000 pixels of 3 bytes needs 3000000000000 bytes");
}

}  // namespace
}  // namespace tfhost::ops
