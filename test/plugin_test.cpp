// Plugins: real shared libraries (test/plugins/*.cpp, built with
// hookbus_add_plugin) loaded into this program, which exports hookbus to them
// (hookbus_enable_plugins), as an engine does.
#include <hookbus/plugin.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/workspace.hpp>

#include "elf_image.hpp"
#include "log_capture.hpp"
#include "needs_root.hpp"
#include "script_fixture.hpp"
#include "plugins/plugin_libraries.hpp"
#include "support/elf_dynamic.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using hookbus::testing::TempDir;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ------------------------------------------------ what test plugins call back

namespace {
std::mutex gate_mutex;
std::condition_variable gate_changed;
int handlers_entered = 0;   // guarded by gate_mutex
bool gate_open = true;      // guarded by gate_mutex
std::function<void()> on_handler_body;
}  // namespace

extern "C" __attribute__((visibility("default"))) void plugin_test_handler_entered() {
  std::lock_guard lock(gate_mutex);
  ++handlers_entered;
  gate_changed.notify_all();
}

extern "C" __attribute__((visibility("default"))) void plugin_test_handler_body() {
  std::unique_lock lock(gate_mutex);
  gate_changed.wait(lock, [] { return gate_open; });
  lock.unlock();
  if (on_handler_body) on_handler_body();
}

namespace {

// Whether the dynamic loader still has `file` loaded.
bool library_loaded(const fs::path& file) {
  void* handle = ::dlopen(fs::absolute(file).c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  ::dlclose(handle);
  return true;
}

hookbus::ToolCallEvent tool_call(std::string tool) {
  hookbus::ToolCallEvent call;
  call.tool_call_id = "c1";
  call.tool_name = std::move(tool);
  return call;
}

class Plugins : public ::testing::Test {
 protected:
  void SetUp() override {
    std::lock_guard lock(gate_mutex);
    handlers_entered = 0;
    gate_open = true;
    on_handler_body = nullptr;
  }

  // A private copy of a built plugin, so each test loads and unloads its own file.
  fs::path plugin(const std::string& name) {
    const fs::path copy = dir_ / (name + ".so");
    fs::copy_file(fs::path(HOOKBUS_TEST_PLUGINS) / (name + ".so"), copy, fs::copy_options::overwrite_existing);
    ::chmod(copy.c_str(), 0755);
    return copy;
  }

  // Starts an emit, on a thread of its own, that stays inside the blocking
  // plugin's handler until open_gate(); returns once it is in there.
  std::thread emit_held_in_handler() {
    int entered_before = 0;
    {
      std::lock_guard lock(gate_mutex);
      gate_open = false;
      entered_before = handlers_entered;
    }
    std::thread emitter([this] { (void)hooks_.emit(tool_call("bash")); });
    std::unique_lock lock(gate_mutex);
    gate_changed.wait(lock, [&] { return handlers_entered > entered_before; });
    return emitter;
  }
  static void open_gate() {
    {
      std::lock_guard lock(gate_mutex);
      gate_open = true;
    }
    gate_changed.notify_all();
  }

  std::string load_error(const fs::path& file) {
    try {
      hookbus::LoadedPlugin plugin = hookbus::load_plugin(hooks_, file);
    } catch (const hookbus::PluginError& error) {
      return error.what();
    }
    ADD_FAILURE() << file << " loaded";
    return {};
  }

  TempDir dir_;
  hookbus::Hooks hooks_;
};

// ------------------------------------------------------------------ loading

TEST_F(Plugins, ALoadedPluginsHandlersRunLabelledWithItsNameAndFile) {
  const fs::path file = plugin("guard");
  hookbus::LoadedPlugin guard = hookbus::load_plugin(hooks_, file);
  EXPECT_EQ(guard.name(), "guard");
  const hookbus::ToolCallResult result = hooks_.emit(tool_call("deploy"));
  EXPECT_EQ(result.decision, hookbus::Decision::deny);
  EXPECT_EQ(result.reason, "deploys need a human");
  ASSERT_TRUE(result.decided_by.has_value());
  EXPECT_EQ(result.decided_by->handler, "guard/no-deploy");
  EXPECT_EQ(result.decided_by->source, file.string());
  EXPECT_EQ(hooks_.emit(tool_call("ls")).decision, hookbus::Decision::none);
}

TEST_F(Plugins, ATraceRecordsAPluginsHandlerAsAPluginWithItsFile) {
  const fs::path file = plugin("guard");
  hookbus::LoadedPlugin guard = hookbus::load_plugin(hooks_, file);
  std::vector<hookbus::EmissionRecord> records;
  const hookbus::Connection observer = hooks_.on_emission([&](const hookbus::EmissionRecord& r) { records.push_back(r); });
  (void)hooks_.emit(tool_call("deploy"));
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 1u);
  const hookbus::HandlerRecord& handler = records[0].handlers[0];
  EXPECT_EQ(handler.label, "guard/no-deploy");
  EXPECT_EQ(handler.kind, hookbus::RecordedKind::plugin);
  EXPECT_EQ(handler.source, file.string());
  EXPECT_EQ(handler.action, hookbus::HandlerAction::deny);
}

TEST_F(Plugins, AnUnlabelledHandlerIsNamedAfterThePluginAndTheEvent) {
  hookbus::LoadedPlugin guard = hookbus::load_plugin(hooks_, plugin("guard"));
  EXPECT_THAT(hooks_.handlers("turn_end"), ElementsAre("guard/turn_end"));
}

TEST_F(Plugins, DroppingThePluginUninstallsItsHandlersAndUnloadsTheLibrary) {
  const fs::path file = plugin("guard");
  {
    hookbus::LoadedPlugin guard = hookbus::load_plugin(hooks_, file);
    EXPECT_TRUE(library_loaded(file));
  }
  EXPECT_FALSE(library_loaded(file));
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::none);
}

TEST_F(Plugins, APluginCanBeLoadedAgainAfterItWasUnloaded) {
  const fs::path file = plugin("guard");
  hookbus::load_plugin(hooks_, file).unload();
  hookbus::LoadedPlugin again = hookbus::load_plugin(hooks_, file);
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::deny);
}

