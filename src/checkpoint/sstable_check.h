// A structural pre-check of a LevelDB-format SSTable (docs/formats.md §3.2) held in
// memory, run before LevelDB's own reader sees an untrusted .index file.
//
// Why: LevelDB trusts block handles. It allocates `size + 5` bytes for each
// block before reading it, so a crafted handle near 2^64 wraps that sum and
// makes it read outside its buffer. This check walks the footer and the index
// block (verifying their checksums, decompressing Snappy itself) and rejects
// any handle that does not lie inside the file, so LevelDB only ever follows
// handles that are in bounds.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace tfhost::checkpoint {

// Checks that the footer magic is right, that the metaindex and index block
// handles lie inside the file, that both blocks' checksums match, and
// that every data-block handle in it lies before the index block. `path`
// names the file in errors. Does not check data blocks (LevelDB verifies
// their checksums when ReadOptions.verify_checksums is set).
Status CheckSSTableStructure(std::string_view file, const std::string& path);

// Decompresses a raw Snappy block (docs/formats.md §3.5). The declared length must
// not exceed `max_output`; malformed input is DataLoss.
StatusOr<std::string> SnappyUncompress(std::string_view in, size_t max_output);

}  // namespace tfhost::checkpoint
