/* The JSON writer (json_writer.h): a growing buffer, a stack of open
 * containers, Go-compatible formatting (compact, or indented like
 * json.MarshalIndent with "{}"/"[]" for empty containers) and string
 * escaping that turns invalid UTF-8 into U+FFFD so the output is always
 * valid JSON.  Every JSON document agentrt writes goes through here. */
#include <config.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "json_writer.h"
#include "utf8.h"

#define JSON_WRITER_MAX_DEPTH 128

struct json_writer
{
  char *buf;
  size_t len;
  size_t cap;
  const char *indent; /* NULL: compact */
  size_t depth;
  bool after_key;
  bool complete; /* the top-level value was written */
  bool is_array[JSON_WRITER_MAX_DEPTH];
  bool has_items[JSON_WRITER_MAX_DEPTH];
};

static void __attribute__ ((noreturn))
misuse (const char *what)
{
  fprintf (stderr, "agentrt: json_writer misuse: %s\n", what);
  abort ();
}

static void
put (struct json_writer *w, const char *s, size_t n)
{
  if (w->cap - w->len < n + 1)
    {
      size_t cap = w->cap ? w->cap : 256;
      while (cap - w->len < n + 1)
        {
          if (cap > SIZE_MAX / 2)
            misuse ("document too large");
          cap *= 2;
        }
      w->buf = xrealloc (w->buf, cap);
      w->cap = cap;
    }
  memcpy (w->buf + w->len, s, n);
  w->len += n;
}

static void
put_char (struct json_writer *w, char c)
{
  put (w, &c, 1);
}

static void
newline (struct json_writer *w, size_t depth)
{
  size_t ilen = strlen (w->indent);
  put_char (w, '\n');
  for (size_t i = 0; i < depth; i++)
    put (w, w->indent, ilen);
}

struct json_writer *
json_writer_new_indent (const char *indent)
{
  struct json_writer *w = xzalloc (sizeof (*w));
  w->indent = indent;
  return w;
}

struct json_writer *
json_writer_new (bool pretty)
{
  return json_writer_new_indent (pretty ? "  " : NULL);
}

void
json_writer_free (struct json_writer *w)
{
  if (w == NULL)
    return;
  free (w->buf);
  free (w);
}

/* Called before every value: separators, indentation, grammar checks. */
static void
before_value (struct json_writer *w)
{
  if (w->after_key)
    {
      w->after_key = false;
      return;
    }
  if (w->depth == 0)
    {
      if (w->complete)
        misuse ("second top-level value");
      return;
    }
  if (!w->is_array[w->depth - 1])
    misuse ("value inside an object without a key");
  if (w->has_items[w->depth - 1])
    put_char (w, ',');
  w->has_items[w->depth - 1] = true;
  if (w->indent)
    newline (w, w->depth);
}

static void
after_value (struct json_writer *w)
{
  if (w->depth == 0)
    w->complete = true;
}

static void
begin (struct json_writer *w, bool array)
{
  before_value (w);
  if (w->depth == JSON_WRITER_MAX_DEPTH)
    misuse ("nesting too deep");
  put_char (w, array ? '[' : '{');
  w->is_array[w->depth] = array;
  w->has_items[w->depth] = false;
  w->depth++;
}

static void
end (struct json_writer *w, bool array)
{
  if (w->depth == 0 || w->is_array[w->depth - 1] != array || w->after_key)
    misuse (array ? "unbalanced json_end_array" : "unbalanced json_end_object");
  w->depth--;
  if (w->indent && w->has_items[w->depth])
    newline (w, w->depth);
  put_char (w, array ? ']' : '}');
  after_value (w);
}

void
json_begin_object (struct json_writer *w)
{
  begin (w, false);
}

void
json_end_object (struct json_writer *w)
{
  end (w, false);
}

void
json_begin_array (struct json_writer *w)
{
  begin (w, true);
}

void
json_end_array (struct json_writer *w)
{
  end (w, true);
}

