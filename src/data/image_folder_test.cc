#include "data/image_folder.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>

#include "data/convert.h"
#include "data/example.h"
#include "data/tfrecord_writer.h"
#include "base/test_status.h"

namespace tfhost::data {
namespace {

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/image_folder_test.XXXXXX";
  return ::mkdtemp(tmpl.data());
}

void WriteFile(const std::string& path, const std::string& data) { std::ofstream(path, std::ios::binary) << data; }

std::string ReadWhole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// relative path -> bytes of every regular file under dir.
void Tree(const std::string& dir, const std::string& rel, std::map<std::string, std::string>* out) {
  DIR* d = ::opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string p = dir + "/" + n;
    struct stat st;
    ASSERT_EQ(::stat(p.c_str(), &st), 0);
    if (S_ISDIR(st.st_mode)) {
      Tree(p, rel + n + "/", out);
    } else {
      (*out)[rel + n] = ReadWhole(p);
    }
  }
  ::closedir(d);
}

std::string Be16(int v) { return std::string{static_cast<char>(v >> 8), static_cast<char>(v & 0xff)}; }
std::string Le16(int v) { return std::string{static_cast<char>(v & 0xff), static_cast<char>(v >> 8)}; }
std::string Le32(int32_t v) { return Le16(v & 0xffff) + Le16((static_cast<uint32_t>(v) >> 16) & 0xffff); }

// Headers as the formats define them, followed by filler standing in for
// the compressed image data.
std::string Png(int w, int h, char fill) {
  std::string s("\x89PNG\r\n\x1a\n", 8);
  s += std::string("\0\0\0\x0d", 4) + "IHDR" + std::string("\0\0", 2) + Be16(w) + std::string("\0\0", 2) + Be16(h);
  return s + std::string(40, fill);
}
std::string Jpeg(int w, int h, char fill) {
  std::string s("\xFF\xD8", 2);
  s += std::string("\xFF\xE0", 2) + Be16(16) + std::string("JFIF\0\1\1\0\0\1\0\1\0\0", 14);  // APP0
  s += std::string("\xFF\xC4", 2) + Be16(5) + std::string("\0\0\0", 3);                      // DHT (not a frame)
  s += std::string("\xFF\xC2", 2) + Be16(11) + std::string("\x08", 1) + Be16(h) + Be16(w) + std::string("\x01\x01\x11\x00", 4);
  return s + std::string("\xFF\xDA", 2) + std::string(30, fill) + std::string("\xFF\xD9", 2);
}
std::string Gif(int w, int h) { return "GIF89a" + Le16(w) + Le16(h) + std::string(20, '\0'); }
std::string Bmp(int w, int h) {
  return "BM" + Le32(70) + Le32(0) + Le32(54) + Le32(40) + Le32(w) + Le32(h) + std::string(16, '\0');
}
std::string WebpX(int w, int h) {
  std::string s = "RIFF" + Le32(30) + "WEBP" + "VP8X" + Le32(10) + std::string(4, '\0');
  s += std::string{static_cast<char>((w - 1) & 0xff), static_cast<char>(((w - 1) >> 8) & 0xff), 0};
  s += std::string{static_cast<char>((h - 1) & 0xff), static_cast<char>(((h - 1) >> 8) & 0xff), 0};
  return s + std::string(8, '\0');
}

TEST(SniffImageTest, RecognisesFormatsByMagicAndReadsHeaderDimensions) {
  struct Case {
    std::string bytes, format;
    int64_t w, h;
  };
  for (const Case& c : {Case{Png(640, 480, 'x'), "png", 640, 480}, Case{Jpeg(300, 200, 'y'), "jpeg", 300, 200},
                        Case{Gif(17, 9), "gif", 17, 9}, Case{Bmp(32, -24), "bmp", 32, 24},
                        Case{WebpX(1000, 700), "webp", 1000, 700}}) {
    ImageInfo info = SniffImage(c.bytes);
    EXPECT_EQ(info.format, c.format);
    ASSERT_TRUE(info.width.has_value()) << c.format;
    EXPECT_EQ(*info.width, c.w) << c.format;
    EXPECT_EQ(*info.height, c.h) << c.format;
  }
  EXPECT_EQ(SniffImage("hello, not an image").format, "");
  // Truncated headers: the format is known, the size is not, nothing is read past the end.
  ImageInfo cut = SniffImage(Jpeg(300, 200, 'y').substr(0, 30));
  EXPECT_EQ(cut.format, "jpeg");
  EXPECT_FALSE(cut.width.has_value());
  EXPECT_FALSE(SniffImage(Png(1, 1, 'z').substr(0, 20)).width.has_value());
}

class ImageFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir();
    src_ = root_ + "/flowers";
    ::mkdir(src_.c_str(), 0755);
    for (const char* c : {"tulips", "daisy", "roses"}) ::mkdir((src_ + "/" + c).c_str(), 0755);
    WriteFile(src_ + "/daisy/b.jpg", Jpeg(300, 200, 'a'));
    WriteFile(src_ + "/daisy/a.png", Png(64, 48, 'b'));
    WriteFile(src_ + "/daisy/notes.txt", "not an image");
    WriteFile(src_ + "/daisy/.DS_Store", "hidden");
    WriteFile(src_ + "/roses/r1.gif", Gif(5, 6));
    WriteFile(src_ + "/roses/r 2.bmp", Bmp(7, 8));
    WriteFile(src_ + "/tulips/t.webp", WebpX(90, 60));
    WriteFile(src_ + "/tulips/weird-name.bin", Png(3, 4, 'c'));  // PNG whatever the name says
    WriteFile(src_ + "/README", "top-level file");
  }
  void TearDown() override { std::system(("rm -rf '" + root_ + "'").c_str()); }
  std::string root_, src_;
};

TEST_F(ImageFolderTest, FolderBecomesExamplesWithTensorFlowFeatureNamesAndComesBackByteForByte) {
  ImageFolderOptions options;
  options.shards = 3;
  // out/ does not exist yet: the writer creates it.
  auto stats = ImageFolderToTFRecords(src_, root_ + "/out/flowers", options);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->records, 6);
  EXPECT_EQ(stats->classes, (std::vector<std::string>{"daisy", "roses", "tulips"}));
  ASSERT_EQ(stats->outputs.size(), 3u);
  EXPECT_EQ(stats->outputs[0], root_ + "/out/flowers-00000-of-00003");
  EXPECT_EQ(stats->skipped.size(), 2u);  // README and notes.txt

  // Record i is in shard i mod 3; read them back in order.
  std::vector<std::vector<std::string>> shards;
  for (const auto& o : stats->outputs) shards.push_back(*ReadAllRecords(o));
  std::vector<Example> examples;
  for (size_t i = 0; i < 6; ++i) {
    auto ex = DecodeExample(shards[i % 3][i / 3]);
    ASSERT_TRUE(ex.ok());
    examples.push_back(*ex);
  }
  const Example& first = examples[0];  // daisy/a.png
  EXPECT_EQ(first.features.at("image/encoded"), Feature::Bytes({Png(64, 48, 'b')}));
  EXPECT_EQ(first.features.at("image/format"), Feature::Bytes({"png"}));
  EXPECT_EQ(first.features.at("image/class/label"), Feature::Int64s({0}));
  EXPECT_EQ(first.features.at("image/class/text"), Feature::Bytes({"daisy"}));
  EXPECT_EQ(first.features.at("image/filename"), Feature::Bytes({"a.png"}));
  EXPECT_EQ(first.features.at("image/height"), Feature::Int64s({48}));
  EXPECT_EQ(first.features.at("image/width"), Feature::Int64s({64}));
  EXPECT_EQ(examples[1].features.at("image/format"), Feature::Bytes({"jpeg"}));
  EXPECT_EQ(examples[1].features.at("image/width"), Feature::Int64s({300}));
  EXPECT_EQ(examples[2].features.at("image/filename"), Feature::Bytes({"r 2.bmp"}));  // ' ' sorts before '1'
  EXPECT_EQ(examples[3].features.at("image/class/label"), Feature::Int64s({1}));
  EXPECT_EQ(examples[4].features.at("image/format"), Feature::Bytes({"webp"}));
  EXPECT_EQ(examples[4].features.at("image/height"), Feature::Int64s({60}));
  EXPECT_EQ(examples[5].features.at("image/class/label"), Feature::Int64s({2}));
  EXPECT_EQ(examples[5].features.at("image/format"), Feature::Bytes({"png"}));  // by content, not by name

  // Back to a folder: the same images under the same names.
  auto n = TFRecordsToImageFolder(stats->outputs, root_ + "/back");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 6);
  std::map<std::string, std::string> before, after;
  Tree(src_, "", &before);
  Tree(root_ + "/back", "", &after);
  before.erase("README");
  before.erase("daisy/notes.txt");
  before.erase("daisy/.DS_Store");
  EXPECT_EQ(after, before);

  // And folder -> TFRecords again gives the same records byte for byte.
  auto again = ImageFolderToTFRecords(root_ + "/back", root_ + "/out/again", options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ReadWhole(again->outputs[i]), ReadWhole(stats->outputs[i])) << i;
}

