// Fuzzes the lockfile reader: any input either gives a located problem or a lockfile that
// writes out as text the reader takes again and that writes out identically (a lockfile read
// from a hand-edited file may still carry credentials, which the first write drops, so the
// check starts from the first written text). Also exercises the pip section of each target.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "aitk/lock/lockfile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace aitk::lock;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto lock = parse_lockfile(text, "fuzz.lock.yml");
    if (!lock) {
        if (lock.error().message.empty()) std::abort();
        return 0;
    }
    for (const auto& target : lock->targets)
        (void)pip_section(*lock, target);
    const std::string written = write_lockfile(*lock);
    const auto again = parse_lockfile(written, "written.lock.yml");
    if (!again) std::abort();
    if (write_lockfile(*again) != written) std::abort();
    return 0;
}
