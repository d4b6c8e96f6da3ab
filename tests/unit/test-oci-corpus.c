/* Unit tests of the config parser and writer on realistic documents (the
 * fuzz seed corpus: what runc spec, podman, docker 20.10, containerd ctr
 * and CRI generate, plus odd ones): every bad-* file is refused, every
 * other one round-trips (parse(write(parse(x))) writes the same document),
 * the every-field config is written back byte for byte, and the values
 * engines rely on land in the right fields. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/config.h"
#include "unit.h"

static char *
corpus_path (const char *name)
{
  char *p = malloc (strlen (OCI_CORPUS_DIR) + strlen (name) + 2);
  sprintf (p, "%s/%s", OCI_CORPUS_DIR, name);
  return p;
}

static struct oci_config *
load (const char *name)
{
  agentrt_error_t err = NULL;
  char *path = corpus_path (name);
  struct oci_config *c = oci_config_parse_file (path, &err);

  if (c == NULL)
    {
      fprintf (stderr, "%s: %s\n", name, err->msg);
      agentrt_error_release (&err);
    }
  free (path);
  return c;
}

static char *
write_json (const struct oci_config *c, bool pretty)
{
  agentrt_error_t err = NULL;
  char *json = oci_config_to_json (c, pretty, &err);

  if (json == NULL)
    {
      fprintf (stderr, "write: %s\n", err->msg);
      agentrt_error_release (&err);
    }
  return json;
}

static struct oci_config *
reparse (const char *json)
{
  agentrt_error_t err = NULL;
  struct oci_config *c = oci_config_parse (json, strlen (json), "written", &err);

  if (c == NULL)
    {
      fprintf (stderr, "reparse: %s\n", err->msg);
      agentrt_error_release (&err);
    }
  return c;
}

/* parse(write(x)) writes x again, compact and indented. */
static void
check_round_trip (const char *name, const struct oci_config *c)
{
  char *once = write_json (c, false), *pretty = write_json (c, true), *twice = NULL;
  struct oci_config *again = once ? reparse (once) : NULL;
  struct oci_config *from_pretty = pretty ? reparse (pretty) : NULL;

  CHECK (once && pretty && again && from_pretty);
  if (again)
    {
      twice = write_json (again, false);
      if (twice == NULL || strcmp (once, twice) != 0)
        fprintf (stderr, "%s: round trip differs\n", name);
      CHECK_STR_EQ (twice, once);
      free (twice);
      twice = NULL;
    }
  if (from_pretty)
    {
      twice = write_json (from_pretty, false);
      CHECK_STR_EQ (twice, once);
    }
  free (twice);
  free (once);
  free (pretty);
  oci_config_free (again);
  oci_config_free (from_pretty);
}

static void
test_corpus (void)
{
  DIR *d = opendir (OCI_CORPUS_DIR);
  struct dirent *de;
  int good = 0, bad = 0;

  CHECK (d != NULL);
  while (d && (de = readdir (d)))
    {
      struct oci_config *c;
      if (de->d_name[0] == '.')
        continue;
      if (strncmp (de->d_name, "bad-", 4) == 0)
        {
          agentrt_error_t err = NULL;
          char *path = corpus_path (de->d_name);
          c = oci_config_parse_file (path, &err);
          if (c != NULL)
            fprintf (stderr, "%s: parsed\n", de->d_name);
          CHECK (c == NULL && err != NULL);
          oci_config_free (c);
          agentrt_error_release (&err);
          free (path);
          bad++;
          continue;
        }
      c = load (de->d_name);
      CHECK (c != NULL);
      if (c)
        check_round_trip (de->d_name, c);
      oci_config_free (c);
      good++;
    }
  if (d)
    closedir (d);
  CHECK (good >= 12 && bad >= 6);
}

/* Every field of the model is parsed and written: the every-field config
 * is already in the writer's canonical form. */
static void
test_kitchen_sink_exact (void)
{
  struct oci_config *c = load ("kitchen-sink.json");
  char *path = corpus_path ("kitchen-sink.json"), *json = NULL, text[16384];
  FILE *f = fopen (path, "r");
  size_t n = f ? fread (text, 1, sizeof text - 1, f) : 0;

  if (f)
    fclose (f);
  text[n] = '\0';
  if (n && text[n - 1] == '\n')
    text[n - 1] = '\0';
  CHECK (c != NULL && n > 0);
  if (c)
    json = write_json (c, false);
  CHECK_STR_EQ (json, text);
  free (json);
  free (path);
  oci_config_free (c);
}

