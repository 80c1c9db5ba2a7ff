#include <hookbus/connection.hpp>

#include "bus/registration.hpp"

namespace hookbus {

Connection::Connection(std::shared_ptr<detail::Registration> registration) noexcept
    : registration_(std::move(registration)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    disconnect();
    registration_ = std::move(other.registration_);
  }
  return *this;
}

Connection::~Connection() { disconnect(); }

// Leaves registration_ as it is, so that disconnect() from several threads
// at once only reads the handle.
void Connection::disconnect() noexcept {
  if (registration_) registration_->retire();
}

void Connection::release() noexcept { registration_.reset(); }

bool Connection::connected() const noexcept { return registration_ && registration_->connected(); }

std::string Connection::label() const { return registration_ ? registration_->label() : std::string(); }

ConnectionGroup& ConnectionGroup::operator=(ConnectionGroup&& other) noexcept {
  if (this != &other) {
    disconnect();
    connections_ = std::move(other.connections_);
  }
  return *this;
}

void ConnectionGroup::add(Connection connection) { connections_.push_back(std::move(connection)); }

void ConnectionGroup::add(ConnectionGroup group) {
  for (auto& connection : group.connections_) connections_.push_back(std::move(connection));
  group.connections_.clear();
}

void ConnectionGroup::disconnect() noexcept {
  for (auto& connection : connections_) connection.disconnect();
  connections_.clear();
}

void ConnectionGroup::release() noexcept {
  for (auto& connection : connections_) connection.release();
  connections_.clear();
}

}  // namespace hookbus
