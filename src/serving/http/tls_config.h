// TLS settings of `tfhost serve --ssl_config_file`: TensorFlow Serving's
// SSLConfig in protobuf text format, whose server_key, server_cert and
// custom_ca hold PEM text (not file names):
//
//   server_key: "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"
//   server_cert: "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----"
//   custom_ca: "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----"
//   client_verify: true
//
// The same settings secure gRPC (grpc::SslServerCredentials) and the REST
// API (HTTPS, OpenSSL). ReadSslConfigFile checks everything once, at start,
// so that a server never comes up half secured: the key and certificates
// must parse, the key must belong to the certificate, every certificate
// must be valid now (not expired, not yet to come), and client_verify
// needs custom_ca. Errors name the file, the field and what was expected.
//
// Thread-safety: plain values; ReadSslConfigFile is reentrant.
#pragma once

#include <string>

#include "base/status.h"

namespace tfhost::serving {

struct TlsConfig {
  std::string server_key;   // PEM private key
  std::string server_cert;  // PEM certificate chain, leaf first
  std::string custom_ca;    // PEM CA certificates for client certificates; may be empty
  bool client_verify = false;
  std::string source;       // where it came from, for messages
};

// Parses SSLConfig text (comments allowed); `source` names it in errors.
// Does not check the PEM contents (ValidateTlsConfig does).
StatusOr<TlsConfig> ParseSslConfig(const std::string& text, const std::string& source);

// The checks listed above.
Status ValidateTlsConfig(const TlsConfig& config);

// Reads, parses and validates --ssl_config_file.
StatusOr<TlsConfig> ReadSslConfigFile(const std::string& path);

}  // namespace tfhost::serving