TEST_F(Plugins, ABusDestroyedFirstLeavesThePluginToUnloadCleanly) {
  const fs::path file = plugin("guard");
  hookbus::LoadedPlugin guard;
  {
    hookbus::Hooks short_lived;
    guard = hookbus::load_plugin(short_lived, file);
  }
  EXPECT_TRUE(guard.loaded());
  guard.unload();
  EXPECT_FALSE(library_loaded(file));
}

// ---------------------------------------------------------------- unloading

// The handler is let go only once unload() has returned (the fault this test
// catches) or has said, after a second, that it is still waiting.
TEST_F(Plugins, UnloadWaitsForAHandlerRunningOnAnotherThread) {
  hookbus::testing::LogCapture log;
  const fs::path file = plugin("blocking");
  hookbus::LoadedPlugin blocking = hookbus::load_plugin(hooks_, file);
  std::thread emitter = emit_held_in_handler();
  std::atomic<bool> unloaded{false};
  std::thread unloader([&] {
    blocking.unload();
    unloaded = true;
  });
  while (!unloaded.load() && log.text().find("unloading has waited") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(unloaded.load()) << "unload() returned while a handler of the plugin was running";
  EXPECT_TRUE(library_loaded(file));
  open_gate();
  unloader.join();
  EXPECT_FALSE(library_loaded(file));  // gone when unload() returns, whatever the emitting thread does next
  emitter.join();
}

TEST_F(Plugins, AHandlerThatDropsItsOwnPluginReturnsAndTheLibraryGoesAfterIt) {
  const fs::path file = plugin("blocking");
  hookbus::LoadedPlugin blocking = hookbus::load_plugin(hooks_, file);
  on_handler_body = [&] { blocking.unload(); };
  (void)hooks_.emit(tool_call("bash"));
  EXPECT_FALSE(blocking.loaded());
  EXPECT_FALSE(library_loaded(file));
}

// Forty rounds of load and unload while three threads emit without pause. In
// every round one of those emits is held inside the plugin's handler until
// unload() has begun (the handler is disconnected): each unload overlaps a
// running handler, which finds its library still loaded, and the library is
// gone once unload() returns. TSan and ASan (./tools/test) watch the rest.
TEST_F(Plugins, UnloadsRacingEmitsOnThreeThreadsEachWaitForTheHandlerRunningAndLeaveNothingLoaded) {
  const fs::path file = plugin("blocking");
  constexpr int rounds = 40;
  std::mutex round_mutex;
  std::condition_variable round_changed;
  bool hold_next = false;  // guarded by round_mutex: the next call in the handler is held
  bool held = false;       // guarded by round_mutex: a call is held
  std::atomic<int> overlapped{0};
  on_handler_body = [&] {
    {
      std::unique_lock lock(round_mutex);
      if (!hold_next) return;
      hold_next = false;
      held = true;
    }
    round_changed.notify_all();
    while (hooks_.handler_count("tool_call") != 0) std::this_thread::yield();  // unload() has begun
    if (library_loaded(file)) ++overlapped;
  };
  std::atomic<bool> done{false};
  std::vector<std::thread> emitters;
  for (int i = 0; i < 3; ++i)
    emitters.emplace_back([&] {
      while (!done.load()) (void)hooks_.emit(tool_call("bash"));
    });
  for (int round = 0; round < rounds; ++round) {
    hookbus::LoadedPlugin blocking = hookbus::load_plugin(hooks_, file);
    {
      std::unique_lock lock(round_mutex);
      hold_next = true;
      round_changed.wait(lock, [&] { return held; });
      held = false;
    }
    blocking.unload();
    EXPECT_FALSE(library_loaded(file)) << "round " << round;
  }
  done = true;
  for (auto& emitter : emitters) emitter.join();
  EXPECT_EQ(overlapped.load(), rounds);
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
}

TEST_F(Plugins, AnUnloadStillWaitingAfterASecondWarnsOnceNamingThePlugin) {
  hookbus::testing::LogCapture log;
  const fs::path file = plugin("blocking");
  hookbus::LoadedPlugin blocking = hookbus::load_plugin(hooks_, file);
  std::thread emitter = emit_held_in_handler();
  std::thread unloader([&] { blocking.unload(); });
  constexpr std::string_view warning = "unloading has waited 1 s for a handler of it still running on another thread";
  EXPECT_TRUE(log.wait_for(warning));
  open_gate();
  emitter.join();
  unloader.join();
  const std::string text = log.text();
  EXPECT_THAT(text, HasSubstr("plugin blocking (" + file.string() + "): "));
  EXPECT_EQ(text.find(warning), text.rfind(warning)) << "warned more than once:\n" << text;
  EXPECT_FALSE(library_loaded(file));
}

// ----------------------------------------------------------------- refusals

TEST_F(Plugins, AnotherAbiVersionIsRefusedNamingBoth) {
  const fs::path file = plugin("wrong_abi");
  EXPECT_THAT(load_error(file),
              AllOf(HasSubstr(file.string()),
                    HasSubstr("was built for plugin ABI " + std::to_string(hookbus::plugin_abi_version + 1)),
                    HasSubstr("this engine has plugin ABI " + std::to_string(hookbus::plugin_abi_version)),
                    HasSubstr("rebuild the plugin")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, APluginWhoseSharedTypesAreLaidOutOtherwiseIsRefusedUncalled) {
  const fs::path file = plugin("other_layout");  // the guard, built with libstdc++'s debug containers
  EXPECT_THAT(load_error(file), AllOf(HasSubstr(file.string()), HasSubstr("was built with hookbus types laid out otherwise"),
                                      HasSubstr(fmt::format("this engine has {:#018x}", hookbus::plugin_layout_fingerprint)),
                                      HasSubstr("rebuild the plugin against this engine's hookbus")));
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
  EXPECT_FALSE(library_loaded(file));
}

// The fingerprint of this build's types is pinned here for this ABI version.
// When a type plugins share changes its size or alignment, this fails: raise
// plugin_abi_version (include/hookbus/plugin.hpp, with a line of history) and
// pin the new pair. Users' plugins are protected either way (the test above);
// this keeps the version honest, so the refusal says "another ABI".
TEST(PluginAbi, TheFingerprintIsPinnedForThisAbiVersion) {
  EXPECT_EQ(hookbus::plugin_abi_version, 10u);
  EXPECT_EQ(hookbus::plugin_layout_fingerprint, 0xf3ca1b103c10fac7ULL)
      << std::hex << "the layout of a type plugins share changed (fingerprint 0x" << hookbus::plugin_layout_fingerprint
      << "): raise plugin_abi_version and pin the new fingerprint here";
}

// A real plugin ABI 1 descriptor is shorter than today's: only its version is read.
TEST_F(Plugins, AnAbi1PluginIsRefusedByItsVersionAlone) {
  const fs::path file = plugin("abi_1");
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("was built for plugin ABI 1, this engine has plugin ABI " +
                                                std::to_string(hookbus::plugin_abi_version)),
                                      HasSubstr("rebuild the plugin")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, APluginOfBuiltinsHasNoHandlersToLoad) {
  const fs::path file = plugin("shout");
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("has no handlers to install"), HasSubstr("load_builtin_plugin()")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, ALibraryWithoutTheEntryPointIsRefused) {
  const fs::path file = plugin("no_entry_point");
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("plugin " + file.string() + ": has no 'hookbus_plugin' entry point"),
                                      HasSubstr("HOOKBUS_PLUGIN")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, AnEntryPointThatReturnsNoDescriptorIsRefused) {
  const fs::path file = plugin("no_descriptor");
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("plugin " + file.string() + ": 'hookbus_plugin' returned nothing"),
                                      HasSubstr("HOOKBUS_PLUGIN")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, AnUnresolvedSymbolIsRefusedWithTheLoadersMessage) {
  const fs::path file = plugin("missing_symbol");
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("plugin " + file.string() + ": cannot be loaded: "),
                                      HasSubstr("undefined symbol: hookbus_test_function_nobody_defines")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, AMissingFileIsRefusedNamingIt) {
  const fs::path file = dir_ / "gone.so";
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("plugin " + file.string() + ": "), HasSubstr("No such file")));
}

TEST_F(Plugins, ADirectoryIsRefusedAsNotASharedLibrary) {
  const fs::path directory = dir_ / "folder.so";
  hookbus::testing::make_directories(directory);
  EXPECT_THAT(load_error(directory), AllOf(HasSubstr("plugin " + directory.string() + ": is not a regular file"),
                                           HasSubstr("a plugin is a shared library")));
}

TEST_F(Plugins, AFileThatIsNotASharedLibraryIsRefused) {
  const fs::path file = hookbus::testing::write_file(dir_ / "notes.so", "not a library\n");
  EXPECT_THAT(load_error(file), AllOf(HasSubstr(file.string()), HasSubstr("cannot be loaded")));
}

TEST_F(Plugins, AProviderThatThrowsLeavesNothingInstalled) {
  const fs::path file = plugin("throwing");
  EXPECT_THAT(load_error(file), HasSubstr("failed while registering its handlers: settings file missing"));
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, ANameThatCouldForgeALabelIsRefused) {
  EXPECT_THAT(load_error(plugin("bad_name")), HasSubstr("has an invalid name 'guard/evil name'"));
}

TEST_F(Plugins, APluginFileOthersCanWriteIsRefusedUnloaded) {
  const fs::path file = plugin("guard");
  ::chmod(file.c_str(), 0757);
  EXPECT_THAT(load_error(file), AllOf(HasSubstr(file.string()), HasSubstr("writable")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, APluginReachedThroughProcIsRefusedUnloaded) {
  const fs::path file = plugin("guard");
  fs::create_symlink(fs::path("/proc/self/root") / file.relative_path(), dir_ / "linked.so");
  EXPECT_THAT(load_error(dir_ / "linked.so"), HasSubstr("procfs"));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, APluginInADirectoryOthersCanWriteIsRefused) {
  hookbus::testing::make_directories(dir_ / "open", 0777);
  ::chmod((dir_ / "open").c_str(), 0777);
  const fs::path file = dir_ / "open" / "guard.so";
  fs::copy_file(plugin("guard"), file);
  EXPECT_THAT(load_error(file), HasSubstr("writable"));
}

TEST_F(Plugins, APluginFileOwnedByAnotherUserIsRefusedUnloaded) {
  HOOKBUS_NEEDS_ROOT();
  const fs::path file = plugin("guard");
  ASSERT_EQ(::chown(file.c_str(), hookbus::testing::another_user, hookbus::testing::another_user), 0);
  EXPECT_THAT(load_error(file), AllOf(HasSubstr(file.string()), HasSubstr("is owned by user 65534")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, APluginInADirectoryOwnedByAnotherUserIsRefused) {
  HOOKBUS_NEEDS_ROOT();
  hookbus::testing::make_directories(dir_ / "theirs");
  const fs::path file = dir_ / "theirs" / "guard.so";
  fs::copy_file(plugin("guard"), file);
  ASSERT_EQ(::chown((dir_ / "theirs").c_str(), hookbus::testing::another_user, hookbus::testing::another_user), 0);
  EXPECT_THAT(load_error(file), AllOf(HasSubstr("the directory '" + (dir_ / "theirs").string() + "' on its path"),
                                      HasSubstr("is owned by user 65534")));
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(Plugins, ANameTheCallerRefusesIsRefusedBeforeAnythingIsInstalled) {
  const fs::path file = plugin("guard");
  std::string asked;
  try {
    hookbus::LoadedPlugin guard = hookbus::load_plugin(hooks_, file, std::nullopt, [&](std::string_view name) {
      asked = name;
      return std::optional<std::string>("taken");
    });
    ADD_FAILURE() << "loaded";
  } catch (const hookbus::PluginError& error) {
    EXPECT_EQ(std::string(error.what()), "plugin " + file.string() + ": taken");
  }
  EXPECT_EQ(asked, "guard");
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
  EXPECT_FALSE(library_loaded(file));
}

// ------------------------------------------------------ plugins of built-ins

class BuiltinPlugins : public Plugins {
 protected:
  hookbus::ConnectionGroup install_shout(const hookbus::BuiltinRegistry& registry, const char* tool) {
    return registry.install(hooks_, "shout", {{"tool", tool}});
  }
};

TEST_F(BuiltinPlugins, ItsBuiltinsJoinTheRegistryAndRunWithTheLibraryAsSource) {
  const fs::path file = plugin("shout");
  hookbus::BuiltinRegistry registry;
  EXPECT_THAT(hookbus::load_builtin_plugin(registry, file), ElementsAre("shout"));
  auto installed = install_shout(registry, "deploy");
  const hookbus::ToolCallResult result = hooks_.emit(tool_call("deploy"));
  EXPECT_EQ(result.reason, "NO DEPLOY");
  ASSERT_TRUE(result.decided_by.has_value());
  EXPECT_EQ(result.decided_by->handler, "builtin:shout");
  EXPECT_EQ(result.decided_by->source, file.string());
}

// The error is made in the plugin, which is unloaded while it travels: what arrives is the engine's copy.
TEST_F(BuiltinPlugins, ItsBuiltinsCheckTheirSettingsWithConfigErrors) {
  const fs::path file = plugin("shout");
  std::string message;
  try {
    hookbus::BuiltinRegistry registry;
    hookbus::load_builtin_plugin(registry, file);
    hookbus::ConnectionGroup installed = registry.install(hooks_, "shout", {{"tool", 3}});
  } catch (const hookbus::ConfigError& error) {
    message = error.what();
  }
  EXPECT_EQ(message, "shout.tool: expected string, got number");
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(BuiltinPlugins, TheLibraryStaysWhileAFactoryOrAnInstalledHandlerNeedsIt) {
  const fs::path file = plugin("shout");
  hookbus::ConnectionGroup installed;
  {
    hookbus::BuiltinRegistry registry;
    hookbus::load_builtin_plugin(registry, file);
    installed = install_shout(registry, "deploy");
  }
  EXPECT_TRUE(library_loaded(file));  // the handler needs it
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::deny);
  installed.disconnect();
  EXPECT_FALSE(library_loaded(file));
}

TEST_F(BuiltinPlugins, APluginOfHandlersOffersNoBuiltins) {
  hookbus::BuiltinRegistry registry;
  try {
    hookbus::load_builtin_plugin(registry, plugin("guard"));
    ADD_FAILURE() << "a plugin of handlers offered built-ins";
  } catch (const hookbus::PluginError& error) {
    EXPECT_THAT(error.what(), HasSubstr("offers no built-ins"));
  }
  EXPECT_TRUE(registry.names().empty());
}

TEST(PluginFiles, AreTheSharedLibrariesOfADirectorySortedByName) {
  TempDir dir;
  hookbus::testing::write_file(dir / "b.so", "");
  hookbus::testing::write_file(dir / "a.so", "");
  hookbus::testing::write_file(dir / "readme.txt", "");
  EXPECT_THAT(hookbus::plugin_files(dir.path()), ElementsAre(dir / "a.so", dir / "b.so"));
  EXPECT_TRUE(hookbus::plugin_files(dir / "missing").empty());
}

// ---------------------------------------------------------------- setup()

class PluginSetup : public Plugins {
 protected:
  hookbus::Installation install() {
    return hookbus::setup(hooks_, {.project_dir = project_, .locations = locations_});
  }
  void place(const std::string& name, const fs::path& directory) {
    hookbus::testing::make_directories(directory);
    fs::copy_file(plugin(name), directory / (name + ".so"), fs::copy_options::overwrite_existing);
  }
  void trust() {
    hookbus::Hooks scratch;
    const hookbus::Installation looked = hookbus::setup(scratch, {.project_dir = project_, .locations = locations_});
    hookbus::TrustStore::at(locations_).trust(project_, looked.report.trust.now);
  }
  // The library the uses_* plugins load (plugins/helper.cpp) into `directory`:
  // as trusted, or as an attacker changes it.
  void place_helper(const fs::path& directory, bool changed = false) {
    hookbus::testing::make_directories(directory);
    fs::copy_file(fs::path(HOOKBUS_TEST_PLUGINS) / (changed ? "changed" : "lib") / "libplugin_helper.so",
                  directory / "libplugin_helper.so", fs::copy_options::overwrite_existing);
    ::chmod((directory / "libplugin_helper.so").c_str(), 0755);
  }
  // The one plugin report of a setup, by the plugin's file name.
  static const hookbus::PluginReport& report_of(const hookbus::Installation& installation, const std::string& name) {
    for (const auto& plugin : installation.report.plugins)
      if (plugin.file.filename() == name) return plugin;
    ADD_FAILURE() << name << " was not reported";
    static const hookbus::PluginReport none;
    return none;
  }

  fs::path project_ = [this] {
    hookbus::testing::make_directories(dir_ / "project");
    return dir_ / "project";
  }();
  hookbus::Locations locations_{.managed = dir_ / "managed",
                                .user = dir_ / "user",
                                .project = project_,
                                .state = dir_ / "state",
                                .cache = dir_ / "cache"};
};

TEST_F(PluginSetup, AUsersPluginIsLoadedAndReported) {
  place("guard", locations_.plugin_directory(hookbus::Layer::user));
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u);
  ASSERT_EQ(installation.report.plugins.size(), 1u);
  EXPECT_TRUE(installation.report.plugins[0].loaded);
  EXPECT_EQ(installation.report.plugins[0].name, "guard");
  EXPECT_EQ(installation.report.plugins[0].layer, hookbus::Layer::user);
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::deny);
}

TEST_F(PluginSetup, AnAdministratorsPluginIsLoadedBeforeTheUsers) {
  place("guard", locations_.plugin_directory(hookbus::Layer::managed));
  place("shout", locations_.plugin_directory(hookbus::Layer::user));  // a plugin of built-ins: refused, reported
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.report.plugins.size(), 2u);
  EXPECT_EQ(installation.report.plugins[0].layer, hookbus::Layer::managed);
  EXPECT_TRUE(installation.report.plugins[0].loaded);
  EXPECT_EQ(installation.report.plugins[1].layer, hookbus::Layer::user);
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decided_by->source,
            (locations_.plugin_directory(hookbus::Layer::managed) / "guard.so").string());
}

TEST_F(PluginSetup, AnUntrustedProjectsPluginIsNotLoaded) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  place("guard", directory);
  hookbus::Installation installation = install();
  EXPECT_TRUE(installation.plugins.empty());
  ASSERT_EQ(installation.report.plugins.size(), 1u);
  EXPECT_FALSE(installation.report.plugins[0].loaded);
  EXPECT_THAT(installation.report.plugins[0].reason, HasSubstr("hookctl trust"));
  EXPECT_THAT(installation.report.warnings, ::testing::Contains(HasSubstr("hookctl trust")));
  EXPECT_FALSE(library_loaded(directory / "guard.so"));
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::none);
}

