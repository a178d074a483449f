#include "aitk/index/artifacts.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"

namespace aitk::index {
namespace {

// Stores each download in the cache the moment it finishes (the downloader already checked the
// body against the expected hash while it streamed) and tells `on_ready`; every call is
// forwarded to the caller's observer. Storing flushes the file to disk before it enters the store
// (Cache::insert_artifact), which takes as long as the disk needs to write it: that happens on
// a thread of its own, in the order the downloads finish, so the transfer thread, which serves
// every transfer in flight, never waits on the disk.
class StoringObserver : public net::TransferObserver {
  public:
    StoringObserver(cache::Cache& cache, const std::vector<net::FileRequest>& requests,
                    const std::vector<std::size_t>& owner, ArtifactFetch& out,
                    net::TransferObserver* next, const ArtifactReady& on_ready)
        : cache_(cache),
          requests_(requests),
          owner_(owner),
          out_(out),
          next_(next),
          on_ready_(on_ready),
          storer_([this] { store_finished(); }) {}
    StoringObserver(const StoringObserver&) = delete;
    StoringObserver& operator=(const StoringObserver&) = delete;
    ~StoringObserver() { close(); }

    void on_start(const net::TransferInfo& info) override {
        if (next_) next_->on_start(info);
    }
    void on_progress(std::size_t id, std::uint64_t done,
                     std::optional<std::uint64_t> total) override {
        if (next_) next_->on_progress(id, done, total);
    }
    void on_retry(std::size_t id, const net::RetryInfo& info) override {
        if (next_) next_->on_retry(id, info);
    }
    void on_finish(std::size_t id, const net::FinishInfo& info) override {
        if (next_) next_->on_finish(id, info);
        if (!info.ok || id >= owner_.size()) return;
        {
            std::lock_guard lock(mutex_);
            finished_.push_back(id);
        }
        wake_.notify_one();
    }

    // Waits until every finished download is stored and announced; rethrows what `on_ready`
    // threw (after which nothing more was announced).
    void finish() {
        close();
        if (failure_) std::rethrow_exception(failure_);
    }

  private:
    void close() {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
        }
        wake_.notify_one();
        if (storer_.joinable()) storer_.join();
    }

    void store_finished() {
        for (;;) {
            std::size_t id = 0;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return closed_ || !finished_.empty(); });
                if (finished_.empty()) return;
                id = finished_.front();
                finished_.pop_front();
            }
            store(id);
        }
    }

    void store(std::size_t id) {
        ArtifactResult& result = out_.results[owner_[id]];
        try {
            result.path =
                cache_.insert_artifact(requests_[id].destination, result.ref.sha256,
                                       result.ref.filename, result.ref.sha256, result.ref.url);
            result.downloaded = true;
        } catch (const util::Error& e) {
            result.error = e.what();
            std::error_code ignored;
            std::filesystem::remove(requests_[id].destination, ignored);
            return;
        }
        if (failure_) return;
        try {
            on_ready_(owner_[id], result.path);
        } catch (...) {
            failure_ = std::current_exception();
        }
    }

    cache::Cache& cache_;
    const std::vector<net::FileRequest>& requests_;
    const std::vector<std::size_t>& owner_;
    ArtifactFetch& out_;
    net::TransferObserver* next_;
    const ArtifactReady& on_ready_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::size_t> finished_;
    bool closed_ = false;
    std::exception_ptr failure_;  // written by the storer only, read after it is joined
    std::thread storer_;          // last: starts once everything it uses exists
};

}  // namespace

ArtifactFetch fetch_artifacts(cache::Cache& cache, net::Downloader& downloader,
                              const std::vector<cache::ArtifactRef>& artifacts, bool offline,
                              net::TransferObserver* observer, const ArtifactReady& on_ready) {
    ArtifactFetch out;
    out.results.resize(artifacts.size());
    std::vector<net::FileRequest> requests;
    std::vector<std::size_t> request_owner;  // requests[i] fetches artifacts[request_owner[i]]
    std::vector<cache::ArtifactRef> missing;
    for (std::size_t i = 0; i < artifacts.size(); ++i) {
        const cache::ArtifactRef& ref = artifacts[i];
        out.results[i].ref = ref;
        out.results[i].ref.url = util::redact_url(ref.url);
        if (auto found = cache.find_artifact(ref.sha256, ref.filename)) {
            out.results[i].path = *found;
            if (on_ready) on_ready(i, *found);
            continue;
        }
        if (offline) {
            missing.push_back(ref);
            continue;
        }
        net::FileRequest request;
        request.url = ref.url;
        request.destination = cache.staging_path(ref.filename);
        request.expected_sha256 = ref.sha256;
        requests.push_back(std::move(request));
        request_owner.push_back(i);
    }
    if (!missing.empty()) {
        cache::OfflineReport report = cache::check_offline(cache, missing);
        std::string message = report.describe(cache, artifacts.size(), 0);
        for (std::size_t i = 0; i < artifacts.size(); ++i) {
            if (out.results[i].path.empty()) out.results[i].error = message;
        }
    }
    if (!requests.empty()) {
        auto hold = cache.hold();  // prune/clean must not pull staging files from under us
        std::vector<net::FileOutcome> outcomes;
        if (on_ready) {
            StoringObserver storing(cache, requests, request_owner, out, observer, on_ready);
            outcomes = downloader.download(requests, &storing);
            storing.finish();
        } else {
            outcomes = downloader.download(requests, observer);
        }
        for (std::size_t r = 0; r < outcomes.size(); ++r) {
            ArtifactResult& result = out.results[request_owner[r]];
            if (!outcomes[r]) {
                result.error = outcomes[r].error().message;
                continue;
            }
            if (result.downloaded || !result.error.empty()) continue;  // stored as it finished
            try {
                // The downloader already hashed the body while it streamed.
                result.path =
                    cache.insert_artifact(outcomes[r]->destination, result.ref.sha256,
                                          result.ref.filename, outcomes[r]->sha256, result.ref.url);
                result.downloaded = true;
            } catch (const util::Error& e) {
                result.error = e.what();
                std::error_code ignored;
                std::filesystem::remove(outcomes[r]->destination, ignored);
            }
        }
    }
    for (const ArtifactResult& r : out.results) {
        if (r.path.empty()) ++out.failed;
    }
    return out;
}

}  // namespace aitk::index
