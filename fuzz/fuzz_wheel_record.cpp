// Fuzzes the wheel metadata the installer reads: RECORD (CSV) and entry_points.txt, and checks
// that a parsed RECORD written back parses to the same rows.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aitk/install/entry_points.hpp"
#include "aitk/install/record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto rows = aitk::install::parse_record(text)) {
        for (const auto& row : *rows) {
            (void)aitk::install::record_path_problem(row.path);
            if (row.hash.empty()) continue;
            // Rows without a hash are written without a size; the rest must round-trip.
            auto again = aitk::install::parse_record(aitk::install::format_record({row}));
            if (!again || again->size() != 1 || (*again)[0].path != row.path ||
                (*again)[0].hash != row.hash || (*again)[0].size != row.size) {
                __builtin_trap();
            }
        }
    }
    if (auto entry_points = aitk::install::parse_entry_points(text)) {
        for (const auto& ep : *entry_points) {
            (void)aitk::install::parse_script_target(ep.value);
            (void)aitk::install::is_valid_script_name(ep.name);
        }
    }
    return 0;
}
