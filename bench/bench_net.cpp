// The aitk-env side of the network benchmark: downloads every file of a manifest
// ("name size sha256" per line) from BASE_URL into OUT_DIR with the net layer's Downloader
// (sha256 verified while streaming), then prints `seconds`, `bytes` and `peak_rss_kib` lines.
// Usage: bench_net MANIFEST BASE_URL OUT_DIR [CONCURRENCY]
// (BENCH_NET_WRITER_THREADS=N overrides the number of threads that hash bodies, 0: inline;
// BENCH_NET_RECEIVE_KIB=N libcurl's receive buffer)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "aitk/net/downloader.hpp"

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s MANIFEST BASE_URL OUT_DIR [CONCURRENCY]\n", argv[0]);
        return 2;
    }
    const std::string base = argv[2];
    const std::filesystem::path out = argv[3];
    aitk::net::DownloaderOptions options;
    if (argc > 4) options.concurrency = static_cast<std::size_t>(std::atoi(argv[4]));
    // For experiments: threads hashing bodies beside the transfer thread (0: all on it).
    if (const char* writers = std::getenv("BENCH_NET_WRITER_THREADS")) {
        options.writer_threads = static_cast<std::size_t>(std::atoi(writers));
    }
    // libcurl's receive buffer per transfer, in KiB (also the hashing threads' unit).
    if (const char* kib = std::getenv("BENCH_NET_RECEIVE_KIB")) {
        options.receive_buffer_bytes = static_cast<std::size_t>(std::atoi(kib)) << 10;
    }

    std::vector<aitk::net::FileRequest> requests;
    std::ifstream manifest(argv[1]);
    std::string line;
    std::uint64_t expected_bytes = 0;
    while (std::getline(manifest, line)) {
        std::istringstream fields(line);
        std::string name, sha256;
        std::uint64_t size = 0;
        if (!(fields >> name >> size >> sha256)) continue;
        aitk::net::FileRequest request;
        request.url = base + "/" + name;
        request.destination = out / name;
        request.expected_sha256 = sha256;
        request.expected_size = size;
        requests.push_back(std::move(request));
        expected_bytes += size;
    }
    if (requests.empty()) {
        std::fprintf(stderr, "bench_net: no files in %s\n", argv[1]);
        return 2;
    }

    aitk::net::Downloader downloader(options);
    const auto start = std::chrono::steady_clock::now();
    const auto outcomes = downloader.download(requests);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::uint64_t bytes = 0;
    for (const auto& outcome : outcomes) {
        if (!outcome) {
            std::fprintf(stderr, "bench_net: %s\n", outcome.error().message.c_str());
            return 1;
        }
        bytes += outcome->size;
    }
    if (bytes != expected_bytes) {
        std::fprintf(stderr, "bench_net: got %llu bytes, expected %llu\n",
                     static_cast<unsigned long long>(bytes),
                     static_cast<unsigned long long>(expected_bytes));
        return 1;
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("seconds %.4f\nbytes %llu\npeak_rss_kib %ld\n", seconds,
                static_cast<unsigned long long>(bytes), usage.ru_maxrss);
    return 0;
}
