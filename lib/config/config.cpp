// Strict reading of the JSON config file: locations, errors, the duplicate-key
// check Boost.JSON does not do, and the Config format itself.
#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <set>
#include <system_error>

namespace hookbus {
namespace {

bool is_plain_identifier(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

std::string kind_of(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "number";
    case boost::json::kind::string: return "string";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
  }
  return "unknown";
}

}  // namespace

// ------------------------------------------------------- locations, errors

ConfigLocation ConfigLocation::key(std::string_view name) const {
  ConfigLocation child = *this;
  if (is_plain_identifier(name)) {
    if (!child.path.empty()) child.path += '.';
    child.path += name;
  } else {
    child.path += '[' + boost::json::serialize(boost::json::string_view(name.data(), name.size())) + ']';
  }
  return child;
}

ConfigLocation ConfigLocation::element(std::size_t index) const {
  ConfigLocation child = *this;
  child.path += fmt::format("[{}]", index);
  return child;
}

namespace {
std::string error_message(const ConfigLocation& where, const std::string& what) {
  std::vector<std::string> parts;
  if (!where.file.empty()) parts.push_back(where.file.string());
  if (!where.path.empty()) parts.push_back(where.path);
  parts.push_back(what);
  return fmt::format("{}", fmt::join(parts, ": "));
}
}  // namespace

ConfigError::ConfigError(const ConfigLocation& where, const std::string& what)
    : Error(error_message(where, what)), file_(where.file), path_(where.path) {}

// ------------------------------------------------------------ ConfigValue

void ConfigValue::fail_expected(std::string_view expected) const {
  throw ConfigError(where_, fmt::format("expected {}, got {}", expected, kind_of(*value_)));
}

bool ConfigValue::as_bool() const {
  if (!value_->is_bool()) fail_expected("boolean");
  return value_->get_bool();
}

std::string ConfigValue::as_string() const {
  if (!value_->is_string()) fail_expected("string");
  return std::string(value_->get_string());
}

std::string ConfigValue::as_nonempty_string() const {
  std::string text = as_string();
  if (text.empty()) throw ConfigError(where_, "expected non-empty string, got \"\"");
  return text;
}

std::int64_t ConfigValue::as_integer(std::int64_t min, std::int64_t max) const {
  const std::string expected = fmt::format("integer from {} to {}", min, max);
  if (value_->is_int64()) {
    const std::int64_t number = value_->get_int64();
    if (number >= min && number <= max) return number;
  } else if (value_->is_uint64()) {
    const std::uint64_t number = value_->get_uint64();
    if (max >= 0 && number <= static_cast<std::uint64_t>(max) && static_cast<std::int64_t>(number) >= min)
      return static_cast<std::int64_t>(number);
  } else if (!value_->is_double()) {
    fail_expected(expected);
  }
  throw ConfigError(where_, fmt::format("expected {}, got {}", expected, boost::json::serialize(*value_)));
}

std::filesystem::path ConfigValue::as_path() const {
  std::filesystem::path path = as_nonempty_string();
  if (path.is_relative() && !where_.project_dir.empty()) path = where_.project_dir / path;
  return path.lexically_normal();
}

ConfigObject ConfigValue::as_object() const {
  if (!value_->is_object()) fail_expected("object");
  return ConfigObject(value_->get_object(), where_);
}

std::vector<ConfigValue> ConfigValue::as_array() const {
  if (!value_->is_array()) fail_expected("array");
  std::vector<ConfigValue> elements;
  const auto& array = value_->get_array();
  elements.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) elements.emplace_back(array[i], where_.element(i));
  return elements;
}

// ----------------------------------------------------------- ConfigObject

void ConfigObject::allow_only(std::initializer_list<std::string_view> known) const {
  for (const auto& member : *object_) {
    if (std::find(known.begin(), known.end(), member.key()) != known.end()) continue;
    throw ConfigError(where_.key(member.key()), fmt::format("unknown key; expected one of: {}", fmt::join(known, ", ")));
  }
}

std::optional<ConfigValue> ConfigObject::find(std::string_view key) const {
  const auto* value = object_->if_contains(key);
  if (!value) return std::nullopt;
  return ConfigValue(*value, where_.key(key));
}

ConfigValue ConfigObject::required(std::string_view key, std::string_view expected) const {
  if (auto value = find(key)) return *value;
  throw ConfigError(where_.key(key), fmt::format("required key is missing; expected {}", expected));
}

