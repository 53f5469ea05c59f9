#include "serving/http/tls_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "tensorflow_serving/config/ssl_config.pb.h"

namespace tfhost::serving {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Cert = std::unique_ptr<X509, X509Free>;
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;

// OpenSSL's queued errors as text (and the queue emptied).
std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "no PEM data found" : out;
}

Bio MemBio(const std::string& pem) { return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }

std::string AsnTime(const ASN1_TIME* t) {
  Bio bio(BIO_new(BIO_s_mem()));
  ASN1_TIME_print(bio.get(), t);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

// Every certificate in `pem` (at least one), each valid now.
StatusOr<std::vector<Cert>> ReadCertificates(const std::string& pem, const std::string& where) {
  ERR_clear_error();
  Bio bio = MemBio(pem);
  std::vector<Cert> certs;
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) certs.emplace_back(x);
  ERR_clear_error();  // the end of the PEM data reads as an error
  if (certs.empty()) {
    return InvalidArgument(where + " holds no PEM certificate (expected \"-----BEGIN CERTIFICATE-----\" text)");
  }
  for (size_t i = 0; i < certs.size(); ++i) {
    const std::string which = certs.size() > 1 ? where + " certificate " + std::to_string(i + 1) : where;
    if (X509_cmp_current_time(X509_get0_notAfter(certs[i].get())) <= 0) {
      return InvalidArgument(which + " has expired (notAfter " + AsnTime(X509_get0_notAfter(certs[i].get())) +
                             "; expected a certificate valid now)");
    }
    if (X509_cmp_current_time(X509_get0_notBefore(certs[i].get())) >= 0) {
      return InvalidArgument(which + " is not valid yet (notBefore " +
                             AsnTime(X509_get0_notBefore(certs[i].get())) + "; expected a certificate valid now)");
    }
  }
  return certs;
}

}  // namespace

StatusOr<TlsConfig> ParseSslConfig(const std::string& text, const std::string& source) {
  struct Collector : google::protobuf::io::ErrorCollector {
    std::string first;
    void AddError(int line, int column, const std::string& message) override {
      if (first.empty()) first = "line " + std::to_string(line + 1) + " column " + std::to_string(column + 1) + ": " + message;
    }
  } errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  tensorflow::serving::SSLConfig proto;
  if (!parser.ParseFromString(text, &proto)) {
    return InvalidArgument(source + " is not an SSLConfig in protobuf text format (" + errors.first +
                           "; expected the fields server_key, server_cert, custom_ca and client_verify)");
  }
  TlsConfig config;
  config.server_key = proto.server_key();
  config.server_cert = proto.server_cert();
  config.custom_ca = proto.custom_ca();
  config.client_verify = proto.client_verify();
  config.source = source;
  return config;
}

Status ValidateTlsConfig(const TlsConfig& config) {
  const std::string& src = config.source;
  if (config.server_key.empty()) return InvalidArgument(src + ": server_key is empty (expected a PEM private key)");
  if (config.server_cert.empty()) {
    return InvalidArgument(src + ": server_cert is empty (expected a PEM certificate)");
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<Cert> chain, ReadCertificates(config.server_cert, src + ": server_cert"));
  ERR_clear_error();
  Bio key_bio = MemBio(config.server_key);
  Key key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return InvalidArgument(src + ": server_key is not a PEM private key (" + OpenSslErrors() +
                           "; expected \"-----BEGIN PRIVATE KEY-----\" text, unencrypted)");
  }
  if (X509_check_private_key(chain.front().get(), key.get()) != 1) {
    ERR_clear_error();
    return InvalidArgument(src + ": server_key does not belong to server_cert (expected the key the "
                                 "certificate was issued for)");
  }
  if (!config.custom_ca.empty()) {
    TFHOST_RETURN_IF_ERROR(ReadCertificates(config.custom_ca, src + ": custom_ca").status());
  } else if (config.client_verify) {
    return InvalidArgument(src + ": client_verify is true but custom_ca is empty (expected the PEM CA "
                                 "certificates client certificates are checked against)");
  }
  return OkStatus();
}

StatusOr<TlsConfig> ReadSslConfigFile(const std::string& path) {
  const std::string source = "--ssl_config_file '" + path + "'";
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(source + " cannot be read (expected an SSLConfig text file)");
  std::ostringstream text;
  text << in.rdbuf();
  TFHOST_ASSIGN_OR_RETURN(TlsConfig config, ParseSslConfig(text.str(), source));
  TFHOST_RETURN_IF_ERROR(ValidateTlsConfig(config));
  return config;
}

}  // namespace tfhost::serving
