#include "serving/http/tls_context.h"

#include <openssl/ssl.h>

#include <string>

namespace tfhost::serving::http_internal {

namespace ssl = boost::asio::ssl;

StatusOr<std::shared_ptr<ssl::context>> MakeTlsServerContext(const TlsConfig& config) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use,
                   ec);
  if (ec) return Internal("HTTPS: cannot set TLS options: " + ec.message());
  auto fail = [&](const char* field) {
    return InvalidArgument(config.source + ": " + field + " refused by OpenSSL for HTTPS: " + ec.message());
  };
  ctx->use_certificate_chain(boost::asio::buffer(config.server_cert), ec);
  if (ec) return fail("server_cert");
  ctx->use_private_key(boost::asio::buffer(config.server_key), ssl::context::pem, ec);
  if (ec) return fail("server_key");
  if (!config.custom_ca.empty()) {
    ctx->add_certificate_authority(boost::asio::buffer(config.custom_ca), ec);
    if (ec) return fail("custom_ca");
  }
  if (config.client_verify) {
    ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    if (ec) return fail("client_verify");
  }
  return ctx;
}

}  // namespace tfhost::serving::http_internal
