/* The approver protocol's lines (see ask_line.h): formatting both sides'
 * lines, and reading an answer.  The sidecar links this file, without
 * yajl (it is a static binary): an answer is one flat JSON object read by
 * hand here, strictly, so that what a broken approver sends cannot do
 * more than be refused.  Members may come in any order and repeat (the
 * last wins); unknown members must hold a string, a number, true, false
 * or null; nested objects and arrays are refused. */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ask_line.h"
#include "json_writer.h"

static const char *const answers[] = { "allow-once", "allow-always", "deny", NULL };
static const char *const types[] = { "hello", "question", "done", NULL };

const char *
ask_answer_name (enum ask_answer a)
{
  return answers[a];
}

char *
ask_msg_format (const struct ask_msg *m, size_t *len)
{
  struct json_writer *w = json_writer_new (false);

  json_begin_object (w);
  json_kv_string (w, "type", types[m->type]);
  if (m->type != ASK_MSG_HELLO)
    json_kv_uint (w, "qid", m->qid);
  json_kv_string (w, "id", m->id);
  if (m->type == ASK_MSG_HELLO)
    json_kv_uint (w, "version", m->version);
  else if (m->type == ASK_MSG_QUESTION)
    {
      json_kv_string (w, "host", m->host);
      json_kv_uint (w, "port", m->port);
      json_kv_string (w, "proto", m->proto);
      json_kv_string (w, "via", m->via);
      json_kv_uint (w, "timeout_ms", m->timeout_ms);
    }
  else
    json_kv_string (w, "outcome", m->outcome);
  return json_writer_finish_line (w, len);
}

char *
ask_answer_format (uint64_t qid, enum ask_answer a, size_t *len)
{
  struct json_writer *w = json_writer_new (false);

  json_begin_object (w);
  json_kv_uint (w, "qid", qid);
  json_kv_string (w, "answer", answers[a]);
  return json_writer_finish_line (w, len);
}

struct reader
{
  const char *p, *end;
  agentrt_error_t *err;
};

static int
fail (struct reader *r, const char *what)
{
  return agentrt_error (r->err, 0, "approver answer: %s", what);
}

static void
skip_ws (struct reader *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r'))
    r->p++;
}

static int
hex4 (struct reader *r, unsigned *v)
{
  *v = 0;
  if (r->end - r->p < 4)
    return -1;
  for (int i = 0; i < 4; i++, r->p++)
    {
      char c = *r->p;
      *v = *v * 16
           + (unsigned) (c >= '0' && c <= '9'   ? c - '0'
                         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                : 99);
      if (*v > 0xffff)
        return -1;
    }
  return 0;
}

/* A string at r->p (its opening quote).  Its bytes go to out (size bytes,
 * NUL-terminated) while they fit; *fits says whether all did.  Escapes
 * are decoded, \u only into ASCII (anything else cannot be one of the
 * protocol's words and is kept as '?'); control bytes and \u0000 are
 * refused. */
static int
read_string (struct reader *r, char *out, size_t size, bool *fits)
{
  size_t n = 0;

  *fits = true;
  if (r->p >= r->end || *r->p != '"')
    return -1;
  r->p++;
  while (r->p < r->end && *r->p != '"')
    {
      unsigned char c = (unsigned char) *r->p++;
      if (c < 0x20)
        return -1;
      if (c == '\\')
        {
          unsigned v;
          if (r->p >= r->end)
            return -1;
          c = (unsigned char) *r->p++;
          switch (c)
            {
            case '"': case '\\': case '/': break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
              if (hex4 (r, &v) < 0 || v == 0)
                return -1;
              c = v < 0x80 ? (unsigned char) v : '?';
              break;
            default: return -1;
            }
        }
      if (n + 1 < size)
        out[n++] = (char) c;
      else
        *fits = false;
    }
  if (r->p >= r->end)
    return -1;
  r->p++;
  if (size)
    out[n] = '\0';
  return 0;
}

/* A JSON number; *out only for a plain unsigned integer that fits 64
 * bits (*is_uint). */
