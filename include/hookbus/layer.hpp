#pragma once
// Layers: where hooks, plugins and configuration come from, and how far each
// source is trusted. docs/security.md explains the model; config.hpp merges the
// layers' configuration, trust.hpp decides whether a project's layer may run.
//
//   managed  a system directory (/etc/hookbus/), written by an administrator
//   user     $XDG_CONFIG_HOME/hookbus/ (~/.config/hookbus/), the user's own
//   project  <project>/.hookbus/ (and <project>/.claude/settings.json when the
//            Claude Code import is on): comes with a repository, so it runs
//            only once the user trusted the project
//   local    <project>/.hookbus/config.local.json (and .claude/settings.local.json):
//            the user's own uncommitted settings for one project
//
// A less trusted layer never shadows, disables, weakens or reorders a more
// trusted layer's hooks or built-ins: hooks of the same name in two layers are
// two hooks, and both run, the more trusted first.

#include <boost/describe/enum.hpp>

namespace hookbus {

// Most trusted first; the order hooks run in.
enum class Layer { managed, user, project, local };
BOOST_DESCRIBE_ENUM(Layer, managed, user, project, local)

inline constexpr Layer all_layers[] = {Layer::managed, Layer::user, Layer::project, Layer::local};

// The layers ranked for security, most trusted first: the local layer holds
// the user's own settings for one project, so it outranks the project's.
inline constexpr Layer layers_by_trust[] = {Layer::managed, Layer::user, Layer::local, Layer::project};

// Whether `a` ranks above `b` in layers_by_trust.
constexpr bool more_trusted(Layer a, Layer b) noexcept {
  for (const Layer layer : layers_by_trust) {
    if (layer == b) return false;
    if (layer == a) return true;
  }
  return false;
}

// True for the layers a project brings: they run only in a trusted project.
constexpr bool is_project_layer(Layer layer) noexcept { return layer == Layer::project || layer == Layer::local; }

// Whether settings written in layer `writer` may change hooks and built-ins of
// layer `owner`: a layer governs itself and every less trusted layer. The
// local layer holds the user's own settings for one project, so it also
// governs the project layer, but never the user or managed ones.
constexpr bool governs(Layer writer, Layer owner) noexcept {
  if (writer == Layer::local) return owner == Layer::project || owner == Layer::local;
  return static_cast<int>(writer) <= static_cast<int>(owner);
}

}  // namespace hookbus
