#include "setup_binding.hpp"

#include "bus_binding.hpp"
#include "convert.hpp"
#include "gil.hpp"

#include <hookbus/config.hpp>
#include <hookbus/enum_names.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <fmt/format.h>

#include <filesystem>
#include <string>

namespace hookbus::python {
namespace {

namespace py = pybind11;

py::list strings(const std::vector<std::string>& values) {
  py::list list;
  for (const std::string& value : values) list.append(value);
  return list;
}

std::string_view state_name(ConfigFileState::State state) {
  switch (state) {
    case ConfigFileState::State::absent: return "absent";
    case ConfigFileState::State::applied: return "applied";
    case ConfigFileState::State::not_applied: return "not_applied";
  }
  return "absent";
}

// A trust state as an identifier (trust_state_name() is for people).
std::string_view state_name(TrustState state) {
  switch (state) {
    case TrustState::nothing_to_trust: return "nothing_to_trust";
    case TrustState::trusted: return "trusted";
    case TrustState::untrusted: return "untrusted";
    case TrustState::changed: return "changed";
    case TrustState::trusted_by_policy: return "trusted_by_policy";
    case TrustState::ignored_by_policy: return "ignored_by_policy";
    case TrustState::store_unusable: return "store_unusable";
  }
  return "untrusted";
}

// The report as Python sees it: dicts and lists of what setup() did and why
// (docs/python.md, "setup()").
py::dict report_of(const SetupReport& report) {
  py::dict trust;
  trust["state"] = std::string(state_name(report.trust.state));
  trust["project"] = report.trust.project.string();
  trust["message"] = report.trust.message;
  py::list config_files;
  for (const ConfigFileState& file : report.config_files)
    config_files.append(py::dict(py::arg("layer") = std::string(layer_name(file.layer)),
                                 py::arg("file") = file.file.string(),
                                 py::arg("state") = std::string(state_name(file.state)), py::arg("note") = file.note));
  py::list hooks;
  for (const InstallReport::Installed& hook : report.hooks.installed)
    hooks.append(py::dict(py::arg("name") = hook.name, py::arg("layer") = std::string(layer_name(hook.layer)),
                          py::arg("path") = hook.path.string(), py::arg("events") = strings(hook.events),
                          py::arg("protocol") = std::string(hook_protocol_name(hook.protocol)),
                          py::arg("source") = hook.source));
  py::list not_installed;
  for (const InstallReport::NotInstalled& hook : report.hooks.not_installed)
    not_installed.append(py::dict(py::arg("name") = hook.name, py::arg("layer") = std::string(layer_name(hook.layer)),
                                  py::arg("path") = hook.path.string(), py::arg("reason") = hook.reason,
                                  py::arg("protocol") = std::string(hook_protocol_name(hook.protocol))));
  py::list refusing;
  for (const InstallReport::Refusing& hook : report.hooks.refusing)
    refusing.append(py::dict(py::arg("name") = hook.name, py::arg("events") = strings(hook.events),
                             py::arg("reason") = hook.reason));
  py::list plugins;
  for (const PluginReport& plugin : report.plugins)
    plugins.append(py::dict(py::arg("layer") = std::string(layer_name(plugin.layer)),
                            py::arg("file") = plugin.file.string(), py::arg("name") = plugin.name,
                            py::arg("loaded") = plugin.loaded, py::arg("reason") = plugin.reason));
  py::list builtins;
  for (const BuiltinReport& builtin : report.builtins)
    builtins.append(py::dict(py::arg("layer") = std::string(layer_name(builtin.layer)),
                             py::arg("file") = builtin.file.string(), py::arg("name") = builtin.name,
                             py::arg("installed") = builtin.installed, py::arg("reason") = builtin.reason));
  py::dict dict;
  dict["trust"] = trust;
  dict["config_files"] = config_files;
  dict["hooks"] = hooks;
  dict["not_installed"] = not_installed;
  dict["refusing"] = refusing;
  dict["plugins"] = plugins;
  dict["builtins"] = builtins;
  dict["warnings"] = strings(report.warnings);
  return dict;
}

// hookbus.Installation: everything setup() installed, until Python drops it
// (or uninstall(), or the end of a `with` block), unless kept.
class PyInstallation {
 public:
  PyInstallation(Owned<Installation> installation, py::dict report)
      : installation_(std::move(installation)), report_(std::move(report)) {}

  const py::dict& report() const noexcept { return report_; }
  void uninstall() {
    const GilReleasedIfHeld released;  // hooks' processes are stopped, plugins unloaded
    installation_->connections.disconnect();
  }
  void keep() { installation_.keep(); }
  void wait_background() {
    const GilReleasedIfHeld released;
    installation_->background.wait();
  }

 private:
  Owned<Installation> installation_;
  py::dict report_;
};


}  // namespace

void bind_setup(py::module_& module) {
  py::class_<PyInstallation>(module, "Installation",
                             "What setup() installed. It is uninstalled when Python collects it, unless keep() was "
                             "called; a `with` block uninstalls at its end.")
      .def_property_readonly("report", &PyInstallation::report)
      .def("uninstall", &PyInstallation::uninstall)
      .def("keep", &PyInstallation::keep, "Keeps what setup() installed for the bus's lifetime.")
      .def("wait_background", &PyInstallation::wait_background, "Waits for the async hooks' runs in the background.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyInstallation& self, const py::args&) { self.uninstall(); });

  module.def(
      "setup",
      [](PyHooks& hooks, const std::filesystem::path& project_dir, const std::string& project_trust, bool trace,
         bool query_cache) {
        SetupOptions options;
        options.project_dir = project_dir;
        options.project_trust = enum_option<ProjectTrustPolicy>("project_trust", project_trust);
        options.trace = trace;
        options.query_cache = query_cache;
        std::optional<Installation> installation;
        {
          const GilReleasedIfHeld released;  // it asks hooks what they hook, which runs them
          installation.emplace(setup(hooks.hooks(), options));
        }
        py::dict report = report_of(installation->report);
        return PyInstallation(hooks.own(std::move(*installation)), std::move(report));
      },
      py::arg("hooks"), py::kw_only(), py::arg("project_dir") = std::filesystem::path(),
      py::arg("project_trust") = "require", py::arg("trace") = true, py::arg("query_cache") = true,
      "Reads every layer's config, decides the project's trust, and installs the built-ins, plugins, external hooks "
      "and other agents' hooks it may, as hookbus::setup() does (docs/python.md).");
}

}  // namespace hookbus::python
