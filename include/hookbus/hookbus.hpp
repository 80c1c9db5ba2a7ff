#pragma once
// Umbrella header: the whole public API of hookbus but <hookbus/reflect.hpp>
// (reflection over the catalogue, for tools that walk it: include it on its
// own). It is the costliest of hookbus's headers to compile: the catalogue with
// Boost.Describe and Boost.JSON's values, fmt, <filesystem>, and the setup,
// trust, config and external-hook API. A file that only registers handlers and
// emits includes <hookbus/hooks.hpp> instead. What none of them holds is the
// bus's machinery (Boost.Signals2, the reducers) and the definitions of the
// JSON and formatting templates: those are compiled once, in the library.

// The catalogue: payload types, results, events, names and aliases.
#include <hookbus/errors.hpp>
#include <hookbus/events.hpp>
#include <hookbus/names.hpp>
#include <hookbus/catalogue.hpp>
#include <hookbus/results.hpp>
#include <hookbus/types.hpp>

// Wire format and one-line rendering.
#include <hookbus/format.hpp>
#include <hookbus/json.hpp>

// The bus and its rules.
#include <hookbus/connection.hpp>
#include <hookbus/handler_policy.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/approvals.hpp>
#include <hookbus/wrap.hpp>
#include <hookbus/log.hpp>
#include <hookbus/tool_matcher.hpp>
#include <hookbus/trace.hpp>

// External hooks (hookbus's protocol and Claude Code's), configuration and built-in hooks.
#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>
#include <hookbus/context_swap.hpp>
#include <hookbus/discovery.hpp>
#include <hookbus/external.hpp>
#include <hookbus/install_builtins.hpp>
#include <hookbus/process.hpp>
#include <hookbus/co_process.hpp>
#include <hookbus/claude_code.hpp>
#include <hookbus/trace_options.hpp>
#include <hookbus/tracer.hpp>

// Layers, trust, plugins and the one-call engine setup.
#include <hookbus/layer.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/network.hpp>
#include <hookbus/plugin.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>
#include <hookbus/workspace.hpp>

// The version of the library the program runs with.
#include <hookbus/version.hpp>
