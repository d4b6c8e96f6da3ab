/* The hints the CLI appends to an error (runtime/cli/cli_hint.c): none where
 * the fix is not obvious (a fragment with another errno, an unrelated
 * message), and for each newcomer's failure the message as its layer
 * words it today, with its fix. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cli/cli_hint.h"
#include "tests/unit/unit.h"

/* hint: cli_hint's answer, copied (NULL: none). */
static char *
hint (const char *verb, const char *msg, int status, bool root)
{
  char *buf = NULL;
  const char *h = cli_hint (verb, msg, status, root, &buf);
  char *copy = h ? strdup (h) : NULL;
  free (buf);
  return copy;
}

static void
check_hint (const char *verb, const char *msg, int status, bool root,
            const char *needle)
{
  char *h = hint (verb, msg, status, root);
  if (needle == NULL)
    {
      if (h != NULL)
        fprintf (stderr, "unexpected hint for \"%s\": %s\n", msg, h);
      CHECK (h == NULL);
    }
  else
    {
      if (h == NULL || strstr (h, needle) == NULL)
        fprintf (stderr, "for \"%s\": want \"%s\", got \"%s\"\n", msg, needle,
                 h ? h : "(none)");
      CHECK (h != NULL && strstr (h, needle) != NULL);
    }
  free (h);
}

static void
test_no_obvious_fix (void)
{
  char big[8192];

  check_hint ("run", NULL, 0, true, NULL);
  check_hint ("run", "", 0, true, NULL);
  memset (big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  check_hint ("run", big, EINVAL, true, NULL);
  /* the right words with another errno: not that failure */
  check_hint ("run", "agent seccomp profile: open seccomp profile `/p.json`: "
              "Is a directory", EISDIR, true, NULL);
  check_hint ("run", "root.path: `/b/rootfs`: Not a directory", ENOTDIR, true,
              NULL);
  check_hint ("create", "bind source `/x` does not exist", ENOENT, true, NULL);
  /* as root, a permission error is something else */
  check_hint ("run", "mkdir `/run/agentrt`: Permission denied", EACCES, true,
              NULL);
  /* an option error before any command has none of the command's help */
  check_hint (NULL, "unknown global option `--nope`", 0, true, NULL);
}

static void
test_newcomers_failures (void)
{
  check_hint ("run", "open state root `/run/agentrt`: Permission denied",
              EACCES, false, "run it as root");
  check_hint ("list", "mkdir `/tmp/s`: Operation not permitted", EPERM, false,
              "run it as root");
  check_hint ("run", "agent seccomp profile: open seccomp profile "
              "`/usr/local/share/agentrt/agent-default.json`: No such file or "
              "directory", ENOENT, true, "`make install`");
  check_hint ("run", "agent seccomp profile: open seccomp profile `/x`: No such "
              "file or directory", ENOENT, true,
              "seccomp-profiles/agent-default.json in the policy's "
              "seccomp.profile");
  check_hint ("run", "start the egress sidecar: agentrt-egress not found: "
              "No such file or directory", 0, true,
              "agentrt-egress is neither in");
  check_hint ("policy", "admin policy: open policy `/etc/agentrt/policy.json`: "
              "No such file or directory", ENOENT, true,
              "/policy.example.json");
  check_hint ("run", "admin policy: p.json: limits.memroy: unknown field (did "
              "you mean memory?)", 0, true, "man agentrt-policy");
  check_hint ("run", "open `/tmp/config.json`: No such file or directory",
              ENOENT, true, "`agentrt spec` writes");
  check_hint ("run", "root.path: `/b/rootfs`: No such file or directory",
              ENOENT, true, "unpack an image there");
  check_hint ("create", "container with id exists: c1: File exists", EEXIST,
              true, "`agentrt delete --force ID`");
  check_hint ("state", "container `c1` does not exist: No such file or "
              "directory", ENOENT, true, "`agentrt list`");
  check_hint ("run", "hardening: unknown annotation `run.agentrt.egres` (did "
              "you mean run.agentrt.egress?)", 0, true,
              "run.agentrt.* annotations");
  check_hint ("exec", "exec: unknown option `--bogus`", 0, true,
              "`agentrt help exec` lists its options");
  check_hint ("run", "run: option `--bundle` needs a value", 0, true,
              "`agentrt help run`");
}

int
main (void)
{
  RUN_TEST (test_no_obvious_fix);
  RUN_TEST (test_newcomers_failures);
  return UNIT_EXIT ();
}
