// Image decoding of serving graphs that take encoded images (TF Object
// Detection exports with input_type encoded_image_string_tensor, Keras
// serving functions around tf.io.decode_image): DecodeJpeg, DecodePng,
// DecodeBmp, DecodeImage and ExtractJpegShape.
//
// GIF is decoded by decode_gif.cc; JPEG and PNG by the system's libjpeg-turbo and libpng — the
// libraries TensorFlow itself decodes with — so pixels come out bit for bit
// as TensorFlow's with the same settings: JPEG with the fast integer IDCT
// (TensorFlow's choice for dct_method "", and DecodeImage's) unless dct_method
// is "INTEGER_ACCURATE", fancy upsampling on unless
// turned off, scale 1/ratio; PNG with TensorFlow's transforms (palette to RGB,
// gray expanded to 8 bits, RGB to gray with 0.299/0.587 weights, alpha added
// from tRNS or opaque, or stripped; 16-bit kept only for uint16 output). The
// libraries are loaded with dlopen on first use, so tfhost links against
// neither and a host without them gets an error naming the missing library.
// Both report errors by longjmp out of the decoder; the functions that call
// setjmp hold only plain data so that no destructor is skipped.
//
// Output: uint8 (or uint16 for 16-bit PNG) [height, width, channels];
// DecodeImage with dtype float32 scales to [0, 1] like convert_image_dtype;
// uint16 from 8-bit JPEG, GIF and BMP data is value * 256 (convert_image_dtype
// between unsigned types shifts), from PNG libpng's own widening (* 257).
// channels 0 keeps the file's own.
// Decoded images are untrusted-size: width * height * channels * bytes per
// sample is checked against the session's bound (ops/output_limits.h,
// --max_decoded_image_mb) before anything is allocated for the pixels.
#include <dlfcn.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <mutex>

extern "C" {
#include <jpeglib.h>
#include <png.h>
}

#include "ops/output_limits.h"
#include "ops/op_registry.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {
namespace {

// ---------------------------------------------------------------- libjpeg

struct JpegApi {
  bool ok = false;
  std::string error;
  struct jpeg_error_mgr* (*std_error)(struct jpeg_error_mgr*) = nullptr;
  void (*create_decompress)(j_decompress_ptr, int, size_t) = nullptr;
  void (*mem_src)(j_decompress_ptr, const unsigned char*, unsigned long) = nullptr;
  int (*read_header)(j_decompress_ptr, boolean) = nullptr;
  boolean (*start_decompress)(j_decompress_ptr) = nullptr;
  JDIMENSION (*read_scanlines)(j_decompress_ptr, JSAMPARRAY, JDIMENSION) = nullptr;
  boolean (*finish_decompress)(j_decompress_ptr) = nullptr;
  void (*destroy_decompress)(j_decompress_ptr) = nullptr;
  void (*calc_output_dimensions)(j_decompress_ptr) = nullptr;
};

template <typename F>
bool Bind(void* lib, const char* name, F* fn, std::string* error) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  if (*fn == nullptr) *error = std::string("symbol ") + name + " missing";
  return *fn != nullptr;
}

const JpegApi& Jpeg() {
  static const JpegApi api = [] {
    JpegApi a;
    void* lib = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen("libjpeg.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      a.error = "libjpeg (libjpeg62-turbo) is not installed: " + std::string(dlerror());
      return a;
    }
    a.ok = Bind(lib, "jpeg_std_error", &a.std_error, &a.error) &&
           Bind(lib, "jpeg_CreateDecompress", &a.create_decompress, &a.error) &&
           Bind(lib, "jpeg_mem_src", &a.mem_src, &a.error) && Bind(lib, "jpeg_read_header", &a.read_header, &a.error) &&
           Bind(lib, "jpeg_start_decompress", &a.start_decompress, &a.error) &&
           Bind(lib, "jpeg_read_scanlines", &a.read_scanlines, &a.error) &&
           Bind(lib, "jpeg_finish_decompress", &a.finish_decompress, &a.error) &&
           Bind(lib, "jpeg_destroy_decompress", &a.destroy_decompress, &a.error) &&
           Bind(lib, "jpeg_calc_output_dimensions", &a.calc_output_dimensions, &a.error);
    return a;
  }();
  return api;
}

