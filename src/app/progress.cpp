#include "aitk/app/progress.hpp"

#include <cstdio>

#include "aitk/app/cache.hpp"  // human_bytes
#include "aitk/index/url.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr std::size_t kBarWidth = 24;

std::string last_path_segment(const std::string& url) {
    std::size_t end = url.find_first_of("?#");
    std::string path = url.substr(0, end);
    std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ProgressStyle choose_progress_style(bool is_terminal, bool quiet, bool no_progress) {
    if (quiet) return ProgressStyle::quiet;
    if (!is_terminal || no_progress) return ProgressStyle::lines;
    return ProgressStyle::bar;
}

std::string format_duration(std::chrono::seconds s) {
    long long total = s.count();
    char out[32];
    if (total >= 3600) {
        std::snprintf(out, sizeof out, "%lld:%02lld:%02lld", total / 3600, (total / 60) % 60,
                      total % 60);
    } else {
        std::snprintf(out, sizeof out, "%lld:%02lld", total / 60, total % 60);
    }
    return out;
}

DownloadProgress::DownloadProgress(std::ostream& out, ProgressStyle style, std::size_t total_files,
                                   std::uint64_t total_bytes, Clock clock)
    : out_(out),
      style_(style),
      total_files_(total_files),
      total_bytes_(total_bytes),
      clock_(std::move(clock)),
      started_(clock_()) {}

std::string DownloadProgress::name_of(std::size_t id) const {
    auto it = names_.find(id);
    return it == names_.end() ? "transfer " + std::to_string(id) : it->second;
}

void DownloadProgress::on_start(const net::TransferInfo& info) {
    // The URL names the artifact; a destination is often a staging file with a temporary name.
    std::string name = util::percent_decode(last_path_segment(info.url));
    if (name.empty() && info.destination) name = util::utf8_of(info.destination->filename());
    names_[info.id] = name.empty() ? info.url : name;
    draw(false);
}

void DownloadProgress::on_progress(std::size_t id, std::uint64_t done,
                                   std::optional<std::uint64_t> /*total*/) {
    std::uint64_t& seen = done_by_transfer_[id];
    // A restarted body (no resume) goes backwards: count only what is held now.
    done_bytes_ = done_bytes_ - seen + done;
    seen = done;
    draw(false);
}

void DownloadProgress::on_retry(std::size_t id, const net::RetryInfo& info) {
    if (style_ == ProgressStyle::quiet) return;
    char delay[32];
    std::snprintf(delay, sizeof delay, "%.1f s", std::chrono::duration<double>(info.delay).count());
    print_line("retrying " + name_of(id) + " after attempt " + std::to_string(info.attempt) + ": " +
               info.reason + " (next in " + delay + (info.resuming ? ", resuming)" : ")"));
}

void DownloadProgress::on_finish(std::size_t id, const net::FinishInfo& info) {
    ++finished_;
    if (!info.ok) ++failed_;
    if (style_ == ProgressStyle::lines) {
        print_line(info.ok ? "fetched " + name_of(id) + " (" + human_bytes(info.bytes) + ")"
                           : "failed " + name_of(id) + ": " + info.error);
    } else if (style_ == ProgressStyle::bar && !info.ok) {
        print_line("failed " + name_of(id) + ": " + info.error);
    }
    draw(finished_ == total_files_);
}

void DownloadProgress::print_line(const std::string& line) {
    if (style_ == ProgressStyle::quiet) return;
    if (bar_visible_) out_ << "\r\x1b[2K";  // clear the bar, print the line, redraw below
    out_ << line << "\n";
    bar_visible_ = false;
    if (style_ == ProgressStyle::bar) draw(true);
}

void DownloadProgress::draw(bool force) {
    if (style_ != ProgressStyle::bar) return;
    auto now = clock_();
    if (!force && bar_visible_ && now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;

    double seconds = std::chrono::duration<double>(now - started_).count();
    double rate = seconds > 0 ? static_cast<double>(done_bytes_) / seconds : 0.0;
    std::string line = "[";
    double fraction = total_bytes_ > 0   ? static_cast<double>(done_bytes_) / total_bytes_
                      : total_files_ > 0 ? static_cast<double>(finished_) / total_files_
                                         : 0.0;
    if (fraction > 1.0) fraction = 1.0;
    auto filled = static_cast<std::size_t>(fraction * kBarWidth);
    line += std::string(filled, '=');
    if (filled < kBarWidth) line += '>' + std::string(kBarWidth - filled - 1, ' ');
    line += "] " + std::to_string(finished_) + "/" + std::to_string(total_files_) + " files  " +
            human_bytes(done_bytes_);
    if (total_bytes_ > 0) line += "/" + human_bytes(total_bytes_);
    line += "  " + human_bytes(static_cast<std::uint64_t>(rate)) + "/s";
    if (total_bytes_ > done_bytes_ && rate > 0) {
        auto eta = static_cast<long long>(static_cast<double>(total_bytes_ - done_bytes_) / rate);
        line += "  ETA " + format_duration(std::chrono::seconds(eta));
    }
    out_ << "\r\x1b[2K" << line << std::flush;
    bar_visible_ = true;
}

void DownloadProgress::finish() {
    if (style_ == ProgressStyle::quiet) return;
    if (bar_visible_) out_ << "\r\x1b[2K";
    bar_visible_ = false;
    double seconds = std::chrono::duration<double>(clock_() - started_).count();
    char summary[160];
    std::snprintf(summary, sizeof summary, "%zu file%s, %s in %.1f s", finished_,
                  finished_ == 1 ? "" : "s", human_bytes(done_bytes_).c_str(), seconds);
    std::string line = summary;
    if (seconds > 0) {
        line += " (" + human_bytes(static_cast<std::uint64_t>(done_bytes_ / seconds)) + "/s)";
    }
    if (failed_ > 0) line += ", " + std::to_string(failed_) + " failed";
    out_ << line << "\n" << std::flush;
}

}  // namespace aitk::app
