/* libFuzzer target for what the hardening step reads from untrusted
 * bundles without a host: run.agentrt.* annotations (runtime/policy/
 * annotations.h) and environment entries (env_scrub.h).  The input is
 * lines: "key=value" lines are annotations until a line that starts with
 * a CR; the lines after it are environment entries.  Checks: no crash, no
 * leak, a failure always says why, and the changes never quote a secret
 * value (unless a variable's name holds it: names are recorded as they
 * are).
 *
 * Build and run as tests/fuzz/fuzz-policy-file.c says, with this file:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *       -I/work/main -I. /work/main/tests/fuzz/fuzz-annotations.c \
 *       libpolicy.a libegress.a liboci.a libcommon.a -lyajl \
 *       -o fuzz-annotations
 *   ./fuzz-annotations -max_total_time=300 \
 *       /work/main/tests/fuzz/corpus/annotations
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "runtime/policy/annotations.h"
#include "runtime/policy/env_scrub.h"

static void
check_annotations (const struct kv_list *a, struct agent_policy *policy)
{
  struct harden_request req;
  agentrt_error_t err = NULL;

  if (annotations_parse (a, policy, &req, &err) == 0)
    {
      if (req.egress_allow == NULL)
        __builtin_trap ();
      harden_request_release (&req);
    }
  else if (err == NULL || err->msg == NULL)
    __builtin_trap ();
  agentrt_error_release (&err);
}

/* Whether some entry's name (the part before '=') holds s: names are
 * recorded as they are, secrets or not. */
static bool
in_some_name (const struct str_list *env, const char *s)
{
  for (size_t i = 0; i < env->len; i++)
    {
      const char *eq = strchr (env->items[i], '=');
      if (eq && memmem (env->items[i], (size_t) (eq - env->items[i]), s, strlen (s)))
        return true;
    }
  return false;
}

static void
check_env (struct str_list *env, const struct agent_policy *policy)
{
  struct change_list changes = { NULL, 0 };
  struct str_list before = { NULL, 0 };

  for (size_t i = 0; i < env->len; i++)
    str_list_append (&before, env->items[i]);
  env_scrub (env, NULL, policy, &changes);
  /* A removed entry's value never appears in what is recorded. */
  for (size_t i = 0; i < before.len; i++)
    {
      const char *eq = strchr (before.items[i], '=');
      const char *value = eq ? eq + 1 : before.items[i];
      if (str_list_contains (env, before.items[i]) || strlen (value) < 12
          || env_secret_value_reason (value) == NULL || in_some_name (&before, value))
        continue;
      for (size_t j = 0; j < changes.len; j++)
        if (strstr (changes.items[j].what, value)
            || strstr (changes.items[j].why, value))
          __builtin_trap ();
    }
  change_list_release (&changes);
  str_list_free (&before);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = xstrndup ((const char *) data, size);
  struct kv_list annotations = { NULL, 0 };
  struct str_list env = { NULL, 0 };
  struct agent_policy policy;
  bool in_env = false;
  char *save = NULL;

  policy_init_defaults (&policy);
  for (char *line = strtok_r (text, "\n", &save); line;
       line = strtok_r (NULL, "\n", &save))
    {
      char *eq = strchr (line, '=');
      if (line[0] == '\r')
        in_env = true;
      else if (in_env)
        str_list_append (&env, line);
      else if (eq)
        {
          *eq = '\0';
          kv_list_set (&annotations, line, eq + 1);
        }
    }
  check_annotations (&annotations, &policy);
  policy.allow_broad_egress = policy.allow_writable_rootfs = true;
  check_annotations (&annotations, &policy);
  check_env (&env, &policy);
  str_list_free (&env);
  kv_list_free (&annotations);
  policy_release (&policy);
  free (text);
  return 0;
}
