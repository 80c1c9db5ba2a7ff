#pragma once
// Test helper: sets and unsets environment variables for as long as it lives,
// and puts back what each was (its value, or its absence) when it goes.
//
//   const testing::ScopedEnvironment env{{"XDG_CONFIG_HOME", "/x"}, {"XDG_STATE_HOME", std::nullopt}};
//
// A value sets the variable, std::nullopt unsets it. Like setenv itself, it
// races with threads that read the environment meanwhile (a process being
// started): set it up before, and let it go after, what runs them.
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::testing {

class ScopedEnvironment {
 public:
  using Setting = std::pair<std::string, std::optional<std::string>>;

  ScopedEnvironment(std::initializer_list<Setting> settings) {
    for (const auto& [name, value] : settings) {
      const char* before = std::getenv(name.c_str());
      previous_.emplace_back(name, before != nullptr ? std::optional<std::string>(before) : std::nullopt);
      apply(name, value);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  // Last set, first put back: a variable named twice ends as it was before both.
  ~ScopedEnvironment() {
    for (auto it = previous_.rbegin(); it != previous_.rend(); ++it) apply(it->first, it->second);
  }

 private:
  static void apply(const std::string& name, const std::optional<std::string>& value) {
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }

  std::vector<Setting> previous_;
};

}  // namespace hookbus::testing
