// Index routing as data: order, torch-family membership, page URLs.
#include <gtest/gtest.h>

#include "aitk/index/routing.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::index;

namespace {

TEST(Routing, FromPipLikeOptions) {
    const auto r = IndexRouting::from_options(
        "https://pypi.org/simple", {"https://a.example/simple/", "https://b.example/s"},
        {"/srv/wheels", "https://h/links.html"}, "https://download.pytorch.org/whl", "cu126");
    ASSERT_EQ(r.indexes.size(), 5u);
    EXPECT_EQ(r.indexes[0],
              (IndexLocation{"primary", "https://pypi.org/simple/", IndexKind::simple}));
    EXPECT_EQ(r.indexes[1].name, "extra-index 1");
    EXPECT_EQ(r.indexes[2].url, "https://b.example/s/");
    EXPECT_EQ(r.indexes[3], (IndexLocation{"find-links", "/srv/wheels", IndexKind::find_links}));
    EXPECT_EQ(r.indexes[4].url, "https://h/links.html");
    ASSERT_TRUE(r.torch_backend_index);
    EXPECT_EQ(*r.torch_backend_index,
              (IndexLocation{"torch cu126", "https://download.pytorch.org/whl/cu126/",
                             IndexKind::torch_backend}));

    const auto no_index = IndexRouting::from_options("", {}, {"/w"});
    ASSERT_EQ(no_index.indexes.size(), 1u);
    EXPECT_FALSE(no_index.torch_backend_index);
    EXPECT_FALSE(IndexRouting::from_options("x", {}, {}, "https://t/whl", "").torch_backend_index);
}

TEST(Routing, TorchFamily) {
    const IndexRouting r;
    for (const char* name :
         {"torch", "Torch", "torchvision", "TorchAudio", "torchao", "torchcodec", "torchtext",
          "torchdata", "torchrec", "torchtune", "torch_tensorrt", "fbgemm-gpu", "FBGEMM_GPU",
          "xformers", "triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch_triton_xpu"}) {
        EXPECT_TRUE(r.is_torch_family(name)) << name;
    }
    for (const char* name : {"numpy", "torchmetrics", "nvidia-cudnn-cu12", "triton-nightly",
                             "pytorch", "pytorch-lightning", "torch2"}) {
        EXPECT_FALSE(r.is_torch_family(name)) << name;
    }
    IndexRouting custom;
    custom.torch_family = {"jax*"};
    EXPECT_TRUE(custom.is_torch_family("jaxlib"));
    EXPECT_FALSE(custom.is_torch_family("torch"));
}

TEST(Routing, CandidatesAndPageUrls) {
    const auto r = IndexRouting::from_options("https://pypi.org/simple", {"https://e/simple"}, {},
                                              "https://t/whl", "cpu");
    const auto torch = r.candidates("torch");
    ASSERT_EQ(torch.size(), 1u);
    EXPECT_EQ(torch[0].kind, IndexKind::torch_backend);
    EXPECT_EQ(project_page_url(torch[0], "torch"), "https://t/whl/cpu/torch/");
    const auto numpy = r.candidates("numpy");
    ASSERT_EQ(numpy.size(), 2u);
    EXPECT_EQ(project_page_url(numpy[0], "numpy"), "https://pypi.org/simple/numpy/");
    EXPECT_EQ(project_page_url({"find-links", "https://h/links.html", IndexKind::find_links}, "x"),
              "https://h/links.html");
    // Without a backend index the torch family follows the ordinary order.
    EXPECT_EQ(IndexRouting::from_options("https://pypi.org/simple").candidates("torch").size(), 1u);
    EXPECT_EQ(to_string(IndexKind::torch_backend), "torch-backend");
    EXPECT_EQ(with_trailing_slash("https://h/x"), "https://h/x/");
    EXPECT_EQ(with_trailing_slash("https://h/x/"), "https://h/x/");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
