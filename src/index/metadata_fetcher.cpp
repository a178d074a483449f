#include "aitk/index/metadata_fetcher.hpp"

#include <fstream>

#include "aitk/archive/error.hpp"
#include "aitk/archive/reader.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/url.hpp"
#include "aitk/index/zip_directory.hpp"
#include "aitk/net/content_range.hpp"
#include "aitk/net/redact.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/hex.hpp"
#include "write_behind.hpp"

namespace aitk::index {

namespace {

// A local header's extra field is not in the central directory; this much is read beyond the
// name so that one request usually covers header and data.
constexpr std::uint64_t local_extra_allowance = 1024;

std::string range_header(std::uint64_t first, std::uint64_t length) {
    return "bytes=" + std::to_string(first) + "-" + std::to_string(first + length - 1);
}

// "numpy-2.1.0.dist-info/METADATA" -> "numpy"
std::string dist_info_project(std::string_view member) {
    std::string_view dir = member.substr(0, member.find('/'));
    return pep::canonicalize_name(dir.substr(0, dir.find('-')));
}

bool write_bytes(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out.flush());
}

}  // namespace

std::string_view to_string(MetadataSource source) noexcept {
    switch (source) {
        case MetadataSource::metadata_cache:
            return "metadata cache";
        case MetadataSource::artifact_cache:
            return "cached wheel";
        case MetadataSource::local_file:
            return "local file";
        case MetadataSource::pep658:
            return "PEP 658 metadata file";
        case MetadataSource::range_requests:
            return "range requests";
        case MetadataSource::full_download:
            return "full download";
    }
    return "?";
}

struct MetadataFetcher::Job {
    enum class Step { pep658, tail, directory, member, full, done };

    const DistributionFile* file = nullptr;
    Step step = Step::done;
    std::string label;  // redacted URL, for messages

    // The file's last bytes (grown towards the front as the central directory needs).
    std::string tail;
    std::uint64_t tail_offset = 0;
    std::uint64_t file_size = 0;
    std::string validator;  // If-Range: the first answer's strong ETag or Last-Modified
    ByteSpan wanted;        // what the current range request asks for

    ZipMember member;
    std::string member_bytes;   // file bytes from member.local_header_offset on
    std::string range_problem;  // why range requests were given up
    int refetches = 0;          // PEP 658 files fetched again after a hash mismatch

    RemoteMetadata result;
    std::optional<IndexError> error;
    WriteBehind* writer = nullptr;  // where the cache write goes (null: in line)

    bool wants_fetch() const noexcept {
        return step == Step::pep658 || step == Step::tail || step == Step::directory ||
               step == Step::member;
    }
};

namespace {

using Job = MetadataFetcher::Job;

}  // namespace

MetadataFetcher::MetadataFetcher(net::Downloader& downloader, cache::Cache* cache,
                                 MetadataOptions options, bool offline,
                                 std::shared_ptr<net::Clock> clock)
    : downloader_(downloader),
      cache_(cache),
      options_(options),
      offline_(offline),
      clock_(std::move(clock)),
      writer_(std::make_unique<WriteBehind>()) {}

MetadataFetcher::~MetadataFetcher() = default;

net::Downloader& MetadataFetcher::small_downloader() {
    if (!small_) {
        net::DownloaderOptions options = downloader_.options();
        options.max_memory_body = static_cast<std::size_t>(std::max<std::uint64_t>(
            options_.range_request_limit, options_.max_metadata_bytes + local_extra_allowance));
        small_ = std::make_unique<net::Downloader>(options, clock_);
    }
    return *small_;
}

MetadataOutcome MetadataFetcher::fetch(const DistributionFile& file) {
    return std::move(fetch(std::span<const DistributionFile>(&file, 1)).front());
}

