#pragma once
// The machine-readable side of a benchmark run, for bench/report.sh: one tab-separated record
// per line, appended, so several programs (and several runs of one) fill the same file.
//   run      KEY SIDE SECONDS PEAK_RSS_KIB   one measured run (SIDE: aitk or ref)
//   command  KEY SIDE COMMAND                what that run executed (shell-quoted)
//   info     NAME VALUE                      a fact about the run (universe size, versions)
// bench/report_table.py reads it; the keys it knows are listed there.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace aitk::bench {

class ResultsFile {
  public:
    ResultsFile() = default;
    explicit ResultsFile(const std::string& path) {
        if (!path.empty()) file_ = std::fopen(path.c_str(), "a");
        if (!path.empty() && !file_) {
            std::fprintf(stderr, "cannot append to %s\n", path.c_str());
            std::exit(2);
        }
    }
    ~ResultsFile() {
        if (file_) std::fclose(file_);
    }
    ResultsFile(const ResultsFile&) = delete;
    ResultsFile& operator=(const ResultsFile&) = delete;

    bool enabled() const { return file_ != nullptr; }

    void run(const std::string& key, const std::string& side, double seconds, long peak_rss_kib) {
        if (!file_) return;
        std::fprintf(file_, "run\t%s\t%s\t%.6f\t%ld\n", key.c_str(), side.c_str(), seconds,
                     peak_rss_kib);
        std::fflush(file_);
    }

    void command(const std::string& key, const std::string& side,
                 const std::vector<std::string>& argv) {
        command(key, side, quote(argv));
    }
    void command(const std::string& key, const std::string& side, const std::string& text) {
        if (!file_) return;
        std::fprintf(file_, "command\t%s\t%s\t%s\n", key.c_str(), side.c_str(),
                     one_line(text).c_str());
        std::fflush(file_);
    }

    void info(const std::string& name, const std::string& value) {
        if (!file_) return;
        std::fprintf(file_, "info\t%s\t%s\n", name.c_str(), one_line(value).c_str());
        std::fflush(file_);
    }

    // argv as a POSIX shell would need it typed.
    static std::string quote(const std::vector<std::string>& argv) {
        std::string out;
        for (const auto& arg : argv) {
            if (!out.empty()) out += ' ';
            const bool plain =
                !arg.empty() && arg.find_first_not_of(
                                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
                                    "VWXYZ0123456789-_./:=,+@%") == std::string::npos;
            if (plain) {
                out += arg;
                continue;
            }
            out += '\'';
            for (char c : arg) {
                if (c == '\'') {
                    out += "'\\''";
                } else {
                    out += c;
                }
            }
            out += '\'';
        }
        return out;
    }

  private:
    // A record is one line: tabs and newlines inside a value would split it.
    static std::string one_line(std::string text) {
        for (char& c : text) {
            if (c == '\t' || c == '\n' || c == '\r') c = ' ';
        }
        return text;
    }

    std::FILE* file_ = nullptr;
};

}  // namespace aitk::bench
