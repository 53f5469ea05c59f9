// Image folders <-> TFRecords of tf.train.Example (`tfhost data convert DIR`):
// the layout Keras' image_dataset_from_directory and TensorFlow's
// build_image_data read — one subfolder per class, image files inside —
// into sharded TFRecords with the feature names TensorFlow's tools use:
//
//   image/encoded      bytes   the file's bytes, unchanged
//   image/format       bytes   "jpeg", "png", "gif", "bmp" or "webp" (from the
//                              file's magic bytes, not its name)
//   image/class/label  int64   index of the class folder in sorted order (0-based)
//   image/class/text   bytes   the class folder's name
//   image/filename     bytes   the file's name inside its class folder
//   image/height, image/width  int64, when the header states them (JPEG SOF,
//                              PNG IHDR, GIF screen, BMP info header, WebP)
//
// Records are written class by class, files in sorted order, record i to
// shard i mod N. The way back writes image/encoded to
// DIR/<image/class/text>/<image/filename> (each published atomically), so
// folder -> TFRecords -> folder gives the same tree byte for byte. Names read
// from records are untrusted: a class or file name that is not one plain
// path component is an error, never a path outside DIR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data {

struct ImageInfo {
  std::string format;             // "jpeg", "png", ...; empty if not an image
  std::optional<int64_t> height;  // from the header, when it says
  std::optional<int64_t> width;
};

// Recognises an image by its first bytes and reads its dimensions from the
// header where the format puts them. Never reads past `bytes`.
ImageInfo SniffImage(std::string_view bytes);

struct ImageFolderOptions {
  int shards = 1;
  Compression compression = Compression::kNone;
  // Larger files are an error (the whole file becomes one record).
  uint64_t max_image_bytes = uint64_t{256} << 20;
};

struct ImageFolderStats {
  int64_t records = 0;
  std::vector<std::string> classes;  // sorted; label = index
  std::vector<std::string> outputs;
  std::vector<std::string> skipped;  // files that are not images (by content)
};

// Converts `root` (class subfolders of images) into shards under `prefix`
// (named as ShardName() does, ".gz" for GZIP; missing directories created).
// Hidden entries (names starting with '.') are ignored; files in `root`
// itself and non-image files inside class folders are listed in `skipped`.
StatusOr<ImageFolderStats> ImageFolderToTFRecords(const std::string& root, const std::string& prefix,
                                                  const ImageFolderOptions& options);

// Writes the images of TFRecord `inputs` into `out_dir`/<class>/<filename>;
// `out_dir` and any missing parents are created. A record without image/encoded or
// image/class/text is an error naming the file and record; one without
// image/filename gets "<record number>.<format>".
StatusOr<int64_t> TFRecordsToImageFolder(const std::vector<std::string>& inputs, const std::string& out_dir,
                                         const TFRecordReaderOptions& reader_options = {});

// Whether `path` is a directory (convert's image-folder mode).
bool IsDirectory(const std::string& path);

}  // namespace tfhost::data
