// The catalog's lookups: the one place that finds hardware by name. The
// entries themselves are in catalog_accelerators.cc and catalog_systems.cc.

#include "hw/catalog.h"

#include <fmt/format.h>

#include "core/error.h"
#include "hw/catalog_data.h"

namespace anatomy::hw {
namespace {

template <typename T>
std::string names_of(const std::vector<T>& items) {
  std::string known;
  for (const auto& i : items) known += (known.empty() ? "" : ", ") + i.name;
  return known;
}

template <typename T>
const T& find_named(const std::vector<T>& items, std::string_view name, std::string_view what) {
  for (const auto& i : items)
    if (i.name == name) return i;
  throw core::InputError(fmt::format("unknown {} '{}' (known: {})", what, std::string(name), names_of(items)));
}

}  // namespace

const std::vector<Accelerator>& accelerators() {
  static const std::vector<Accelerator> kAll = detail::make_accelerators();
  return kAll;
}

const std::vector<System>& systems() {
  static const std::vector<System> kAll = detail::make_systems();
  return kAll;
}

const Accelerator& find_accelerator(std::string_view name) { return find_named(accelerators(), name, "accelerator"); }
const System& find_system(std::string_view name) { return find_named(systems(), name, "system"); }

const Accelerator* accelerator_named_in(std::string_view text) {
  const Accelerator* best = nullptr;
  for (const auto& a : accelerators())
    if (text.find(a.name) != std::string_view::npos && (!best || a.name.size() > best->name.size())) best = &a;
  return best;
}

std::string accelerator_names() { return names_of(accelerators()); }

}  // namespace anatomy::hw
