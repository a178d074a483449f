// Fuzzes the `pep batch` request path end to end: arbitrary bytes as JSON lines through
// app::pep_batch. Every line must be answered; nothing may throw or crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "aitk/app/pep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    std::ostringstream out;
    (void)aitk::app::pep_batch(in, out);
    return 0;
}
