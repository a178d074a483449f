// Index routing from settings, from a lockfile and back (app/index_routing.hpp).
#include "aitk/app/index_routing.hpp"

#include <gtest/gtest.h>

namespace aitk::app {
namespace AITK_FILE_LOCAL {

using index::IndexKind;
using index::IndexLocation;

TEST(IndexRouting, FromSettingsWithDefaults) {
    IndexSettings settings;
    settings.extra_index_urls = {"https://mirror.example/simple"};
    settings.find_links = {"/srv/wheels"};
    auto routing = routing_from_settings(settings, "cu130",
                                         {"https://pypi.org/simple", "https://t.example/whl"});
    ASSERT_EQ(routing.indexes.size(), 3u);
    EXPECT_EQ(routing.indexes[0],
              (IndexLocation{"primary", "https://pypi.org/simple/", IndexKind::simple}));
    EXPECT_EQ(routing.indexes[1], (IndexLocation{"extra-index 1", "https://mirror.example/simple/",
                                                 IndexKind::simple}));
    EXPECT_EQ(routing.indexes[2],
              (IndexLocation{"find-links", "/srv/wheels", IndexKind::find_links}));
    ASSERT_TRUE(routing.torch_backend_index);
    EXPECT_EQ(
        *routing.torch_backend_index,
        (IndexLocation{"torch cu130", "https://t.example/whl/cu130/", IndexKind::torch_backend}));

    // What the settings say wins over the defaults; no default primary routes as --no-index.
    settings.index_url = "https://own.example/simple";
    settings.torch_index_url = "https://own.example/whl";
    routing =
        routing_from_settings(settings, "cpu", {"https://pypi.org/simple", "https://t.example"});
    EXPECT_EQ(routing.indexes[0].url, "https://own.example/simple/");
    EXPECT_EQ(routing.torch_backend_index->url, "https://own.example/whl/cpu/");
    routing = routing_from_settings(IndexSettings{}, "cu130");
    EXPECT_TRUE(routing.indexes.empty());
    EXPECT_FALSE(routing.torch_backend_index);
}

TEST(IndexRouting, TheRoutingOfALockTargetKeepsItsOwnTorchIndex) {
    lock::Lockfile lock;
    lock.indexes = {
        {"primary", "https://pypi.example/simple/", lock::IndexKind::simple},
        {"find-links", "/srv/wheels", lock::IndexKind::find_links},
        {"torch cu126", "https://torch.example/whl/cu126/", lock::IndexKind::torch_backend},
        {"torch cu130", "https://torch.example/whl/cu130/", lock::IndexKind::torch_backend}};
    lock::LockedTarget target;
    target.backend = "cu130";
    auto routing = routing_from_lock(lock, target);
    ASSERT_EQ(routing.indexes.size(), 2u);
    EXPECT_EQ(routing.indexes[0], (index::IndexLocation{"primary", "https://pypi.example/simple/",
                                                        index::IndexKind::simple}));
    EXPECT_EQ(routing.indexes[1].kind, index::IndexKind::find_links);
    ASSERT_TRUE(routing.torch_backend_index);
    EXPECT_EQ(routing.torch_backend_index->url, "https://torch.example/whl/cu130/");

    EXPECT_FALSE(routing_from_lock(lock.indexes, "").torch_backend_index);
    EXPECT_FALSE(routing_from_lock(lock.indexes, "rocm6.4").torch_backend_index);
}

TEST(IndexRouting, BackIntoLockEntriesWithoutCredentials) {
    IndexSettings settings;
    settings.index_url = "https://user:secret@pypi.example/simple";
    settings.find_links = {"/srv/wheels"};
    settings.torch_index_url = "https://torch.example/whl";
    const auto locked = to_locked(routing_from_settings(settings, "cu130"));
    ASSERT_EQ(locked.size(), 3u);
    EXPECT_EQ(locked[0], (lock::LockedIndex{"primary", "https://pypi.example/simple/",
                                            lock::IndexKind::simple}));
    EXPECT_EQ(locked[1],
              (lock::LockedIndex{"find-links", "/srv/wheels", lock::IndexKind::find_links}));
    EXPECT_EQ(locked[2], (lock::LockedIndex{"torch cu130", "https://torch.example/whl/cu130/",
                                            lock::IndexKind::torch_backend}));

    // And back again: the same routing, the backend chosen by name.
    auto again = routing_from_lock(locked, "cu130");
    EXPECT_EQ(again.indexes.size(), 2u);
    EXPECT_EQ(again.torch_backend_index->url, "https://torch.example/whl/cu130/");
    for (auto kind : {IndexKind::simple, IndexKind::find_links, IndexKind::torch_backend})
        EXPECT_EQ(to_index_kind(to_lock_kind(kind)), kind);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