namespace {

void fail(Job& job, IndexError::Kind kind, std::string message) {
    job.error = IndexError{kind, std::move(message), job.label};
    job.step = Job::Step::done;
}

// `text` from a server, safe to print: control bytes and bytes that are not UTF-8 become "\xNN"
// (a hostile METADATA must not drive the user's terminal).
std::string printable(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t length = c < 0x80                 ? 1
                             : c >= 0xc2 && c <= 0xdf ? 2
                             : c >= 0xe0 && c <= 0xef ? 3
                             : c >= 0xf0 && c <= 0xf4 ? 4
                                                      : 0;
        for (std::size_t k = 1; k < length; ++k) {
            if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) {
                length = 0;
            }
        }
        if (length == 0 || (length == 1 && (c < 0x20 || c == 0x7f))) {
            out += "\\x";
            util::append_hex_byte(out, c);
            ++i;
            continue;
        }
        out.append(text.substr(i, length));
        i += length;
    }
    return out;
}

// Parses and checks METADATA against the filename, then the job is done.
void finish_with_text(Job& job, std::string text, MetadataSource source, cache::Cache* cache) {
    const DistributionFile& file = *job.file;
    auto parsed = pep::CoreMetadata::parse(text);
    if (!parsed) {
        fail(job, IndexError::Kind::bad_metadata,
             "the METADATA of " + file.filename + " (" + std::string(to_string(source)) + ", " +
                 job.label +
                 ") is not valid core metadata: " + printable(parsed.error().describe()));
        return;
    }
    if (pep::canonicalize_name(parsed->name) != file.project() ||
        !(parsed->version == file.version())) {
        fail(job, IndexError::Kind::metadata_mismatch,
             "the METADATA of " + file.filename + " (" + std::string(to_string(source)) +
                 ") describes " + parsed->name + " " + parsed->version_text +
                 ", not what the filename says (" + file.project() + " " +
                 file.version().to_string() + ")");
        return;
    }
    if (cache && source != MetadataSource::metadata_cache) {
        if (const auto sha = file.sha256()) {
            auto put = [cache, sha = std::string(*sha), text] {
                try {
                    cache->put_metadata(sha, text);
                } catch (const std::exception&) {
                    // A cache that cannot be written only costs a later fetch.
                }
            };
            if (job.writer) {
                job.writer->post(std::move(put));
            } else {
                put();
            }
        }
    }
    job.result.metadata = std::move(*parsed);
    job.result.text = std::move(text);
    job.result.source = source;
    job.error.reset();
    job.step = Job::Step::done;
}

void finish_from_wheel_file(Job& job, const std::filesystem::path& wheel, MetadataSource source,
                            cache::Cache* cache) {
    try {
        auto member = archive::read_wheel_metadata(wheel);
        job.result.artifact = wheel;
        finish_with_text(job, std::move(member.content), source, cache);
    } catch (const std::exception& e) {
        fail(job, IndexError::Kind::bad_metadata,
             "could not read the METADATA of " + job.file->filename + ": " + e.what());
    }
}

}  // namespace

void MetadataFetcher::start(Job& job) {
    const DistributionFile& file = *job.file;
    job.label = net::redact_url(file.url);
    const auto sha = file.sha256();
    if (cache_ && sha) {
        if (auto text = cache_->find_metadata(*sha)) {
            finish_with_text(job, std::move(*text), MetadataSource::metadata_cache, cache_);
            if (!job.error) return;
            job.error.reset();  // a damaged entry: fetch again
        }
        if (auto wheel = cache_->find_artifact(*sha, file.filename); wheel && file.is_wheel()) {
            finish_from_wheel_file(job, *wheel, MetadataSource::artifact_cache, cache_);
            if (!job.error) return;
            job.error.reset();
            job.result.artifact.reset();
        }
    }
    if (auto local = file_url_to_path(file.url)) {
        if (!file.is_wheel()) {
            fail(job, IndexError::Kind::unsupported,
                 "the metadata of the sdist " + file.filename + " needs a build");
            return;
        }
        std::error_code ec;
        if (!std::filesystem::is_regular_file(*local, ec)) {
            fail(job, IndexError::Kind::local_io, local->string() + " does not exist");
            return;
        }
        finish_from_wheel_file(job, *local, MetadataSource::local_file, cache_);
        job.result.artifact.reset();
        return;
    }
    if (offline_) {
        fail(job, IndexError::Kind::offline_missing,
             "offline: the metadata of " + file.filename +
                 " is not in the cache (it would come from " + job.label + ")");
        return;
    }
    if (!file.is_wheel()) {
        fail(job, IndexError::Kind::unsupported,
             "the metadata of the sdist " + file.filename +
                 " needs a build; the index layer reads wheels only");
        return;
    }
    if (options_.use_pep658 && file.core_metadata.available) {
        job.step = Job::Step::pep658;
        return;
    }
    read_wheel_itself(job);
}