TEST_F(PluginSetup, ATrustedProjectsPluginIsLoaded) {
  place("guard", locations_.plugin_directory(hookbus::Layer::project));
  trust();
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u);
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::deny);
}

TEST_F(PluginSetup, AChangedPluginMakesTheProjectUntrustedAgain) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  place("guard", directory);
  trust();
  place("throwing", directory);
  hookbus::Installation installation = install();
  EXPECT_EQ(installation.report.trust.state, hookbus::TrustState::changed);
  EXPECT_TRUE(installation.plugins.empty());
}

TEST_F(PluginSetup, AManagedDisableAllHooksKeepsEveryPluginUnloaded) {
  hookbus::testing::write_file(locations_.config_file(hookbus::Layer::managed), R"({"disable_all_hooks": true})");
  place("guard", locations_.plugin_directory(hookbus::Layer::user));
  hookbus::Installation installation = install();
  EXPECT_TRUE(installation.plugins.empty());
  ASSERT_EQ(installation.report.plugins.size(), 1u);
  EXPECT_THAT(installation.report.plugins[0].reason, HasSubstr("disable_all_hooks"));
}

TEST_F(PluginSetup, AManagedAllowManagedHooksOnlyLoadsOnlyTheManagedPlugins) {
  hookbus::testing::write_file(locations_.config_file(hookbus::Layer::managed), R"({"allow_managed_hooks_only": true})");
  place("guard", locations_.plugin_directory(hookbus::Layer::user));
  hookbus::Installation installation = install();
  EXPECT_TRUE(installation.plugins.empty());
  ASSERT_EQ(installation.report.plugins.size(), 1u);
  EXPECT_THAT(installation.report.plugins[0].reason, HasSubstr("allow_managed_hooks_only"));
  place("guard", locations_.plugin_directory(hookbus::Layer::managed));
  hookbus::Hooks other;
  const hookbus::Installation managed = hookbus::setup(other, {.project_dir = project_, .locations = locations_});
  ASSERT_EQ(managed.plugins.size(), 1u);
  EXPECT_EQ(managed.report.plugins[0].layer, hookbus::Layer::managed);
}

