/* Building the JSON tree of json_tree.h from yajl's callbacks.  Values are
 * pushed on one stack; closing a container moves its entries into the
 * document's arena in one copy, so building is linear in the input.  The
 * limits are checked before a value is stored, and errors (ours and yajl's)
 * name the path being parsed, computed from the stack of open containers. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "json_tree.h"
#include "utf8.h"

#define ARENA_CHUNK_MIN (4u * 1024)
#define ARENA_CHUNK_MAX (1024u * 1024)

struct arena_chunk
{
  struct arena_chunk *next;
  size_t used;
  size_t size;
  max_align_t data[];
};

struct json_doc
{
  struct arena_chunk *chunks;
  size_t chunk_size;
  struct json_node root;
};

struct frame
{
  bool is_array;
  bool expect_key;     /* objects: between members */
  size_t base;         /* first entry on the value stack */
  const char *key;     /* this container's member name in its parent */
  const char *cur_key; /* objects: name of the member being parsed */
};

struct builder
{
  struct json_doc *doc;
  const char *input; /* unescaped strings point into it */
  const char *input_end;
  struct json_node *stack;
  size_t top;
  size_t cap;
  struct frame frames[JSON_MAX_DEPTH];
  size_t depth;
  size_t n_values;
  struct json_ctx ctx;
  bool failed;
};

static void *
arena_alloc (struct json_doc *doc, size_t size)
{
  struct arena_chunk *c = doc->chunks;
  void *p;

  size = (size + sizeof (max_align_t) - 1) & ~(sizeof (max_align_t) - 1);
  if (c == NULL || c->size - c->used < size)
    {
      size_t csize = size > doc->chunk_size ? size : doc->chunk_size;
      c = xmalloc (sizeof (*c) + csize);
      c->size = csize;
      c->used = 0;
      c->next = doc->chunks;
      doc->chunks = c;
    }
  p = (char *) c->data + c->used;
  c->used += size;
  return p;
}

static const char *
arena_strndup (struct json_doc *doc, const void *s, size_t len)
{
  char *p = arena_alloc (doc, len + 1);
  memcpy (p, s, len);
  p[len] = '\0';
  return p;
}

void
json_doc_free (struct json_doc *doc)
{
  if (doc == NULL)
    return;
  while (doc->chunks)
    {
      struct arena_chunk *next = doc->chunks->next;
      free (doc->chunks);
      doc->chunks = next;
    }
  free (doc);
}

const struct json_node *
json_doc_root (const struct json_doc *doc)
{
  return &doc->root;
}

/* Fails with the path of the value being parsed: the open containers, plus
 * the entry in the innermost one unless `container_only`. */
static int __attribute__ ((format (printf, 3, 4)))
build_fail (struct builder *b, bool container_only, const char *fmt, ...)
{
  struct json_path links[JSON_MAX_DEPTH + 1];
  const struct json_path *up = NULL;
  cleanup_free char *msg = NULL;
  va_list ap;

  for (size_t i = 1; i <= b->depth; i++)
    {
      const struct frame *parent = &b->frames[i - 1];
      if (i == b->depth && (container_only || (!parent->is_array && parent->expect_key)))
        break;
      links[i].up = up;
      links[i].key = NULL;
      links[i].index = 0;
      if (!parent->is_array)
        links[i].key = i < b->depth ? b->frames[i].key : parent->cur_key;
      else
        links[i].index = (i < b->depth ? b->frames[i].base : b->top) - parent->base;
      up = &links[i];
    }
  va_start (ap, fmt);
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  va_end (ap);
  b->failed = true;
  return json_fail (&b->ctx, up, "%s", msg ? msg : "out of memory");
}

/* Checks the limits for one more value in the innermost container. */
static int
check_new_value (struct builder *b)
{
  if (++b->n_values > JSON_MAX_VALUES)
    return build_fail (b, true, "more than %u values in the document",
                       JSON_MAX_VALUES);
  if (b->depth > 0 && b->frames[b->depth - 1].is_array
      && b->top - b->frames[b->depth - 1].base >= JSON_MAX_ENTRIES)
    return build_fail (b, true, "more than %u entries", JSON_MAX_ENTRIES);
  return 0;
}

