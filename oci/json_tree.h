/* A read-only JSON document tree for oci/'s parsers, built with yajl's
 * callback API so that hostile input is refused before anything recursive
 * exists: nesting, entry counts and the total number of values are bounded,
 * strings and member names with NUL bytes are refused, and every error names
 * the JSON path ("config.json: process.args[2]: ...").  Objects keep the last
 * value of a repeated member name, like Go's encoding/json.  Also the typed
 * accessors that the config, state and policy parsers share.  Internal to
 * oci/: nothing outside it sees yajl or these nodes. */
#ifndef AGENTRT_OCI_JSON_TREE_H
#define AGENTRT_OCI_JSON_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

#define JSON_MAX_DEPTH 64
#define JSON_MAX_ENTRIES 65536
#define JSON_MAX_VALUES (1u << 20)

enum json_type
{
  JSON_NULL,
  JSON_BOOL,
  JSON_NUMBER,
  JSON_STRING,
  JSON_OBJECT,
  JSON_ARRAY,
};

struct json_node
{
  const char *key; /* member name inside an object, else NULL */
  union
  {
    const char *text; /* JSON_STRING value, JSON_NUMBER literal: `len`
                         bytes, not NUL-terminated */
    struct json_node *items; /* JSON_OBJECT members, JSON_ARRAY elements */
    bool boolean;
  } u;
  uint32_t len; /* bytes of text, or number of items */
  uint8_t type; /* enum json_type */
};

struct json_doc;

/* Parses `len` bytes; `origin` prefixes error messages ("config.json").
 * String values may point into `text`, which must outlive the document. */
struct json_doc *json_doc_parse (const char *text, size_t len,
                                 const char *origin, agentrt_error_t *err);
const struct json_node *json_doc_root (const struct json_doc *doc);
void json_doc_free (struct json_doc *doc);

static inline void
cleanup_json_doc_fn (struct json_doc **d)
{
  json_doc_free (*d);
}
#define cleanup_json_doc __attribute__ ((cleanup (cleanup_json_doc_fn)))

/* A location in the document, as a chain of stack-allocated links from the
 * innermost member up to the root (up == NULL).  key == NULL: array index. */
struct json_path
{
  const struct json_path *up;
  const char *key;
  size_t index;
};
#define JSON_PATH_KEY(up_, key_) (&(const struct json_path){ (up_), (key_), 0 })
#define JSON_PATH_INDEX(up_, i_) (&(const struct json_path){ (up_), NULL, (i_) })

struct json_ctx
{
  const char *origin;
  agentrt_error_t *err;
};

/* Sets "<origin>: <path>: <message>" (no path part at the root); returns -1. */
int json_fail (const struct json_ctx *c, const struct json_path *p,
               const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Writes s as a quoted, escaped excerpt (at most ~64 bytes of it) for error
 * messages: "\"RLIMIT_FOO\"".  Returns buf. */
#define JSON_QUOTE_SIZE 96
const char *json_quote (const char *s, char buf[JSON_QUOTE_SIZE]);

/* The member `key` of an object, NULL when absent or null. */
const struct json_node *json_member (const struct json_node *obj,
                                     const char *key);

/* Type checks and conversions of one node.  Wrong types fail with
 * "expected a string" and the like. */
int json_expect (const struct json_ctx *c, const struct json_node *node,
                 const struct json_path *p, enum json_type type);
int json_read_string (const struct json_ctx *c, const struct json_node *node,
                      const struct json_path *p, char **out);
int json_read_bool (const struct json_ctx *c, const struct json_node *node,
                    const struct json_path *p, bool *out);

/* Integers are read from the literal, so floats ("1.5", "1e3"), negative
 * values for unsigned kinds and values beyond 64 bits are all refused. */
enum json_int_kind
{
  JSON_U16, /* uint16_t */
  JSON_U32, /* uint32_t */
  JSON_U64, /* uint64_t */
  JSON_I32, /* int32_t */
  JSON_I64, /* int64_t */
};
int json_read_int (const struct json_ctx *c, const struct json_node *node,
                   const struct json_path *p, enum json_int_kind kind,
                   void *out);

/* Members of an object at `p`.  JSON_OPTIONAL members that are absent (or
 * null) leave *out alone and set *has (when given) to false. */
enum json_presence
{
  JSON_OPTIONAL,
  JSON_REQUIRED,
};
int json_member_string (const struct json_ctx *c, const struct json_node *obj,
                        const struct json_path *p, const char *key,
                        enum json_presence presence, char **out);
int json_member_bool (const struct json_ctx *c, const struct json_node *obj,
                      const struct json_path *p, const char *key,
                      enum json_presence presence, bool *out, bool *has);
int json_member_int (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, const char *key,
                     enum json_presence presence, enum json_int_kind kind,
                     void *out, bool *has);
/* An object or array member: *out is NULL when absent. */
int json_member_of_type (const struct json_ctx *c, const struct json_node *obj,
                         const struct json_path *p, const char *key,
                         enum json_presence presence, enum json_type type,
                         const struct json_node **out);

#endif
