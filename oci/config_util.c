/* Small helpers of the OCI config model: string lists, key/value lists,
 * namespace lookup, and the name tables the parser accepts (namespaces,
 * hooks, seccomp actions, operators, architectures and flags, memory
 * policy modes and flags, rlimits),
 * which `features` reports too. */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/xalloc.h"
#include "config_parse.h"

const char *const oci_namespace_names[OCI_NS_COUNT + 1] = {
  [OCI_NS_PID] = "pid",     [OCI_NS_NETWORK] = "network",
  [OCI_NS_MOUNT] = "mount", [OCI_NS_IPC] = "ipc",
  [OCI_NS_UTS] = "uts",     [OCI_NS_USER] = "user",
  [OCI_NS_CGROUP] = "cgroup", [OCI_NS_TIME] = "time",
};

const char *const oci_hook_names[] = {
  "prestart",        "createRuntime", "createContainer",
  "startContainer",  "poststart",     "poststop", NULL,
};

const char *const oci_seccomp_arch_names[] = {
  "SCMP_ARCH_X86",       "SCMP_ARCH_X86_64",      "SCMP_ARCH_X32",
  "SCMP_ARCH_ARM",       "SCMP_ARCH_AARCH64",     "SCMP_ARCH_MIPS",
  "SCMP_ARCH_MIPS64",    "SCMP_ARCH_MIPS64N32",   "SCMP_ARCH_MIPSEL",
  "SCMP_ARCH_MIPSEL64",  "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
  "SCMP_ARCH_PPC64",     "SCMP_ARCH_PPC64LE",     "SCMP_ARCH_S390",
  "SCMP_ARCH_S390X",     "SCMP_ARCH_PARISC",      "SCMP_ARCH_PARISC64",
  "SCMP_ARCH_RISCV64",   "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
  "SCMP_ARCH_SH",        "SCMP_ARCH_SHEB",        NULL,
};

const char *const oci_seccomp_flag_names[] = {
  "SECCOMP_FILTER_FLAG_TSYNC",      "SECCOMP_FILTER_FLAG_LOG",
  "SECCOMP_FILTER_FLAG_SPEC_ALLOW", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
  NULL,
};

/* In the runtime-spec's order. */
const char *const oci_mempolicy_mode_names[] = {
  "MPOL_DEFAULT",   "MPOL_BIND",           "MPOL_INTERLEAVE",
  "MPOL_WEIGHTED_INTERLEAVE", "MPOL_PREFERRED", "MPOL_PREFERRED_MANY",
  "MPOL_LOCAL",     NULL,
};

const char *const oci_mempolicy_flag_names[] = {
  "MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES",
  NULL,
};

const char *const oci_seccomp_action_names[] = {
  [OCI_SECCOMP_ACT_KILL] = "SCMP_ACT_KILL",
  [OCI_SECCOMP_ACT_KILL_PROCESS] = "SCMP_ACT_KILL_PROCESS",
  [OCI_SECCOMP_ACT_KILL_THREAD] = "SCMP_ACT_KILL_THREAD",
  [OCI_SECCOMP_ACT_TRAP] = "SCMP_ACT_TRAP",
  [OCI_SECCOMP_ACT_ERRNO] = "SCMP_ACT_ERRNO",
  [OCI_SECCOMP_ACT_TRACE] = "SCMP_ACT_TRACE",
  [OCI_SECCOMP_ACT_ALLOW] = "SCMP_ACT_ALLOW",
  [OCI_SECCOMP_ACT_LOG] = "SCMP_ACT_LOG",
  [OCI_SECCOMP_ACT_NOTIFY] = "SCMP_ACT_NOTIFY",
  NULL,
};