struct JpegErrorMgr {
  struct jpeg_error_mgr mgr;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<JpegErrorMgr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  longjmp(e->jump, 1);
}
// Warnings (a truncated file, say) are not errors: libjpeg pads and goes on,
// as under TensorFlow.
void JpegQuiet(j_common_ptr, int) {}

struct JpegRequest {
  int channels = 0;  // 0, 1, 3
  int ratio = 1;
  bool fancy_upscaling = true;
  bool fast_dct = false;
  bool header_only = false;
};

// Called once the output size is known; returns the buffer of h * w * c
// bytes to fill, or null to stop (too large).
using AllocFn = unsigned char* (*)(void* ctx, int64_t h, int64_t w, int64_t c);

// Plain-data decoder around setjmp. Returns 0 on success, else writes a
// message into `error` (size JMSG_LENGTH_MAX).
int DecodeJpegRaw(const JpegApi& api, const unsigned char* data, size_t size, const JpegRequest& req, AllocFn alloc,
                  void* alloc_ctx, int64_t* dims, char* error) {
  struct jpeg_decompress_struct cinfo;
  JpegErrorMgr err;
  std::memset(&cinfo, 0, sizeof(cinfo));
  cinfo.err = api.std_error(&err.mgr);
  err.mgr.error_exit = JpegErrorExit;
  err.mgr.emit_message = JpegQuiet;
  if (setjmp(err.jump) != 0) {
    std::snprintf(error, JMSG_LENGTH_MAX, "%s", err.message);
    api.destroy_decompress(&cinfo);
    return 1;
  }
  api.create_decompress(&cinfo, JPEG_LIB_VERSION, sizeof(cinfo));
  api.mem_src(&cinfo, data, static_cast<unsigned long>(size));
  api.read_header(&cinfo, TRUE);
  const int file_components = cinfo.num_components;
  int out_channels = req.channels != 0 ? req.channels : (file_components == 1 ? 1 : 3);
  bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  if (out_channels == 1) {
    cinfo.out_color_space = JCS_GRAYSCALE;
    cmyk = false;
  } else {
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  }
  cinfo.scale_num = 1;
  cinfo.scale_denom = static_cast<unsigned int>(req.ratio);
  cinfo.dct_method = req.fast_dct ? JDCT_IFAST : JDCT_ISLOW;
  cinfo.do_fancy_upsampling = req.fancy_upscaling ? TRUE : FALSE;
  api.calc_output_dimensions(&cinfo);
  dims[0] = cinfo.output_height;
  dims[1] = cinfo.output_width;
  dims[2] = out_channels;
  if (req.header_only) {
    api.destroy_decompress(&cinfo);
    return 0;
  }
  api.start_decompress(&cinfo);
  unsigned char* out = alloc(alloc_ctx, cinfo.output_height, cinfo.output_width, out_channels);
  if (out == nullptr) {
    std::snprintf(error, JMSG_LENGTH_MAX, "image of %ux%u is too large", cinfo.output_width, cinfo.output_height);
    api.destroy_decompress(&cinfo);
    return 1;
  }
  const size_t row_bytes = static_cast<size_t>(cinfo.output_width) * out_channels;
  JSAMPARRAY cmyk_row = nullptr;
  if (cmyk) {
    cmyk_row = (*cinfo.mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(&cinfo), JPOOL_IMAGE,
                                          cinfo.output_width * 4, 1);
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    unsigned char* row = out + static_cast<size_t>(cinfo.output_scanline) * row_bytes;
    if (!cmyk) {
      JSAMPROW rows[1] = {row};
      if (api.read_scanlines(&cinfo, rows, 1) != 1) break;
      continue;
    }
    if (api.read_scanlines(&cinfo, cmyk_row, 1) != 1) break;
    const unsigned char* in = cmyk_row[0];
    for (JDIMENSION x = 0; x < cinfo.output_width; ++x, in += 4) {
      const int c = in[0], m = in[1], y = in[2], k = in[3];
      // Adobe writes inverted CMYK; TensorFlow converts the same way.
      int r, g, b;
      if (cinfo.saw_Adobe_marker) {
        r = k * c / 255;
        g = k * m / 255;
        b = k * y / 255;
      } else {
        r = (255 - k) * (255 - c) / 255;
        g = (255 - k) * (255 - m) / 255;
        b = (255 - k) * (255 - y) / 255;
      }
      row[3 * x] = static_cast<unsigned char>(r);
      row[3 * x + 1] = static_cast<unsigned char>(g);
      row[3 * x + 2] = static_cast<unsigned char>(b);
    }
  }
  api.finish_decompress(&cinfo);
  api.destroy_decompress(&cinfo);
  return 0;
}