TEST_F(PluginSetup, APluginThatCannotLoadIsAWarningAndTheOthersStillLoad) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::user);
  place("wrong_abi", directory);
  place("guard", directory);
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u);
  EXPECT_EQ(installation.plugins[0].name(), "guard");
  EXPECT_THAT(installation.report.warnings, ::testing::Contains(HasSubstr("plugin ABI")));
}

TEST_F(PluginSetup, DroppingTheInstallationUnloadsThePlugins) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::user);
  place("guard", directory);
  { hookbus::Installation installation = install(); }
  EXPECT_FALSE(library_loaded(directory / "guard.so"));
}

TEST_F(PluginSetup, APluginNamedLikeAnotherOfItsDirectoryIsRefusedNamingBoth) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::user);
  place("guard", directory);
  fs::copy_file(directory / "guard.so", directory / "guard2.so");  // the same plugin, "guard", under another file name
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u);
  EXPECT_EQ(installation.plugins[0].file(), directory / "guard.so");  // first by file name
  ASSERT_EQ(installation.report.plugins.size(), 2u);
  EXPECT_FALSE(installation.report.plugins[1].loaded);
  EXPECT_THAT(installation.report.plugins[1].reason,
              AllOf(HasSubstr("plugin " + (directory / "guard2.so").string() + ": has the name 'guard' of the plugin " +
                              (directory / "guard.so").string() + ", loaded before it"),
                    HasSubstr("rename one")));
  EXPECT_THAT(installation.report.warnings, ::testing::Contains(installation.report.plugins[1].reason));
  EXPECT_THAT(hooks_.handlers("tool_call"), ElementsAre("guard/no-deploy"));
}