const char *const oci_seccomp_op_names[] = {
  [OCI_SECCOMP_OP_NE] = "SCMP_CMP_NE", [OCI_SECCOMP_OP_LT] = "SCMP_CMP_LT",
  [OCI_SECCOMP_OP_LE] = "SCMP_CMP_LE", [OCI_SECCOMP_OP_EQ] = "SCMP_CMP_EQ",
  [OCI_SECCOMP_OP_GE] = "SCMP_CMP_GE", [OCI_SECCOMP_OP_GT] = "SCMP_CMP_GT",
  [OCI_SECCOMP_OP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
  NULL,
};

static const struct
{
  const char *name;
  int resource;
} rlimits[] = {
  { "RLIMIT_AS", RLIMIT_AS },           { "RLIMIT_CORE", RLIMIT_CORE },
  { "RLIMIT_CPU", RLIMIT_CPU },         { "RLIMIT_DATA", RLIMIT_DATA },
  { "RLIMIT_FSIZE", RLIMIT_FSIZE },     { "RLIMIT_LOCKS", RLIMIT_LOCKS },
  { "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK }, { "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE },
  { "RLIMIT_NICE", RLIMIT_NICE },       { "RLIMIT_NOFILE", RLIMIT_NOFILE },
  { "RLIMIT_NPROC", RLIMIT_NPROC },     { "RLIMIT_RSS", RLIMIT_RSS },
  { "RLIMIT_RTPRIO", RLIMIT_RTPRIO },   { "RLIMIT_RTTIME", RLIMIT_RTTIME },
  { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING }, { "RLIMIT_STACK", RLIMIT_STACK },
};

/* Position of name in a NULL-terminated table, -1 if absent. */
static int
index_of (const char *const *names, const char *name)
{
  for (int i = 0; names[i]; i++)
    if (strcmp (names[i], name) == 0)
      return i;
  return -1;
}

/* Entries of a NULL-terminated table (without the terminator). */
#define COUNT(a) (sizeof (a) / sizeof ((a)[0]) - 1)

const char *
oci_namespace_type_name (enum oci_namespace_type type)
{
  return (unsigned) type < OCI_NS_COUNT ? oci_namespace_names[type] : NULL;
}

int
oci_namespace_type_from_name (const char *name)
{
  return index_of (oci_namespace_names, name);
}

const char *
oci_seccomp_action_name (enum oci_seccomp_action action)
{
  return (unsigned) action < COUNT (oci_seccomp_action_names)
             ? oci_seccomp_action_names[action]
             : NULL;
}

int
oci_seccomp_action_from_name (const char *name)
{
  return index_of (oci_seccomp_action_names, name);
}

const char *
oci_seccomp_op_name (enum oci_seccomp_op op)
{
  return (unsigned) op < COUNT (oci_seccomp_op_names) ? oci_seccomp_op_names[op]
                                                      : NULL;
}

int
oci_seccomp_op_from_name (const char *name)
{
  return index_of (oci_seccomp_op_names, name);
}

int
oci_rlimit_from_name (const char *name)
{
  for (size_t i = 0; i < sizeof rlimits / sizeof rlimits[0]; i++)
    if (strcmp (rlimits[i].name, name) == 0)
      return rlimits[i].resource;
  return -1;
}

const char *
kv_list_get (const struct kv_list *list, const char *key)
{
  for (size_t i = 0; i < list->len; i++)
    if (strcmp (list->items[i].key, key) == 0)
      return list->items[i].value;
  return NULL;
}

void
kv_list_set (struct kv_list *list, const char *key, const char *value)
{
  char *copy = xstrdup (value);

  for (size_t i = 0; i < list->len; i++)
    if (strcmp (list->items[i].key, key) == 0)
      {
        free (list->items[i].value);
        list->items[i].value = copy;
        return;
      }
  list->items = xreallocarray (list->items, list->len + 1, sizeof (*list->items));
  list->items[list->len].key = xstrdup (key);
  list->items[list->len].value = copy;
  list->len++;
}

void
str_list_append (struct str_list *list, const char *value)
{
  list->items = xreallocarray (list->items, list->len + 2, sizeof (char *));
  list->items[list->len++] = xstrdup (value);
  list->items[list->len] = NULL;
}

bool
str_list_contains (const struct str_list *list, const char *value)
{
  for (size_t i = 0; i < list->len; i++)
    if (strcmp (list->items[i], value) == 0)
      return true;
  return false;
}

const struct oci_namespace *
oci_config_namespace (const struct oci_config *config,
                      enum oci_namespace_type type)
{
  if (config->linux_cfg == NULL)
    return NULL;
  for (size_t i = 0; i < config->linux_cfg->n_namespaces; i++)
    if (config->linux_cfg->namespaces[i].type == type)
      return &config->linux_cfg->namespaces[i];
  return NULL;
}

char *
str_list_join (const struct str_list *list, const char *sep)
{
  size_t len = 1, i, seplen = strlen (sep);
  char *out, *p;

  for (i = 0; i < list->len; i++)
    len += strlen (list->items[i]) + seplen;
  out = p = xmalloc (len);
  *p = '\0';
  for (i = 0; i < list->len; i++)
    {
      size_t n = strlen (list->items[i]);
      if (i > 0)
        {
          memcpy (p, sep, seplen);
          p += seplen;
        }
      memcpy (p, list->items[i], n);
      p += n;
      *p = '\0';
    }
  return out;
}
