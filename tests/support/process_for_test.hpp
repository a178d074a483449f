#pragma once
// Starting a process from a test: util::run_process, with Wine's own start failures tried again
// so that a crowded test run under Wine does not fail a test that is not about starting.

#include <chrono>
#include <thread>

#include "aitk/util/subprocess.hpp"

namespace aitk::test {

// util::run_process, tried again when Wine fails to start a process for a reason of its own.
// With eight test processes starting at once its CreateProcess has failed with
// ERROR_TOO_MANY_OPEN_FILES (4) under a 20000-file limit, and with ERROR_INTERNAL_ERROR (1359):
// Wine 8's NtCreateUserProcess answers so when the new Unix process ends before it reports in
// (dlls/ntdll/unix/process.c, get_new_process_info without success or exit code). Both times
// the same test passed alone. Real Windows never answers so for a plain executable; any other
// start error is returned at once.
inline bool is_wine_start_hiccup(int os_error) {
    constexpr int too_many_open_files = 4;
    constexpr int internal_error = 1359;
    return os_error == too_many_open_files || os_error == internal_error;
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