// ---------------------------------------------------------------- libpng

struct PngApi {
  bool ok = false;
  std::string error;
  png_structp (*create_read_struct)(png_const_charp, png_voidp, png_error_ptr, png_error_ptr) = nullptr;
  png_infop (*create_info_struct)(png_const_structrp) = nullptr;
  void (*destroy_read_struct)(png_structpp, png_infopp, png_infopp) = nullptr;
  void (*set_read_fn)(png_structrp, png_voidp, png_rw_ptr) = nullptr;
  png_voidp (*get_io_ptr)(png_const_structrp) = nullptr;
  png_voidp (*get_error_ptr)(png_const_structrp) = nullptr;
  void (*read_info)(png_structrp, png_inforp) = nullptr;
  png_uint_32 (*get_IHDR)(png_const_structrp, png_const_inforp, png_uint_32*, png_uint_32*, int*, int*, int*, int*,
                          int*) = nullptr;
  png_uint_32 (*get_valid)(png_const_structrp, png_const_inforp, png_uint_32) = nullptr;
  png_byte (*get_channels)(png_const_structrp, png_const_inforp) = nullptr;
  void (*set_palette_to_rgb)(png_structrp) = nullptr;
  void (*set_expand_gray_1_2_4_to_8)(png_structrp) = nullptr;
  void (*set_rgb_to_gray)(png_structrp, int, double, double) = nullptr;
  void (*set_gray_to_rgb)(png_structrp) = nullptr;
  void (*set_tRNS_to_alpha)(png_structrp) = nullptr;
  void (*set_add_alpha)(png_structrp, png_uint_32, int) = nullptr;
  void (*set_strip_alpha)(png_structrp) = nullptr;
  void (*set_strip_16)(png_structrp) = nullptr;
  void (*set_swap)(png_structrp) = nullptr;
  int (*set_interlace_handling)(png_structrp) = nullptr;
  void (*read_update_info)(png_structrp, png_inforp) = nullptr;
  png_size_t (*get_rowbytes)(png_const_structrp, png_const_inforp) = nullptr;
  void (*read_row)(png_structrp, png_bytep, png_bytep) = nullptr;
  void (*png_error_fn)(png_const_structrp, png_const_charp) = nullptr;
  void (*set_user_limits)(png_structrp, png_uint_32, png_uint_32) = nullptr;
};

const PngApi& Png() {
  static const PngApi api = [] {
    PngApi a;
    void* lib = dlopen("libpng16.so.16", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      a.error = "libpng16 is not installed: " + std::string(dlerror());
      return a;
    }
    a.ok = Bind(lib, "png_create_read_struct", &a.create_read_struct, &a.error) &&
           Bind(lib, "png_create_info_struct", &a.create_info_struct, &a.error) &&
           Bind(lib, "png_destroy_read_struct", &a.destroy_read_struct, &a.error) &&
           Bind(lib, "png_set_read_fn", &a.set_read_fn, &a.error) && Bind(lib, "png_get_io_ptr", &a.get_io_ptr, &a.error) &&
           Bind(lib, "png_get_error_ptr", &a.get_error_ptr, &a.error) &&
           Bind(lib, "png_read_info", &a.read_info, &a.error) && Bind(lib, "png_get_IHDR", &a.get_IHDR, &a.error) &&
           Bind(lib, "png_get_valid", &a.get_valid, &a.error) && Bind(lib, "png_get_channels", &a.get_channels, &a.error) &&
           Bind(lib, "png_set_palette_to_rgb", &a.set_palette_to_rgb, &a.error) &&
           Bind(lib, "png_set_expand_gray_1_2_4_to_8", &a.set_expand_gray_1_2_4_to_8, &a.error) &&
           Bind(lib, "png_set_rgb_to_gray", &a.set_rgb_to_gray, &a.error) &&
           Bind(lib, "png_set_gray_to_rgb", &a.set_gray_to_rgb, &a.error) &&
           Bind(lib, "png_set_tRNS_to_alpha", &a.set_tRNS_to_alpha, &a.error) &&
           Bind(lib, "png_set_add_alpha", &a.set_add_alpha, &a.error) &&
           Bind(lib, "png_set_strip_alpha", &a.set_strip_alpha, &a.error) &&
           Bind(lib, "png_set_strip_16", &a.set_strip_16, &a.error) && Bind(lib, "png_set_swap", &a.set_swap, &a.error) &&
           Bind(lib, "png_set_interlace_handling", &a.set_interlace_handling, &a.error) &&
           Bind(lib, "png_read_update_info", &a.read_update_info, &a.error) &&
           Bind(lib, "png_get_rowbytes", &a.get_rowbytes, &a.error) && Bind(lib, "png_read_row", &a.read_row, &a.error) &&
           Bind(lib, "png_error", &a.png_error_fn, &a.error) && Bind(lib, "png_set_user_limits", &a.set_user_limits, &a.error);
    return a;
  }();
  return api;
}

