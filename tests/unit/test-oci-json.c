/* Unit tests of the JSON writer (escaping, invalid UTF-8, numbers, Go-style
 * indentation) and of the JSON tree's limits and accessors. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci/json_tree.h"
#include "oci/json_writer.h"
#include "unit.h"

static char *
one_string (const char *s)
{
  struct json_writer *w = json_writer_new (false);
  json_string (w, s);
  return json_writer_finish (w, NULL);
}

#define CHECK_STRING_OUT(in, out)                                             \
  do                                                                          \
    {                                                                         \
      char *got_ = one_string (in);                                           \
      CHECK_STR_EQ (got_, out);                                               \
      free (got_);                                                            \
    }                                                                         \
  while (0)

static void
test_escaping (void)
{
  CHECK_STRING_OUT ("", "\"\"");
  CHECK_STRING_OUT ("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
  CHECK_STRING_OUT ("\n\r\t\b\f\x01\x1f\x7f", "\"\\n\\r\\t\\u0008\\u000c\\u0001\\u001f\x7f\"");
  CHECK_STRING_OUT ("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80\"");
  /* Invalid UTF-8: stray continuation, truncated sequence, overlong form,
     surrogate, beyond U+10FFFF, 0xff. */
  CHECK_STRING_OUT ("a\x80z", "\"a\\ufffdz\"");
  CHECK_STRING_OUT ("a\xe6\x97", "\"a\\ufffd\\ufffd\"");
  CHECK_STRING_OUT ("\xc0\xaf", "\"\\ufffd\\ufffd\"");
  CHECK_STRING_OUT ("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
  CHECK_STRING_OUT ("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
  CHECK_STRING_OUT ("\xff", "\"\\ufffd\"");
}

static void
test_numbers (void)
{
  struct json_writer *w = json_writer_new (false);
  char *out;

  json_begin_array (w);
  json_int (w, INT64_MIN);
  json_uint (w, UINT64_MAX);
  json_double (w, 0.1);
  json_double (w, 1.5e300);
  json_double (w, 1.0 / 0.0);
  json_double (w, 3);
  json_bool (w, false);
  json_null (w);
  json_string (w, NULL);
  json_end_array (w);
  out = json_writer_finish (w, NULL);
  CHECK_STR_EQ (out, "[-9223372036854775808,18446744073709551615,0.1,1.5e+300,null,3,"
                     "false,null,null]");
  free (out);
}

static void
test_pretty (void)
{
  struct json_writer *w = json_writer_new (true);
  size_t len;
  char *out;

  json_begin_object (w);
  json_kv_string (w, "a", "x");
  json_key (w, "empty_obj");
  json_begin_object (w);
  json_end_object (w);
  json_key (w, "empty_arr");
  json_begin_array (w);
  json_end_array (w);
  json_key (w, "list");
  json_begin_array (w);
  json_int (w, 1);
  json_begin_object (w);
  json_kv_bool (w, "b", true);
  json_end_object (w);
  json_end_array (w);
  json_kv_uint (w, "n", 7);
  json_kv_int (w, "m", -7);
  json_end_object (w);
  out = json_writer_finish (w, &len);
  CHECK_STR_EQ (out, "{\n"
                     "  \"a\": \"x\",\n"
                     "  \"empty_obj\": {},\n"
                     "  \"empty_arr\": [],\n"
                     "  \"list\": [\n"
                     "    1,\n"
                     "    {\n"
                     "      \"b\": true\n"
                     "    }\n"
                     "  ],\n"
                     "  \"n\": 7,\n"
                     "  \"m\": -7\n"
                     "}");
  CHECK (len == strlen (out));
  free (out);

  w = json_writer_new_indent ("\t");
  json_begin_array (w);
  json_string (w, "x");
  json_end_array (w);
  out = json_writer_finish (w, NULL);
  CHECK_STR_EQ (out, "[\n\t\"x\"\n]");
  free (out);

  w = json_writer_new (false);
  json_begin_object (w);
  json_key (w, "k\"ey");
  json_begin_array (w);
  json_end_array (w);
  json_end_object (w);
  out = json_writer_finish (w, NULL);
  CHECK_STR_EQ (out, "{\"k\\\"ey\":[]}");
  free (out);
  json_writer_free (json_writer_new (true));
}

/* A big document grows the buffer many times. */
static void
test_large (void)
{
  struct json_writer *w = json_writer_new (false);
  size_t len;
  char *out;

  json_begin_array (w);
  for (int i = 0; i < 100000; i++)
    json_string (w, "0123456789");
  json_end_array (w);
  out = json_writer_finish (w, &len);
  CHECK (len == 2 + 100000 * 13 - 1);
  CHECK (out[len] == '\0' && out[len - 1] == ']');
  free (out);
}

static void
test_tree_accessors (void)
{
  static const char doc[] = "{\"s\":\"text\",\"n\":-12,\"u\":65535,\"b\":true,\"z\":null,"
                            "\"o\":{\"x\":[1,2]},\"d\":1,\"d\":2}";
  agentrt_error_t err = NULL;
  struct json_doc *d = json_doc_parse (doc, sizeof doc - 1, "t.json", &err);
  const struct json_ctx c = { "t.json", &err };
  const struct json_node *root, *o;
  uint16_t u16 = 0;
  int32_t i32 = 0;
  bool b = false, has = true;
  char *s = NULL;

  CHECK (d != NULL);
  if (d == NULL)
    return;
  root = json_doc_root (d);
  CHECK (root->type == JSON_OBJECT && root->len == 7);
  CHECK (json_member_string (&c, root, NULL, "s", JSON_REQUIRED, &s) == 0);
  CHECK_STR_EQ (s, "text");
  free (s);
  CHECK (json_member_int (&c, root, NULL, "u", JSON_REQUIRED, JSON_U16, &u16, NULL) == 0
         && u16 == 65535);
  CHECK (json_member_int (&c, root, NULL, "n", JSON_REQUIRED, JSON_I32, &i32, NULL) == 0
         && i32 == -12);
  CHECK (json_member_int (&c, root, NULL, "n", JSON_REQUIRED, JSON_U32, &i32, NULL) < 0);
  CHECK_STR_EQ (err ? err->msg : NULL, "t.json: n: expected an unsigned integer");
  agentrt_error_release (&err);
  CHECK (json_member_bool (&c, root, NULL, "b", JSON_OPTIONAL, &b, &has) == 0 && b && has);
  CHECK (json_member_bool (&c, root, NULL, "z", JSON_OPTIONAL, &b, &has) == 0 && !has);
  CHECK (json_member_bool (&c, root, NULL, "z", JSON_REQUIRED, &b, NULL) < 0);
  CHECK_STR_EQ (err ? err->msg : NULL, "t.json: z: missing required field");
  agentrt_error_release (&err);
  CHECK (json_member_of_type (&c, root, NULL, "o", JSON_REQUIRED, JSON_OBJECT, &o) == 0);
  CHECK (json_member_int (&c, json_member (o, "x"), JSON_PATH_KEY (NULL, "o"), "x",
                          JSON_REQUIRED, JSON_U32, &i32, NULL) < 0);
  CHECK (json_read_int (&c, &json_member (o, "x")->u.items[1],
                        JSON_PATH_INDEX (JSON_PATH_KEY (JSON_PATH_KEY (NULL, "o"), "x"), 1),
                        JSON_I32, &i32) == 0 && i32 == 2);
  CHECK (json_member_int (&c, root, NULL, "d", JSON_REQUIRED, JSON_I32, &i32, NULL) == 0
         && i32 == 2);
  CHECK (json_member_of_type (&c, root, NULL, "s", JSON_REQUIRED, JSON_ARRAY, &o) < 0);
  CHECK_STR_EQ (err ? err->msg : NULL, "t.json: s: expected an array");
  agentrt_error_release (&err);
  json_doc_free (d);
}

static void
test_quote (void)
{
  char buf[JSON_QUOTE_SIZE], long_in[300];

  CHECK_STR_EQ (json_quote ("a\"b\\c\x01", buf), "\"a\\\"b\\\\c\\u0001\"");
  memset (long_in, 'x', sizeof long_in - 1);
  long_in[sizeof long_in - 1] = '\0';
  json_quote (long_in, buf);
  CHECK (strlen (buf) < JSON_QUOTE_SIZE);
  CHECK_CONTAINS (buf, "xxx...\"");
  /* Never cut inside a UTF-8 sequence. */
  for (size_t i = 0; i + 2 < sizeof long_in; i += 2)
    memcpy (long_in + i, "\xc3\xa9", 2);
  long_in[sizeof long_in - 2] = '\0';
  json_quote (long_in, buf);
  CHECK_CONTAINS (buf, "\xc3\xa9...\"");
}

int
main (void)
{
  RUN_TEST (test_escaping);
  RUN_TEST (test_numbers);
  RUN_TEST (test_pretty);
  RUN_TEST (test_large);
  RUN_TEST (test_tree_accessors);
  RUN_TEST (test_quote);
  return UNIT_EXIT ();
}
