#include <hookbus/catalogue.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>

namespace hookbus {
namespace {

namespace json = boost::json;
using namespace hookbus::reflect;

template <class T>
std::vector<std::string_view> wire_values() {
  if constexpr (is_optional_v<T>) return wire_values<typename T::value_type>();
  else if constexpr (DescribedEnum<T>) return enum_wire_names<T>();
  else return {};
}

template <DescribedStruct T>
std::vector<FieldDescription> fields_of() {
  std::vector<FieldDescription> fields;
  boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
    using Member = std::remove_cvref_t<decltype(std::declval<T&>().*member.pointer)>;
    fields.push_back({member.name, type_display_name<Member>(), wire_values<Member>()});
  });
  return fields;
}

std::vector<std::string_view> aliases_of(std::string_view name) {
  std::vector<std::string_view> aliases;
  for (const EventAlias& alias : event_aliases())
    if (alias.name == name) aliases.push_back(alias.alias);
  return aliases;
}

json::array fields_json(const std::vector<FieldDescription>& fields) {
  json::array array;
  for (const FieldDescription& field : fields) {
    json::object object{{"name", field.name}, {"type", field.type}};
    if (!field.values.empty()) object["values"] = json::array(field.values.begin(), field.values.end());
    array.push_back(std::move(object));
  }
  return array;
}

}  // namespace

std::vector<EventDescription> describe_catalogue() {
  std::vector<EventDescription> events;
  for_each_type<HookEvent>([&]<class E>(std::type_identity<E>) {
    EventDescription event{.name = E::type, .index = event_index<E>, .reduction = reduction_of<E>,
                           .closing = is_closing<E>, .aliases = aliases_of(E::type), .fields = fields_of<E>()};
    if constexpr (EventWithResult<E>) {
      event.result = type_display_name<result_t<E>>();
      event.result_fields = fields_of<result_t<E>>();
    }
    events.push_back(std::move(event));
  });
  return events;
}

json::value to_json(const EventDescription& event) {
  json::array aliases(event.aliases.begin(), event.aliases.end());
  return json::object{{"name", event.name},
                      {"reduction", enum_wire_name(event.reduction).value_or("?")},
                      {"closing", event.closing},
                      {"aliases", std::move(aliases)},
                      {"fields", fields_json(event.fields)},
                      {"result", event.result ? json::value(*event.result) : json::value(nullptr)},
                      {"result_fields", fields_json(event.result_fields)}};
}

}  // namespace hookbus
