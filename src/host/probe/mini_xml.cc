#include "host/probe/mini_xml.h"

#include <cctype>

#include "host/probe/fs_reader.h"

namespace tfhost::host {

namespace {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxElements = 1 << 20;

std::string DecodeEntities(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    std::string ent = semi == std::string::npos ? "" : s.substr(i + 1, semi - i - 1);
    if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "amp") out += '&';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else { out += '&'; continue; }
    i = semi;
  }
  return out;
}

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  StatusOr<std::unique_ptr<XmlElement>> Document() {
    std::unique_ptr<XmlElement> root;
    while (pos_ < t_.size()) {
      SkipSpace();
      if (pos_ >= t_.size()) break;
      if (t_.compare(pos_, 2, "<?") == 0) {
        TFHOST_RETURN_IF_ERROR(SkipPast("?>"));
      } else if (t_.compare(pos_, 4, "<!--") == 0) {
        TFHOST_RETURN_IF_ERROR(SkipPast("-->"));
      } else if (t_.compare(pos_, 2, "<!") == 0) {
        TFHOST_RETURN_IF_ERROR(SkipPast(">"));
      } else if (t_[pos_] == '<') {
        if (root) return Error("a second root element");
        TFHOST_ASSIGN_OR_RETURN(root, Element(0));
      } else {
        return Error("text outside the root element");
      }
    }
    if (!root) return Error("no root element");
    return root;
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidArgument("XML: " + what + " at byte " + std::to_string(pos_));
  }
  void SkipSpace() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  Status SkipPast(const std::string& end) {
    size_t e = t_.find(end, pos_);
    if (e == std::string::npos) return Error("unterminated '" + end + "'");
    pos_ = e + end.size();
    return OkStatus();
  }
  std::string Name() {
    size_t b = pos_;
    while (pos_ < t_.size() && !std::isspace(static_cast<unsigned char>(t_[pos_])) && t_[pos_] != '>' &&
           t_[pos_] != '/' && t_[pos_] != '=') {
      ++pos_;
    }
    return t_.substr(b, pos_ - b);
  }

  StatusOr<std::unique_ptr<XmlElement>> Element(int depth) {
    if (depth > kMaxDepth) return Error("elements nested deeper than 64");
    if (++count_ > kMaxElements) return Error("more than 1M elements");
    ++pos_;  // '<'
    auto el = std::make_unique<XmlElement>();
    el->name = Name();
    if (el->name.empty()) return Error("element without a name");
    for (;;) {
      SkipSpace();
      if (pos_ >= t_.size()) return Error("unterminated start tag <" + el->name + ">");
      if (t_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return el;
      }
      if (t_[pos_] == '>') {
        ++pos_;
        break;
      }
      std::string key = Name();
      SkipSpace();
      if (key.empty() || pos_ >= t_.size() || t_[pos_] != '=') return Error("bad attribute in <" + el->name + ">");
      ++pos_;
      SkipSpace();
      if (pos_ >= t_.size() || (t_[pos_] != '"' && t_[pos_] != '\'')) return Error("unquoted attribute value");
      char q = t_[pos_++];
      size_t e = t_.find(q, pos_);
      if (e == std::string::npos) return Error("unterminated attribute value");
      el->attributes[key] = DecodeEntities(t_.substr(pos_, e - pos_));
      pos_ = e + 1;
    }
    std::string text;
    for (;;) {
      if (pos_ >= t_.size()) return Error("missing </" + el->name + ">");
      if (t_.compare(pos_, 4, "<!--") == 0) {
        TFHOST_RETURN_IF_ERROR(SkipPast("-->"));
      } else if (t_.compare(pos_, 9, "<![CDATA[") == 0) {
        size_t e = t_.find("]]>", pos_);
        if (e == std::string::npos) return Error("unterminated CDATA");
        text += t_.substr(pos_ + 9, e - pos_ - 9);
        pos_ = e + 3;
      } else if (t_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        std::string close = Name();
        if (close != el->name) return Error("</" + close + "> closes <" + el->name + ">");
        TFHOST_RETURN_IF_ERROR(SkipPast(">"));
        el->text = Trim(DecodeEntities(text));
        return el;
      } else if (t_[pos_] == '<') {
        TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<XmlElement> child, Element(depth + 1));
        el->children.push_back(std::move(child));
      } else {
        size_t e = t_.find('<', pos_);
        if (e == std::string::npos) e = t_.size();
        text += t_.substr(pos_, e - pos_);
        pos_ = e;
      }
    }
  }

  const std::string& t_;
  size_t pos_ = 0;
  size_t count_ = 0;
};

}  // namespace

const XmlElement* XmlElement::Child(const std::string& n) const {
  for (const auto& c : children) if (c->name == n) return c.get();
  return nullptr;
}

std::vector<const XmlElement*> XmlElement::Children(const std::string& n) const {
  std::vector<const XmlElement*> out;
  for (const auto& c : children) if (c->name == n) out.push_back(c.get());
  return out;
}

std::string XmlElement::Text(const std::string& path) const {
  const XmlElement* cur = this;
  for (const std::string& part : SplitNonEmpty(path, "/")) {
    cur = cur->Child(part);
    if (cur == nullptr) return "";
  }
  return cur->text;
}

StatusOr<std::unique_ptr<XmlElement>> ParseXml(const std::string& text) { return Parser(text).Document(); }

}  // namespace tfhost::host