struct PngSource {
  const PngApi* api;
  const unsigned char* data;
  size_t size;
  size_t offset;
  jmp_buf jump;
  char message[256];
};

void PngRead(png_structp png, png_bytep out, png_size_t n) {
  auto* src = static_cast<PngSource*>(Png().get_io_ptr(png));
  if (n > src->size - src->offset) {
    Png().png_error_fn(png, "PNG data ends early");
    return;
  }
  std::memcpy(out, src->data + src->offset, n);
  src->offset += n;
}

void PngError(png_structp png, png_const_charp message) {
  auto* src = static_cast<PngSource*>(Png().get_error_ptr(png));
  std::snprintf(src->message, sizeof(src->message), "%s", message);
  longjmp(src->jump, 1);
}
void PngWarning(png_structp, png_const_charp) {}

struct PngRequest {
  int channels = 0;   // 0..4
  int bits = 8;       // 8 or 16 (output element size)
};

// As DecodeJpegRaw; dims[3] receives the file's bit depth (8 or 16 after
// expansion). The buffer holds h * w * c elements of `bits`.
int DecodePngRaw(const unsigned char* data, size_t size, const PngRequest& req, AllocFn alloc, void* alloc_ctx,
                 int64_t* dims, char* error) {
  const PngApi& api = Png();
  PngSource src{&api, data, size, 0, {}, {0}};
  png_structp png = api.create_read_struct(PNG_LIBPNG_VER_STRING, &src, PngError, PngWarning);
  if (png == nullptr) {
    std::snprintf(error, 256, "libpng could not start");
    return 1;
  }
  png_infop info = api.create_info_struct(png);
  if (setjmp(src.jump) != 0) {
    std::snprintf(error, 256, "%s", src.message);
    api.destroy_read_struct(&png, &info, nullptr);
    return 1;
  }
  if (info == nullptr) api.png_error_fn(png, "libpng could not allocate its info struct");
  api.set_user_limits(png, 1u << 20, 1u << 20);
  api.set_read_fn(png, &src, PngRead);
  api.read_info(png, info);
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  api.get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, nullptr, nullptr);
  const bool has_trns = api.get_valid(png, info, PNG_INFO_tRNS) != 0;
  int channels = req.channels;
  if (channels == 0) {
    channels = color_type == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3) : api.get_channels(png, info);
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) api.set_palette_to_rgb(png);
  const bool is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && bit_depth < 8) api.set_expand_gray_1_2_4_to_8(png);
  if (channels < 3) {
    if (!is_gray) api.set_rgb_to_gray(png, 1, 0.299, 0.587);  // Rec. 601, as TensorFlow
  } else if (is_gray) {
    api.set_gray_to_rgb(png);
  }
  if (channels == 2 || channels == 4) {
    if (has_trns) {
      api.set_tRNS_to_alpha(png);
    } else if ((color_type & PNG_COLOR_MASK_ALPHA) == 0) {
      api.set_add_alpha(png, (1u << (bit_depth > 8 ? 16 : 8)) - 1, PNG_FILLER_AFTER);
    }
  } else if ((color_type & PNG_COLOR_MASK_ALPHA) != 0) {
    api.set_strip_alpha(png);
  }
  const int file_bits = bit_depth > 8 ? 16 : 8;
  if (file_bits == 16 && req.bits == 8) api.set_strip_16(png);
  if (file_bits == 16 && req.bits == 16) api.set_swap(png);  // big-endian in the file, host order out
  const int passes = api.set_interlace_handling(png);
  api.read_update_info(png, info);
  const int out_bits = (file_bits == 16 && req.bits == 16) ? 16 : 8;
  dims[0] = height;
  dims[1] = width;
  dims[2] = channels;
  dims[3] = out_bits;
  const size_t row_bytes = static_cast<size_t>(width) * channels * (out_bits / 8);
  if (api.get_rowbytes(png, info) != row_bytes) api.png_error_fn(png, "unexpected PNG row size after transforms");
  unsigned char* out = alloc(alloc_ctx, height, width, channels * (out_bits / 8));
  if (out == nullptr) api.png_error_fn(png, "PNG image is too large");
  for (int p = 0; p < passes; ++p) {
    for (png_uint_32 y = 0; y < height; ++y) api.read_row(png, out + y * row_bytes, nullptr);
  }
  api.destroy_read_struct(&png, &info, nullptr);
  return 0;
}