static int
read_number (struct reader *r, uint64_t *out, bool *is_uint)
{
  const char *start = r->p;
  uint64_t v = 0;

  *is_uint = true;
  if (r->p < r->end && *r->p == '-')
    {
      *is_uint = false;
      r->p++;
    }
  if (r->p >= r->end || *r->p < '0' || *r->p > '9')
    return -1;
  if (*r->p == '0' && r->p + 1 < r->end && r->p[1] >= '0' && r->p[1] <= '9')
    return -1; /* a leading zero */
  for (; r->p < r->end && *r->p >= '0' && *r->p <= '9'; r->p++)
    {
      unsigned d = (unsigned) (*r->p - '0');
      if (v > (UINT64_MAX - d) / 10)
        *is_uint = false;
      v = v * 10 + d;
    }
  if (r->p < r->end && *r->p == '.')
    {
      *is_uint = false;
      if (++r->p >= r->end || *r->p < '0' || *r->p > '9')
        return -1;
      while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E'))
    {
      *is_uint = false;
      if (++r->p < r->end && (*r->p == '+' || *r->p == '-'))
        r->p++;
      if (r->p >= r->end || *r->p < '0' || *r->p > '9')
        return -1;
      while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    }
  *out = v;
  return r->p > start ? 0 : -1;
}

static int
read_word (struct reader *r, const char *word)
{
  size_t n = strlen (word);
  if ((size_t) (r->end - r->p) < n || memcmp (r->p, word, n) != 0)
    return -1;
  r->p += n;
  return 0;
}

enum member
{
  M_OTHER,
  M_QID,
  M_ANSWER,
};

struct fields
{
  uint64_t qid;
  bool has_qid;
  int answer; /* -1: absent */
};

/* The value of one member. */
static int
read_value (struct reader *r, enum member m, struct fields *f)
{
  char text[ASK_WORD_MAX + 1];
  bool fits, is_uint;
  uint64_t v;

  if (r->p >= r->end)
    return fail (r, "truncated");
  if (*r->p == '{' || *r->p == '[')
    return fail (r, "nested values are not accepted");
  if (*r->p == '"')
    {
      if (read_string (r, text, sizeof text, &fits) < 0)
        return fail (r, "malformed string");
      if (m == M_QID)
        return fail (r, "qid: expected a number");
      if (m == M_ANSWER)
        {
          int i = 0;
          while (fits && answers[i] && strcmp (answers[i], text) != 0)
            i++;
          if (!fits || answers[i] == NULL)
            return fail (r, "answer: unknown value");
          f->answer = i;
        }
      return 0;
    }
  if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
    {
      if (read_number (r, &v, &is_uint) < 0)
        return fail (r, "malformed number");
      if (m == M_ANSWER)
        return fail (r, "answer: expected a string");
      if (m == M_QID && !is_uint)
        return fail (r, "qid: expected a whole number from 0 to 2^64-1");
      if (m == M_QID)
        {
          f->qid = v;
          f->has_qid = true;
        }
      return 0;
    }
  if (read_word (r, "true") < 0 && read_word (r, "false") < 0 && read_word (r, "null") < 0)
    return fail (r, "malformed value");
  if (m == M_ANSWER)
    return fail (r, "answer: expected a string");
  if (m == M_QID)
    return fail (r, "qid: expected a number");
  return 0;
}

static int
read_object (struct reader *r, struct fields *f)
{
  skip_ws (r);
  if (r->p >= r->end || *r->p != '{')
    return fail (r, "expected an object");
  r->p++;
  skip_ws (r);
  if (r->p < r->end && *r->p == '}')
    r->p++;
  else
    for (;;)
      {
        char key[8];
        bool fits;
        enum member m;

        if (read_string (r, key, sizeof key, &fits) < 0)
          return fail (r, "expected a member name");
        m = !fits ? M_OTHER
            : strcmp (key, "qid") == 0    ? M_QID
            : strcmp (key, "answer") == 0 ? M_ANSWER
                                          : M_OTHER;
        skip_ws (r);
        if (r->p >= r->end || *r->p != ':')
          return fail (r, "expected a colon");
        r->p++;
        skip_ws (r);
        if (read_value (r, m, f) < 0)
          return -1;
        skip_ws (r);
        if (r->p < r->end && *r->p == ',')
          {
            r->p++;
            skip_ws (r);
            continue;
          }
        if (r->p < r->end && *r->p == '}')
          {
            r->p++;
            break;
          }
        return fail (r, "expected a comma or the end of the object");
      }
  skip_ws (r);
  return r->p == r->end ? 0 : fail (r, "trailing bytes after the object");
}

int
ask_answer_parse (const char *line, size_t len, uint64_t *qid, enum ask_answer *a,
                  agentrt_error_t *err)
{
  struct reader r = { line, line, err };
  struct fields f = { 0, false, -1 };

  if (len > 0 && line[len - 1] == '\n')
    len--;
  r.end = line + len;
  if (len + 1 > ASK_LINE_MAX)
    return fail (&r, "line longer than 2048 bytes");
  if (memchr (line, '\n', len))
    return fail (&r, "more than one line");
  if (memchr (line, '\0', len))
    return fail (&r, "a NUL byte");
  if (read_object (&r, &f) < 0)
    return -1;
  if (!f.has_qid)
    return fail (&r, "qid: missing");
  if (f.answer < 0)
    return fail (&r, "answer: missing");
  *qid = f.qid;
  *a = (enum ask_answer) f.answer;
  return 0;
}