static void
push (struct builder *b, struct json_node node)
{
  if (b->depth == 0)
    {
      b->doc->root = node;
      return;
    }
  if (!b->frames[b->depth - 1].is_array)
    {
      node.key = b->frames[b->depth - 1].cur_key;
      b->frames[b->depth - 1].expect_key = true;
    }
  if (b->top == b->cap)
    {
      b->cap = b->cap ? b->cap * 2 : 512;
      b->stack = xreallocarray (b->stack, b->cap, sizeof (*b->stack));
    }
  b->stack[b->top++] = node;
}

static bool
in_input (const struct builder *b, const char *text, size_t len)
{
  return text >= b->input && text <= b->input_end
         && len <= (size_t) (b->input_end - text);
}

/* Strings and member names must be valid UTF-8 (yajl's own check lets
 * overlong forms and surrogates through, so it is off and this one runs
 * instead), and only text yajl decoded from escapes can hold a NUL. */
static int
check_text (struct builder *b, const char *text, size_t len, bool decoded,
            bool is_key)
{
  const char *what = is_key ? "member name" : "string";

  if (decoded && memchr (text, '\0', len))
    return build_fail (b, is_key, "%s contains a NUL byte", what);
  if (!utf8_valid (text, len))
    return build_fail (b, is_key, "%s is not valid UTF-8", what);
  return 0;
}

static int
on_scalar (struct builder *b, enum json_type type, const char *text,
           size_t len, bool boolean)
{
  struct json_node node = { .type = type };

  if (check_new_value (b) < 0)
    return 0;
  if (type == JSON_STRING || type == JSON_NUMBER)
    {
      if (len > UINT32_MAX)
        return build_fail (b, false, "value too long"), 0;
      node.len = (uint32_t) len;
      bool decoded = !in_input (b, text, len);
      if (type == JSON_STRING && check_text (b, text, len, decoded, false) < 0)
        return 0;
      /* Numbers and undecoded strings point into the input. */
      node.u.text = decoded ? arena_strndup (b->doc, text, len) : text;
    }
  else if (type == JSON_BOOL)
    node.u.boolean = boolean;
  push (b, node);
  return 1;
}

static int
cb_null (void *ctx)
{
  return on_scalar (ctx, JSON_NULL, NULL, 0, false);
}

static int
cb_boolean (void *ctx, int v)
{
  return on_scalar (ctx, JSON_BOOL, NULL, 0, v != 0);
}

static int
cb_number (void *ctx, const char *s, size_t len)
{
  return on_scalar (ctx, JSON_NUMBER, s, len, false);
}

static int
cb_string (void *ctx, const unsigned char *s, size_t len)
{
  return on_scalar (ctx, JSON_STRING, (const char *) s, len, false);
}

static int
cb_map_key (void *ctx, const unsigned char *s, size_t len)
{
  struct builder *b = ctx;
  struct frame *f = &b->frames[b->depth - 1];

  if (b->top - f->base >= JSON_MAX_ENTRIES)
    return build_fail (b, true, "more than %u members", JSON_MAX_ENTRIES), 0;
  if (check_text (b, (const char *) s, len, !in_input (b, (const char *) s, len), true) < 0)
    return 0;
  f->cur_key = arena_strndup (b->doc, s, len);
  f->expect_key = false;
  return 1;
}

static int
open_container (struct builder *b, bool is_array)
{
  struct frame *f;

  if (check_new_value (b) < 0)
    return 0;
  if (b->depth == JSON_MAX_DEPTH)
    return build_fail (b, false, "nesting deeper than %d levels",
                       JSON_MAX_DEPTH), 0;
  f = &b->frames[b->depth];
  f->is_array = is_array;
  f->expect_key = !is_array;
  f->base = b->top;
  f->cur_key = NULL;
  f->key = b->depth > 0 && !b->frames[b->depth - 1].is_array
               ? b->frames[b->depth - 1].cur_key
               : NULL;
  b->depth++;
  return 1;
}

static int
cb_start_map (void *ctx)
{
  return open_container (ctx, false);
}

static int
cb_start_array (void *ctx)
{
  return open_container (ctx, true);
}

static int
compare_members (const void *a, const void *b, void *arg)
{
  const struct json_node *m = arg;
  uint32_t ia = *(const uint32_t *) a, ib = *(const uint32_t *) b;
  int r = strcmp (m[ia].key, m[ib].key);
  if (r != 0)
    return r;
  return ia < ib ? -1 : ia > ib;
}

/* Drops every member whose name appears again later (the last one wins);
 * returns the new count.  Sorting keeps large objects O(n log n). */