// ---------------------------------------------------------------- kernels

// Pixel memory for a decoder, refused past `max_bytes`; a refusal records
// the size asked for, so the kernel can say what the limit stopped.
struct Buffer {
  explicit Buffer(int64_t limit) : max_bytes(limit) {}
  std::vector<unsigned char> bytes;
  int64_t max_bytes;
  bool refused = false;
  int64_t height = 0, width = 0, pixel_bytes = 0;
  uint64_t asked = 0;
};
unsigned char* AllocBuffer(void* ctx, int64_t h, int64_t w, int64_t c) {
  auto* b = static_cast<Buffer*>(ctx);
  if (h < 0 || w < 0 || c < 0) return nullptr;
  // Decoders report at most 2^32 x 2^32 pixels of at most 8 bytes.
  const unsigned __int128 need =
      static_cast<unsigned __int128>(h) * static_cast<uint64_t>(w) * static_cast<uint64_t>(c);
  if (need > static_cast<uint64_t>(b->max_bytes)) {
    b->refused = true;
    b->height = h;
    b->width = w;
    b->pixel_bytes = c;
    b->asked = need > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(need);
    return nullptr;
  }
  b->bytes.assign(static_cast<size_t>(need), 0);
  return b->bytes.empty() ? reinterpret_cast<unsigned char*>(b) : b->bytes.data();
}

enum class Format { kJpeg, kPng, kGif, kBmp, kUnknown };

Format Sniff(const std::string& s) {
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xFF && static_cast<unsigned char>(s[1]) == 0xD8 &&
      static_cast<unsigned char>(s[2]) == 0xFF) {
    return Format::kJpeg;
  }
  if (s.size() >= 8 && s.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0) return Format::kPng;
  if (s.size() >= 4 && s.compare(0, 4, "GIF8") == 0) return Format::kGif;
  if (s.size() >= 2 && s.compare(0, 2, "BM") == 0) return Format::kBmp;
  return Format::kUnknown;
}

Status TooLarge(const KernelContext& ctx, const char* format, const Buffer& b) {
  const std::string what = std::string(format) + " image of " + std::to_string(b.width) + "x" +
                           std::to_string(b.height) + " pixels of " + std::to_string(b.pixel_bytes) + " bytes";
  return ctx.Error(DecodedImageTooLargeText(what, b.asked, b.max_bytes));
}

StatusOr<const std::string*> ScalarContents(const KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  if (t.rank() != 0) return ctx.Error("contents must be a scalar, got " + t.shape().ToString());
  return &t.strings()[0];
}

StatusOr<Tensor> DecodeJpegTensor(const KernelContext& ctx, const std::string& bytes, int channels) {
  const JpegApi& api = Jpeg();
  if (!api.ok) return Unimplemented(ir::NodeContext(ctx.node()) + ": " + api.error);
  JpegRequest req;
  req.channels = channels;
  TFHOST_ASSIGN_OR_RETURN(int64_t ratio, ctx.AttrOr<int64_t>("ratio", 1));
  if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8) {
    return ctx.Error("ratio must be 1, 2, 4 or 8, got " + std::to_string(ratio));
  }
  req.ratio = static_cast<int>(ratio);
  TFHOST_ASSIGN_OR_RETURN(req.fancy_upscaling, ctx.AttrOr<bool>("fancy_upscaling", true));
  TFHOST_ASSIGN_OR_RETURN(std::string dct, ctx.AttrOr<std::string>("dct_method", ""));
  if (dct != "" && dct != "INTEGER_FAST" && dct != "INTEGER_ACCURATE") {
    return ctx.Error("dct_method must be \"\", INTEGER_FAST or INTEGER_ACCURATE, got '" + dct + "'");
  }
  // "" is TensorFlow's default, the fast IDCT (conformance case
  // DecodeJpeg/tf/rgb_channels0).
  req.fast_dct = dct != "INTEGER_ACCURATE";
  Buffer buffer(GetOutputLimits(ctx).max_image_bytes);
  int64_t dims[4] = {0, 0, 0, 0};
  char error[JMSG_LENGTH_MAX] = {0};
  if (DecodeJpegRaw(api, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), req, AllocBuffer, &buffer,
                    dims, error) != 0) {
    if (buffer.refused) return TooLarge(ctx, "JPEG", buffer);
    return ctx.Error(std::string("invalid JPEG data (") + std::to_string(bytes.size()) + " bytes): " + error);
  }
  Tensor out(DType::kUInt8, Shape({dims[0], dims[1], dims[2]}));
  if (!buffer.bytes.empty()) std::memcpy(out.data<uint8_t>(), buffer.bytes.data(), buffer.bytes.size());
  return out;
}

