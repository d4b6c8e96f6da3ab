/* Strict HTTP/1.x message-head parsing for the forward proxy: requests
 * from the agent (CONNECT and absolute-form), responses from servers (only
 * as much as is needed to find where each response ends), and the chunked
 * transfer coding.  Pure code: the parsers work on a complete buffer and
 * say "need more" until the head is complete; nothing is allocated and no
 * header value is ever copied out. */
#ifndef AGENTRT_EGRESS_HTTP_PARSE_H
#define AGENTRT_EGRESS_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"

/* A head (request line or status line, fields, empty line) longer than
 * this is refused with 431 (request) or 502 (response). */
#define HTTP_HEAD_MAX (16 * 1024)
#define HTTP_LINE_MAX (8 * 1024)
#define HTTP_MAX_FIELDS 100

enum http_framing
{
  HTTP_BODY_NONE,
  HTTP_BODY_LENGTH,
  HTTP_BODY_CHUNKED,
  HTTP_BODY_UNTIL_CLOSE, /* responses only */
};

/* Why a message was refused: the status to answer with and a short reason
 * for X-Agentrt-Denied and the audit line. */
struct http_error
{
  int status;
  const char *reason;
};

struct http_field
{
  uint16_t line, line_len; /* offset of the line, length without CRLF */
  uint16_t name_len;
  bool drop; /* hop-by-hop: not forwarded */
};

struct http_head
{
  size_t len; /* bytes up to and including the empty line */
  size_t first_line_len; /* without CRLF */
  int minor;             /* HTTP/1.<minor>, 0 or 1 */
  unsigned nfields;
  struct http_field fields[HTTP_MAX_FIELDS];
  enum http_framing framing;
  uint64_t content_length;
  bool close; /* the sender will not (or asked us not to) reuse the connection */
};

struct http_request
{
  struct http_head head;
  bool is_connect;
  size_t method_len;           /* method is at offset 0 */
  size_t path, path_len;       /* origin-form path within the target */
  struct host host;
  uint16_t port;
};

struct http_response
{
  struct http_head head;
  int status;
};

/* The value of field f of the head in buf: after the colon and blanks,
 * before trailing blanks (*vlen bytes). */
const char *http_field_value (const char *buf, const struct http_field *f, size_t *vlen);

/* Return values of the head parsers. */
enum
{
  HTTP_PARSE_ERROR = -1,
  HTTP_PARSE_MORE = 0,
  HTTP_PARSE_DONE = 1,
};

/* Parses the request head at the start of buf[0..len).  On DONE req is
 * filled (req->head.len bytes belong to the head); on ERROR e says what
 * to answer.  Only proxy requests are accepted: CONNECT host:port and
 * absolute-form http:// URIs whose authority agrees with Host. */
int http_parse_request (const char *buf, size_t len, struct http_request *req,
                        struct http_error *e);

/* Parses an origin-form request head (a request inside a TLS connection
 * the sidecar terminated: "GET /path HTTP/1.1" and a Host field, which
 * names the host and port, default_port when it has none).  CONNECT and
 * absolute-form are refused. */
int http_parse_origin_request (const char *buf, size_t len, uint16_t default_port,
                               struct http_request *req, struct http_error *e);

/* Parses a response head; head_request says the request was HEAD (the
 * response then has no body whatever its fields say). */
int http_parse_response (const char *buf, size_t len, bool head_request,
                         struct http_response *resp, struct http_error *e);

/* Writes the request head as sent upstream: origin-form request line and
 * the end-to-end fields.  out must hold req->head.len + 16 bytes.  Returns
 * the length written. */
size_t http_request_rewrite (const char *buf, const struct http_request *req,
                             char *out);

/* Writes the response head as sent to the client: the status line and the
 * end-to-end fields, plus `Connection: close` when close is true.  out must
 * hold resp->head.len + 24 bytes. */
size_t http_response_rewrite (const char *buf, const struct http_response *resp,
                              bool close, char *out);

/* Incremental decoder of the chunked coding, used only to find where the
 * body ends: bytes are forwarded unchanged. */
struct http_chunked
{
  int state;
  uint64_t size;
  unsigned digits;
  size_t trailer_bytes;
};

void http_chunked_init (struct http_chunked *c);

/* Consumes framing bytes from p[0..n) (setting *consumed).  When a chunk
 * header is complete, stops and sets *data to the chunk's size: the caller
 * passes that many body bytes on and calls again.  Returns 1 once the last
 * chunk and the trailer section are consumed, 0 to continue, -1 when the
 * coding is malformed. */
int http_chunked_feed (struct http_chunked *c, const char *p, size_t n,
                       size_t *consumed, uint64_t *data);

#endif
