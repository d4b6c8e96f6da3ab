/* A small JSON writer so that code outside oci/ can emit JSON (log lines,
 * audit events, features, ps output) without depending on yajl. */
#ifndef AGENTRT_OCI_JSON_WRITER_H
#define AGENTRT_OCI_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_writer;

/* pretty: indented with two spaces, like Go's json.MarshalIndent (and runc's
 * `state`); otherwise compact. */
struct json_writer *json_writer_new (bool pretty);
/* Indented with `indent` (a static string such as "\t"); NULL is compact. */
struct json_writer *json_writer_new_indent (const char *indent);
void json_writer_free (struct json_writer *w);

void json_begin_object (struct json_writer *w);
void json_end_object (struct json_writer *w);
void json_begin_array (struct json_writer *w);
void json_end_array (struct json_writer *w);

/* Values (inside an array, or after json_key). */
/* NULL -> null; invalid UTF-8 bytes are written as U+FFFD. */
void json_string (struct json_writer *w, const char *s);
void json_int (struct json_writer *w, int64_t v);
void json_uint (struct json_writer *w, uint64_t v);
void json_double (struct json_writer *w, double v);
void json_bool (struct json_writer *w, bool v);
void json_null (struct json_writer *w);
/* A value that is already a JSON document (written by this project: it is
 * inserted as is, not checked). */
void json_raw (struct json_writer *w, const char *json);

void json_key (struct json_writer *w, const char *key);
/* Shorthands for "key": value. */
void json_kv_string (struct json_writer *w, const char *key, const char *s);
void json_kv_int (struct json_writer *w, const char *key, int64_t v);
void json_kv_uint (struct json_writer *w, const char *key, uint64_t v);
void json_kv_bool (struct json_writer *w, const char *key, bool v);

/* Returns the document (malloc'd, NUL-terminated, without trailing newline)
 * and frees the writer.  Unbalanced use is a programming error: aborts. */
char *json_writer_finish (struct json_writer *w, size_t *len);
/* A JSON line: ends the top-level object, adds a newline and finishes
 * (len counts the newline, not the terminating NUL). */
char *json_writer_finish_line (struct json_writer *w, size_t *len);

#endif
