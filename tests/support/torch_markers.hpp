#pragma once
// Markers that the stand-in torch wheels of the test indexes carry, as the real ones do.
#include <string>

namespace aitk::test {

// torch's Linux-x86_64-only dependencies (triton, the nvidia-* wheels).
inline const std::string linux_x86_marker =
    "platform_system == \"Linux\" and platform_machine == \"x86_64\"";

}  // namespace aitk::test