TEST_F(PluginSetup, AProjectsPluginCannotTakeTheNameOfTheUsersPlugin) {
  const fs::path users = locations_.plugin_directory(hookbus::Layer::user) / "guard.so";
  const fs::path projects = locations_.plugin_directory(hookbus::Layer::project) / "guard.so";
  place("guard", users.parent_path());
  place("guard", projects.parent_path());
  trust();
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u);
  EXPECT_EQ(installation.plugins[0].file(), users);
  EXPECT_THAT(installation.report.warnings,
              ::testing::Contains(HasSubstr("plugin " + projects.string() + ": has the name 'guard' of the plugin " +
                                            users.string())));
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decided_by->source, users.string());
  EXPECT_THAT(hooks_.handlers("tool_call"), ElementsAre("guard/no-deploy"));
}

TEST_F(PluginSetup, AWorkspacesPluginCannotTakeTheNameOfAPluginSetupLoaded) {
  const fs::path users = locations_.plugin_directory(hookbus::Layer::user) / "guard.so";
  place("guard", users.parent_path());
  const hookbus::Installation installation = install();
  const fs::path workspace = locations_.user / "workspaces" / "ops";
  place("guard", workspace / "plugins");
  hookbus::Workspaces workspaces(hooks_, {.locations = locations_});
  const hookbus::SetupReport report = workspaces.activate("ops", workspace);
  ASSERT_EQ(report.plugins.size(), 1u);
  EXPECT_FALSE(report.plugins[0].loaded);
  EXPECT_THAT(report.plugins[0].reason,
              AllOf(HasSubstr("plugin " + (workspace / "plugins" / "guard.so").string() + ": has the name 'guard'"),
                    HasSubstr("and the bus has its labels already ('guard/")));
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decided_by->source, users.string());
  EXPECT_THAT(hooks_.handlers("tool_call"), ElementsAre("guard/no-deploy"));
}

