// The test HTTP server: Beast over one io_context, run by a thread of its
// own; each connection is a coroutine, so one that waits (a delay, a client
// that says nothing) holds up no other, and stopping the io_context ends them
// all at once. The test CA and the server's certificate are made with
// OpenSSL's API, once per process.
#include "http_test_server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace hookbus::test {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
constexpr auto as_result = asio::as_tuple(asio::use_awaitable);

void require(bool done, const char* what) {
  if (!done) throw std::runtime_error(std::string("making the test certificates: ") + what + " failed");
}

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Certificate = std::unique_ptr<X509, decltype(&X509_free)>;

Key new_key() {
  Key key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  require(key != nullptr, "EVP_EC_gen");
  return key;
}

// A certificate for `key` named `common_name`, signed by `issuer` (nullptr:
// by itself), with the extensions given as openssl.cnf writes them.
Certificate new_certificate(EVP_PKEY* key, const char* common_name, X509* issuer, EVP_PKEY* issuer_key,
                            std::initializer_list<std::pair<int, const char*>> extensions, long serial) {
  Certificate certificate(X509_new(), &X509_free);
  X509* const made = certificate.get();
  require(made != nullptr && X509_set_version(made, X509_VERSION_3) == 1, "X509_set_version");
  require(ASN1_INTEGER_set(X509_get_serialNumber(made), serial) == 1, "ASN1_INTEGER_set");
  require(X509_gmtime_adj(X509_getm_notBefore(made), -60L * 60) != nullptr, "X509_gmtime_adj");
  require(X509_gmtime_adj(X509_getm_notAfter(made), 60L * 60 * 24 * 30) != nullptr, "X509_gmtime_adj");
  require(X509_set_pubkey(made, key) == 1, "X509_set_pubkey");
  X509_NAME* const name = X509_get_subject_name(made);
  require(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name),
                                     -1, -1, 0) == 1,
          "X509_NAME_add_entry_by_txt");
  require(X509_set_issuer_name(made, issuer != nullptr ? X509_get_subject_name(issuer) : name) == 1,
          "X509_set_issuer_name");
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer != nullptr ? issuer : made, made, nullptr, nullptr, 0);
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* const extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
    require(extension != nullptr && X509_add_ext(made, extension, -1) == 1, value);
    X509_EXTENSION_free(extension);
  }
  require(X509_sign(made, issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0, "X509_sign");
  return certificate;
}

template <class Write>
void write_pem(const std::filesystem::path& file, Write write) {
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new_file(file.c_str(), "w"), &BIO_free);
  require(out != nullptr && write(out.get()) == 1, file.c_str());
}

// The CA's certificate and the server's certificate and key, in a directory
// of the process's own, which goes at exit.
struct TestCertificates {
  std::filesystem::path directory;
  std::filesystem::path ca = directory / "ca.pem";
  std::filesystem::path server_certificate = directory / "server.pem";
  std::filesystem::path server_key = directory / "server-key.pem";

  explicit TestCertificates(std::filesystem::path made_directory) : directory(std::move(made_directory)) {
    const Key ca_key = new_key();
    const Certificate ca_certificate =
        new_certificate(ca_key.get(), "hookbus test CA", nullptr, nullptr,
                        {{NID_basic_constraints, "critical,CA:TRUE"},
                         {NID_key_usage, "critical,keyCertSign,cRLSign"},
                         {NID_subject_key_identifier, "hash"}},
                        1);
    const Key key = new_key();
    const Certificate certificate =
        new_certificate(key.get(), "localhost", ca_certificate.get(), ca_key.get(),
                        {{NID_basic_constraints, "CA:FALSE"},
                         {NID_key_usage, "critical,digitalSignature"},
                         {NID_ext_key_usage, "serverAuth"},
                         {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                         {NID_authority_key_identifier, "keyid:always"}},
                        2);
    write_pem(ca, [&](BIO* out) { return PEM_write_bio_X509(out, ca_certificate.get()); });
    write_pem(server_certificate, [&](BIO* out) { return PEM_write_bio_X509(out, certificate.get()); });
    write_pem(server_key, [&](BIO* out) {
      return PEM_write_bio_PrivateKey(out, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    });
  }
  TestCertificates(const TestCertificates&) = delete;
  TestCertificates& operator=(const TestCertificates&) = delete;
  ~TestCertificates() {
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }
};

std::filesystem::path new_private_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "hookbus-test-ca-XXXXXX").string();
  require(::mkdtemp(pattern.data()) != nullptr, "mkdtemp");
  return pattern;
}

