// DimVector: a Shape's dimension sizes, the first kInlineDims of them stored
// in the object itself and more on the heap. Every Tensor holds a Shape and
// every tensor copy copies it: with the dims in a std::vector, a copied or
// new tensor cost a malloc and a free, tens of them per step of a While
// loop. Ranks of at most 6 (every layout tfhost's kernels use but a few
// rank-7+ shapes of the array ops) allocate nothing.
//
// The subset of std::vector<int64_t>'s interface the code base uses, plus an
// implicit conversion to std::vector<int64_t> for the functions that take
// one (that conversion allocates). Iterators are pointers; any change of
// size may move the elements (as a vector's growth does).
//
// Thread-safety: a value type; const access from many threads is safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <utility>
#include <vector>

namespace tfhost {

class DimVector {
 public:
  static constexpr size_t kInlineDims = 6;
  using value_type = int64_t;
  using size_type = size_t;
  using difference_type = ptrdiff_t;
  using reference = int64_t&;
  using const_reference = const int64_t&;
  using pointer = int64_t*;
  using const_pointer = const int64_t*;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;

  DimVector() noexcept {}  // inline_ stays uninitialized: size_ says none is in use
  DimVector(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  explicit DimVector(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }
  DimVector(size_t n, int64_t value) { assign(n, value); }
  template <typename It, typename = decltype(*std::declval<It>())>
  DimVector(It first, It last) {
    assign(first, last);
  }
  DimVector(const DimVector& other) { assign(other.begin(), other.end()); }
  DimVector(DimVector&& other) noexcept { MoveFrom(other); }
  DimVector& operator=(const DimVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  DimVector& operator=(DimVector&& other) noexcept {
    if (this != &other) {
      Release();
      MoveFrom(other);
    }
    return *this;
  }
  DimVector& operator=(std::initializer_list<int64_t> dims) {
    assign(dims.begin(), dims.end());
    return *this;
  }
  ~DimVector() { Release(); }

  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT: implicit

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  const int64_t& operator[](size_t i) const { return data_[i]; }
  int64_t& front() { return data_[0]; }
  const int64_t& front() const { return data_[0]; }
  int64_t& back() { return data_[size_ - 1]; }
  const int64_t& back() const { return data_[size_ - 1]; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }

  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }
  void push_back(int64_t d) {
    if (size_ == capacity_) Grow(capacity_ * 2);
    data_[size_++] = d;
  }
  void pop_back() { --size_; }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void assign(size_t n, int64_t value) {
    clear();
    resize(n, value);
  }
  template <typename It, typename = decltype(*std::declval<It>())>
  void assign(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    // `first` may point into this vector: copy before releasing anything.
    if (n > capacity_) {
      DimVector copy;
      copy.Grow(n);
      std::copy(first, last, copy.data_);
      copy.size_ = n;
      *this = std::move(copy);
      return;
    }
    std::copy(first, last, data_);
    size_ = n;
  }
  // Inserts [first, last) before `pos`; returns the first inserted element.
  template <typename It, typename = decltype(*std::declval<It>())>
  iterator insert(const_iterator pos, It first, It last) {
    const size_t at = static_cast<size_t>(pos - data_);
    const size_t n = static_cast<size_t>(std::distance(first, last));
    DimVector copy(first, last);  // the range may be inside this vector
    reserve(size_ + n);
    std::memmove(data_ + at + n, data_ + at, (size_ - at) * sizeof(int64_t));
    std::copy(copy.begin(), copy.end(), data_ + at);
    size_ += n;
    return data_ + at;
  }
  iterator insert(const_iterator pos, int64_t d) {
    const int64_t one[1] = {d};
    return insert(pos, one, one + 1);
  }
  iterator erase(const_iterator first, const_iterator last) {
    const size_t at = static_cast<size_t>(first - data_);
    const size_t n = static_cast<size_t>(last - first);
    std::memmove(data_ + at, data_ + at + n, (size_ - at - n) * sizeof(int64_t));
    size_ -= n;
    return data_ + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }

  friend bool operator==(const DimVector& a, const DimVector& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const DimVector& a, const DimVector& b) { return !(a == b); }
  friend bool operator==(const DimVector& a, const std::vector<int64_t>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<int64_t>& a, const DimVector& b) { return b == a; }
  friend bool operator!=(const DimVector& a, const std::vector<int64_t>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<int64_t>& a, const DimVector& b) { return !(b == a); }
  friend bool operator<(const DimVector& a, const DimVector& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool OnHeap() const { return data_ != inline_; }
  void Release() {
    if (OnHeap()) delete[] data_;
    data_ = inline_;
    capacity_ = kInlineDims;
    size_ = 0;
  }
  void MoveFrom(DimVector& other) {
    if (other.OnHeap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
    } else {
      data_ = inline_;
      capacity_ = kInlineDims;
      std::copy(other.inline_, other.inline_ + other.size_, inline_);
    }
    size_ = other.size_;
    other.data_ = other.inline_;
    other.capacity_ = kInlineDims;
    other.size_ = 0;
  }
  void Grow(size_t n) {
    n = std::max(n, static_cast<size_t>(kInlineDims) * 2);
    auto* bigger = new int64_t[n];
    std::copy(data_, data_ + size_, bigger);
    if (OnHeap()) delete[] data_;
    data_ = bigger;
    capacity_ = static_cast<uint32_t>(n);
  }

  int64_t* data_ = inline_;
  uint32_t size_ = 0;
  uint32_t capacity_ = kInlineDims;
  int64_t inline_[kInlineDims];
};

}  // namespace tfhost