// While a switch loads the new workspace the previous one is still in place:
// its plugin's name is not taken, it is on its way out.
TEST_F(PluginSetup, SwitchingBetweenWorkspacesWithTheSamePluginLoadsTheNewOnesCopy) {
  const fs::path workspaces_dir = locations_.user / "workspaces";
  place("guard", workspaces_dir / "research" / "plugins");
  place("guard", workspaces_dir / "coding" / "plugins");
  hookbus::Workspaces workspaces(hooks_, {.locations = locations_});
  workspaces.activate("research", workspaces_dir / "research");
  const hookbus::SetupReport coding = workspaces.activate("coding", workspaces_dir / "coding");
  ASSERT_EQ(coding.plugins.size(), 1u);
  EXPECT_TRUE(coding.plugins[0].loaded) << coding.plugins[0].reason;
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decided_by->source,
            (workspaces_dir / "coding" / "plugins" / "guard.so").string());
  EXPECT_THAT(hooks_.handlers("tool_call"), ElementsAre("guard/no-deploy"));
}

TEST_F(PluginSetup, AnUntrustedOrChangedWorkspacesPluginIsNotLoaded) {
  const fs::path workspace = dir_ / "workspaces" / "ops";  // not the user's own: it needs trust
  place("guard", workspace / "plugins");
  const hookbus::WorkspaceOptions options{.locations = locations_};
  {
    const hookbus::Installation untrusted = hookbus::load_workspace(hooks_, workspace, options);
    EXPECT_EQ(untrusted.report.trust.state, hookbus::TrustState::untrusted);
    EXPECT_TRUE(untrusted.plugins.empty());
    ASSERT_EQ(untrusted.report.plugins.size(), 1u);
    EXPECT_THAT(untrusted.report.plugins[0].reason, HasSubstr("hookctl trust --workspace"));
    EXPECT_FALSE(library_loaded(workspace / "plugins" / "guard.so"));
    hookbus::TrustStore::at(locations_).trust(workspace, untrusted.report.trust.now);
  }
  {
    const hookbus::Installation trusted = hookbus::load_workspace(hooks_, workspace, options);
    EXPECT_EQ(trusted.plugins.size(), 1u);
    EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::deny);
  }
  place("throwing", workspace / "plugins");
  const hookbus::Installation changed = hookbus::load_workspace(hooks_, workspace, options);
  EXPECT_EQ(changed.report.trust.state, hookbus::TrustState::changed);
  EXPECT_TRUE(changed.plugins.empty());
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::none);
}

// Thread A switches away from a workspace while thread B is in one of its
// plugin's handlers, which switches workspaces too. A unloads the plugin
// after its switch lock is released, so B's switch goes through, B's handler
// returns, and A's wait for it ends.
TEST_F(PluginSetup, AHandlerOfTheWorkspaceBeingSwitchedAwayFromMaySwitchWorkspacesItself) {
  const fs::path workspaces_dir = locations_.user / "workspaces";  // the user's own: no trust needed
  place("blocking", workspaces_dir / "first" / "plugins");
  hookbus::testing::make_directories(workspaces_dir / "second");
  hookbus::testing::make_directories(workspaces_dir / "third");
  hookbus::Workspaces workspaces(hooks_, {.locations = locations_});
  workspaces.activate("first", workspaces_dir / "first");
  on_handler_body = [&] {
    while (hooks_.handler_count("tool_call") != 0) std::this_thread::yield();  // thread A is unloading "first"
    (void)workspaces.activate("third", workspaces_dir / "third");
  };
  std::thread handler_thread = emit_held_in_handler();
  open_gate();  // on to the body above, which waits for thread A's switch
  const hookbus::SetupReport second = workspaces.activate("second", workspaces_dir / "second");
  handler_thread.join();
  EXPECT_EQ(second.config_files.back().file, workspaces_dir / "second" / "config.json");
  EXPECT_EQ(workspaces.active_name(), "third");
  EXPECT_FALSE(library_loaded(workspaces_dir / "first" / "plugins" / "blocking.so"));
}

// The switch unloads the plugin on the thread that is inside its handler:
// nothing to wait for, and the library goes once the handler has returned.
TEST_F(PluginSetup, AHandlerOfTheActiveWorkspaceMaySwitchAwayFromItOnItsOwnThread) {
  const fs::path workspaces_dir = locations_.user / "workspaces";  // the user's own: no trust needed
  place("blocking", workspaces_dir / "first" / "plugins");
  hookbus::testing::make_directories(workspaces_dir / "second");
  hookbus::Workspaces workspaces(hooks_, {.locations = locations_});
  workspaces.activate("first", workspaces_dir / "first");
  on_handler_body = [&] { (void)workspaces.activate("second", workspaces_dir / "second"); };
  (void)hooks_.emit(tool_call("bash"));
  EXPECT_EQ(workspaces.active_name(), "second");
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
  EXPECT_FALSE(library_loaded(workspaces_dir / "first" / "plugins" / "blocking.so"));
}

TEST_F(PluginSetup, AWorkspacesPluginIsUnloadedWhenTheWorkspaceSwitches) {
  const fs::path workspace = locations_.user / "workspaces" / "ops";  // the user's own: no trust needed
  place("guard", workspace / "plugins");
  hookbus::Workspaces workspaces(hooks_, {.locations = locations_});
  workspaces.activate("ops", workspace);
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::deny);
  hookbus::testing::make_directories(locations_.user / "workspaces" / "empty");
  workspaces.activate("empty", locations_.user / "workspaces" / "empty");
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).decision, hookbus::Decision::none);
  EXPECT_FALSE(library_loaded(workspace / "plugins" / "guard.so"));
}

// ------------------------------------------ the libraries a project's plugin loads

// As docs/plugins.md says: the library in lib/ beside the plugin, its run path $ORIGIN/lib.
TEST_F(PluginSetup, AProjectPluginLoadsItsLibraryFromItsPluginDirectory) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  place("uses_library", directory);
  place_helper(directory / "lib");
  trust();
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u) << report_of(installation, "uses_library.so").reason;
  EXPECT_EQ(hooks_.emit(tool_call("deploy")).reason, "the helper as trusted");
}

