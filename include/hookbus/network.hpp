#pragma once
// Where hookbus may send requests over the network (docs/security.md,
// "Network"): HTTP hooks and the OTLP exporter send only to the origins the
// user's and the managed config's "network" allow (config.hpp, NetworkConfig;
// LayeredConfig::network_allowance), and nothing is sent unless configured.

#include <filesystem>
#include <string>
#include <vector>

namespace hookbus {

struct NetworkAllowance {
  // "https://policy.example.com", "http://127.0.0.1:8080": a scheme, a host
  // and a port when not the scheme's own (the managed config's, then the user's).
  std::vector<std::string> origins{};
  // PEM certificates trusted besides the system's (a fleet's own CA): the
  // most trusted layer's that gives one; empty: the system's CAs only.
  std::filesystem::path ca_file{};

  bool operator==(const NetworkAllowance&) const = default;
};

}  // namespace hookbus