TEST_F(ImageFolderTest, NamesFromRecordsThatWouldLeaveTheFolderAreRefused) {
  for (const auto& [cls, file] : std::vector<std::pair<std::string, std::string>>{
           {"..", "x.png"}, {"ok", "../../escape.png"}, {"a/b", "x.png"}, {"", "x.png"}, {"ok", ".."}}) {
    Example ex;
    ex.features["image/encoded"] = Feature::Bytes({Png(1, 1, 'q')});
    ex.features["image/class/text"] = Feature::Bytes({cls});
    ex.features["image/filename"] = Feature::Bytes({file});
    std::string path = root_ + "/evil.tfrecord";
    ASSERT_TRUE(WriteTFRecordFile(path, {EncodeExample(ex)}).ok());
    auto n = TFRecordsToImageFolder({path}, root_ + "/out-evil");
    TFHOST_ASSERT_ERROR(n, StatusCode::kInvalidArgument, "is not a plain f") << cls << " / " << file;
    EXPECT_NE(n.status().message().find("evil.tfrecord record 0"), std::string::npos) << n.status().ToString();
  }
  struct stat st;
  EXPECT_NE(::stat((root_ + "/escape.png").c_str(), &st), 0);
}

TEST_F(ImageFolderTest, RecordWithoutFilenameGetsItsNumberAndFormat) {
  Example ex;
  ex.features["image/encoded"] = Feature::Bytes({Gif(2, 2)});
  ex.features["image/class/text"] = Feature::Bytes({"cats"});
  std::string path = root_ + "/noname.tfrecord";
  ASSERT_TRUE(WriteTFRecordFile(path, {EncodeExample(ex), EncodeExample(ex)}).ok());
  auto n = TFRecordsToImageFolder({path}, root_ + "/named");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(ReadWhole(root_ + "/named/cats/0.gif"), Gif(2, 2));
  EXPECT_EQ(ReadWhole(root_ + "/named/cats/1.gif"), Gif(2, 2));
}

TEST_F(ImageFolderTest, GzipShardsEndInGzAndBothDirectionsCreateMissingFolders) {
  ImageFolderOptions options;
  options.shards = 2;
  options.compression = Compression::kGzip;
  auto stats = ImageFolderToTFRecords(src_, root_ + "/new/deeper/flowers", options);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->outputs,
            (std::vector<std::string>{root_ + "/new/deeper/flowers-00000-of-00002.gz",
                                      root_ + "/new/deeper/flowers-00001-of-00002.gz"}));
  EXPECT_EQ(ReadWhole(stats->outputs[0]).substr(0, 2), "\x1f\x8b");
  auto n = TFRecordsToImageFolder(stats->outputs, root_ + "/not/yet/there");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 6);
  EXPECT_EQ(ReadWhole(root_ + "/not/yet/there/roses/r1.gif"), Gif(5, 6));
}

TEST_F(ImageFolderTest, AnOutputFolderThatIsAFileIsFailedPreconditionNamingIt) {
  WriteFile(root_ + "/taken", "a file");
  Example ex;
  ex.features["image/encoded"] = Feature::Bytes({Gif(2, 2)});
  ex.features["image/class/text"] = Feature::Bytes({"cats"});
  ASSERT_TRUE(WriteTFRecordFile(root_ + "/one.tfrecord", {EncodeExample(ex)}).ok());
  auto n = TFRecordsToImageFolder({root_ + "/one.tfrecord"}, root_ + "/taken");
  TFHOST_ASSERT_ERROR(n, StatusCode::kFailedPrecondition, "exists and is not a directory");
  EXPECT_NE(n.status().message().find("'" + root_ + "/taken' exists and is not a directory"), std::string::npos)
      << n.status().ToString();
}

TEST_F(ImageFolderTest, FolderWithoutClassSubfoldersIsAnError) {
  auto stats = ImageFolderToTFRecords(src_ + "/daisy", root_ + "/x", {});
  TFHOST_ASSERT_ERROR(stats, StatusCode::kInvalidArgument, "flowers/daisy' has no class subfolders");
}

}  // namespace
}  // namespace tfhost::data