StatusOr<Tensor> DecodePngTensor(const KernelContext& ctx, const std::string& bytes, int channels, DType dtype) {
  const PngApi& api = Png();
  if (!api.ok) return Unimplemented(ir::NodeContext(ctx.node()) + ": " + api.error);
  PngRequest req;
  req.channels = channels;
  req.bits = dtype == DType::kUInt8 ? 8 : 16;
  Buffer buffer(GetOutputLimits(ctx).max_image_bytes);
  int64_t dims[4] = {0, 0, 0, 8};
  char error[256] = {0};
  if (DecodePngRaw(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), req, AllocBuffer, &buffer, dims,
                   error) != 0) {
    if (buffer.refused) return TooLarge(ctx, "PNG", buffer);
    return ctx.Error(std::string("invalid PNG data (") + std::to_string(bytes.size()) + " bytes): " + error);
  }
  const Shape shape({dims[0], dims[1], dims[2]});
  if (dims[3] == 16) {
    Tensor out(DType::kUInt16, shape);
    if (!buffer.bytes.empty()) std::memcpy(out.data<uint16_t>(), buffer.bytes.data(), buffer.bytes.size());
    return out;
  }
  Tensor out(DType::kUInt8, shape);
  if (!buffer.bytes.empty()) std::memcpy(out.data<uint8_t>(), buffer.bytes.data(), buffer.bytes.size());
  return out;
}

// DecodeBmp: uncompressed 24/32-bit BMP (BITMAPINFOHEADER or later), rows
// bottom-up unless the height is negative, BGR(A) to RGB(A).
StatusOr<Tensor> DecodeBmpTensor(const KernelContext& ctx, const std::string& b, int channels) {
  auto le = [&](size_t at, int n) {
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
    return v;
  };
  if (b.size() < 54 || b.compare(0, 2, "BM") != 0) return ctx.Error("BMP data is shorter than its headers");
  const uint32_t data_offset = le(10, 4);
  const int32_t width = static_cast<int32_t>(le(18, 4));
  const int32_t raw_height = static_cast<int32_t>(le(22, 4));
  const uint32_t bpp = le(28, 2), compression = le(30, 4);
  if (bpp != 24 && bpp != 32) return ctx.Error("BMP has " + std::to_string(bpp) + " bits per pixel; 24 or 32 supported");
  if (compression != 0 && compression != 3) return ctx.Error("compressed BMP (method " + std::to_string(compression) + ") is not supported");
  if (width <= 0 || raw_height == 0 || raw_height == INT32_MIN) return ctx.Error("BMP has an invalid size");
  const bool top_down = raw_height < 0;
  const int64_t height = top_down ? -static_cast<int64_t>(raw_height) : raw_height;
  const int file_channels = static_cast<int>(bpp / 8);
  if (channels == 0) channels = file_channels;
  if (channels != 1 && channels != 3 && channels != 4) return ctx.Error("channels must be 0, 1, 3 or 4");
  const int64_t row_stride = (static_cast<int64_t>(width) * file_channels + 3) / 4 * 4;
  const int64_t max_bytes = GetOutputLimits(ctx).max_image_bytes;
  if (static_cast<int64_t>(width) * height > max_bytes / channels) {
    return ctx.Error(DecodedImageTooLargeText("BMP image of " + std::to_string(width) + "x" + std::to_string(height) +
                                                  " pixels of " + std::to_string(channels) + " bytes",
                                              static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * channels,
                                              max_bytes));
  }
  if (data_offset > b.size() || row_stride * height > static_cast<int64_t>(b.size() - data_offset)) {
    return ctx.Error("BMP pixel data ends early: needs " + std::to_string(row_stride * height) + " bytes at offset " +
                     std::to_string(data_offset));
  }
  Tensor out(DType::kUInt8, Shape({height, width, channels}));
  uint8_t* o = out.data<uint8_t>();
  for (int64_t y = 0; y < height; ++y) {
    const int64_t src_row = top_down ? y : height - 1 - y;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(b.data()) + data_offset + src_row * row_stride;
    for (int64_t x = 0; x < width; ++x, p += file_channels) {
      uint8_t* q = o + (y * width + x) * channels;
      if (channels == 1) {
        q[0] = p[0];  // TensorFlow copies the first (blue) byte for 1 channel
      } else {
        q[0] = p[2];
        q[1] = p[1];
        q[2] = p[0];
        if (channels == 4) q[3] = file_channels == 4 ? p[3] : 255;
      }
    }
  }
  return out;
}

