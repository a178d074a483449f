#pragma once
// Download progress for people: a live bar on a terminal (files, bytes, rate, ETA), one line per
// finished or retried transfer when the output is a log, nothing with --quiet. It only listens
// to the downloader (net::TransferObserver); the downloader never prints.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "aitk/net/observer.hpp"

namespace aitk::app {

enum class ProgressStyle { bar, lines, quiet };

// A bar only where a person watches: a terminal, not --quiet, not --no-progress.
ProgressStyle choose_progress_style(bool is_terminal, bool quiet, bool no_progress);

class DownloadProgress : public net::TransferObserver {
  public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;

    // `total_files` and `total_bytes` describe the whole batch when known (0: unknown).
    DownloadProgress(std::ostream& out, ProgressStyle style, std::size_t total_files,
                     std::uint64_t total_bytes, Clock clock = std::chrono::steady_clock::now);

    void on_start(const net::TransferInfo& info) override;
    void on_progress(std::size_t id, std::uint64_t done,
                     std::optional<std::uint64_t> total) override;
    void on_retry(std::size_t id, const net::RetryInfo& info) override;
    void on_finish(std::size_t id, const net::FinishInfo& info) override;

    // Ends the bar and prints one summary line ("40 files, 2.0 GiB in 3.1 s (660 MiB/s)").
    void finish();
    // Transfers seen so far (a command prints no summary when there were none).
    std::size_t transfers() const noexcept { return names_.size(); }

  private:
    void draw(bool force);
    std::string name_of(std::size_t id) const;
    void print_line(const std::string& line);

    std::ostream& out_;
    ProgressStyle style_;
    std::size_t total_files_;
    std::uint64_t total_bytes_;
    Clock clock_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_draw_{};
    std::map<std::size_t, std::string> names_;
    std::map<std::size_t, std::uint64_t> done_by_transfer_;
    std::uint64_t done_bytes_ = 0;
    std::size_t finished_ = 0;
    std::size_t failed_ = 0;
    bool bar_visible_ = false;
};

// "1.5 GiB", "1:23" style helpers shared by reports.
std::string format_duration(std::chrono::seconds s);

}  // namespace aitk::app
