/* Reading the JSON tree (json_tree.h): member lookup, typed conversions with
 * range checks, and the path-naming error messages they produce. */
#include <config.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "json_tree.h"

const char *
json_quote (const char *s, char buf[JSON_QUOTE_SIZE])
{
  static const char hex[] = "0123456789abcdef";
  const size_t budget = JSON_QUOTE_SIZE - 12; /* room for an escape, "...\"" */
  const unsigned char *p = (const unsigned char *) s;
  size_t o = 0;

  buf[o++] = '"';
  for (; *p; p++)
    {
      if (o >= budget && (*p & 0xc0) != 0x80)
        {
          memcpy (buf + o, "...", 3);
          o += 3;
          break;
        }
      if (*p == '"' || *p == '\\')
        {
          buf[o++] = '\\';
          buf[o++] = (char) *p;
        }
      else if (*p < 0x20 || *p == 0x7f)
        {
          memcpy (buf + o, "\\u00", 4);
          buf[o + 4] = hex[*p >> 4];
          buf[o + 5] = hex[*p & 15];
          o += 6;
        }
      else
        buf[o++] = (char) *p;
    }
  buf[o++] = '"';
  buf[o] = '\0';
  return buf;
}

static bool
is_identifier (const char *s)
{
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
    return false;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
          || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

/* "process.rlimits[2].hard", "annotations[\"run.agentrt.egress\"]". */
static void
print_path (FILE *f, const struct json_path *p)
{
  cleanup_free const struct json_path **links = NULL;
  size_t total = 0, n;

  for (const struct json_path *l = p; l; l = l->up)
    total++;
  links = xreallocarray (NULL, total, sizeof (*links));
  n = total;
  for (const struct json_path *l = p; l; l = l->up)
    links[--n] = l;
  for (n = 0; n < total; n++)
    {
      const struct json_path *cur = links[n];
      char quoted[JSON_QUOTE_SIZE];
      if (cur->key == NULL)
        fprintf (f, "[%zu]", cur->index);
      else if (is_identifier (cur->key))
        fprintf (f, "%s%s", n > 0 ? "." : "", cur->key);
      else
        fprintf (f, "[%s]", json_quote (cur->key, quoted));
    }
}

int
json_fail (const struct json_ctx *c, const struct json_path *p,
           const char *fmt, ...)
{
  cleanup_free char *path = NULL, *msg = NULL;
  size_t size = 0;
  FILE *f;
  va_list ap;

  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  va_end (ap);
  if (p == NULL)
    return agentrt_error (c->err, 0, "%s: %s", c->origin,
                          msg ? msg : "out of memory");
  f = open_memstream (&path, &size);
  if (f == NULL)
    abort ();
  print_path (f, p);
  fclose (f);
  return agentrt_error (c->err, 0, "%s: %s: %s", c->origin, path,
                        msg ? msg : "out of memory");
}

const struct json_node *
json_member (const struct json_node *obj, const char *key)
{
  if (obj == NULL || obj->type != JSON_OBJECT)
    return NULL;
  for (uint32_t i = 0; i < obj->len; i++)
    if (obj->u.items[i].key[0] == key[0] && strcmp (obj->u.items[i].key, key) == 0)
      return obj->u.items[i].type == JSON_NULL ? NULL : &obj->u.items[i];
  return NULL;
}

int
json_expect (const struct json_ctx *c, const struct json_node *node,
             const struct json_path *p, enum json_type type)
{
  static const char *const names[] = {
    [JSON_NULL] = "null",       [JSON_BOOL] = "a boolean",
    [JSON_NUMBER] = "a number", [JSON_STRING] = "a string",
    [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
  };
  if (node->type == type)
    return 0;
  return json_fail (c, p, "expected %s", names[type]);
}

int
json_read_string (const struct json_ctx *c, const struct json_node *node,
                  const struct json_path *p, char **out)
{
  if (json_expect (c, node, p, JSON_STRING) < 0)
    return -1;
  *out = xmalloc ((size_t) node->len + 1);
  memcpy (*out, node->u.text, node->len);
  (*out)[node->len] = '\0';
  return 0;
}

int
json_read_bool (const struct json_ctx *c, const struct json_node *node,
                const struct json_path *p, bool *out)
{
  if (json_expect (c, node, p, JSON_BOOL) < 0)
    return -1;
  *out = node->u.boolean;
  return 0;
}

/* Splits an integer literal into sign and magnitude; false for anything
 * with a fraction or an exponent (yajl already checked the grammar). */
static bool
integer_literal (const char *t, size_t len, bool *negative,
                 uint64_t *magnitude, bool *overflow)
{
  const char *end = t + len;

  *negative = len > 0 && *t == '-';
  if (*negative)
    t++;
  *magnitude = 0;
  *overflow = false;
  for (; t < end; t++)
    {
      unsigned d = (unsigned) (*t - '0');
      if (d > 9)
        return false;
      if (*magnitude > (UINT64_MAX - d) / 10)
        *overflow = true;
      else
        *magnitude = *magnitude * 10 + d;
    }
  return true;
}

int
json_read_int (const struct json_ctx *c, const struct json_node *node,
               const struct json_path *p, enum json_int_kind kind, void *out)
{
  static const uint64_t umax[] = { [JSON_U16] = UINT16_MAX,
                                   [JSON_U32] = UINT32_MAX,
                                   [JSON_U64] = UINT64_MAX };
  static const int64_t smin[] = { [JSON_I32] = INT32_MIN, [JSON_I64] = INT64_MIN };
  static const int64_t smax[] = { [JSON_I32] = INT32_MAX, [JSON_I64] = INT64_MAX };
  bool is_signed = kind == JSON_I32 || kind == JSON_I64;
  bool negative, overflow;
  uint64_t mag;

  if (node->type != JSON_NUMBER
      || !integer_literal (node->u.text, node->len, &negative, &mag, &overflow)
      || (!is_signed && negative && mag != 0))
    return json_fail (c, p, is_signed ? "expected an integer"
                                      : "expected an unsigned integer");
  if (!is_signed)
    {
      if (overflow || mag > umax[kind])
        return json_fail (c, p, "out of range (0..%" PRIu64 ")", umax[kind]);
      if (kind == JSON_U16)
        *(uint16_t *) out = (uint16_t) mag;
      else if (kind == JSON_U32)
        *(uint32_t *) out = (uint32_t) mag;
      else
        *(uint64_t *) out = mag;
      return 0;
    }
  if (overflow || (negative ? mag > (uint64_t) smax[kind] + 1 : mag > (uint64_t) smax[kind]))
    return json_fail (c, p, "out of range (%" PRId64 "..%" PRId64 ")",
                      smin[kind], smax[kind]);
  {
    int64_t v = negative ? (int64_t) (0 - mag) : (int64_t) mag;
    if (kind == JSON_I32)
      *(int32_t *) out = (int32_t) v;
    else
      *(int64_t *) out = v;
  }
  return 0;
}

/* The member, NULL when absent: an error only if it is required. */
static int
find_member (const struct json_ctx *c, const struct json_node *obj,
             const struct json_path *p, const char *key,
             enum json_presence presence, const struct json_node **out)
{
  *out = json_member (obj, key);
  if (*out == NULL && presence == JSON_REQUIRED)
    return json_fail (c, JSON_PATH_KEY (p, key), "missing required field");
  return 0;
}

int
json_member_string (const struct json_ctx *c, const struct json_node *obj,
                    const struct json_path *p, const char *key,
                    enum json_presence presence, char **out)
{
  const struct json_node *m;
  if (find_member (c, obj, p, key, presence, &m) < 0)
    return -1;
  return m ? json_read_string (c, m, JSON_PATH_KEY (p, key), out) : 0;
}

int
json_member_bool (const struct json_ctx *c, const struct json_node *obj,
                  const struct json_path *p, const char *key,
                  enum json_presence presence, bool *out, bool *has)
{
  const struct json_node *m;
  if (find_member (c, obj, p, key, presence, &m) < 0)
    return -1;
  if (has)
    *has = m != NULL;
  return m ? json_read_bool (c, m, JSON_PATH_KEY (p, key), out) : 0;
}

int
json_member_int (const struct json_ctx *c, const struct json_node *obj,
                 const struct json_path *p, const char *key,
                 enum json_presence presence, enum json_int_kind kind,
                 void *out, bool *has)
{
  const struct json_node *m;
  if (find_member (c, obj, p, key, presence, &m) < 0)
    return -1;
  if (has)
    *has = m != NULL;
  return m ? json_read_int (c, m, JSON_PATH_KEY (p, key), kind, out) : 0;
}

int
json_member_of_type (const struct json_ctx *c, const struct json_node *obj,
                     const struct json_path *p, const char *key,
                     enum json_presence presence, enum json_type type,
                     const struct json_node **out)
{
  if (find_member (c, obj, p, key, presence, out) < 0)
    return -1;
  return *out ? json_expect (c, *out, JSON_PATH_KEY (p, key), type) : 0;
}
