// A small, bounded XML reader for the recordings the probe replays
// (`nvidia-smi -q -x`). It keeps elements, attributes and text; it skips the
// prolog, DOCTYPE, comments and CDATA markers, and decodes the five
// predefined entities. It is not a validating parser: recordings are
// untrusted input, so depth and size are capped and errors are Status values.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // concatenated character data directly inside, trimmed
  std::vector<std::unique_ptr<XmlElement>> children;

  // First child named `name`, or null.
  const XmlElement* Child(const std::string& name) const;
  // Text of the element at a '/'-separated path ("pci/pci_bus_id"), or "".
  std::string Text(const std::string& path) const;
  std::vector<const XmlElement*> Children(const std::string& name) const;
};

// Parses a document; returns its root element.
StatusOr<std::unique_ptr<XmlElement>> ParseXml(const std::string& text);

}  // namespace tfhost::host
