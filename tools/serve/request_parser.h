// The wire side of partkv serve's HTTP layer (server.cc): Beast's HTTP/1.1 request parser writing
// straight into an HttpRequest, with the limits Beast's generic parser lacks, and the head of a
// reply as it goes out. No sockets here: session.cc feeds the parser and writes the bytes.

#ifndef PARTKV_TOOLS_SERVE_REQUEST_PARSER_H_
#define PARTKV_TOOLS_SERVE_REQUEST_PARSER_H_

#include <boost/beast/http/basic_parser.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/serve/http_types.h"
#include "tools/serve/server.h"
#include "tools/serve/service.h"  // kMaxBodyBytes

namespace partkv::serve {

// Beast's HTTP/1.1 parser, writing straight into an HttpRequest, with the limits the generic
// parser lacks: the number of header fields and the length of the request target.
class RequestParser : public boost::beast::http::basic_parser<true> {
 public:
  explicit RequestParser(const ServeOptions& options) : options_(options) {
    header_limit(static_cast<uint32_t>(std::min<size_t>(options.max_header_bytes, UINT32_MAX)));
    body_limit(kMaxBodyBytes);
    request_.headers.clear();
  }

  HttpRequest& request() { return request_; }
  const std::string& target() const { return target_; }
  bool too_many_fields() const { return too_many_fields_; }
  bool target_too_long() const { return target_too_long_; }
  bool expects_continue() const { return expects_continue_; }

 private:
  void on_request_impl(boost::beast::http::verb, boost::beast::string_view method,
                       boost::beast::string_view target, int version,
                       boost::system::error_code& ec) override {
    if (target.size() > options_.max_target_bytes) {
      target_too_long_ = true;
      ec = boost::beast::http::error::header_limit;
      return;
    }
    request_.verb.assign(method.data(), method.size());
    target_.assign(target.data(), target.size());
    http_10_ = version < 11;
  }

  void on_response_impl(int, boost::beast::string_view, int,
                        boost::system::error_code& ec) override {
    ec = boost::beast::http::error::bad_version;  // a request parser never sees a status line
  }

  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, boost::system::error_code& ec) override {
    if (++fields_ > options_.max_header_fields) {
      too_many_fields_ = true;
      ec = boost::beast::http::error::header_limit;
      return;
    }
    if (name == boost::beast::http::field::expect && boost::beast::iequals(value, "100-continue")) {
      expects_continue_ = true;
    }
    request_.headers.emplace_hint(request_.headers.end(),
                                  std::string(name_string.data(), name_string.size()),
                                  std::string(value.data(), value.size()));
  }

  void on_header_impl(boost::system::error_code&) override {}

  void on_body_init_impl(const boost::optional<uint64_t>& content_length,
                         boost::system::error_code&) override {
    // The limit was checked against content_length before this is called.
    if (content_length) request_.body.reserve(static_cast<size_t>(*content_length));
  }

  size_t on_body_impl(boost::beast::string_view body, boost::system::error_code&) override {
    request_.body.append(body.data(), body.size());
    return body.size();
  }

  void on_chunk_header_impl(uint64_t, boost::beast::string_view,
                            boost::system::error_code&) override {}

  size_t on_chunk_body_impl(uint64_t, boost::beast::string_view body,
                            boost::system::error_code&) override {
    request_.body.append(body.data(), body.size());
    return body.size();
  }

  void on_finish_impl(boost::system::error_code&) override {}

  const ServeOptions& options_;
  HttpRequest request_;
  std::string target_;
  int fields_ = 0;
  bool http_10_ = false;
  bool too_many_fields_ = false;
  bool target_too_long_ = false;
  bool expects_continue_ = false;
};

// Fills the request's raw_path, path (percent-decoded; "" when it does not decode, which the
// service answers InvalidUri) and query from the request line's target.
void FillTarget(HttpRequest& r, std::string_view target);

// The status line, the reply's headers, Content-Length and (when closing) Connection: close.
std::string SerializeHead(const HttpReply& reply, size_t body_size, bool close);

}  // namespace partkv::serve

#endif  // PARTKV_TOOLS_SERVE_REQUEST_PARSER_H_