void MetadataFetcher::read_wheel_itself(Job& job) {
    job.step = Job::Step::tail;
    if (!options_.use_range_requests) {
        job.range_problem = "range requests are switched off";
        job.step = Job::Step::full;
    } else if (no_range_hosts_.count(url_origin(job.file->url))) {
        job.range_problem = "the server ignored Range headers before";
        job.step = Job::Step::full;
    }
    if (job.step == Job::Step::full && !options_.allow_full_download) {
        fail(job, IndexError::Kind::unsupported,
             "cannot read the metadata of " + job.file->filename + " without downloading it (" +
                 job.range_problem + ")");
    }
}

namespace {

struct ZipContext {
    const MetadataOptions& options;
    cache::Cache* cache;
};

void give_up_ranges(Job& job, const ZipContext& context, std::string reason) {
    job.range_problem = std::move(reason);
    if (context.options.allow_full_download) {
        job.step = Job::Step::full;
        return;
    }
    fail(job, IndexError::Kind::unsupported,
         "cannot read the metadata of " + job.file->filename + " with range requests (" +
             job.range_problem + ") and full downloads are switched off");
}

void inflate_member(Job& job, const ZipContext& context, std::string_view compressed) {
    const std::string zip = single_member_zip(job.member, compressed);
    try {
        auto text = archive::read_member(zip, job.label, job.member.name,
                                         context.options.max_metadata_bytes);
        if (!text) {
            fail(job, IndexError::Kind::bad_metadata,
                 "could not find " + job.member.name + " again in " + job.file->filename);
            return;
        }
        finish_with_text(job, std::move(*text), MetadataSource::range_requests, context.cache);
    } catch (const std::exception& e) {
        fail(
            job, IndexError::Kind::bad_metadata,
            "could not inflate " + job.member.name + " of " + job.file->filename + ": " + e.what());
    }
}

// With member_bytes holding the start of the member: finishes, or asks for the missing bytes.
void advance_member(Job& job, const ZipContext& context) {
    const ZipMember& m = job.member;
    std::uint64_t needed = 30 + m.name.size() + m.compressed_size + local_extra_allowance;
    if (job.member_bytes.size() >= 30) {
        auto header = local_header_length(job.member_bytes);
        if (!header) return give_up_ranges(job, context, header.error());
        needed = *header + m.compressed_size;
        if (job.member_bytes.size() >= needed) {
            return inflate_member(
                job, context,
                std::string_view(job.member_bytes).substr(*header, m.compressed_size));
        }
    }
    const std::uint64_t have_end = m.local_header_offset + job.member_bytes.size();
    const std::uint64_t want_end = std::min(m.local_header_offset + needed, job.file_size);
    if (want_end <= have_end) {
        return give_up_ranges(job, context, "METADATA runs past the end of the file");
    }
    job.wanted = ByteSpan{have_end, want_end - have_end};
    job.step = Job::Step::member;
}

// With the tail in hand: finds the directory, then METADATA, asking for more bytes as needed.
void advance_zip(Job& job, const ZipContext& context) {
    const auto location =
        locate_central_directory(ZipTail{job.tail_offset, job.tail, job.file_size});
    if (!location) return give_up_ranges(job, context, location.error());
    const std::uint64_t limit = context.options.max_directory_bytes + max_end_record_bytes;
    if (const auto* more = std::get_if<ByteSpan>(&*location)) {
        if (more->length + job.tail.size() > limit) {
            return give_up_ranges(job, context, "the zip's end records are too far from the end");
        }
        job.wanted = *more;
        job.step = Job::Step::directory;
        return;
    }
    const auto& directory = std::get<CentralDirectory>(*location);
    if (directory.size > context.options.max_directory_bytes) {
        return give_up_ranges(job, context,
                              "the central directory is " + std::to_string(directory.size) +
                                  " bytes, above the limit of " +
                                  std::to_string(context.options.max_directory_bytes));
    }
    if (directory.offset < job.tail_offset) {
        job.wanted = ByteSpan{directory.offset, job.tail_offset - directory.offset};
        job.step = Job::Step::directory;
        return;
    }
    const std::string_view bytes = std::string_view(job.tail).substr(
        static_cast<std::size_t>(directory.offset - job.tail_offset),
        static_cast<std::size_t>(directory.size));
    auto members = find_metadata_members(bytes, directory.entries);
    if (!members) return give_up_ranges(job, context, members.error());
    std::vector<ZipMember> candidates;
    for (auto& m : *members) {
        if (dist_info_project(m.name) == job.file->project()) candidates.push_back(std::move(m));
    }
    if (candidates.empty() && members->size() == 1) candidates.push_back(members->front());
    if (candidates.size() != 1) {
        fail(job, IndexError::Kind::bad_metadata,
             candidates.empty() ? job.file->filename + " has no " + job.file->project() +
                                      "-<version>.dist-info/METADATA (is it a wheel?)"
                                : job.file->filename + " has several .dist-info/METADATA files");
        return;
    }
    job.member = std::move(candidates.front());
    const auto max = context.options.max_metadata_bytes;
    if (job.member.compressed_size > max || job.member.uncompressed_size > max) {
        fail(job, IndexError::Kind::bad_metadata,
             job.member.name + " of " + job.file->filename + " is larger than the limit of " +
                 std::to_string(max) + " bytes");
        return;
    }
    const std::uint64_t offset = job.member.local_header_offset;
    if (offset >= job.file_size) {
        return give_up_ranges(job, context, "METADATA's local header lies outside the file");
    }
    job.member_bytes.clear();
    if (offset >= job.tail_offset) {
        job.member_bytes.assign(
            std::string_view(job.tail).substr(static_cast<std::size_t>(offset - job.tail_offset)));
    }
    advance_member(job, context);
}

// The server sent the whole file to a range request (it ignores Range, or the file changed and
// If-Range said so): use it as a full download.
void finish_from_whole_body(Job& job, const ZipContext& context, std::string body) {
    const DistributionFile& file = *job.file;
    const std::string actual = fs::sha256_hex(body);
    if (const auto expected = file.sha256(); expected && *expected != actual) {
        fail(job, IndexError::Kind::hash_mismatch,
             "the sha256 of " + job.label + " is " + actual + ", but the index says " +
                 std::string(*expected));
        return;
    }
    if (context.cache) {
        try {
            auto hold = context.cache->hold();
            const auto staging = context.cache->staging_path(file.filename);
            std::filesystem::create_directories(staging.parent_path());
            if (write_bytes(staging, body)) {
                job.result.artifact = context.cache->insert_artifact(staging, actual, file.filename,
                                                                     actual, file.url);
            }
        } catch (const std::exception&) {
            // Not cached: the install downloads it again.
        }
    }
    try {
        auto member = archive::read_wheel_metadata(body, job.label);
        finish_with_text(job, std::move(member.content), MetadataSource::full_download,
                         context.cache);
    } catch (const std::exception& e) {
        fail(job, IndexError::Kind::bad_metadata,
             "could not read the METADATA of " + file.filename + ": " + e.what());
    }
}

}  // namespace

