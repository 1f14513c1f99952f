// Checks a real HTTP response against docs/openapi.json: the path and method are documented,
// the status code is among the operation's responses, the content type is one the response
// documents, and the body validates against its schema. The validator covers the JSON Schema
// keywords the document uses (type, enum, const, required, properties, items, anyOf, $ref,
// minimum, maximum, pattern, minItems, maxItems, additionalProperties as a schema); an unknown keyword fails loudly so the
// document cannot outgrow the check unnoticed.
#pragma once

#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace occtune::testing {

class OpenApiCheck {
 public:
  explicit OpenApiCheck(nlohmann::json document) : doc_(std::move(document)) {}

  // Empty when the response conforms; otherwise what is wrong, one finding per line.
  std::string check(const std::string& path, const std::string& method, int status,
                    const std::string& content_type, const std::string& body) const {
    errors_.clear();
    const std::string verb = method == "HEAD" ? "get" : lower(method);
    const nlohmann::json* op = nullptr;
    if (doc_["paths"].contains(path) && doc_["paths"][path].contains(verb)) {
      op = &doc_["paths"][path][verb];
    } else if (!doc_["paths"].contains(path) && status == 404) {
      // An unknown path: any problem document will do.
      validate_problem(content_type, body, "unknown path");
      return join();
    } else if (doc_["paths"].contains(path) && status == 405) {
      op = &doc_["paths"][path]["get"];  // 405 is documented on every operation
    } else {
      return "operation " + method + " " + path + " is not documented";
    }
    const std::string code = std::to_string(status);
    if (!(*op)["responses"].contains(code)) return "status " + code + " is not documented";
    const nlohmann::json& response = resolve((*op)["responses"][code]);
    const std::string media = content_type.substr(0, content_type.find(';'));
    if (!response["content"].contains(media))
      return "content type '" + media + "' is not documented for " + code;
    if (method == "HEAD") return join();  // no body to check
    const nlohmann::json& schema = response["content"][media]["schema"];
    if (media == "text/plain") {
      validate(nlohmann::json(body), schema, "$");
      return join();
    }
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(body);
    } catch (const std::exception&) {
      return "body is not JSON: " + body.substr(0, 200);
    }
    validate(value, schema, "$");
    return join();
  }

 private:
  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  std::string join() const {
    std::string out;
    for (auto& e : errors_) out += e + "\n";
    return out;
  }

  void validate_problem(const std::string& content_type, const std::string& body,
                        const std::string& where) const {
    if (content_type.rfind("application/problem+json", 0) != 0) {
      errors_.push_back(where + ": content type " + content_type);
      return;
    }
    try {
      validate(nlohmann::json::parse(body), doc_["components"]["schemas"]["Problem"], "$");
    } catch (const std::exception&) {
      errors_.push_back(where + ": body is not JSON");
    }
  }

  const nlohmann::json& resolve(const nlohmann::json& node) const {
    if (!node.is_object() || !node.contains("$ref")) return node;
    const std::string ref = node["$ref"];
    const nlohmann::json* at = &doc_;
    std::size_t start = 2;  // after "#/"
    while (start <= ref.size()) {
      const auto end = ref.find('/', start);
      at = &(*at)[ref.substr(start, end - start)];
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return resolve(*at);
  }

  static bool has_type(const nlohmann::json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    return false;
  }

  void validate(const nlohmann::json& v, const nlohmann::json& schema_node,
                const std::string& where) const {
    static const std::set<std::string> known = {
        "type",    "enum",    "const",   "required", "properties", "items",       "anyOf",  "$ref",
        "minimum", "maximum", "pattern", "minItems", "maxItems",   "description", "default",
        "additionalProperties"};
    if (schema_node.contains("$ref")) validate(v, resolve(schema_node), where);
    const nlohmann::json& s = schema_node;
    for (auto& [key, _] : s.items())
      if (!known.count(key)) errors_.push_back(where + ": the checker does not know '" + key + "'");
    if (s.contains("type")) {
      bool ok = false;
      if (s["type"].is_array()) {
        for (auto& t : s["type"]) ok |= has_type(v, t);
      } else {
        ok = has_type(v, s["type"]);
      }
      if (!ok) {
        errors_.push_back(where + ": " + v.dump().substr(0, 80) + " is not of type " +
                          s["type"].dump());
        return;
      }
    }
    if (s.contains("anyOf")) {
      const auto before = errors_;
      bool any = false;
      for (auto& option : s["anyOf"]) {
        errors_.clear();
        validate(v, option, where);
        any |= errors_.empty();
      }
      errors_ = before;
      if (!any) errors_.push_back(where + ": matches no anyOf option");
    }
    if (s.contains("enum") && std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
      errors_.push_back(where + ": " + v.dump() + " is not in " + s["enum"].dump());
    if (s.contains("const") && v != s["const"])
      errors_.push_back(where + ": " + v.dump() + " is not " + s["const"].dump());
    if (v.is_number()) {
      if (s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
        errors_.push_back(where + ": below minimum");
      if (s.contains("maximum") && v.get<double>() > s["maximum"].get<double>())
        errors_.push_back(where + ": above maximum");
    }
    if (v.is_string() && s.contains("pattern") &&
        !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
      errors_.push_back(where + ": '" + v.get<std::string>() + "' does not match " +
                        s["pattern"].get<std::string>());
    if (v.is_object()) {
      if (s.contains("required"))
        for (auto& name : s["required"])
          if (!v.contains(name))
            errors_.push_back(where + ": missing '" + name.get<std::string>() + "'");
      if (s.contains("properties"))
        for (auto& [name, sub] : s["properties"].items())
          if (v.contains(name)) validate(v[name], sub, where + "." + name);
      // The schema form only (every member not named in properties must match it).
      if (s.contains("additionalProperties"))
        for (auto& [name, member] : v.items())
          if (!s.contains("properties") || !s["properties"].contains(name))
            validate(member, s["additionalProperties"], where + "." + name);
    }
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>())
        errors_.push_back(where + ": too few items");
      if (s.contains("maxItems") && v.size() > s["maxItems"].get<std::size_t>())
        errors_.push_back(where + ": too many items");
      if (s.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i)
          validate(v[i], s["items"], where + "[" + std::to_string(i) + "]");
    }
  }

  nlohmann::json doc_;
  mutable std::vector<std::string> errors_;
};

}  // namespace occtune::testing
