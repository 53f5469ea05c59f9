// Tests only: certificates made at test time with OpenSSL (no key is ever
// committed). A small CA signs server and client certificates; validity is
// given in seconds from now, so expired and not-yet-valid ones are easy.
//
// Thread-safety: plain functions.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

namespace tfhost::serving::testing {

struct PemPair {
  std::string key;   // PEM private key
  std::string cert;  // PEM certificate
};

namespace tls_detail {

inline std::string ToPem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

inline std::string ToPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

inline EVP_PKEY* ReadKey(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return key;
}

inline X509* ReadCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return cert;
}

inline void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace tls_detail

// A certificate for `common_name` valid from now+not_before_s to
// now+not_after_s, signed by `issuer` (null: self-signed). `is_ca` makes a
// CA; otherwise it names localhost and 127.0.0.1 for server use and may
// serve as a client certificate too.
inline PemPair MakeCertificate(const std::string& common_name, const PemPair* issuer, bool is_ca = false,
                               long not_before_s = -3600, long not_after_s = 86400) {
  using namespace tls_detail;
  static long serial = 1;
  EVP_PKEY* key = EVP_RSA_gen(2048);
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert), not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(cert), not_after_s);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name.c_str()),
                             -1, -1, 0);
  X509* issuer_cert = issuer ? ReadCert(issuer->cert) : nullptr;
  EVP_PKEY* issuer_key = issuer ? ReadKey(issuer->key) : nullptr;
  X509_set_issuer_name(cert, issuer_cert ? X509_get_subject_name(issuer_cert) : name);
  X509* ext_issuer = issuer_cert ? issuer_cert : cert;
  if (is_ca) {
    AddExtension(cert, ext_issuer, NID_basic_constraints, "critical,CA:TRUE");
    AddExtension(cert, ext_issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    AddExtension(cert, ext_issuer, NID_basic_constraints, "CA:FALSE");
    AddExtension(cert, ext_issuer, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
    AddExtension(cert, ext_issuer, NID_ext_key_usage, "serverAuth,clientAuth");
  }
  X509_sign(cert, issuer_key ? issuer_key : key, EVP_sha256());
  PemPair out{ToPem(key), ToPem(cert)};
  X509_free(issuer_cert);
  EVP_PKEY_free(issuer_key);
  X509_free(cert);
  EVP_PKEY_free(key);
  return out;
}

}  // namespace tfhost::serving::testing