void MetadataFetcher::run_fetch_rounds(std::vector<Job*>& jobs) {
    const ZipContext context{options_, cache_};
    for (;;) {
        std::vector<Job*> round;
        std::vector<net::FetchRequest> requests;
        for (Job* job : jobs) {
            if (!job->wants_fetch()) continue;
            net::FetchRequest request;
            request.url = options_.rewrite.apply(
                job->step == Job::Step::pep658 ? job->file->metadata_url() : job->file->url);
            if (job->step == Job::Step::tail) {
                request.headers.emplace_back("Range",
                                             "bytes=-" + std::to_string(options_.tail_bytes));
            } else if (job->step != Job::Step::pep658) {
                request.headers.emplace_back("Range",
                                             range_header(job->wanted.offset, job->wanted.length));
                if (!job->validator.empty())
                    request.headers.emplace_back("If-Range", job->validator);
            }
            round.push_back(job);
            requests.push_back(std::move(request));
        }
        if (round.empty()) return;
        auto outcomes = small_downloader().fetch(requests);
        for (std::size_t i = 0; i < round.size(); ++i) {
            Job& job = *round[i];
            auto& outcome = outcomes[i];
            if (!outcome) {
                const net::TransferError& e = outcome.error();
                job.result.requests += e.attempts;
                if (job.step == Job::Step::pep658) {
                    if (e.kind == net::TransferError::Kind::http_status) {
                        // Advertised but not served: read the wheel itself.
                        read_wheel_itself(job);
                        continue;
                    }
                    fail(job, IndexError::Kind::network, e.message);
                } else if (e.kind == net::TransferError::Kind::too_large) {
                    no_range_hosts_.insert(url_origin(job.file->url));
                    give_up_ranges(job, context,
                                   "the server ignored the Range header and sent the whole file");
                } else if (e.kind == net::TransferError::Kind::http_status) {
                    give_up_ranges(job, context,
                                   "HTTP " + std::to_string(e.http_status) + " to a range request");
                } else {
                    fail(job, IndexError::Kind::network, e.message);
                }
                continue;
            }
            net::FetchResult& response = *outcome;
            job.result.requests += response.attempts;
            job.result.bytes_transferred += response.body.size();

            if (job.step == Job::Step::pep658) {
                const auto& hashes = job.file->core_metadata.hashes;
                if (const auto it = hashes.find("sha256"); it != hashes.end()) {
                    const std::string actual = fs::sha256_hex(response.body);
                    if (actual != it->second) {
                        // Fetched again as the downloader does an artifact: a body damaged on
                        // the way (a flaky proxy) is not yet the index's word.
                        if (job.refetches < downloader_.options().retry.hash_mismatch_restarts) {
                            ++job.refetches;
                            continue;
                        }
                        fail(job, IndexError::Kind::hash_mismatch,
                             "the sha256 of " + net::redact_url(job.file->metadata_url()) + " is " +
                                 actual + ", but the index says " + it->second);
                        continue;
                    }
                }
                finish_with_text(job, std::move(response.body), MetadataSource::pep658, cache_);
                continue;
            }
            if (response.status != 206) {
                no_range_hosts_.insert(url_origin(job.file->url));
                finish_from_whole_body(job, context, std::move(response.body));
                continue;
            }
            const auto header = net::find_header(response.headers, "content-range");
            const auto range = header ? net::parse_content_range(*header) : std::nullopt;
            if (!range || !range->first || !range->last || !range->complete_length ||
                *range->last < *range->first ||
                response.body.size() != *range->last - *range->first + 1 ||
                *range->last >= *range->complete_length) {
                give_up_ranges(job, context, "a 206 answer without a usable Content-Range");
                continue;
            }
            if (job.step == Job::Step::tail) {
                if (*range->last + 1 != *range->complete_length) {
                    give_up_ranges(job, context,
                                   "the answer to a suffix range is not the file's end");
                    continue;
                }
                job.tail = std::move(response.body);
                job.tail_offset = *range->first;
                job.file_size = *range->complete_length;
                if (response.etag && net::is_strong_etag(*response.etag)) {
                    job.validator = *response.etag;
                } else if (response.last_modified) {
                    job.validator = *response.last_modified;
                }
                advance_zip(job, context);
                continue;
            }
            if (*range->first != job.wanted.offset || response.body.size() != job.wanted.length ||
                *range->complete_length != job.file_size) {
                give_up_ranges(job, context, "the server answered another range than asked for");
                continue;
            }
            if (job.step == Job::Step::directory) {
                response.body.append(job.tail);
                job.tail = std::move(response.body);
                job.tail_offset = job.wanted.offset;
                advance_zip(job, context);
            } else {
                job.member_bytes.append(response.body);
                advance_member(job, context);
            }
        }
    }
}