static void
test_podman_fields (void)
{
  struct oci_config *c = load ("podman.json");
  const struct oci_namespace *net;
  const struct oci_seccomp *s;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK_STR_EQ (c->oci_version, "1.0.0");
  CHECK (c->process && c->process->terminal && c->process->user.has_umask
         && c->process->user.umask == 18);
  CHECK_STR_EQ (c->process->args.items[2], "python3 agent.py --task fix-tests");
  CHECK (c->process->args.items[c->process->args.len] == NULL);
  CHECK_STR_EQ (c->process->cwd, "/workspace");
  CHECK (c->process->n_rlimits == 2 && c->process->rlimits[1].resource == RLIMIT_NPROC
         && c->process->rlimits[1].hard == 4194304);
  CHECK (c->process->capabilities && c->process->capabilities->bounding.len == 11
         && c->process->capabilities->inheritable.len == 0);
  CHECK (c->n_mounts == 12);
  CHECK_STR_EQ (c->mounts[5].source, "/home/dev/project");
  CHECK (c->mounts[0].options.len == 3 && c->mounts[0].type != NULL);
  CHECK_STR_EQ (kv_list_get (&c->annotations, "run.agentrt.timeout"), "30m");
  net = oci_config_namespace (c, OCI_NS_NETWORK);
  CHECK (net && net->path && strncmp (net->path, "/run/netns/", 11) == 0);
  CHECK (oci_config_namespace (c, OCI_NS_USER) == NULL);
  CHECK (c->linux_cfg->resources->pids->has_limit
         && c->linux_cfg->resources->pids->limit == 2048);
  CHECK (c->linux_cfg->resources->n_devices == 1
         && !c->linux_cfg->resources->devices[0].allow
         && c->linux_cfg->resources->devices[0].type == 'a');
  s = c->linux_cfg->seccomp;
  CHECK (s && s->default_action == OCI_SECCOMP_ACT_ERRNO && s->has_default_errno_ret
         && s->default_errno_ret == 38 && s->n_syscalls == 14);
  CHECK (s && s->syscalls[8].n_args == 1 && s->syscalls[8].args[0].op == OCI_SECCOMP_OP_MASKED_EQ
         && s->syscalls[8].args[0].value == 2114060288);
  CHECK (s && str_list_contains (&s->syscalls[0].names, "openat2")
         && !str_list_contains (&s->syscalls[0].names, "ptrace"));
  CHECK_STR_EQ (kv_list_get (&c->linux_cfg->sysctl, "net.ipv4.ping_group_range"), "0 0");
  oci_config_free (c);
}

static void
test_odd_documents (void)
{
  struct oci_config *c = load ("odd-unicode.json");

  CHECK (c != NULL);
  if (c)
    {
      CHECK_STR_EQ (c->hostname, "caf\xc3\xa9-\xf0\x9f\x98\x80");
      CHECK_STR_EQ (kv_list_get (&c->annotations, "k\xc3\xa9y\n\"q\""), "tab\there");
      CHECK_STR_EQ (kv_list_get (&c->annotations, "A"), "/slash");
      CHECK_STR_EQ (c->process->args.items[2], "echo \"\\\\\"");
    }
  oci_config_free (c);
  c = load ("odd-duplicate-keys.json");
  CHECK (c != NULL);
  if (c)
    {
      CHECK_STR_EQ (c->root.path, "b");
      CHECK_STR_EQ (c->hostname, "second");
      CHECK (c->process->user.uid == 2 && c->process->args.len == 2);
      CHECK (c->linux_cfg->n_namespaces == 2
             && c->linux_cfg->namespaces[0].type == OCI_NS_NETWORK);
      CHECK (c->linux_cfg->sysctl.len == 2);
      CHECK_STR_EQ (kv_list_get (&c->linux_cfg->sysctl, "a"), "3");
    }
  oci_config_free (c);
  c = load ("odd-nulls.json");
  CHECK (c != NULL);
  if (c)
    CHECK (c->process->capabilities == NULL && c->process->env.len == 0
           && !c->process->has_oom_score_adj && c->linux_cfg->seccomp == NULL
           && !c->linux_cfg->time_offset_boottime.present);
  oci_config_free (c);
}

