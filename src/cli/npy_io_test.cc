#include "cli/npy_io.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

namespace tfhost::cli {
namespace {

// Builds a .npy file by hand: magic, version, little-endian header length,
// the header text as given, then the data bytes.
std::string MakeNpy(const std::string& header, const std::string& data, int major = 1) {
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  uint32_t len = header.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return out + header + data;
}

std::string FloatBytes(std::initializer_list<float> values) {
  std::string s;
  for (float v : values) s.append(reinterpret_cast<const char*>(&v), 4);
  return s;
}

TEST(NpyIoTest, EncodesFloatMatrixExactlyAsNumpyDoes) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  auto bytes = EncodeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  // np.save(np.arange(1, 7, dtype='<f4').reshape(2, 3)): a 118-byte header
  // (v1.0, padded to a 64-byte boundary), then 24 data bytes.
  ASSERT_EQ(bytes->size(), 128u + 24u);
  EXPECT_EQ(bytes->substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(bytes->substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ((*bytes)[127], '\n');
  EXPECT_EQ(bytes->substr(128), FloatBytes({1, 2, 3, 4, 5, 6}));
}

TEST(NpyIoTest, RoundTripsEveryNumericDtype) {
  for (DType dtype : {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt8, DType::kInt16, DType::kInt32,
                      DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kBool}) {
    Tensor t(dtype, Shape({2, 2}));
    auto* raw = static_cast<uint8_t*>(t.raw_data());
    for (size_t i = 0; i < t.ByteSize(); ++i) raw[i] = static_cast<uint8_t>(i * 37 + 1);
    if (dtype == DType::kBool) {
      for (int i = 0; i < 4; ++i) t.data<bool>()[i] = (i % 3) == 0;
    }
    auto bytes = EncodeNpy(t);
    ASSERT_TRUE(bytes.ok()) << DTypeShortName(dtype);
    EXPECT_EQ(bytes->find(NpyDescr(dtype)), 21u) << DTypeShortName(dtype);
    auto back = ParseNpy(*bytes, "mem");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(TensorsEqual(t, *back)) << DTypeShortName(dtype) << ": " << back->DebugString();
  }
}

TEST(NpyIoTest, RoundTripsScalarsVectorsAndEmptyArrays) {
  for (const Tensor& t : {Tensor::Scalar<float>(2.5f), Tensor::FromVector<int64_t>({7}),
                          Tensor(DType::kFloat, Shape({0, 3}))}) {
    auto bytes = EncodeNpy(t);
    ASSERT_TRUE(bytes.ok());
    auto back = ParseNpy(*bytes, "mem");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(TensorsEqual(t, *back)) << back->DebugString();
  }
  auto scalar = EncodeNpy(Tensor::Scalar<float>(1.f));
  EXPECT_NE(scalar->find("'shape': ()"), std::string::npos);
  auto vec = EncodeNpy(Tensor::FromVector<int64_t>({7}));
  EXPECT_NE(vec->find("'shape': (1,)"), std::string::npos);
}

TEST(NpyIoTest, ByteStringsArePaddedToLongestAndStrippedOnRead) {
  Tensor t(DType::kString, Shape({3}));
  t.strings()[0] = "ab";
  t.strings()[1] = "";
  t.strings()[2] = "xyz";
  auto bytes = EncodeNpy(t);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("'descr': '|S3'"), std::string::npos);
  EXPECT_EQ(bytes->substr(bytes->size() - 9), std::string("ab\0\0\0\0xyz", 9));
  auto back = ParseNpy(*bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(TensorsEqual(t, *back));
}

TEST(NpyIoTest, BFloat16IsWrittenAsFloat32WithANote) {
  Tensor t(DType::kBFloat16, Shape({2}));
  t.data<uint16_t>()[0] = FloatToBFloat16(1.5f);
  t.data<uint16_t>()[1] = FloatToBFloat16(-2.0f);
  std::string note;
  auto bytes = EncodeNpy(t, &note);
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(note.find("float32"), std::string::npos);
  auto back = ParseNpy(*bytes, "mem");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(TensorsEqual(*back, Tensor::FromVector<float>({1.5f, -2.0f})));
}

TEST(NpyIoTest, ReadsVersion2And3Headers) {
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n";
  std::string data("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  for (int major : {2, 3}) {
    auto t = ParseNpy(MakeNpy(header, data, major), "v" + std::to_string(major));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_TRUE(TensorsEqual(*t, Tensor::FromVector<int32_t>({1, 2})));
  }
}

TEST(NpyIoTest, AcceptsPython2LongDimsAndDoubleQuotes) {
  auto t = ParseNpy(MakeNpy("{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (1L, 2L)}", "\x05\x06"),
                    "old.npy");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->shape(), Shape({1, 2}));
  EXPECT_EQ(t->data<uint8_t>()[1], 6);
}

void ExpectError(const std::string& file, const std::string& fragment) {
  auto t = ParseNpy(file, "in.npy");
  TFHOST_ASSERT_ERROR(t, StatusCode::kInvalidArgument, "in.npy: ")
      << "expected an error mentioning '" << fragment << "'";
  EXPECT_NE(t.status().message().find(fragment), std::string::npos) << t.status().message();
}

TEST(NpyIoTest, MalformedHeadersAreErrorsNamingFileAndExpectation) {
  const std::string ok_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  const std::string one = FloatBytes({1});
  ExpectError("PK\x03\x04 not numpy", "magic");
  ExpectError("", "magic");
  std::string bad_version = MakeNpy(ok_header, one);
  bad_version[6] = 4;
  ExpectError(bad_version, "expected 1.0, 2.0 or 3.0");
  ExpectError(std::string("\x93NUMPY\x01\x00\x10", 9), "header length field");
  ExpectError(std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12) + "{", "over the limit");
  ExpectError(std::string("\x93NUMPY\x01\x00\xff\x00", 10) + "{'descr'", "truncated");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False", one), "malformed .npy header");
  ExpectError(MakeNpy("['descr', '<f4']", one), "expected '{'");
  ExpectError(MakeNpy("{'descr': '<f4', 'shape': (1,), }", one), "'fortran_order'");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': True}", one), "unexpected");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", one), "expected a string, True");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,)}", one), "Fortran");
  ExpectError(MakeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}", one), "big-endian");
  ExpectError(MakeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}", one), "expected little-endian");
  ExpectError(MakeNpy("{'descr': '<U3', 'fortran_order': False, 'shape': (1,)}", one), "unicode");
  ExpectError(MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", one), "structured");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", one), "expected 2 elements");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", one + "x"), "expected 1 elements");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", one), "non-negative");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", one),
              "too large");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", one),
              ".npy shape");
  ExpectError(MakeNpy("{'descr': '|S0', 'fortran_order': False, 'shape': (1,)}", ""), "at least 1");
  ExpectError(MakeNpy("{'descr': '|S99999999999', 'fortran_order': False, 'shape': (1,)}", "a"), "1 GiB");
}

