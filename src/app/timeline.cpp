#include "aitk/app/timeline.hpp"

#include <cstdio>
#include <utility>

namespace aitk::app {
namespace {

std::string seconds_text(double s) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", s);
    return buffer;
}

std::string span_text(const Span& span) {
    return seconds_text(span.start) + "-" + seconds_text(span.end) + " s";
}

}  // namespace

const WheelTimes* SyncTimeline::critical() const {
    const WheelTimes* last = nullptr;
    for (const auto& wheel : wheels) {
        if (wheel.link.ran() && (last == nullptr || wheel.link.end > last->link.end)) {
            last = &wheel;
        }
    }
    return last;
}

std::string SyncTimeline::describe() const {
    std::string stages;
    const std::pair<const char*, const Span*> named[] = {
        {"plan", &plan}, {"build", &build},   {"fetch", &fetch},       {"unpack", &unpack},
        {"link", &link}, {"commit", &commit}, {"bytecode", &bytecode},
    };
    for (const auto& [name, span] : named) {
        if (!span->ran()) continue;
        stages += stages.empty() ? "" : ", ";
        stages += std::string(name) + " " + span_text(*span);
    }
    if (stages.empty()) return {};
    std::string text = "time     " + stages + "\n";
    if (const WheelTimes* wheel = critical()) {
        text +=
            "critical " + wheel->label + ": in the cache at " + seconds_text(wheel->fetched) + " s";
        if (wheel->unpack.ran()) {
            text += ", unpacked " + span_text(wheel->unpack) + " (" +
                    seconds_text(wheel->unpack.seconds()) + " s)";
        }
        text += ", linked " + span_text(wheel->link) + " (" + seconds_text(wheel->link.seconds()) +
                " s)\n";
    }
    return text;
}

TimelineRecorder::TimelineRecorder(std::shared_ptr<net::Clock> clock)
    : clock_(clock ? std::move(clock) : net::system_clock()), origin_(clock_->now()) {}

double TimelineRecorder::now() const {
    return std::chrono::duration<double>(clock_->now() - origin_).count();
}

void TimelineRecorder::begin(Span SyncTimeline::*stage) {
    const double t = now();
    std::lock_guard lock(mutex_);
    (timeline_.*stage).start = t;
}

void TimelineRecorder::end(Span SyncTimeline::*stage) {
    const double t = now();
    std::lock_guard lock(mutex_);
    (timeline_.*stage).end = t;
}

void TimelineRecorder::cover(Span SyncTimeline::*stage, double start) {
    const double t = now();
    std::lock_guard lock(mutex_);
    Span& span = timeline_.*stage;
    if (span.start < 0 || start < span.start) span.start = start;
    if (t > span.end) span.end = t;
}

void TimelineRecorder::wheels(std::vector<std::string> labels) {
    std::lock_guard lock(mutex_);
    timeline_.wheels.clear();
    for (auto& label : labels)
        timeline_.wheels.push_back({std::move(label), -1, {}, {}});
}

void TimelineRecorder::fetched(std::size_t wheel) {
    const double t = now();
    std::lock_guard lock(mutex_);
    if (wheel < timeline_.wheels.size()) timeline_.wheels[wheel].fetched = t;
}

void TimelineRecorder::unpacked(std::size_t wheel, double start) {
    const double t = now();
    std::lock_guard lock(mutex_);
    if (wheel < timeline_.wheels.size()) timeline_.wheels[wheel].unpack = {start, t};
}

void TimelineRecorder::linked(std::size_t wheel, double start) {
    const double t = now();
    std::lock_guard lock(mutex_);
    if (wheel < timeline_.wheels.size()) timeline_.wheels[wheel].link = {start, t};
}

SyncTimeline TimelineRecorder::take() {
    std::lock_guard lock(mutex_);
    return std::move(timeline_);
}

Stopwatch::Stopwatch(std::shared_ptr<net::Clock> clock)
    : clock_(clock ? std::move(clock) : net::system_clock()), last_(clock_->now()) {}

void Stopwatch::mark(std::string stage) {
    const auto now = clock_->now();
    stages_.emplace_back(std::move(stage), std::chrono::duration<double>(now - last_).count());
    last_ = now;
}

std::string Stopwatch::describe() const {
    std::string text;
    for (const auto& [stage, seconds] : stages_) {
        text += text.empty() ? "" : ", ";
        text += stage + " " + seconds_text(seconds) + " s";
    }
    return text;
}

}  // namespace aitk::app