const TestCertificates& test_certificates() {
  static const TestCertificates made(new_private_directory());
  return made;
}

std::string lower_case(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

}  // namespace

struct HttpTestServer::State {
  State(std::function<Reply(const ReceivedRequest&)> answer_in, Tls tls_in)
      : answer(std::move(answer_in)), tls(tls_in == Tls::on) {
    if (tls) {
      tls_context.use_certificate_chain_file(test_certificates().server_certificate.string());
      tls_context.use_private_key_file(test_certificates().server_key.string(), ssl::context::pem);
    }
    acceptor.open(tcp::v4());
    acceptor.bind({asio::ip::make_address_v4("127.0.0.1"), 0});
    acceptor.listen();
    port = acceptor.local_endpoint().port();
    asio::co_spawn(io, accept(), asio::detached);
    thread = std::thread([this] { io.run(); });
  }

  asio::awaitable<void> accept();
  asio::awaitable<void> serve_plain(tcp::socket socket);
  asio::awaitable<void> serve_tls(tcp::socket socket);
  template <class Stream>
  asio::awaitable<void> serve(Stream& stream);

  ssl::context tls_context{ssl::context::tls_server};  // before io: the connections' streams go with io
  std::function<Reply(const ReceivedRequest&)> answer;
  bool tls;
  mutable std::mutex mutex;  // guards requests_received
  std::vector<ReceivedRequest> requests_received;
  std::atomic<int> accepted{0};
  asio::io_context io;
  tcp::acceptor acceptor{io};
  unsigned short port = 0;
  std::thread thread;
};

asio::awaitable<void> HttpTestServer::State::accept() {
  for (;;) {
    auto [error, socket] = co_await acceptor.async_accept(as_result);
    if (error) co_return;
    ++accepted;
    asio::co_spawn(io, tls ? serve_tls(std::move(socket)) : serve_plain(std::move(socket)), asio::detached);
  }
}

asio::awaitable<void> HttpTestServer::State::serve_plain(tcp::socket socket) { co_await serve(socket); }

asio::awaitable<void> HttpTestServer::State::serve_tls(tcp::socket socket) {
  ssl::stream<tcp::socket> stream(std::move(socket), tls_context);
  auto [error] = co_await stream.async_handshake(ssl::stream_base::server, as_result);
  if (!error) co_await serve(stream);
}

template <class Stream>
asio::awaitable<void> HttpTestServer::State::serve(Stream& stream) {
  boost::beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> request;
    auto [read_error, read] = co_await http::async_read(stream, buffer, request, as_result);
    if (read_error) co_return;
    ReceivedRequest received{.method = std::string(request.method_string()),
                             .target = std::string(request.target()),
                             .headers = {},
                             .body = request.body()};
    for (const auto& field : request) received.headers[lower_case(field.name_string())] = std::string(field.value());
    {
      const std::lock_guard lock(mutex);
      requests_received.push_back(received);
    }
    const Reply reply = answer(received);
    if (reply.delay > std::chrono::milliseconds(0)) {
      asio::steady_timer delay(io, reply.delay);
      co_await delay.async_wait(as_result);
    }
    http::response<http::string_body> response;
    response.version(11);
    response.result(reply.status);
    response.body() = reply.body;
    response.keep_alive(!reply.close && request.keep_alive());
    response.prepare_payload();
    for (const auto& [name, value] : reply.headers) response.set(name, value);
    auto [write_error, written] = co_await http::async_write(stream, response, as_result);
    if (write_error || !response.keep_alive() || reply.close_silently) co_return;
  }
}

HttpTestServer::HttpTestServer(std::function<Reply(const ReceivedRequest&)> answer, Tls tls)
    : state_(std::make_unique<State>(std::move(answer), tls)) {}

// Stopping the io_context ends its run at once, whatever its coroutines wait
// for; they are destroyed with it.
HttpTestServer::~HttpTestServer() {
  state_->io.stop();
  state_->thread.join();
}

unsigned short HttpTestServer::port() const { return state_->port; }

std::string HttpTestServer::origin() const {
  return (state_->tls ? "https://localhost:" : "http://127.0.0.1:") + std::to_string(port());
}

std::string HttpTestServer::url(std::string_view target) const { return origin() + std::string(target); }

std::vector<ReceivedRequest> HttpTestServer::requests() const {
  const std::lock_guard lock(state_->mutex);
  return state_->requests_received;
}

int HttpTestServer::connections_accepted() const { return state_->accepted; }

std::filesystem::path HttpTestServer::ca_file() { return test_certificates().ca; }

}  // namespace hookbus::test