TEST(NpyIoTest, FuzzedFilesNeverCrash) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  std::string base = *EncodeNpy(t);
  std::mt19937 rng(1234);
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s = base;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[pos] = static_cast<char>(rng()); break;
        case 1: s.erase(pos, 1 + rng() % 8); break;
        case 2: s.insert(pos, 1, "0123456789(),:'{} LTF"[rng() % 21]); break;
      }
      if (s.empty()) s = "x";
    }
    if (rng() % 5 == 0) s.resize(rng() % s.size());
    auto r = ParseNpy(s, "fuzz");
    if (r.ok()) ++parsed;
  }
  // Some mutations land in padding or data and still parse; most do not.
  EXPECT_GT(parsed, 0);
  EXPECT_LT(parsed, 20000);
}

TEST(NpyIoTest, FileRoundTripAndMissingFileError) {
  auto dir = std::filesystem::temp_directory_path() / ("npy_io_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "a.npy").string();
  Tensor t = Tensor::FromVector<double>({0.25, -1e300});
  ASSERT_TRUE(WriteNpyFile(path, t).ok());
  auto back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(TensorsEqual(t, *back));
  auto missing = ReadNpyFile((dir / "nope.npy").string());
  TFHOST_ASSERT_ERROR(missing, StatusCode::kNotFound, "nope.npy does not exist");
  std::filesystem::remove_all(dir);
}

TEST(NpyIoTest, UnsupportedDtypeIsAnErrorOnWrite) {
  Tensor t(DType::kComplex64, Shape({1}));
  auto bytes = EncodeNpy(t);
  TFHOST_ASSERT_ERROR(bytes, StatusCode::kUnimplemented,
                      "cannot write a complex64 tensor as .npy: tfhost writes float, int, uint, bool and byte-string types");
}

}  // namespace
}  // namespace tfhost::cli