// vendor/lib is the project's but not the plugin directory's: nothing there is
// fingerprinted, so a pull after trust could change what loads.
TEST_F(PluginSetup, AProjectPluginWhoseRunPathLeadsIntoTheProjectOutsideItsPluginDirectoryIsRefused) {
  place("uses_vendor_library", locations_.plugin_directory(hookbus::Layer::project));
  place_helper(project_ / "vendor" / "lib");
  trust();
  hookbus::Installation installation = install();
  EXPECT_TRUE(installation.plugins.empty());
  const hookbus::PluginReport& plugin = report_of(installation, "uses_vendor_library.so");
  EXPECT_FALSE(plugin.loaded);
  EXPECT_THAT(plugin.reason, AllOf(HasSubstr("the run path entry '$ORIGIN/../../vendor/lib' (DT_RUNPATH)"),
                                   HasSubstr("which leads to " + (project_ / "vendor" / "lib").string() + ", inside " + project_.string()),
                                   HasSubstr("keep the libraries it loads inside its plugin directory")));
  EXPECT_THAT(installation.report.warnings, ::testing::Contains(plugin.reason));
  EXPECT_FALSE(library_loaded(project_ / "vendor" / "lib" / "libplugin_helper.so"));
}

// A relative run path is looked up from the engine's working directory, here
// the project's root, not beside the plugin.
TEST_F(PluginSetup, AProjectPluginWithARelativeRunPathIsRefused) {
  place("uses_relative_library", locations_.plugin_directory(hookbus::Layer::project));
  place_helper(project_ / "lib");
  trust();
  const fs::path before = fs::current_path();
  fs::current_path(project_);
  hookbus::Installation installation = install();
  fs::current_path(before);
  EXPECT_TRUE(installation.plugins.empty());
  EXPECT_THAT(report_of(installation, "uses_relative_library.so").reason,
              AllOf(HasSubstr("the run path entry 'lib' (DT_RUNPATH), which is relative"),
                    HasSubstr("the engine's working directory")));
  EXPECT_FALSE(library_loaded(project_ / "lib" / "libplugin_helper.so"));
}

TEST_F(PluginSetup, AProjectPluginNeedingARelativeLibraryPathIsRefused) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  hookbus::testing::write_file(directory / "needs_relative.so",
                               hookbus::testing::elf_image({"lib/libplugin_helper.so"}, std::nullopt).bytes, 0755);
  const hookbus::detail::PluginLibraries libraries(project_, directory, nullptr);
  EXPECT_THAT(libraries.why_not_load(directory / "needs_relative.so"),
              ::testing::Optional(AllOf(HasSubstr("needs 'lib/libplugin_helper.so' (DT_NEEDED), a relative path"),
                                        HasSubstr("the engine's working directory"))));
}

// DT_RPATH is searched for the libraries of the libraries it loads too (the
// system's, which hookbus does not read): it could load any file of the
// plugin directory, not only those checked.
TEST_F(PluginSetup, AProjectPluginWhoseDtRpathLeadsIntoItsPluginDirectoryIsRefusedNamingTheFix) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  place("uses_library_by_rpath", directory);
  place_helper(directory / "lib");
  trust();
  hookbus::Installation installation = install();
  EXPECT_TRUE(installation.plugins.empty());
  EXPECT_THAT(report_of(installation, "uses_library_by_rpath.so").reason,
              AllOf(HasSubstr("'$ORIGIN/lib' (DT_RPATH)"), HasSubstr("-Wl,--enable-new-dtags")));
}

TEST_F(PluginSetup, AProjectPluginsLibraryOthersCanWriteIsRefused) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  place("uses_library", directory);
  place_helper(directory / "lib");
  ::chmod((directory / "lib" / "libplugin_helper.so").c_str(), 0777);
  trust();
  hookbus::Installation installation = install();
  EXPECT_TRUE(installation.plugins.empty());
  EXPECT_THAT(report_of(installation, "uses_library.so").reason,
              AllOf(HasSubstr("would load 'libplugin_helper.so' as " + (directory / "lib" / "libplugin_helper.so").string()),
                    HasSubstr("writable by group or others")));
}

TEST_F(PluginSetup, AProjectPluginThatIsNotAnElfSharedLibraryIsRefusedBeforeTheLoaderReadsIt) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  hookbus::testing::write_file(directory / "broken.so", "#!/bin/sh\necho not a library\n", 0755);
  trust();
  hookbus::Installation installation = install();
  EXPECT_THAT(report_of(installation, "broken.so").reason,
              AllOf(HasSubstr("cannot be read as the dynamic loader reads it"), HasSubstr("is not an ELF file")));
}

TEST_F(PluginSetup, AWorkspacesPluginWithARelativeRunPathIsRefused) {
  const fs::path workspace = locations_.user / "workspaces" / "ops";  // the user's own: no trust needed
  place("uses_relative_library", workspace / "plugins");
  hookbus::Workspaces workspaces(hooks_, {.locations = locations_});
  const hookbus::SetupReport report = workspaces.activate("ops", workspace);
  ASSERT_EQ(report.plugins.size(), 1u);
  EXPECT_FALSE(report.plugins[0].loaded);
  EXPECT_THAT(report.plugins[0].reason, HasSubstr("the run path entry 'lib' (DT_RUNPATH), which is relative"));
}

// setup() fingerprints the project, then loads its plugins: a library changed
// in between is not what was trusted, and keeps the plugin unloaded.
TEST_F(PluginSetup, AProjectPluginsLibraryChangedSinceTheFingerprintKeepsThePluginUnloaded) {
  const fs::path directory = locations_.plugin_directory(hookbus::Layer::project);
  place("uses_library", directory);
  place_helper(directory / "lib");
  const hookbus::ProjectFiles files{project_, {}, {directory}};
  const hookbus::TrustedFiles trusted(files, hookbus::fingerprint(files));
  place_helper(directory / "lib", true);
  const hookbus::detail::PluginLibraries libraries(project_, directory, &trusted);
  EXPECT_THAT(libraries.why_not_load(directory / "uses_library.so"),
              ::testing::Optional(AllOf(HasSubstr("would load 'libplugin_helper.so'"), HasSubstr("changed content"),
                                        HasSubstr("hookctl trust"))));
}

TEST_F(PluginSetup, AUsersPluginLoadsItsLibrariesWhereverTheyAre) {
  place("uses_vendor_library", locations_.plugin_directory(hookbus::Layer::user));
  place_helper(dir_ / "vendor" / "lib");  // $ORIGIN/../../vendor/lib of user/plugins/
  hookbus::Installation installation = install();
  ASSERT_EQ(installation.plugins.size(), 1u) << report_of(installation, "uses_vendor_library.so").reason;
}

