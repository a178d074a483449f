#pragma once
// Where a sync's time went, for `-v`: the span of each stage and, per wheel, when it was in the
// cache, when it was unpacked and when it was linked into the prefix's staging, in seconds from
// the start of the sync as the session's clock tells them. The critical path is the wheel whose
// link ended last: what it waited on (its download, its unpack, its link) is what a faster
// setup has to shorten.
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "aitk/net/clock.hpp"

namespace aitk::app {

struct Span {
    double start = -1;  // seconds from the timeline's start; -1: never began
    double end = -1;
    bool ran() const noexcept { return start >= 0 && end >= start; }
    double seconds() const noexcept { return ran() ? end - start : 0; }
};

struct WheelTimes {
    std::string label;    // the wheel's file name
    double fetched = -1;  // in the cache (downloaded, or there already)
    Span unpack;          // not run when the cache had the tree
    Span link;
};

struct SyncTimeline {
    Span plan, build, fetch, unpack, link, commit, bytecode;
    std::vector<WheelTimes> wheels;  // in install order of the sync (wanted wheels, then builds)

    // The wheel whose link ended last; null without wheels.
    const WheelTimes* critical() const;
    // For people: one line of stage spans, one for the critical path. Empty when nothing ran.
    std::string describe() const;
};

// Fills a SyncTimeline from several threads: each mark reads the clock once.
class TimelineRecorder {
  public:
    explicit TimelineRecorder(std::shared_ptr<net::Clock> clock);

    double now() const;
    void begin(Span SyncTimeline::*stage);
    void end(Span SyncTimeline::*stage);
    // Grows the stage to cover [start, now]: stages that run as many pieces (fetch, unpack,
    // link) span from their first piece's start to their last one's end.
    void cover(Span SyncTimeline::*stage, double start);
    void wheels(std::vector<std::string> labels);
    void fetched(std::size_t wheel);
    void unpacked(std::size_t wheel, double start);
    void linked(std::size_t wheel, double start);

    SyncTimeline take();

  private:
    std::shared_ptr<net::Clock> clock_;
    std::chrono::steady_clock::time_point origin_;
    mutable std::mutex mutex_;
    SyncTimeline timeline_;
};

// A command's stages one after the other (setup: lock, interpreter, prefix, sync, shims, smoke
// test): mark(name) ends the stage that ran since the previous mark.
class Stopwatch {
  public:
    explicit Stopwatch(std::shared_ptr<net::Clock> clock);
    void mark(std::string stage);
    // "lock 0.02 s, interpreter 0.01 s, ..."; empty before the first mark.
    std::string describe() const;
    const std::vector<std::pair<std::string, double>>& stages() const noexcept { return stages_; }

  private:
    std::shared_ptr<net::Clock> clock_;
    std::chrono::steady_clock::time_point last_;
    std::vector<std::pair<std::string, double>> stages_;
};

}  // namespace aitk::app
