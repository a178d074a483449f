#pragma once
// Starting a process from a test: util::run_process, with Wine's own start failures tried again
// so that a crowded test run under Wine does not fail a test that is not about starting.

#include <chrono>
#include <thread>

#include "aitk/util/subprocess.hpp"

namespace aitk::test {

// util::run_process, tried again when Wine refuses to start a process for lack of handles:
// with eight test processes starting at once its CreateProcess has failed with
// ERROR_TOO_MANY_OPEN_FILES (4) under a 20000-file limit, and the same test passed alone. Real
// Windows never answers so for three handles; any other start error is returned at once (Wine's
// ERROR_INTERNAL_ERROR is tried again by run_process itself, for aitk-env's own children too).
inline bool is_wine_start_hiccup(int os_error) {
    constexpr int too_many_open_files = 4;
    return os_error == too_many_open_files;
}

inline util::Expected<util::ProcessResult, util::ProcessStartError> run_process_for_test(
    const util::ProcessRequest& request) {
    auto result = util::run_process(request);
#ifdef _WIN32
    for (int attempt = 1; attempt < 4 && !result && is_wine_start_hiccup(result.error().os_error);
         ++attempt) {
        std::this_thread::sleep_for(std::chrono::seconds(attempt));
        result = util::run_process(request);
    }
#endif
    return result;
}

}  // namespace aitk::test
