#pragma once
// Byte helpers the diag reader tests share: whole files as byte vectors, cut-off prefixes, and
// reads that must (or must not) succeed, reported as test failures rather than thrown.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "aitk/diag/image_problem.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::test {

using Bytes = std::vector<std::uint8_t>;

inline std::string hex(std::uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

inline Bytes load(const std::filesystem::path& path) {
    std::string text = fs::read_file(path);
    return Bytes(text.begin(), text.end());
}

inline std::span<const std::uint8_t> prefix(const Bytes& bytes, std::size_t n) {
    return std::span<const std::uint8_t>(bytes.data(), n);
}

template <class T>
T expect_value(util::Expected<T, diag::ImageProblem> read) {
    if (!read) ADD_FAILURE() << read.error().describe();
    return read ? *read : T{};
}

template <class T>
diag::ImageProblem expect_problem(util::Expected<T, diag::ImageProblem> read) {
    if (read) ADD_FAILURE() << "read without a problem";
    return read ? diag::ImageProblem{} : read.error();
}

}  // namespace aitk::test
