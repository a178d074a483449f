#pragma once
// Options every command accepts (CLI-CONTRACT.md "Global options").
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "aitk/app/lock.hpp"

namespace aitk::cli {

struct GlobalOptions {
    std::string cache_dir;
    std::string index_url;
    std::vector<std::string> extra_index_urls;
    std::vector<std::string> find_links;
    std::string torch_index_url;
    bool offline = false;
    std::size_t concurrency = 8;  // parallel transfers
    std::string cert;             // CA bundle; empty: SSL_CERT_FILE, REQUESTS_CA_BUNDLE, system
    bool json = false;
    int verbosity = 0;  // -v raises, -q lowers
    bool no_progress = false;
    std::string color = "auto";
};

void add_global_options(CLI::App& app, GlobalOptions& globals);

// The index and network parts of the global options, as every downloading command takes them.
app::IndexSettings index_settings(const GlobalOptions& globals);
app::NetworkSettings network_settings(const GlobalOptions& globals);
void apply_logging(const GlobalOptions& globals);

}  // namespace aitk::cli