static void
test_helpers (void)
{
  struct kv_list kv = { NULL, 0 };
  struct str_list sl = { NULL, 0 };

  kv_list_set (&kv, "a", "1");
  kv_list_set (&kv, "b", "2");
  kv_list_set (&kv, "a", "3");
  CHECK (kv.len == 2);
  CHECK_STR_EQ (kv_list_get (&kv, "a"), "3");
  CHECK (kv_list_get (&kv, "c") == NULL);
  kv_list_free (&kv);
  CHECK (kv.len == 0 && kv.items == NULL);

  str_list_append (&sl, "x");
  str_list_append (&sl, "y");
  CHECK (sl.len == 2 && sl.items[2] == NULL && str_list_contains (&sl, "y")
         && !str_list_contains (&sl, "z"));
  str_list_free (&sl);

  for (int t = 0; t < OCI_NS_COUNT; t++)
    CHECK (oci_namespace_type_from_name (oci_namespace_type_name (t)) == t);
  CHECK (oci_namespace_type_from_name ("net") == -1);
  CHECK (oci_namespace_type_name (OCI_NS_COUNT) == NULL);
  CHECK_STR_EQ (oci_namespace_type_name (OCI_NS_TIME), "time");
  for (int a = OCI_SECCOMP_ACT_KILL; a <= OCI_SECCOMP_ACT_NOTIFY; a++)
    CHECK (oci_seccomp_action_from_name (oci_seccomp_action_name (a)) == a);
  for (int o = OCI_SECCOMP_OP_NE; o <= OCI_SECCOMP_OP_MASKED_EQ; o++)
    CHECK (oci_seccomp_op_from_name (oci_seccomp_op_name (o)) == o);
  CHECK (oci_rlimit_from_name ("RLIMIT_RTTIME") == RLIMIT_RTTIME);
  CHECK (oci_rlimit_from_name ("NOFILE") == -1);
}

/* Deep copies are independent and complete: the config written with a
 * copied process and seccomp is the same document. */
static void
test_dup (void)
{
  static const char *const names[] = { "kitchen-sink.json", "podman.json", "minimal.json" };

  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      struct oci_config *c = load (names[i]);
      char *before, *after;
      struct oci_process *p;
      struct oci_seccomp *s;

      CHECK (c != NULL);
      if (c == NULL)
        continue;
      before = write_json (c, false);
      p = oci_process_dup (c->process);
      s = c->linux_cfg ? oci_seccomp_dup (c->linux_cfg->seccomp) : NULL;
      oci_process_free (c->process);
      c->process = p;
      if (c->linux_cfg)
        {
          oci_seccomp_free (c->linux_cfg->seccomp);
          c->linux_cfg->seccomp = s;
        }
      after = write_json (c, false);
      CHECK_STR_EQ (after, before);
      free (before);
      free (after);
      oci_config_free (c);
    }
  CHECK (oci_process_dup (NULL) == NULL && oci_seccomp_dup (NULL) == NULL);
}

/* The writer refuses what it could not parse back. */
static void
test_write_refuses_invalid (void)
{
  struct oci_config *c = load ("minimal.json");
  agentrt_error_t err = NULL;
  char *json;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  free (c->root.path);
  c->root.path = NULL;
  json = oci_config_to_json (c, false, &err);
  CHECK (json == NULL);
  CHECK_STR_EQ (err ? err->msg : NULL,
                "cannot write config.json: `path` is missing or invalid");
  agentrt_error_release (&err);
  c->root.path = strdup ("rootfs");
  c->linux_cfg = calloc (1, sizeof (*c->linux_cfg));
  c->linux_cfg->namespaces = calloc (1, sizeof (struct oci_namespace));
  c->linux_cfg->n_namespaces = 1;
  c->linux_cfg->namespaces[0].type = OCI_NS_COUNT;
  json = oci_config_to_json (c, false, &err);
  CHECK (json == NULL);
  CHECK_CONTAINS (err ? err->msg : NULL, "linux.namespaces.type");
  agentrt_error_release (&err);
  oci_config_free (c);
}

int
main (void)
{
  RUN_TEST (test_corpus);
  RUN_TEST (test_kitchen_sink_exact);
  RUN_TEST (test_podman_fields);
  RUN_TEST (test_odd_documents);
  RUN_TEST (test_helpers);
  RUN_TEST (test_dup);
  RUN_TEST (test_write_refuses_invalid);
  return UNIT_EXIT ();
}
