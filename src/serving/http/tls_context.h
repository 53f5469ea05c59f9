// Internal to src/serving/http: the OpenSSL context (through Asio) that
// HTTPS connections of HttpServer share, made from a validated TlsConfig.
// Protocols below TLS 1.2 are refused; with client_verify a client must
// present a certificate that custom_ca signed, else its handshake fails.
//
// Thread-safety: the context is read-only once made, shared by all threads.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "base/status.h"
#include "serving/http/tls_config.h"

namespace tfhost::serving::http_internal {

// Errors name config.source and the field OpenSSL refused.
StatusOr<std::shared_ptr<boost::asio::ssl::context>> MakeTlsServerContext(const TlsConfig& config);

}  // namespace tfhost::serving::http_internal
