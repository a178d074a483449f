#pragma once
// What one detection source did: answered, was not there, failed, or ran out of time. Doctor
// shows these so a user sees why, say, NVML was skipped and nvidia-smi answered.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::platform {

enum class AttemptOutcome : std::uint8_t {
    answered,   // the source gave an answer
    absent,     // the source is not on this machine (no library, no file, no program)
    failed,     // present but it failed (error code, bad output, crash)
    timed_out,  // present but it did not answer in time; it was abandoned or killed
    skipped,    // not tried (an override or an earlier source made it unnecessary)
};

std::string_view outcome_name(AttemptOutcome outcome) noexcept;  // "answered", "absent", ...

struct ProbeAttempt {
    std::string source;  // "nvml", "libcuda", "sysfs", "procfs", "nvidia-smi", "kfd", ...
    AttemptOutcome outcome = AttemptOutcome::absent;
    std::string detail;  // what was tried and what came back, in words
    friend bool operator==(const ProbeAttempt&, const ProbeAttempt&) = default;
};

// One source's result: the value when it answered, the outcome and the detail always.
template <class T>
struct SourceResult {
    AttemptOutcome outcome = AttemptOutcome::absent;
    std::string detail;
    std::optional<T> value;

    static SourceResult answer(T v, std::string detail) {
        return SourceResult{AttemptOutcome::answered, std::move(detail), std::move(v)};
    }
    static SourceResult none(AttemptOutcome outcome, std::string detail) {
        return SourceResult{outcome, std::move(detail), std::nullopt};
    }
};

}  // namespace aitk::platform