void MetadataFetcher::run_full_downloads(std::vector<Job*>& jobs) {
    std::vector<Job*> round;
    for (Job* job : jobs) {
        if (job->step == Job::Step::full) round.push_back(job);
    }
    if (round.empty()) return;
    std::optional<fs::FileLock> hold;
    std::optional<fs::TempDir> temp;
    if (cache_) {
        hold.emplace(cache_->hold());
    } else {
        temp.emplace(fs::TempDir::create("aitk-env-metadata"));
    }
    std::vector<net::FileRequest> requests;
    for (std::size_t i = 0; i < round.size(); ++i) {
        const DistributionFile& file = *round[i]->file;
        net::FileRequest request;
        request.url = options_.rewrite.apply(file.url);
        request.destination = cache_ ? cache_->staging_path(file.filename)
                                     : temp->path() / std::to_string(i) / file.filename;
        std::filesystem::create_directories(request.destination.parent_path());
        if (const auto sha = file.sha256()) request.expected_sha256 = std::string(*sha);
        request.expected_size = file.size;
        requests.push_back(std::move(request));
    }
    auto outcomes = downloader_.download(requests, observer_);
    for (std::size_t i = 0; i < round.size(); ++i) {
        Job& job = *round[i];
        const DistributionFile& file = *job.file;
        auto& outcome = outcomes[i];
        const std::string why =
            job.range_problem.empty()
                ? ""
                : " (metadata without the whole wheel failed: " + job.range_problem + ")";
        if (!outcome) {
            const auto& e = outcome.error();
            job.result.requests += e.attempts;
            fail(job,
                 e.kind == net::TransferError::Kind::hash_mismatch ? IndexError::Kind::hash_mismatch
                                                                   : IndexError::Kind::network,
                 e.message + why);
            continue;
        }
        job.result.requests += outcome->attempts;
        job.result.bytes_transferred += outcome->size;
        std::filesystem::path wheel = outcome->destination;
        if (cache_) {
            try {
                wheel = cache_->insert_artifact(wheel, outcome->sha256, file.filename,
                                                outcome->sha256, file.url);
            } catch (const std::exception& e) {
                fail(job, IndexError::Kind::local_io, e.what());
                continue;
            }
        }
        finish_from_wheel_file(job, wheel, MetadataSource::full_download, cache_);
        if (!cache_) job.result.artifact.reset();  // the temporary folder goes away
    }
}

std::vector<MetadataOutcome> MetadataFetcher::fetch(std::span<const DistributionFile> files) {
    std::vector<Job> jobs(files.size());
    std::vector<Job*> active;
    for (std::size_t i = 0; i < files.size(); ++i) {
        jobs[i].file = &files[i];
        jobs[i].writer = writer_.get();
        start(jobs[i]);
        if (jobs[i].step != Job::Step::done) active.push_back(&jobs[i]);
    }
    run_fetch_rounds(active);
    run_full_downloads(active);
    std::vector<MetadataOutcome> out;
    out.reserve(jobs.size());
    for (auto& job : jobs) {
        if (job.error) {
            out.emplace_back(util::Unexpected(std::move(*job.error)));
        } else {
            out.emplace_back(std::move(job.result));
        }
    }
    return out;
}

}  // namespace aitk::index