std::vector<std::pair<std::string, ConfigValue>> ConfigObject::members() const {
  std::vector<std::pair<std::string, ConfigValue>> members;
  members.reserve(object_->size());
  for (const auto& member : *object_)
    members.emplace_back(std::string(member.key()), ConfigValue(member.value(), where_.key(member.key())));
  return members;
}

// ------------------------------------------------------------ parsing text

namespace {

// A Boost.JSON parse handler that builds nothing and only remembers where the
// first duplicate key is: Boost.JSON keeps the last of duplicate keys, which
// would silently drop, say, the first of two "deny" lists.
class DuplicateKeyFinder {
 public:
  static constexpr std::size_t max_array_size = -1;
  static constexpr std::size_t max_object_size = -1;
  static constexpr std::size_t max_string_size = -1;
  static constexpr std::size_t max_key_size = -1;

  explicit DuplicateKeyFinder(ConfigLocation root) : root_(std::move(root)) {}

  // Set once the parse stopped at a duplicate key.
  const std::optional<ConfigLocation>& duplicate() const noexcept { return duplicate_; }

  bool on_document_begin(boost::system::error_code&) { return true; }
  bool on_document_end(boost::system::error_code&) { return true; }
  bool on_array_begin(boost::system::error_code&) { return open(false); }
  bool on_array_end(std::size_t, boost::system::error_code&) { return close(); }
  bool on_object_begin(boost::system::error_code&) { return open(true); }
  bool on_object_end(std::size_t, boost::system::error_code&) { return close(); }
  bool on_string_part(boost::json::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_string(boost::json::string_view, std::size_t, boost::system::error_code&) { return value_done(); }
  bool on_key_part(boost::json::string_view part, std::size_t, boost::system::error_code&) {
    key_.append(part.data(), part.size());
    return true;
  }
  bool on_key(boost::json::string_view last_part, std::size_t, boost::system::error_code& ec) {
    key_.append(last_part.data(), last_part.size());
    Frame& object = frames_.back();
    if (!object.keys.insert(key_).second) {
      duplicate_ = location_here().key(key_);
      ec = std::make_error_code(std::errc::invalid_argument);
      return false;
    }
    object.key = std::move(key_);
    key_.clear();
    return true;
  }
  bool on_number_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_int64(std::int64_t, boost::json::string_view, boost::system::error_code&) { return value_done(); }
  bool on_uint64(std::uint64_t, boost::json::string_view, boost::system::error_code&) { return value_done(); }
  bool on_double(double, boost::json::string_view, boost::system::error_code&) { return value_done(); }
  bool on_bool(bool, boost::system::error_code&) { return value_done(); }
  bool on_null(boost::system::error_code&) { return value_done(); }
  bool on_comment_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_comment(boost::json::string_view, boost::system::error_code&) { return true; }

 private:
  struct Frame {
    bool is_object = false;
    std::set<std::string> keys;  // objects: keys seen so far
    std::string key;             // objects: the member being read
    std::size_t index = 0;       // arrays: the element being read
  };

  bool open(bool is_object) {
    frames_.push_back(Frame{.is_object = is_object});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value_done();
  }
  bool value_done() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
    return true;
  }
  // The object or array being read: every enclosing frame but the innermost adds its member or element.
  ConfigLocation location_here() const {
    ConfigLocation where = root_;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i)
      where = frames_[i].is_object ? where.key(frames_[i].key) : where.element(frames_[i].index);
    return where;
  }

  ConfigLocation root_;
  std::vector<Frame> frames_;
  std::string key_;
  std::optional<ConfigLocation> duplicate_;
};

std::string line_and_column(std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  const auto line = 1 + std::count(before.begin(), before.end(), '\n');
  const auto line_start = before.rfind('\n');
  const auto column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return fmt::format("line {}, column {} (offset {})", line, column, offset);
}

// Strict JSON (no comments, no trailing commas), one document, no duplicate keys.
boost::json::value parse_config_text(std::string_view text, const ConfigLocation& root) {
  boost::json::basic_parser<DuplicateKeyFinder> checker(boost::json::parse_options{}, root);
  boost::system::error_code ec;
  const std::size_t consumed = checker.write_some(false, text.data(), text.size(), ec);
  if (const auto& duplicate = checker.handler().duplicate())
    throw ConfigError(*duplicate, "duplicate key; each key may appear once");
  if (ec)
    throw ConfigError(root, fmt::format("invalid JSON at {}: {}", line_and_column(text, consumed), ec.message()));
  if (consumed < text.size())
    throw ConfigError(root, fmt::format("invalid JSON at {}: extra data after the document",
                                        line_and_column(text, consumed)));
  return boost::json::parse(text);
}

