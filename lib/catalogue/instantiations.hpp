#pragma once
// Internal: the one way the library instantiates its templates for every
// catalogue type without naming the types. A table of the instantiations'
// addresses, kept in the caller's object file by [[gnu::used]], makes the
// compiler emit each of them there; the lists are the variants (HookEvent,
// reflect::CatalogueTypes<>), so a new event or result is covered without an edit:
//
//   [[gnu::used]] constexpr auto instantiated_conversions =  // a name of its own: sources may share a unity batch
//       addresses_for<CatalogueTypes<>>([]<class T>(std::type_identity<T>) { return &to_json<T>; });
//
// Every file that instantiates for the catalogue checks here, at compile
// time, that the catalogue's descriptions are whole (descriptions.hpp): the
// check cannot drop out of the build while JSON and format_line are in it.

#include "catalogue/descriptions.hpp"

#include <tuple>
#include <type_traits>

namespace hookbus::detail {

static_assert(catalogue_is_fully_described<HookEvent>());

template <class List> struct each_type_of;
template <template <class...> class List, class... Ts>
struct each_type_of<List<Ts...>> {
  template <class Addresses>
  static constexpr auto addresses(Addresses addresses_of) {
    return std::tuple{addresses_of(std::type_identity<Ts>{})...};
  }
};

// addresses_of(std::type_identity<T>{}) for each T of List (a variant or a tuple), as one tuple.
template <class List, class Addresses>
constexpr auto addresses_for(Addresses addresses_of) {
  return each_type_of<List>::addresses(addresses_of);
}

}  // namespace hookbus::detail
