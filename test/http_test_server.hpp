#pragma once
// Test helper: an HTTP/1.1 server on 127.0.0.1, plain or with TLS (a
// certificate of a test CA made for the process, ca_file()), that answers
// each request as the test says and records what it was sent.
//
//   HttpTestServer server([](const ReceivedRequest&) { return Reply{.status = 200, .body = "{}"}; });
//   ... post to server.url("/hook") ...
//   EXPECT_EQ(server.requests().at(0).body, ...);
//
// Connections are kept open between requests (HTTP/1.1 keep-alive) and
// served side by side on one thread of its own; the answer function runs on
// that thread. The destructor ends every connection and delay at once.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus::test {

struct ReceivedRequest {
  std::string method{};
  std::string target{};
  std::map<std::string, std::string> headers{};  // names in lower case
  std::string body{};
};

struct Reply {
  unsigned status = 200;
  std::string body{};
  std::vector<std::pair<std::string, std::string>> headers{};  // set after Content-Length and Connection
  std::chrono::milliseconds delay{0};                         // before the reply is written
  bool close = false;           // "Connection: close", and the connection closed after the reply
  bool close_silently = false;  // the connection closed after the reply without saying so (an idle timeout)
};

class HttpTestServer {
 public:
  enum class Tls { off, on };

  explicit HttpTestServer(std::function<Reply(const ReceivedRequest&)> answer, Tls tls = Tls::off);
  ~HttpTestServer();
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  // "http://127.0.0.1:PORT", or with TLS "https://localhost:PORT".
  [[nodiscard]] std::string origin() const;
  [[nodiscard]] std::string url(std::string_view target = "/") const;
  [[nodiscard]] unsigned short port() const;
  // What it was sent so far, in the order it came.
  [[nodiscard]] std::vector<ReceivedRequest> requests() const;
  [[nodiscard]] int connections_accepted() const;

  // The test CA's certificate (PEM), made once per process in a temporary
  // directory, removed at exit. The server's certificate, which it signed,
  // names DNS:localhost and IP:127.0.0.1.
  static std::filesystem::path ca_file();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hookbus::test
