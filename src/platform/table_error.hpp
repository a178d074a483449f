#pragma once
// What the readers of the hardware tables (manifests/*.yaml) report: one message that names the
// file, the row and the field.
#include <string>

namespace aitk::platform::detail {

struct TableError {
    std::string message;
};

}  // namespace aitk::platform::detail
