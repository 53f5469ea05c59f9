#include "serving/http/tls_config.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "serving/http/tls_test_util.h"
#include "tensorflow_serving/config/ssl_config.pb.h"

namespace tfhost::serving {
namespace {

using testing::MakeCertificate;
using testing::PemPair;

std::string ConfigText(const std::string& key, const std::string& cert, const std::string& ca, bool verify) {
  tensorflow::serving::SSLConfig proto;
  proto.set_server_key(key);
  proto.set_server_cert(cert);
  proto.set_custom_ca(ca);
  proto.set_client_verify(verify);
  std::string text;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  return text;
}

TlsConfig Config(const std::string& key, const std::string& cert, const std::string& ca = "", bool verify = false) {
  auto parsed = ParseSslConfig(ConfigText(key, cert, ca, verify), "ssl.pbtxt");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : TlsConfig{};
}

struct Certs {
  PemPair ca = MakeCertificate("test CA", nullptr, /*is_ca=*/true);
  PemPair server = MakeCertificate("localhost", &ca);
};

void ExpectInvalid(const Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

TEST(TlsConfigTest, AValidConfigWithMutualTlsPasses) {
  Certs c;
  TlsConfig config = Config(c.server.key, c.server.cert, c.ca.cert, true);
  EXPECT_TRUE(config.client_verify);
  EXPECT_EQ(config.custom_ca, c.ca.cert);
  EXPECT_TRUE(ValidateTlsConfig(config).ok()) << ValidateTlsConfig(config).ToString();
}

TEST(TlsConfigTest, ASyntaxErrorNamesTheSourceLineAndTheFields) {
  auto parsed = ParseSslConfig("server_kee: \"x\"", "ssl.pbtxt");
  ExpectInvalid(parsed.status(), "ssl.pbtxt is not an SSLConfig in protobuf text format (line 1 column 1");
  ExpectInvalid(parsed.status(), "server_kee");
}

TEST(TlsConfigTest, AnExpiredServerCertificateIsRefusedWithItsDate) {
  Certs c;
  PemPair expired = MakeCertificate("localhost", &c.ca, false, -7200, -3600);
  ExpectInvalid(ValidateTlsConfig(Config(expired.key, expired.cert)), "ssl.pbtxt: server_cert has expired (notAfter ");
}

TEST(TlsConfigTest, ACertificateNotValidYetIsRefused) {
  Certs c;
  PemPair future = MakeCertificate("localhost", &c.ca, false, 3600, 7200);
  ExpectInvalid(ValidateTlsConfig(Config(future.key, future.cert)), "ssl.pbtxt: server_cert is not valid yet");
}

TEST(TlsConfigTest, AnExpiredCustomCaIsRefused) {
  Certs c;
  PemPair old_ca = MakeCertificate("old CA", nullptr, true, -7200, -3600);
  ExpectInvalid(ValidateTlsConfig(Config(c.server.key, c.server.cert, old_ca.cert)),
                "ssl.pbtxt: custom_ca has expired");
}

TEST(TlsConfigTest, AKeyOfAnotherCertificateIsRefused) {
  Certs c;
  PemPair other = MakeCertificate("other", &c.ca);
  ExpectInvalid(ValidateTlsConfig(Config(other.key, c.server.cert)),
                "ssl.pbtxt: server_key does not belong to server_cert");
}

TEST(TlsConfigTest, GarbageOrMissingPemIsRefusedNamingTheField) {
  Certs c;
  ExpectInvalid(ValidateTlsConfig(Config(c.server.key, "not a certificate")),
                "ssl.pbtxt: server_cert holds no PEM certificate");
  ExpectInvalid(ValidateTlsConfig(Config("not a key", c.server.cert)), "ssl.pbtxt: server_key is not a PEM private key");
  ExpectInvalid(ValidateTlsConfig(Config("", c.server.cert)), "ssl.pbtxt: server_key is empty");
  ExpectInvalid(ValidateTlsConfig(Config(c.server.key, "")), "ssl.pbtxt: server_cert is empty");
}

TEST(TlsConfigTest, ClientVerifyWithoutCustomCaIsRefused) {
  Certs c;
  ExpectInvalid(ValidateTlsConfig(Config(c.server.key, c.server.cert, "", true)),
                "ssl.pbtxt: client_verify is true but custom_ca is empty");
}

TEST(TlsConfigTest, ReadSslConfigFileNamesTheFlagAndTheFile) {
  const std::string path = (std::filesystem::temp_directory_path() / "tfhost_tls_config_test.pbtxt").string();
  Certs c;
  PemPair expired = MakeCertificate("localhost", &c.ca, false, -7200, -3600);
  std::ofstream(path) << ConfigText(expired.key, expired.cert, "", false);
  auto read = ReadSslConfigFile(path);
  ExpectInvalid(read.status(), "--ssl_config_file '" + path + "': server_cert has expired");
  std::ofstream(path) << ConfigText(c.server.key, c.server.cert, c.ca.cert, true);
  read = ReadSslConfigFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->client_verify);
  std::filesystem::remove(path);
  auto missing = ReadSslConfigFile(path);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("--ssl_config_file '" + path + "' cannot be read"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::serving