StatusOr<int> ReadChannels(const KernelContext& ctx, std::initializer_list<int> allowed) {
  TFHOST_ASSIGN_OR_RETURN(int64_t channels, ctx.AttrOr<int64_t>("channels", 0));
  for (int a : allowed) {
    if (channels == a) return a;
  }
  return ctx.Error("channels " + std::to_string(channels) + " is not supported here");
}

Status DecodeJpeg(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const std::string* bytes, ScalarContents(ctx));
  TFHOST_ASSIGN_OR_RETURN(int channels, ReadChannels(ctx, {0, 1, 3}));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, DecodeJpegTensor(ctx, *bytes, channels));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ExtractJpegShape(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const std::string* bytes, ScalarContents(ctx));
  const JpegApi& api = Jpeg();
  if (!api.ok) return Unimplemented(ir::NodeContext(ctx.node()) + ": " + api.error);
  JpegRequest req;
  req.header_only = true;
  int64_t dims[4] = {0, 0, 0, 0};
  char error[JMSG_LENGTH_MAX] = {0};
  if (DecodeJpegRaw(api, reinterpret_cast<const unsigned char*>(bytes->data()), bytes->size(), req, AllocBuffer, nullptr,
                    dims, error) != 0) {
    return ctx.Error(std::string("invalid JPEG data: ") + error);
  }
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("output_type", DType::kInt32));
  if (out_type == DType::kInt64) {
    ctx.set_output(0, Tensor::FromVector<int64_t>({dims[0], dims[1], dims[2]}));
  } else {
    ctx.set_output(0, Tensor::FromVector<int32_t>({static_cast<int32_t>(dims[0]), static_cast<int32_t>(dims[1]),
                                                   static_cast<int32_t>(dims[2])}));
  }
  return OkStatus();
}

Status DecodePng(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const std::string* bytes, ScalarContents(ctx));
  TFHOST_ASSIGN_OR_RETURN(int channels, ReadChannels(ctx, {0, 1, 2, 3, 4}));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.AttrOr<DType>("dtype", DType::kUInt8));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, DecodePngTensor(ctx, *bytes, channels, dtype));
  if (dtype == DType::kUInt16 && out.dtype() == DType::kUInt8) {
    Tensor wide(DType::kUInt16, out.shape());
    for (int64_t i = 0; i < out.NumElements(); ++i) wide.data<uint16_t>()[i] = static_cast<uint16_t>(out.data<uint8_t>()[i] * 257);
    out = std::move(wide);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status DecodeBmp(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const std::string* bytes, ScalarContents(ctx));
  TFHOST_ASSIGN_OR_RETURN(int channels, ReadChannels(ctx, {0, 1, 3, 4}));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, DecodeBmpTensor(ctx, *bytes, channels));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// DecodeImage: sniffs the format; converts to the requested dtype.
