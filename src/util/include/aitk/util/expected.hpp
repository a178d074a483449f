#pragma once
// A small expected<T, E> for C++20 (std::expected arrives with C++23). Parsers return it so that
// callers decide whether a bad input is a user error, a skipped candidate or a bug.
#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

namespace aitk::util {

template <class E>
class Unexpected {
  public:
    explicit Unexpected(E error) : error_(std::move(error)) {}
    E& error() & { return error_; }
    E&& error() && { return std::move(error_); }

  private:
    E error_;
};

template <class E>
Unexpected(E) -> Unexpected<E>;

template <class T, class E>
class [[nodiscard]] Expected {
  public:
    Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
    template <class G>
    Expected(Unexpected<G> error) : storage_(std::in_place_index<1>, std::move(error).error()) {}

    bool has_value() const noexcept { return storage_.index() == 0; }
    explicit operator bool() const noexcept { return has_value(); }

    T& value() & { return std::get<0>(storage_); }
    const T& value() const& { return std::get<0>(storage_); }
    T&& value() && { return std::get<0>(std::move(storage_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    E& error() & { return std::get<1>(storage_); }
    const E& error() const& { return std::get<1>(storage_); }
    E&& error() && { return std::get<1>(std::move(storage_)); }

    template <class U>
    T value_or(U&& fallback) const& {
        return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
    }

  private:
    std::variant<T, E> storage_;
};

}  // namespace aitk::util
