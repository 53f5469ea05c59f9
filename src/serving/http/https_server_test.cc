// HttpServer over TLS, driven by libcurl as an HTTPS client.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include "serving/http/http_server.h"
#include "serving/http/tls_test_util.h"

namespace tfhost::serving {
namespace {

using testing::MakeCertificate;
using testing::PemPair;

struct Reply {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
};

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

curl_blob Blob(const std::string& pem) {
  return curl_blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
}

// GET `url`, trusting `ca`; with `client` set, presents that certificate.
Reply Get(const std::string& url, const std::string& ca, const PemPair* client = nullptr) {
  Reply r;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  curl_blob ca_blob = Blob(ca);
  curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca_blob);
  curl_blob cert_blob, key_blob;
  if (client) {
    cert_blob = Blob(client->cert);
    key_blob = Blob(client->key);
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert_blob);
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key_blob);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  }
  r.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  curl_easy_cleanup(curl);
  return r;
}

struct Pki {
  PemPair ca = MakeCertificate("test CA", nullptr, true);
  PemPair server = MakeCertificate("localhost", &ca);
  PemPair client = MakeCertificate("client", &ca);
  PemPair stranger_ca = MakeCertificate("stranger CA", nullptr, true);
  PemPair stranger = MakeCertificate("stranger", &stranger_ca);
};

std::unique_ptr<HttpServer> Serve(const Pki& pki, bool client_verify) {
  HttpServerOptions o;
  o.address = "127.0.0.1";
  o.port = 0;
  o.num_threads = 2;
  TlsConfig tls;
  tls.server_key = pki.server.key;
  tls.server_cert = pki.server.cert;
  tls.custom_ca = pki.ca.cert;
  tls.client_verify = client_verify;
  tls.source = "test";
  o.tls = tls;
  auto server = HttpServer::Start(o, [](const HttpRequest& request) {
    HttpResponse r;
    r.body = "{\"path\": \"" + request.target + "\"}";
    return r;
  });
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(*server) : nullptr;
}

TEST(HttpsServerTest, AnswersHttpsAndNotPlainHttp) {
  Pki pki;
  auto server = Serve(pki, false);
  ASSERT_NE(server, nullptr);
  const std::string port = std::to_string(server->port());
  Reply ok = Get("https://localhost:" + port + "/v1/models/x", pki.ca.cert);
  ASSERT_EQ(ok.code, CURLE_OK) << curl_easy_strerror(ok.code);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "{\"path\": \"/v1/models/x\"}");
  // Keep-alive over TLS: a second request on the same server works too.
  EXPECT_EQ(Get("https://127.0.0.1:" + port + "/again", pki.ca.cert).status, 200);
  Reply plain = Get("http://127.0.0.1:" + port + "/", pki.ca.cert);
  EXPECT_NE(plain.code, CURLE_OK);
  // A client that does not trust the server's CA refuses it.
  Reply untrusted = Get("https://localhost:" + port + "/", pki.stranger_ca.cert);
  EXPECT_EQ(untrusted.code, CURLE_PEER_FAILED_VERIFICATION) << curl_easy_strerror(untrusted.code);
}

TEST(HttpsServerTest, ClientVerifyRefusesClientsWithoutACertificateFromTheCustomCa) {
  Pki pki;
  auto server = Serve(pki, true);
  ASSERT_NE(server, nullptr);
  const std::string url = "https://localhost:" + std::to_string(server->port()) + "/m";
  Reply none = Get(url, pki.ca.cert);
  EXPECT_NE(none.code, CURLE_OK);
  EXPECT_EQ(none.status, 0);
  Reply stranger = Get(url, pki.ca.cert, &pki.stranger);
  EXPECT_NE(stranger.code, CURLE_OK);
  EXPECT_EQ(stranger.status, 0);
  Reply good = Get(url, pki.ca.cert, &pki.client);
  ASSERT_EQ(good.code, CURLE_OK) << curl_easy_strerror(good.code);
  EXPECT_EQ(good.status, 200);
}

TEST(HttpsServerTest, StopsPromptlyWithAnIdleTlsConnectionOpen) {
  Pki pki;
  auto server = Serve(pki, false);
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(Get("https://localhost:" + std::to_string(server->port()) + "/", pki.ca.cert).status, 200);
  EXPECT_TRUE(server->Stop(std::chrono::milliseconds(2000)));
}

}  // namespace
}  // namespace tfhost::serving
