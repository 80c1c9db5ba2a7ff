#pragma once
// RAII handles for registrations. Destroying a Connection disconnects its
// handler; release() keeps the handler for the bus's lifetime instead.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace hookbus {

namespace detail {
class Registration;  // defined in the library
}

class [[nodiscard("dropping a Connection disconnects its handler at once: keep it, or call release()")]] Connection {
 public:
  Connection() noexcept = default;
  explicit Connection(std::shared_ptr<detail::Registration> registration) noexcept;
  Connection(Connection&&) noexcept = default;
  // Disconnects the handler this handle held before taking the other's.
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Effect: the handler is not called by any emit that reaches it afterwards.
  // A call already running on another thread goes on: disconnect() does not
  // wait for it (docs/semantics.md, section 7). The handler itself is
  // destroyed once the emits that may call it have returned.
  // Safety: idempotent; safe from any thread, from several threads at once on
  // the same handle, from inside a handler (including the handler itself),
  // and after or while the bus is destroyed.
  void disconnect() noexcept;

  // Effect: the handle lets go without disconnecting; the handler stays until
  // the bus is destroyed or cleared.
  void release() noexcept;

  // False once disconnected, cleared, released, or its tracked owner died.
  [[nodiscard]] bool connected() const noexcept;

  // The handler's label (its default "<event>#<n>" when it was given none);
  // empty for an empty or released handle.
  [[nodiscard]] std::string label() const;

 private:
  std::shared_ptr<detail::Registration> registration_;
};

// Several connections that live and die together: what a provider registered,
// or a workspace's hooks (load a group, drop it on workspace switch).
class [[nodiscard("dropping a ConnectionGroup disconnects its handlers at once: keep it, or call release()")]]
ConnectionGroup {
 public:
  ConnectionGroup() = default;
  ConnectionGroup(ConnectionGroup&&) noexcept = default;
  ConnectionGroup& operator=(ConnectionGroup&&) noexcept;  // disconnects what it held
  ~ConnectionGroup() = default;                            // each Connection disconnects itself

  void add(Connection connection);
  void add(ConnectionGroup group);
  void disconnect() noexcept;
  void release() noexcept;
  [[nodiscard]] std::size_t size() const noexcept { return connections_.size(); }
  [[nodiscard]] bool empty() const noexcept { return connections_.empty(); }

 private:
  std::vector<Connection> connections_;
};

}  // namespace hookbus
