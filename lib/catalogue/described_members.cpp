// Compile-time only: every described struct of the catalogue (events, results,
// shared value types) describes all its members (described_members.hpp).
#include "catalogue/described_members.hpp"

#include <hookbus/reflect.hpp>

#include <boost/mp11/algorithm.hpp>

namespace hookbus::detail {
namespace {

template <class T>
using is_described_struct = std::bool_constant<reflect::DescribedStruct<T>>;
using DescribedCatalogueStructs = boost::mp11::mp_filter<is_described_struct, reflect::CatalogueTypes>;

static_assert(each_describes_every_member(static_cast<DescribedCatalogueStructs*>(nullptr)));
static_assert(std::tuple_size_v<DescribedCatalogueStructs> > event_count, "events, results and value types are checked");

}  // namespace
}  // namespace hookbus::detail
