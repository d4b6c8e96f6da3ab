/* The approver's side of the protocol: the sidecar's lines, read with
 * oci/'s JSON tree (see ask_line.h).  Not linked into the sidecar, which
 * only formats those lines and reads answers (ask_line.c, without yajl:
 * the sidecar is a static binary). */
#include <config.h>

#include <stdbool.h>
#include <string.h>

#include "common/cleanup.h"
#include "ask_line.h"
#include "json_tree.h"

static const char *const types[] = { "hello", "question", "done", NULL };

/* The object of one line: a trailing newline is allowed, no other. */
static struct json_doc *
parse_line (const char *line, size_t len, const struct json_ctx *c,
            const struct json_node **root)
{
  struct json_doc *doc;

  if (len > 0 && line[len - 1] == '\n')
    len--;
  if (len + 1 > ASK_LINE_MAX)
    {
      json_fail (c, NULL, "line longer than %d bytes", ASK_LINE_MAX);
      return NULL;
    }
  if (memchr (line, '\n', len))
    {
      json_fail (c, NULL, "more than one line");
      return NULL;
    }
  doc = json_doc_parse (line, len, c->origin, c->err);
  if (doc == NULL)
    return NULL;
  *root = json_doc_root (doc);
  if (json_expect (c, *root, NULL, JSON_OBJECT) < 0)
    {
      json_doc_free (doc);
      return NULL;
    }
  return doc;
}

/* Whether every byte of s is printable ASCII without a space: what an id,
 * a host name (or address) and a word of the protocol are made of.
 * `agentrt approve` prints them to a person's terminal, where a control
 * byte (ESC, or C1's CSI in UTF-8) would be obeyed, not shown. */
static bool
printable_word (const char *s)
{
  for (; *s; s++)
    if ((unsigned char) *s <= 0x20 || (unsigned char) *s >= 0x7f)
      return false;
  return true;
}

/* A required string member into buf (size bytes), one of `words` when
 * given (its index in *index). */
static int
read_text (const struct json_ctx *c, const struct json_node *o, const char *key,
           char *buf, size_t size, const char *const *words, int *index)
{
  cleanup_free char *s = NULL;

  if (json_member_string (c, o, NULL, key, JSON_REQUIRED, &s) < 0)
    return -1;
  if (strlen (s) >= size || (s[0] == '\0' && words == NULL))
    return json_fail (c, JSON_PATH_KEY (NULL, key), "expected 1 to %zu bytes", size - 1);
  if (!printable_word (s))
    return json_fail (c, JSON_PATH_KEY (NULL, key),
                      "expected printable ASCII without spaces");
  if (words)
    {
      int i = 0;
      while (words[i] && strcmp (words[i], s) != 0)
        i++;
      if (words[i] == NULL)
        return json_fail (c, JSON_PATH_KEY (NULL, key), "unknown value");
      *index = i;
    }
  if (buf)
    memcpy (buf, s, strlen (s) + 1);
  return 0;
}

static int
read_question (const struct json_ctx *c, const struct json_node *o, struct ask_msg *m)
{
  if (read_text (c, o, "host", m->host, sizeof m->host, NULL, NULL) < 0
      || json_member_int (c, o, NULL, "port", JSON_REQUIRED, JSON_U16, &m->port, NULL) < 0
      || read_text (c, o, "proto", m->proto, sizeof m->proto, NULL, NULL) < 0
      || read_text (c, o, "via", m->via, sizeof m->via, NULL, NULL) < 0
      || json_member_int (c, o, NULL, "timeout_ms", JSON_REQUIRED, JSON_U32, &m->timeout_ms,
                          NULL) < 0)
    return -1;
  if (m->port == 0)
    return json_fail (c, JSON_PATH_KEY (NULL, "port"), "must be 1 to 65535");
  return 0;
}

int
ask_msg_parse (const char *line, size_t len, struct ask_msg *m, agentrt_error_t *err)
{
  const struct json_ctx c = { "approver protocol", err };
  const struct json_node *o = NULL;
  cleanup_json_doc struct json_doc *doc = parse_line (line, len, &c, &o);
  int type = 0;

  memset (m, 0, sizeof *m);
  if (doc == NULL
      || read_text (&c, o, "type", NULL, ASK_WORD_MAX + 1, types, &type) < 0
      || read_text (&c, o, "id", m->id, sizeof m->id, NULL, NULL) < 0)
    return -1;
  m->type = (enum ask_msg_type) type;
  if (m->type == ASK_MSG_HELLO)
    return json_member_int (&c, o, NULL, "version", JSON_REQUIRED, JSON_U32, &m->version,
                            NULL);
  if (json_member_int (&c, o, NULL, "qid", JSON_REQUIRED, JSON_U64, &m->qid, NULL) < 0)
    return -1;
  if (m->type == ASK_MSG_QUESTION)
    return read_question (&c, o, m);
  return read_text (&c, o, "outcome", m->outcome, sizeof m->outcome, NULL, NULL);
}