std::string read_file(const std::filesystem::path& file, const ConfigLocation& where) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream(std::fopen(file.c_str(), "rb"), &std::fclose);
  const auto fail = [&] { throw ConfigError(where, "cannot read: " + std::generic_category().message(errno)); };
  if (!stream) fail();
  std::string text;
  char buffer[8192];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, stream.get())) text.append(buffer, n);
  if (std::ferror(stream.get())) fail();
  return text;
}

// The parent of the `.hookbus` directory holding the file, or the file's directory.
std::filesystem::path project_dir_of(const std::filesystem::path& file) {
  const auto directory = std::filesystem::absolute(file).lexically_normal().parent_path();
  return directory.filename() == ".hookbus" ? directory.parent_path() : directory;
}

// ----------------------------------------------------------- the format

constexpr std::int64_t max_timeout_ms = 24 * 60 * 60 * 1000;  // a day: anything longer is a typo

Duration read_timeout(const ConfigValue& value) { return Duration(value.as_integer(1, max_timeout_ms)); }

FailurePolicy read_failure_policy(const ConfigValue& value) {
  const std::string name = value.as_string();
  if (name == "fail_open") return FailurePolicy::fail_open;
  if (name == "fail_closed") return FailurePolicy::fail_closed;
  throw ConfigError(value.location(), fmt::format("expected \"fail_open\" or \"fail_closed\", got \"{}\"", name));
}

HookOverride read_hook_override(const ConfigObject& settings) {
  settings.allow_only({"timeout_ms", "failure", "disabled"});
  HookOverride hook;
  if (auto timeout = settings.find("timeout_ms")) hook.timeout = read_timeout(*timeout);
  if (auto failure = settings.find("failure")) hook.failure = read_failure_policy(*failure);
  if (auto disabled = settings.find("disabled")) hook.disabled = disabled->as_bool();
  return hook;
}

Config read_config(const ConfigValue& document) {
  const ConfigObject top = document.as_object();
  top.allow_only({"builtins", "hook_directories", "timeout_ms", "hooks"});
  Config config;
  if (auto builtins = top.find("builtins")) {
    for (const auto& [name, settings] : builtins->as_object().members())
      config.builtins.push_back({.name = name, .settings = settings.as_object().json()});
  }
  if (auto directories = top.find("hook_directories")) {
    for (const auto& directory : directories->as_array()) config.hook_directories.push_back(directory.as_path());
  }
  if (auto timeout = top.find("timeout_ms")) config.default_timeout = read_timeout(*timeout);
  if (auto hooks = top.find("hooks")) {
    for (const auto& [name, settings] : hooks->as_object().members())
      config.hooks.emplace(name, read_hook_override(settings.as_object()));
  }
  return config;
}

ConfigLocation location_of(const Config& config) { return {.file = config.file, .project_dir = config.project_dir}; }

}  // namespace

// ------------------------------------------------------------------- API

Config load_config(const std::filesystem::path& file) {
  const ConfigLocation root{.file = file, .project_dir = project_dir_of(file)};
  const boost::json::value document = parse_config_text(read_file(file, root), root);
  Config config = read_config(ConfigValue(document, root));
  config.file = root.file;
  config.project_dir = root.project_dir;
  return config;
}

std::optional<Config> load_project_config(const std::filesystem::path& project_dir) {
  const auto file = (project_dir / ".hookbus" / "config.json").lexically_normal();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec) && !ec) return std::nullopt;
  return load_config(file);
}

ConnectionGroup install_builtins(Hooks& hooks, const Config& config) {
  return install_builtins(hooks, config, default_builtins());
}

ConnectionGroup install_builtins(Hooks& hooks, const Config& config, const BuiltinRegistry& registry) {
  const ConfigLocation builtins = location_of(config).key("builtins");
  std::vector<BuiltinProvider> providers;
  providers.reserve(config.builtins.size());
  for (const auto& builtin : config.builtins)
    providers.push_back(registry.make(builtin.name, ConfigObject(builtin.settings, builtins.key(builtin.name))));
  // Everything that can fail on bad configuration has happened; should a
  // registration still throw, the groups disconnect what was registered.
  ConnectionGroup installed;
  for (const auto& provider : providers) {
    Registrar registrar(hooks);
    provider(registrar);
    installed.add(registrar.take());
  }
  return installed;
}

}  // namespace hookbus