static size_t
dedup_members (struct json_node *m, size_t n)
{
  size_t out = 0;

  if (n <= 16)
    {
      for (size_t i = 0; i + 1 < n; i++)
        for (size_t j = i + 1; j < n; j++)
          if (m[i].key[0] == m[j].key[0] && strcmp (m[i].key, m[j].key) == 0)
            {
              m[i].key = NULL;
              break;
            }
    }
  else
    {
      cleanup_free uint32_t *order = xreallocarray (NULL, n, sizeof (*order));
      for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t) i;
      qsort_r (order, n, sizeof (*order), compare_members, m);
      /* Within a run of equal names only the last (highest index) stays;
         a name is cleared only after the comparison that reads it. */
      for (size_t i = 0; i + 1 < n; i++)
        if (strcmp (m[order[i]].key, m[order[i + 1]].key) == 0)
          m[order[i]].key = NULL;
    }
  for (size_t i = 0; i < n; i++)
    if (m[i].key != NULL)
      m[out++] = m[i];
  return out;
}

static int
cb_end_container (void *ctx)
{
  struct builder *b = ctx;
  struct frame *f = &b->frames[b->depth - 1];
  struct json_node node = { .type = f->is_array ? JSON_ARRAY : JSON_OBJECT };
  size_t n = b->top - f->base;

  if (!f->is_array && n > 1)
    n = dedup_members (b->stack + f->base, n);
  if (n > 0)
    {
      node.u.items = arena_alloc (b->doc, n * sizeof (struct json_node));
      memcpy (node.u.items, b->stack + f->base, n * sizeof (struct json_node));
    }
  node.len = (uint32_t) n;
  b->top = f->base;
  b->depth--;
  push (b, node);
  return 1;
}

static const yajl_callbacks callbacks = {
  .yajl_null = cb_null,
  .yajl_boolean = cb_boolean,
  .yajl_number = cb_number,
  .yajl_string = cb_string,
  .yajl_start_map = cb_start_map,
  .yajl_map_key = cb_map_key,
  .yajl_end_map = cb_end_container,
  .yajl_start_array = cb_start_array,
  .yajl_end_array = cb_end_container,
};

/* yajl's message on one line: "lexical error: invalid character inside
 * string at byte 57". */
static int
yajl_fail (struct builder *b, yajl_handle h, const char *text, size_t len,
           size_t offset)
{
  unsigned char *msg = yajl_get_error (h, 0, (const unsigned char *) text, len);
  size_t mlen = msg ? strcspn ((const char *) msg, "\n") : 0;

  while (mlen > 0 && (msg[mlen - 1] == ' ' || msg[mlen - 1] == '.'))
    mlen--;
  build_fail (b, false, "%.*s at byte %zu", (int) mlen,
              msg ? (const char *) msg : "", offset);
  if (msg)
    yajl_free_error (h, msg);
  return -1;
}

struct json_doc *
json_doc_parse (const char *text, size_t len, const char *origin,
                agentrt_error_t *err)
{
  struct builder b = { .ctx = { origin, err }, .input = text, .input_end = text + len };
  struct json_doc *doc = NULL;
  yajl_handle h;
  yajl_status st;
  size_t offset;

  b.doc = xzalloc (sizeof (*b.doc));
  /* Nodes take about twice the input's size: one chunk for usual files. */
  b.doc->chunk_size = len < ARENA_CHUNK_MIN / 2 ? ARENA_CHUNK_MIN
                      : len > ARENA_CHUNK_MAX / 2 ? ARENA_CHUNK_MAX
                                                  : 2 * len + 4096;
  h = yajl_alloc (&callbacks, NULL, &b);
  if (h == NULL)
    abort ();
  yajl_config (h, yajl_dont_validate_strings, 1); /* check_text() does it */
  st = yajl_parse (h, (const unsigned char *) text, len);
  if (st == yajl_status_ok)
    {
      st = yajl_complete_parse (h);
      offset = len; /* what yajl reports here is not an offset */
    }
  else
    offset = yajl_get_bytes_consumed (h);
  if (st == yajl_status_ok)
    doc = steal_pointer (&b.doc);
  else if (!b.failed)
    yajl_fail (&b, h, text, len, offset);
  yajl_free (h);
  free (b.stack);
  json_doc_free (b.doc);
  return doc;
}
