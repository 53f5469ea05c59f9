#include "data/pipeline/sources.h"

#include <glob.h>

#include <algorithm>
#include <random>

namespace tfhost::data::pipeline {
namespace {

// Reports a file-list error as the first Next().
class ErrorIterator : public Iterator<std::string> {
 public:
  explicit ErrorIterator(Status s) : s_(std::move(s)) {}
  NextResult<std::string> Next() override { return s_; }
  void Cancel() override {}

 private:
  Status s_;
};

class RecordIterator : public Iterator<std::string> {
 public:
  RecordIterator(std::string path, TFRecordReaderOptions options) : path_(std::move(path)), options_(options) {}
  NextResult<std::string> Next() override {
    if (cancelled_) return CancelledError();
    if (!reader_) {
      TFHOST_ASSIGN_OR_RETURN(reader_, TFRecordReader::Open(path_, options_));
    }
    std::string_view view;
    TFHOST_ASSIGN_OR_RETURN(bool got, reader_->ReadView(&view));
    if (!got) return std::optional<std::string>();
    return std::optional<std::string>(std::string(view));
  }
  void Cancel() override { cancelled_ = true; }

 private:
  std::string path_;
  TFRecordReaderOptions options_;
  std::unique_ptr<TFRecordReader> reader_;  // opened on first use, so idle slots hold no fd
  std::atomic<bool> cancelled_{false};
};

StatusOr<std::vector<std::string>> Expand(const std::vector<std::string>& patterns) {
  std::vector<std::string> files;
  for (const std::string& pattern : patterns) {
    glob_t g;
    int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
    if (rc == GLOB_NOMATCH) return NotFound("no file matches '" + pattern + "'");
    if (rc != 0) return InvalidArgument("cannot expand file pattern '" + pattern + "'");
    for (size_t i = 0; i < g.gl_pathc; ++i) files.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace

Pipeline<std::string> ListFiles(std::vector<std::string> patterns, bool shuffle, uint64_t seed) {
  return Pipeline<std::string>([patterns, shuffle, seed]() -> IteratorPtr<std::string> {
    auto files = Expand(patterns);
    if (!files.ok()) return std::make_unique<ErrorIterator>(files.status());
    if (shuffle) {
      std::mt19937_64 rng(seed);
      for (size_t i = files->size(); i > 1; --i) std::swap((*files)[i - 1], (*files)[rng() % i]);
    }
    return Pipeline<std::string>::FromVector(std::move(*files)).MakeIterator();
  });
}

Pipeline<std::string> TFRecordRecords(const std::string& path, TFRecordReaderOptions options) {
  return Pipeline<std::string>(
      [path, options] { return IteratorPtr<std::string>(new RecordIterator(path, options)); });
}

Pipeline<std::string> TFRecordDataset(const Pipeline<std::string>& files, InterleaveOptions interleave,
                                      TFRecordReaderOptions options) {
  return files.Interleave<std::string>(
      [options](const std::string& path) { return TFRecordRecords(path, options); }, interleave);
}

std::function<StatusOr<Example>(std::string)> ParseExampleFn() {
  return [](std::string record) { return DecodeExample(record); };
}

StatusOr<PaddedBatch> PadBatch(const std::vector<Example>& examples) {
  PaddedBatch out;
  const int64_t n = static_cast<int64_t>(examples.size());
  for (const Example& ex : examples) {
    for (const auto& [name, f] : ex.features) {
      PaddedFeature& p = out[name];
      if (f.kind == FeatureKind::kNone) continue;
      if (p.kind != FeatureKind::kNone && p.kind != f.kind) {
        return InvalidArgument("padded batch: feature '" + name + "' is " + ops::parsing::FeatureKindName(p.kind) +
                               " in one row and " + ops::parsing::FeatureKindName(f.kind) + " in another");
      }
      p.kind = f.kind;
      p.max_len = std::max<int64_t>(p.max_len, static_cast<int64_t>(f.size()));
    }
  }
  for (auto& [name, p] : out) {
    p.batch = n;
    p.lengths.assign(static_cast<size_t>(n), 0);
    size_t cells = static_cast<size_t>(n * p.max_len);
    switch (p.kind) {
      case FeatureKind::kInt64: p.int64s.assign(cells, 0); break;
      case FeatureKind::kFloat: p.floats.assign(cells, 0.0f); break;
      case FeatureKind::kBytes: p.bytes.assign(cells, std::string()); break;
      case FeatureKind::kNone: break;
    }
  }
  for (int64_t row = 0; row < n; ++row) {
    for (const auto& [name, f] : examples[static_cast<size_t>(row)].features) {
      PaddedFeature& p = out[name];
      size_t base = static_cast<size_t>(row * p.max_len);
      p.lengths[static_cast<size_t>(row)] = static_cast<int64_t>(f.size());
      switch (f.kind) {
        case FeatureKind::kInt64: std::copy(f.int64s.begin(), f.int64s.end(), p.int64s.begin() + base); break;
        case FeatureKind::kFloat: std::copy(f.floats.begin(), f.floats.end(), p.floats.begin() + base); break;
        case FeatureKind::kBytes: std::copy(f.bytes.begin(), f.bytes.end(), p.bytes.begin() + base); break;
        case FeatureKind::kNone: break;
      }
    }
  }
  return out;
}

}  // namespace tfhost::data::pipeline