Status DecodeImage(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(const std::string* bytes, ScalarContents(ctx));
  TFHOST_ASSIGN_OR_RETURN(int channels, ReadChannels(ctx, {0, 1, 3, 4}));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.AttrOr<DType>("dtype", DType::kUInt8));
  Tensor raw;
  const Format format = Sniff(*bytes);
  switch (format) {
    case Format::kJpeg: {
      if (channels == 4) return ctx.Error("JPEG images have 1 or 3 channels, 4 were requested");
      TFHOST_ASSIGN_OR_RETURN(raw, DecodeJpegTensor(ctx, *bytes, channels));
      break;
    }
    case Format::kPng: {
      TFHOST_ASSIGN_OR_RETURN(raw, DecodePngTensor(ctx, *bytes, channels, dtype == DType::kUInt8 ? DType::kUInt8 : DType::kUInt16));
      break;
    }
    case Format::kBmp: {
      TFHOST_ASSIGN_OR_RETURN(raw, DecodeBmpTensor(ctx, *bytes, channels));
      break;
    }
    case Format::kGif: {
      // As TensorFlow: GIFs are RGB only; all frames [n, h, w, 3] unless
      // expand_animations=false, which keeps the first frame [h, w, 3].
      if (channels != 0 && channels != 3) {
        return ctx.Error("GIF images have 3 channels, " + std::to_string(channels) + " were requested");
      }
      StatusOr<Tensor> frames = DecodeGifFrames(*bytes, GetOutputLimits(ctx).max_image_bytes);
      if (!frames.ok()) return ctx.Error(std::string(frames.status().message()));
      TFHOST_ASSIGN_OR_RETURN(bool expand, ctx.AttrOr<bool>("expand_animations", true));
      raw = std::move(*frames);
      if (!expand) {
        Tensor first(DType::kUInt8, Shape({raw.dim(1), raw.dim(2), raw.dim(3)}));
        std::copy(raw.data<uint8_t>(), raw.data<uint8_t>() + first.NumElements(), first.data<uint8_t>());
        raw = std::move(first);
      }
      break;
    }
    default:
      return ctx.Error("Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
  }
  Tensor out(dtype, raw.shape());
  const int64_t n = raw.NumElements();
  const bool wide = raw.dtype() == DType::kUInt16;
  auto sample = [&](int64_t i) -> uint32_t { return wide ? raw.data<uint16_t>()[i] : raw.data<uint8_t>()[i]; };
  if (dtype == DType::kUInt8) {
    out = std::move(raw);
  } else if (dtype == DType::kUInt16) {
    // 8-bit PNG data widens as libpng does (* 257), JPEG, GIF and BMP data
    // as convert_image_dtype does (* 256); conformance cases
    // DecodeImage/tf/png_uint16, DecodeImage/tf/gif_uint16.
    const uint32_t scale = format == Format::kPng ? 257 : 256;
    for (int64_t i = 0; i < n; ++i) out.data<uint16_t>()[i] = static_cast<uint16_t>(wide ? sample(i) : sample(i) * scale);
  } else if (dtype == DType::kFloat) {
    const float scale = wide ? 1.0f / 65535.0f : 1.0f / 255.0f;
    for (int64_t i = 0; i < n; ++i) out.data<float>()[i] = static_cast<float>(sample(i)) * scale;
  } else {
    return ctx.Error("dtype must be uint8, uint16 or float32, got " + DTypeShortName(dtype));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterDecodeImageOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DecodeJpeg")
                        .Input("contents: string")
                        .Output("image: uint8")
                        .Attr("channels: int = 0")
                        .Attr("ratio: int = 1")
                        .Attr("fancy_upscaling: bool = true")
                        .Attr("try_recover_truncated: bool = false")
                        .Attr("acceptable_fraction: float = 1.0")
                        .Attr("dct_method: string = \"\""),
                    DecodeJpeg);
  registry.Register(ir::OpDefBuilder("ExtractJpegShape")
                        .Input("contents: string")
                        .Output("image_shape: output_type")
                        .Attr("output_type: {int32, int64} = DT_INT32"),
                    ExtractJpegShape);
  registry.Register(ir::OpDefBuilder("DecodePng")
                        .Input("contents: string")
                        .Output("image: dtype")
                        .Attr("channels: int = 0")
                        .Attr("dtype: {uint8, uint16} = DT_UINT8"),
                    DecodePng);
  registry.Register(ir::OpDefBuilder("DecodeBmp")
                        .Input("contents: string")
                        .Output("image: uint8")
                        .Attr("channels: int = 0"),
                    DecodeBmp);
  registry.Register(ir::OpDefBuilder("DecodeImage")
                        .Input("contents: string")
                        .Output("image: dtype")
                        .Attr("channels: int = 0")
                        .Attr("dtype: {uint8, uint16, float32} = DT_UINT8")
                        .Attr("expand_animations: bool = true"),
                    DecodeImage);
}

}  // namespace tfhost::ops::image
