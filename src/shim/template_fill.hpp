#pragma once
// Placeholders in the shim templates: @NAME@ (capital letters, digits, '_') is replaced by
// values[NAME] in one pass, so a value that happens to contain "@X@" is never expanded again.
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace aitk::shim::detail {

using TemplateValues = std::map<std::string, std::string, std::less<>>;

// `text` with every known placeholder filled; unknown ones are left as they are (the tests
// assert that no rendered shim keeps one).
std::string fill_template(std::string_view text, const TemplateValues& values);

}  // namespace aitk::shim::detail