// ------------------------------------------------------- the ELF reader

TEST(ElfDynamic, ReadsTheLibrariesAndTheRunPathOfABuiltPlugin) {
  const hookbus::detail::ElfDynamic dynamic =
      hookbus::detail::read_elf_dynamic(fs::path(HOOKBUS_TEST_PLUGINS) / "uses_library.so");
  EXPECT_THAT(dynamic.needed, ::testing::Contains("libplugin_helper.so"));
  EXPECT_THAT(dynamic.runpath, ElementsAre("$ORIGIN/lib"));
  EXPECT_TRUE(dynamic.rpath.empty());
  EXPECT_THAT(hookbus::detail::read_elf_dynamic(fs::path(HOOKBUS_TEST_PLUGINS) / "uses_library_by_rpath.so").rpath,
              ElementsAre("$ORIGIN/lib"));
}

namespace elf {

hookbus::detail::ElfDynamic read(const std::string& bytes) {
  return hookbus::detail::read_elf_dynamic(
      [&](std::uint64_t offset, std::size_t size) {
        return offset >= bytes.size() ? std::string() : bytes.substr(offset, size);
      },
      4096);
}

std::string error(const std::string& bytes) {
  try {
    (void)read(bytes);
  } catch (const hookbus::detail::ElfError& e) {
    return e.what();
  }
  return "read";
}

}  // namespace elf

// As the loader: an empty entry is the working directory; DT_RPATH counts only without DT_RUNPATH.
TEST(ElfDynamic, ReadsEveryNeededLibraryAndSplitsTheRunPathKeepingEmptyEntries) {
  const auto image = hookbus::testing::elf_image({"liba.so", "$ORIGIN/b.so"}, "/x::$ORIGIN/lib", "/ignored");
  EXPECT_EQ(elf::read(image.bytes), (hookbus::detail::ElfDynamic{{"liba.so", "$ORIGIN/b.so"}, {}, {"/x", "", "$ORIGIN/lib"}}));
  const auto only_rpath = hookbus::testing::elf_image({}, std::nullopt, "/r");
  EXPECT_EQ(elf::read(only_rpath.bytes).rpath, std::vector<std::string>{"/r"});
}

// The loader reads the dynamic section at its address, through the loadable
// segments: a file offset that says otherwise does not fool the reader.
TEST(ElfDynamic, ReadsTheDynamicSectionAtItsAddressNotAtAFileOffsetThatDisagrees) {
  auto image = hookbus::testing::elf_image({"liba.so"}, "$ORIGIN");
  image.put<Elf64_Off>(image.dynamic_header + offsetof(Elf64_Phdr, p_offset), 0);
  EXPECT_EQ(elf::read(image.bytes), (hookbus::detail::ElfDynamic{{"liba.so"}, {}, {"$ORIGIN"}}));
}

TEST(ElfDynamic, RefusesWhatIsNotASixtyFourBitLittleEndianSharedObject) {
  EXPECT_THAT(elf::error("#!/bin/sh\n"), HasSubstr("is not an ELF file"));
  auto thirty_two = hookbus::testing::elf_image({}, std::nullopt);
  thirty_two.bytes[EI_CLASS] = ELFCLASS32;
  EXPECT_THAT(elf::error(thirty_two.bytes), HasSubstr("64-bit little-endian"));
  auto big_endian = hookbus::testing::elf_image({}, std::nullopt);
  big_endian.bytes[EI_DATA] = ELFDATA2MSB;
  EXPECT_THAT(elf::error(big_endian.bytes), HasSubstr("64-bit little-endian"));
  auto executable = hookbus::testing::elf_image({}, std::nullopt);
  executable.put<Elf64_Half>(offsetof(Elf64_Ehdr, e_type), ET_EXEC);
  EXPECT_THAT(elf::error(executable.bytes), HasSubstr("is not a shared object"));
}

TEST(ElfDynamic, RefusesWhatLiesOutsideTheFileOrItsSegments) {
  const auto image = hookbus::testing::elf_image({"liba.so"}, std::nullopt);
  EXPECT_THAT(elf::error(image.bytes.substr(0, 100)), HasSubstr("program headers lie past the end of the file"));
  auto far_dynamic = image;
  far_dynamic.put<Elf64_Addr>(image.dynamic_header + offsetof(Elf64_Phdr, p_vaddr), 1u << 20);
  EXPECT_THAT(elf::error(far_dynamic.bytes), HasSubstr("the dynamic section at 0x100000 is not in the file part"));
  auto unterminated = image;
  unterminated.bytes.back() = 'x';  // the last string's end
  EXPECT_THAT(elf::error(unterminated.bytes), HasSubstr("has no end"));
  auto truncated = image;
  truncated.put<Elf64_Xword>(image.load_header + offsetof(Elf64_Phdr, p_filesz), image.bytes.size() + 4096);
  truncated.put<Elf64_Xword>(image.load_header + offsetof(Elf64_Phdr, p_memsz), image.bytes.size() + 4096);
  truncated.put<Elf64_Addr>(image.dynamic_header + offsetof(Elf64_Phdr, p_vaddr), image.bytes.size() + 16);
  EXPECT_THAT(elf::error(truncated.bytes), HasSubstr("lies past the end of the file"));
}

// Where two segments share a page, the loader maps the later over the earlier:
// which bytes an address holds would be a guess.
TEST(ElfDynamic, RefusesSegmentsThatOverlapOrAreOutOfOrder) {
  auto image = hookbus::testing::elf_image({"liba.so"}, std::nullopt);
  const Elf64_Phdr overlapping{PT_LOAD, PF_R, 0x100, 0x100, 0x100, 0x10, 0x10, 0x1000};
  image.put(image.spare_header, overlapping);
  EXPECT_THAT(elf::error(image.bytes), HasSubstr("overlap or are out of order"));
}

TEST(ElfDynamic, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo.so").c_str(), 0644), 0);
  EXPECT_THROW((void)hookbus::detail::read_elf_dynamic(dir / "fifo.so"), hookbus::detail::ElfError);
}

}  // namespace
