#pragma once
// Umbrella header: the whole public API of hookbus.

#include <hookbus/errors.hpp>
#include <hookbus/events.hpp>
#include <hookbus/format.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/results.hpp>
#include <hookbus/types.hpp>