static void
put_string (struct json_writer *w, const char *str)
{
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *) str;
  size_t n = strlen (str), run = 0;

  put_char (w, '"');
  for (size_t i = 0; i < n;)
    {
      size_t seq = utf8_sequence (s + i, n - i);
      if (seq != 0 && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
        {
          i += seq;
          run += seq;
          continue;
        }
      put (w, (const char *) s + i - run, run);
      run = 0;
      if (seq == 0)
        put (w, "\\ufffd", 6);
      else if (s[i] == '"' || s[i] == '\\')
        {
          char esc[2] = { '\\', (char) s[i] };
          put (w, esc, 2);
        }
      else if (s[i] == '\n')
        put (w, "\\n", 2);
      else if (s[i] == '\r')
        put (w, "\\r", 2);
      else if (s[i] == '\t')
        put (w, "\\t", 2);
      else
        {
          char esc[6] = { '\\', 'u', '0', '0', hex[s[i] >> 4], hex[s[i] & 15] };
          put (w, esc, 6);
        }
      i++;
    }
  put (w, (const char *) s + n - run, run);
  put_char (w, '"');
}

void
json_string (struct json_writer *w, const char *s)
{
  if (s == NULL)
    {
      json_null (w);
      return;
    }
  before_value (w);
  put_string (w, s);
  after_value (w);
}

static void
put_raw_value (struct json_writer *w, const char *text)
{
  before_value (w);
  put (w, text, strlen (text));
  after_value (w);
}

void
json_int (struct json_writer *w, int64_t v)
{
  char num[24];
  snprintf (num, sizeof num, "%" PRId64, v);
  put_raw_value (w, num);
}

void
json_uint (struct json_writer *w, uint64_t v)
{
  char num[24];
  snprintf (num, sizeof num, "%" PRIu64, v);
  put_raw_value (w, num);
}

/* The shortest decimal that reads back as v, like Go's encoder. */
void
json_double (struct json_writer *w, double v)
{
  char num[32];

  if (!isfinite (v))
    {
      json_null (w);
      return;
    }
  for (int prec = 1; prec <= 17; prec++)
    {
      snprintf (num, sizeof num, "%.*g", prec, v);
      if (strtod (num, NULL) == v)
        break;
    }
  put_raw_value (w, num);
}

void
json_bool (struct json_writer *w, bool v)
{
  put_raw_value (w, v ? "true" : "false");
}

void
json_null (struct json_writer *w)
{
  put_raw_value (w, "null");
}

void
json_raw (struct json_writer *w, const char *json)
{
  put_raw_value (w, json);
}

void
json_key (struct json_writer *w, const char *key)
{
  if (w->depth == 0 || w->is_array[w->depth - 1] || w->after_key)
    misuse ("key outside an object");
  if (w->has_items[w->depth - 1])
    put_char (w, ',');
  w->has_items[w->depth - 1] = true;
  if (w->indent)
    newline (w, w->depth);
  put_string (w, key);
  if (w->indent)
    put (w, ": ", 2);
  else
    put_char (w, ':');
  w->after_key = true;
}

void
json_kv_string (struct json_writer *w, const char *key, const char *s)
{
  json_key (w, key);
  json_string (w, s);
}

void
json_kv_int (struct json_writer *w, const char *key, int64_t v)
{
  json_key (w, key);
  json_int (w, v);
}

void
json_kv_uint (struct json_writer *w, const char *key, uint64_t v)
{
  json_key (w, key);
  json_uint (w, v);
}

void
json_kv_bool (struct json_writer *w, const char *key, bool v)
{
  json_key (w, key);
  json_bool (w, v);
}

char *
json_writer_finish (struct json_writer *w, size_t *len)
{
  char *out;

  if (w->depth != 0 || !w->complete)
    misuse ("json_writer_finish on an incomplete document");
  put (w, "", 0); /* ensures room for the terminator */
  w->buf[w->len] = '\0';
  out = w->buf;
  if (len)
    *len = w->len;
  w->buf = NULL;
  json_writer_free (w);
  return out;
}

char *
json_writer_finish_line (struct json_writer *w, size_t *len)
{
  json_end_object (w);
  put (w, "\n", 1);
  return json_writer_finish (w, len);
}
